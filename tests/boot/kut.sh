#!/bin/bash
# kvm-unit-tests under minivmm: the suite (built out of tree by
# tools/kut.sh) runs through `minivmm test` with its own x86/unittests.cfg,
# limited to the tests that pass on this host (under QEMU, or under
# minivmm only because minivmm completes what the host's ring-0 emulator
# rejects; see docs/kvm-unit-tests.md).  One PASS/FAIL line per test.
# `make check-kut` runs the whole manifest beside QEMU instead.
. "$(dirname "$0")/lib.sh"

# Passing under QEMU here: SMP start, the vmexit costs, IDT, setjmp, the
# rmap chain, real mode with BIOS-like interrupts, S3 resume, LAM's base
# checks; intel_iommu SKIPs (no IOMMU in minivmm).  Then those QEMU fails
# here only for its host emulator: smap (clac/stac), memory (clwb),
# pcid-* (invpcid), rdpru, umip (user mode returns by int $0x20: the
# system-call fix); and msr/msr64 (MSRs follow the CPUID).
PASS_SET="smptest smptest3 vmexit_cpuid vmexit_mov_from_cr8 vmexit_mov_to_cr8
	vmexit_inl_pmtimer vmexit_ipi vmexit_ipi_halt vmexit_ple_round_robin
	vmexit_tscdeadline vmexit_tscdeadline_immed vmexit_cr0_wp
	vmexit_cr4_pge idt_test setjmp rmap_chain realmode s3 lam intel_iommu
	smap memory pcid-enabled pcid-disabled pcid-asymmetric rdpru umip msr
	msr64"
# Under ASan+UBSan a shorter list that still crosses every new device:
# fw_cfg, AP start, PM timer, RTC and S3, pc-testdev, real mode.
ASAN_SET="smptest3 setjmp idt_test vmexit_inl_pmtimer s3 lam pcid-disabled
	rdpru memory realmode"

set=$PASS_SET
[ "$BUILD" = build-asan ] && set=$ASAN_SET
if ! x86=$(BUILD=build tools/kut.sh 2>"$TMP/kut.err"); then
	fail kut-build "$(cat "$TMP/kut.err")"
	exit 0
fi
pass kut-build
# shellcheck disable=SC2086
timeout -k 5 1500 "$MINIVMM" test -j 2 --logs "$TMP/logs" \
	--tap "$TMP/kut.tap" "$x86/unittests.cfg" $set \
	>"$TMP/run.out" 2>"$TMP/run.err"
status=$?
while read -r verdict name rest; do
	case $verdict in
	PASS) pass "kut/$name" ;;
	SKIP) if [ "$name" = intel_iommu ]; then pass "kut/$name-skips"
	      else fail "kut/$name" "SKIP $rest"; fi ;;
	FAIL | TIMEOUT) fail "kut/$name" "$verdict $rest"
		sed 's/^/    /' "$TMP/logs/$name.log" | tail -n 20 ;;
	esac
done <"$TMP/run.out"
[ "$status" = 0 ] && pass kut-status ||
	fail kut-status "minivmm test exited $status: $(tail -n 3 "$TMP/run.err")"
tail -n 1 "$TMP/run.out"
