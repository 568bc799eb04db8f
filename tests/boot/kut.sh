#!/bin/bash
# kvm-unit-tests under minivmm: the suite (built out of tree by
# tools/kut.sh) runs through `minivmm test` with its own x86/unittests.cfg:
# every default entry but the nested-virtualization ones (vmx*, svm*, ept*:
# on a host without VMX/SVM they boot for seconds to SKIP with 0 tests),
# with tests/kut-xfail.txt naming the entries that fail on this host and
# why (docs/kvm-unit-tests.md).  Expected failures get 5 s: they run so
# that one that starts passing quickly is an XPASS (which fails make check
# until it comes off the list), not to be waited for (make check-kut runs
# them in full).  Every other test gets 180 s: the suite's 90 s are for
# hardware virtualization, and here msr64 alone takes 77 s on a quiet
# host and runs out of its 90 on a busy one (a hang still ends).  Run as
# CI engines run it, in two shards (--shard 1/2, 2/2, side by side at -j 1
# each): together they must run the whole selection, each test exactly
# once.  One PASS/FAIL line per test.  `make check-kut` runs the whole
# manifest beside QEMU.
. "$(dirname "$0")/lib.sh"

# MINIVMM_KUT_XFAIL: another host's list (the lane: tests/hw/lane.sh).
XFAIL=${MINIVMM_KUT_XFAIL:-tests/kut-xfail.txt}
# la57 on a CPU without LA57 checks that 48-bit non-canonical bases
# (0xffaa...) fault; this host's emulated ring 0 takes them (the msr
# test's gap).  With LA57 those values are canonical and it passes.
if [ -z "${MINIVMM_KUT_XFAIL:-}" ] && ! grep -qw la57 /proc/cpuinfo; then
	{ cat "$XFAIL"
	  echo "la57            this CPU has no LA57: 48-bit non-canonical GDTR, TR, LDT and FS bases are taken without a fault, then a triple fault"
	} >"$TMP/kut-xfail.txt"
	XFAIL=$TMP/kut-xfail.txt
fi
SELECT=(--filter '-vmx*:svm*:ept*' --timeout "$(secs 180)" --xfail-timeout 5)
# Under ASan+UBSan a shorter list that still crosses every new device:
# fw_cfg, AP start, PM timer, RTC and S3, pc-testdev, real mode.
[ "$BUILD" = build-asan ] && SELECT=(--filter 'smptest3:setjmp:idt_test:vmexit_inl_pmtimer:s3:lam:pcid-disabled:rdpru:memory:realmode')

if ! x86=$(BUILD=build tools/kut.sh 2>"$TMP/kut.err"); then
	fail kut-build "$(cat "$TMP/kut.err")"
	exit 0
fi
pass kut-build
cfg=$x86/unittests.cfg
if ! "$MINIVMM" test --list --xfail "$XFAIL" "${SELECT[@]}" "$cfg" \
	>"$TMP/all.list" 2>"$TMP/list.err"; then
	fail kut-list "$(cat "$TMP/list.err")"
	exit 0
fi
pids=()
for i in 1 2; do
	timeout -k 5 "$(secs 1500)" "$MINIVMM" test -j 1 --shard "$i/2" --xfail "$XFAIL" \
		"${SELECT[@]}" --logs "$TMP/logs$i" --junit "$TMP/kut$i.xml" \
		"$cfg" >"$TMP/run$i.out" 2>"$TMP/run$i.err" &
	pids+=($!)
done
wait "${pids[0]}"; s1=$?
wait "${pids[1]}"; s2=$?
for i in 1 2; do
	while read -r verdict name rest; do
		case $verdict in
		PASS | XFAIL) pass "kut/$name" ;;	# SKIPs count neither way
		XPASS) fail "kut/$name" "XPASS $rest: take it off $XFAIL" ;;
		FAIL | TIMEOUT) fail "kut/$name" "$verdict $rest"
			sed 's/^/    /' "$TMP/logs$i/$name.log" | tail -n 20 ;;
		esac
	done <"$TMP/run$i.out"
done
[ "$s1" = 0 ] && [ "$s2" = 0 ] && pass kut-status ||
	fail kut-status "minivmm test exited $s1 and $s2: $(tail -n 3 "$TMP"/run*.err)"

# The shards' union is the selection, each test exactly once (by the
# console lines and by the JUnit files).
lines() { awk '$1 ~ /^(PASS|FAIL|SKIP|TIMEOUT|XFAIL|XPASS|FLAKY)$/ { print $2 }' "$@" | sort; }
sort "$TMP/all.list" >"$TMP/want"
lines "$TMP/run1.out" "$TMP/run2.out" >"$TMP/got"
python3 -c 'import sys, xml.etree.ElementTree as E
for f in sys.argv[1:]:
    for c in E.parse(f).getroot().iter("testcase"):
        print(c.get("name"))' "$TMP/kut1.xml" "$TMP/kut2.xml" 2>&1 | sort >"$TMP/junit"
if [ -s "$TMP/want" ] && cmp -s "$TMP/want" "$TMP/got" && cmp -s "$TMP/want" "$TMP/junit" &&
   grep -q '^SHARD 1/2 (--shard)' "$TMP/run1.out" && grep -q '^SHARD 2/2 (--shard)' "$TMP/run2.out"; then
	pass "kut-shards-union ($(wc -l <"$TMP/want") tests over 2 shards)"
else
	fail kut-shards-union "$(diff "$TMP/want" "$TMP/got" | head; diff "$TMP/want" "$TMP/junit" | head)"
fi
tail -n 1 "$TMP/run1.out" "$TMP/run2.out"
