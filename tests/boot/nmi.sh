#!/bin/bash
# NMIs sent between vCPUs through the in-kernel local APIC (ICR delivery
# mode NMI), as Linux's NMI backtrace sends them: the nmi_ipi payload
# (tests/guest/nmi_ipi.c) puts the second vCPU in a ring-0 loop with
# interrupts off, one with interrupts on, hlt with IF=1, a ring-3 loop,
# a ring-3 SYSCALL loop and hlt with IF=0, sends an NMI to it in each
# (fixed destination and the all-but-self shorthand), and checks its
# vector-2 handler ran once, in that state, and that the ICR's delivery
# status went idle.  Each case waits a bounded number of TSC cycles and
# says when it timed out.  Variants: Linux's ways (the handler on an IST
# stack, flat logical destinations, x2APIC through the ICR MSR), and a
# destination with no CPU behind it, whose cases must time out and fail
# the payload without hanging it.
# KVM's paravirtual IPI (VMCALL KVM_HC_SEND_IPI), which Linux uses for
# NMIs when CPUID offers KVM_FEATURE_PV_SEND_IPI: where KVM emulates guest
# ring 0 (PVM) no VMCALL from ring 0 ever returns, so minivmm hides the
# feature there (vmm/x86/cpuid.c) and the payload, as Linux, sends through
# the ICR instead; shown on purpose (--cpuid +kvm-pv-send-ipi) the vCPU
# stays at its VMCALL until --timeout, as does any hypercall number.
. "$(dirname "$0")/lib.sh"

# nmi NAME ARGS: every case delivered.
nmi() {
	local name=$1 n
	vm "$name" 120 -c 2 --kernel "$GUESTS/nmi_ipi.elf" --timeout 100 \
		--append "$2"
	expect "$name" 0 'nmi_ipi: 0 failure' 'guest test-exit 0x0'
	n=$(grep -c 'nmi_ipi: case .*: delivered' "$TMP/$name.out")
	[ "$n" -eq 12 ] && pass "$name: 12 cases delivered" ||
		fail "$name" "$n of 12 cases delivered"
}

nmi nmi ""
nmi nmi-ist-x2apic "ist x2apic"
nmi nmi-ist-logical "ist logical"
nmi nmi-pvipi "pvipi x2apic"
if [ -e /sys/module/kvm_pvm ]; then
	grep -q 'nmi_ipi: no PV_SEND_IPI in CPUID' "$TMP/nmi-pvipi.out" &&
		pass "nmi-pvipi: PV_SEND_IPI hidden, the ICR used" ||
		fail nmi-pvipi "PV_SEND_IPI not hidden"
	# at_vmcall NAME: timed out with vCPU 0 at one of the payload's VMCALLs.
	at_vmcall() {
		local rip
		rip=$(sed -n 's/^minivmm: vCPU 0 at RIP 0x\([0-9a-f]*\) .*/\1/p' \
			"$TMP/$1.err")
		[ "$status" = 124 ] && [ -n "$rip" ] &&
			objdump -d "$GUESTS/nmi_ipi.elf" |
			grep -qE "^ *$rip:.*vmcall" &&
			pass "$1: the host never completes the VMCALL" ||
			fail "$1" "status $status, vCPU 0 at '$rip', not a VMCALL"
	}
	vm nmi-pvipi-shown 60 -c 2 --kernel "$GUESTS/nmi_ipi.elf" \
		--timeout 8 --cpuid +kvm-pv-send-ipi --append "pvipi x2apic"
	at_vmcall nmi-pvipi-shown
	vm nmi-hc-unknown 60 -c 2 --kernel "$GUESTS/nmi_ipi.elf" \
		--timeout 8 --append "hc=1000"
	at_vmcall nmi-hc-unknown
else
	grep -q 'nmi_ipi: KVM_HC_SEND_IPI' "$TMP/nmi-pvipi.out" &&
		pass "nmi-pvipi: sent by hypercall" ||
		fail nmi-pvipi "PV_SEND_IPI not offered"
	vm nmi-hc-unknown 60 -c 2 --kernel "$GUESTS/nmi_ipi.elf" \
		--timeout 30 --append "hc=1000"
	expect nmi-hc-unknown 0 'VMCALL 1000 returned -1000'
fi

# No APIC 5: the six fixed-destination cases time out (the last leaves
# the AP in hlt with IF=0, so case 11 never starts); the shorthand ones
# still arrive.
vm nmi-nodest 120 -c 2 --kernel "$GUESTS/nmi_ipi.elf" --timeout 100 \
	--append "dest=5 wait=0x40000000"
expect nmi-nodest 1 'nmi_ipi: 8 failure' 'guest test-exit 0x1'
t=$(grep -c 'nmi_ipi: case .*: TIMED OUT' "$TMP/nmi-nodest.out")
d=$(grep -c 'nmi_ipi: case .*: delivered' "$TMP/nmi-nodest.out")
[ "$t" -eq 6 ] && [ "$d" -eq 5 ] &&
	pass "nmi-nodest: 6 cases timed out, 5 delivered" ||
	fail nmi-nodest "$t cases timed out, $d delivered"
