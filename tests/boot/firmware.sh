#!/bin/bash
# Firmware: its console, ACPI tables dumped from a booted guest through
# iasl, the boot milestones, and the failures that must be loud.  (PCI
# resources, MTRRs on every vCPU and the tables an OS reads are checked by
# the firmware payloads: guests.sh.)
. "$(dirname "$0")/lib.sh"

# The firmware payloads (fwmtrr, fwtables) under each configuration are
# entries of tests/guest/unittests.cfg, run by guests.sh.

# The firmware's own console: one line per BAR, the Xen BAR where
# hvmloader 22650d6 puts it (top of the window for wb, bottom for uc).
vm console-wb 30
expect console-wb 0 \
	'^pci 00:03\.0 5853:0001 BAR1 mem32 pref 0xdf000000\+0x1000000$'
grep -qE '^mtrr: default WB, [0-9]+ of [0-9]+ variable MTRRs$' \
	"$TMP/console-wb.out" && pass console-mtrr ||
	fail console-wb "no mtrr line"
vm console-uc 30 --xen-bar-mtrr uc
expect console-uc 0 \
	'^pci 00:03\.0 5853:0001 BAR1 mem32 pref 0xc0000000\+0x1000000$'

# Milestones in phase order, ending at the payload.
vm milestones 30 --timing -c 2 --kernel "$GUESTS/hello.elf"
expect milestones 0 '' 'payload entry'
order=$(grep -oE '\[0x0[1-8]\]|\[0x40\]' "$TMP/milestones.err" | tr -d '\n')
[ "$order" = "[0x01][0x02][0x03][0x04][0x05][0x06][0x07][0x08][0x40]" ] &&
	pass milestones-order || fail milestones "order $order"

# A layout that cannot fit: one variable MTRR.  Loud, with the firmware
# failure status, never a silently wrong range.
vm mtrr-nofit 30 --msr "MTRRcap r value=0x501"
expect mtrr-nofit 6 \
	'^firmware: error: MTRR layout needs [0-9]+ variable MTRRs, the CPU has 1$'
! grep -q '^mtrr: default' "$TMP/mtrr-nofit.out" &&
	pass mtrr-nofit-no-layout || fail mtrr-nofit "a layout was printed"
# The uc layout needs two: enough with 2, not with 1.
vm mtrr-uc-2 30 --msr "MTRRcap r value=0x502" --xen-bar-mtrr uc
expect mtrr-uc-2 0 '^mtrr: default WB, 2 of 2 variable MTRRs$'

# ACPI tables dumped from the booted guest (--dump-acpi), through ACPICA:
# every table disassembles, data tables recompile to the same bytes, the
# DSDT recompiles; any warning, error or remark fails.
iasl_check() {
	local name=$1 dir=$TMP/$1.acpi bad=
	shift
	mkdir -p "$dir"
	vm "$name" 30 --dump-acpi "$dir" "$@"
	expect "$name" 0
	if ! command -v iasl >/dev/null; then
		fail "$name" "iasl not installed"
		return
	fi
	for t in "$dir"/*.dat; do
		local b=${t%.dat}
		# iasl cannot disassemble a standalone RSDP.
		[ "$(basename "$b")" = rsdp ] && continue
		if ! (cd "$dir" && iasl -d "$t") >"$b.d.log" 2>&1 ||
		   grep -qiE 'warning|error|remark' "$b.d.log" "$b.dsl"; then
			bad="$bad $(basename "$t"):disassembly"
			continue
		fi
		if [ "$(basename "$b")" = dsdt ]; then
			(cd "$dir" && iasl -w3 -p "${b}_rc" "$b.dsl") \
				>"$b.c.log" 2>&1
		else
			(cd "$dir" && iasl -w3 -z -p "${b}_rc" "$b.dsl") \
				>"$b.c.log" 2>&1 && cmp -s "$t" "${b}_rc.aml" ||
				bad="$bad $(basename "$t"):roundtrip"
		fi
		grep -q 'Compilation successful. 0 Errors, 0 Warnings, 0 Remarks' \
			"$b.c.log" || bad="$bad $(basename "$t"):compile"
	done
	for sig in dsdt facp apic xsdt; do
		[ -f "$dir/$sig.dat" ] || bad="$bad $sig:missing"
	done
	grep -q 'PNP0A08' "$dir/dsdt.dsl" 2>/dev/null ||
		bad="$bad dsdt:no-PNP0A08"
	if [ -n "$bad" ]; then
		fail "$name" "iasl:$bad"
	else
		pass "$name-iasl"
	fi
}
iasl_check acpi-c1
iasl_check acpi-c4 -c 4
iasl_check acpi-noecam --ecam off
[ -f "$TMP/acpi-c1.acpi/mcfg.dat" ] && grep -q PNP0C02 \
	"$TMP/acpi-c1.acpi/dsdt.dsl" && pass acpi-mcfg-ecam ||
	fail acpi-c1 "no MCFG or no PNP0C02 ECAM resource"
[ ! -f "$TMP/acpi-noecam.acpi/mcfg.dat" ] && pass acpi-noecam-no-mcfg ||
	fail acpi-noecam "MCFG dumped with --ecam off"
exit 0
