#!/bin/bash
# NMIs sent between vCPUs through the in-kernel local APIC (ICR delivery
# mode NMI), as Linux's NMI backtrace sends them: the nmi_ipi payload
# (tests/guest/nmi_ipi.c) puts the second vCPU in a ring-0 loop with
# interrupts off, one with interrupts on, hlt, and a ring-3 loop, sends
# an NMI to it in each (fixed destination and the all-but-self
# shorthand) and checks its vector-2 handler ran once, in that state, and
# that the ICR's delivery status went idle.  Each case waits a bounded
# number of TSC cycles and says when it timed out.
. "$(dirname "$0")/lib.sh"

vm nmi 120 -c 2 --kernel "$GUESTS/nmi_ipi.elf" --timeout 100
expect nmi 0 'nmi_ipi: 0 failure' 'guest test-exit 0x0'
n=$(grep -c 'nmi_ipi: case .*: delivered' "$TMP/nmi.out")
[ "$n" -eq 8 ] && pass "nmi: 8 cases delivered" ||
	fail nmi "$n of 8 cases delivered"
