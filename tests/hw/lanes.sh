#!/bin/bash
# lanes.sh [--npt on|off] [--limit SECS] TEST...: the TESTs (tests/boot
# names) in lane L1s (check-hw.sh each), two at once, one per host core:
# - the payloads' tests in an L1 of two CPUs, logs in $BUILD/hw/npt-NPT/:
#   with one, gdb.sh's 2-vCPU guest spinning both vCPUs starved the rest
#   of L1 and gdb did not attach (1 of 2 fresh-clone runs, 2026-12-02);
# - the Linux guests' tests (those that boot a Linux kernel) in an L1 of
#   one CPU, logs in $BUILD/hw/linux-npt-NPT/: with two, 2-vCPU Linux
#   guests in L2 hung in 7 of 24 boots, with minivmm and with QEMU alike
#   (docs/hw-lane.md).  It starts once the kernel built for minivmm is
#   ready (tools/check-kernel.sh wait: make check began its build);
# - kvm-unit-tests (kut) in an L1 of one CPU, logs in $BUILD/hw/kut-npt-NPT/,
#   after the payloads' L1 on the same core: its expected failures
#   (tests/hw/kut-xfail.txt) were checked with one L1 CPU, and several of
#   its entries have 2 vCPUs, as the Linux guests that hung with two.
# Each L1 runs on one TCG thread, so two at once take the time of the
# longer instead of the sum.  Prints each check-hw.sh report, then
# "N passed, N failed" over all (a kernel that failed to build is one
# failure).  Exit status 0 no unexpected failure, 1 some, 77 the lane
# cannot run here.
set -u
cd "$(dirname "$0")/../.."
here=tests/hw
npt=on limit=900
while [ $# -gt 0 ]; do
	case $1 in
	--npt) npt=$2; shift 2 ;;
	--limit) limit=$2; shift 2 ;;
	-*) echo "lanes: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: lanes.sh [--npt on|off] [--limit SECS] TEST..." >&2; exit 2; }
BUILD=${BUILD:-build}
logs=$BUILD/test-logs
mkdir -p "$logs"

payloads= linux= kernel= kut=
for t in "$@"; do
	f=tests/boot/$t.sh
	if [ "$t" = kut ]; then
		kut=kut
	elif grep -q 'tools/\(build\|fetch\)-kernel.sh\|^minivmm_kernel ' "$f" \
		2>/dev/null; then
		linux="$linux $t"
		# lib.sh's minivmm_kernel asks build-kernel.sh too.
		grep -q 'tools/build-kernel.sh\|^minivmm_kernel ' "$f" && kernel=1
	else
		payloads="$payloads $t"
	fi
done

# run LOG CPUS ARGS...: one check-hw.sh; "STATUS" in LOG.rc.
run() {
	local log=$1 cpus=$2
	shift 2
	MINIVMM_L1_CPUS=$cpus "$here/check-hw.sh" --npt "$npt" --limit "$limit" \
		"$@" >"$log" 2>&1
	echo $? >"$log.rc"
}

rm -f "$logs"/lane-*.log "$logs"/lane-*.log.rc	# a run before
# The payloads', then kvm-unit-tests' L1, on one core.
{
	[ -n "$payloads" ] && run "$logs/lane-payloads.log" 2 $payloads
	[ -n "$kut" ] && run "$logs/lane-kut.log" 1 --name kut --mem 4G kut
} &
krc=0
if [ -n "$linux" ]; then
	if [ -n "$kernel" ]; then
		tools/check-kernel.sh wait >"$logs/lane-kernel.log" 2>&1
		krc=$?
	fi
	if [ $krc -eq 0 ]; then
		run "$logs/lane-linux.log" 1 --name linux --mem 4G $linux
	fi
fi
wait

passed=0 failed=0 skipped=0
[ -n "$kernel" ] && [ -n "$linux" ] && cat "$logs/lane-kernel.log"
[ $krc -eq 0 ] || failed=1
for l in payloads kut linux; do
	log=$logs/lane-$l.log
	[ -f "$log.rc" ] || continue
	echo "== the $l lane ($log)"
	grep -v -E '^[0-9]+ passed, [0-9]+ failed$' "$log"
	rc=$(cat "$log.rc")
	[ "$rc" -eq 77 ] && { skipped=$((skipped + 1)); continue; }
	tally=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	p=${tally%% *}
	f=${tally#* passed, }; f=${f%% *}
	[ -n "$tally" ] || { p=0; f=0; }
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1	# died, or L1 hung
	passed=$((passed + p)) failed=$((failed + f))
done
# Both could not run: say so as check-hw.sh does (tests/run.sh skips).
if [ $passed -eq 0 ] && [ $failed -eq 0 ] && [ $skipped -gt 0 ]; then
	exit 77
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
