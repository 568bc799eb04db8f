#!/bin/bash
# Instruction completion (vmm/pvm/emulate.c): the emulate payload checks in the
# guest that int3, cmpxchg16b, popcnt, fwait and clac/stac behave as on
# the CPU.  On hosts whose KVM emulates guest ring 0, --stats must show
# that minivmm completed them; elsewhere the CPU ran them.
. "$(dirname "$0")/lib.sh"

pvm=
[ -e /sys/module/kvm_pvm ] && pvm=ring0-emulated
vm emulate 30 --kernel "$GUESTS/emulate.elf" --stats --append "$pvm"
expect emulate 0 'emulate: 0 failure' ''
if [ -e /sys/module/kvm_pvm ]; then
	grep -qE '^  int3 1  cmpxchg16b [1-9][0-9]*  clac/stac 2  popcnt [1-9][0-9]*  fwait [1-9][0-9]*  faults injected 1$' \
		"$TMP/emulate.err" &&
		pass "emulate: minivmm completed each instruction" ||
		fail emulate "--stats lacks the completion counts"
fi

# --cpuid +name shows again what minivmm hides here (to try it on
# purpose): the payload then finds PV_UNHALT and says so.
if [ -e /sys/module/kvm_pvm ]; then
	vm emulate-unhide 30 --kernel "$GUESTS/emulate.elf" \
		--cpuid +kvm-pv-unhalt --append "$pvm"
	kvm=$(sed -n 's/^emulate: CPUID.1:ECX 0x[0-9a-f]*, KVM features \(0x[0-9a-f]*\)$/\1/p' \
		"$TMP/emulate-unhide.out")
	[ -n "$kvm" ] && [ $((kvm & 0x80)) -ne 0 ] &&
		grep -q 'CPUID shows KVM_FEATURE_PV_UNHALT' \
			"$TMP/emulate-unhide.out" &&
		pass "emulate-unhide: --cpuid +kvm-pv-unhalt shows it" ||
		fail emulate-unhide "KVM features '$kvm' lack PV_UNHALT (bit 7)"
fi

# A payload that is not Linux keeps its command line as given.
vm hello-cmdline 30 --kernel "$GUESTS/hello.elf" --append "expect-ram=256 hi"
expect hello-cmdline 0 'hello from payload'
! grep -q "adding '" "$TMP/hello-cmdline.err" &&
	pass "hello-cmdline: no parameters added to a non-Linux payload" ||
	fail hello-cmdline "parameters added to a non-Linux payload"
