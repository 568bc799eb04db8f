#!/bin/bash
# minivmm's own guest payloads through the test runner: every entry of
# tests/guest/unittests.cfg (hello, emulate, the firmware payloads under
# each configuration), one PASS/FAIL line each, then what the runner's
# files and logs must hold.
. "$(dirname "$0")/lib.sh"

MANIFEST=tests/guest/unittests.cfg
timeout -k 5 600 "$MINIVMM" test -j 2 --kernel-dir "$GUESTS" \
	--logs "$TMP/logs" --tap "$TMP/guests.tap" --junit "$TMP/guests.xml" \
	"$MANIFEST" >"$TMP/run.out" 2>"$TMP/run.err"
status=$?
while read -r verdict name rest; do
	case $verdict in
	PASS) pass "guest/$name" ;;
	FAIL | TIMEOUT) fail "guest/$name" "$verdict $rest (log: $TMP/logs/$name.log)"
		sed 's/^/    /' "$TMP/logs/$name.log" | tail -n 15 ;;
	esac
done <"$TMP/run.out"
# The run's status, TAP and JUnit agree with the verdicts above (which
# judge each entry: the hardware lane expects some to fail).
nf=$(grep -cE '^(FAIL|TIMEOUT) ' "$TMP/run.out")
want=0
[ "$nf" -gt 0 ] && want=1
[ "$status" = $want ] && pass guests-status ||
	fail guests-status "minivmm test exited $status with $nf failed, expected $want: $(cat "$TMP/run.err")"

# Each firmware payload said so itself, not just by powering off.
for log in "$TMP"/logs/mtrr-*.log "$TMP"/logs/tables-*.log; do
	elf=fwmtrr
	case $log in *tables-*) elf=fwtables ;; esac
	grep -q "^$elf: all checks passed" "$log" ||
		{ fail "$(basename "$log" .log)-said" "no '$elf: all checks passed'"; continue; }
done
grep -q '^mtrr: AP #3: 28 MSRs as expected' "$TMP/logs/mtrr-c4.log" &&
	pass mtrr-c4-all-aps || fail mtrr-c4-all-aps "AP #3 not checked"

# The snapshot = port entries: one snapshot per machine (ready-ram's for
# the three 128 MiB one-vCPU entries, one each for 2 vCPUs and 512 MiB),
# every entry restored from its group's with its own test_args.
grep -q '^SNAPSHOT ready-ram taken in .*; 3 test(s) start from it' \
	"$TMP/run.out" && grep -q '^SNAPSHOT ready-smp2 taken' "$TMP/run.out" &&
	grep -q '^SNAPSHOT ready-512m taken' "$TMP/run.out" &&
	[ "$(grep -c '^SNAPSHOT' "$TMP/run.out")" = 3 ] &&
	pass ready-snapshots || fail ready-snapshots "$(grep SNAPSHOT "$TMP/run.out")"
ok=1
for t in ready-ram:ready-ram:expect-ram=128 ready-mix:ready-ram:mix=1000 \
	ready-mix-long:ready-ram:mix=100000 ready-smp2:ready-smp2:mix=1000 \
	ready-512m:ready-512m:expect-ram=512; do
	IFS=: read -r name snap args <<<"$t"
	grep -q -- "--restore $TMP/logs/$snap.snap " "$TMP/logs/$name.log" &&
		grep -q "^ready: generation 1, args '$args" "$TMP/logs/$name.log" ||
		{ ok=0; fail "$name-restored" "not restored from $snap.snap with its args"; }
done
[ $ok = 1 ] && pass ready-restored-with-args

# A restored test's verdict is its own; a payload that never asks for its
# snapshot boots in full; --no-snapshots boots every entry.
printf '[r1]\nfile = ready.elf\ntest_args = fail\nsnapshot = port\n[r2]\nfile = ready.elf\ntest_args = mix=1000 expect=14c7af49ec6dbd6f\nsnapshot = port\n[h]\nfile = hello.elf\nsnapshot = port\n' \
	>"$TMP/ready.cfg"
vm ready-verdicts 60 test -j 2 --logs "$TMP/logs-r" --kernel-dir "$GUESTS" \
	"$TMP/ready.cfg"
expect ready-verdicts 1 '^FAIL r1 '
grep -q '^PASS r2 ' "$TMP/ready-verdicts.out" &&
	grep -q '^PASS h ' "$TMP/ready-verdicts.out" &&
	grep -q '^SNAPSHOT h not taken .*boot in full' "$TMP/ready-verdicts.out" &&
	pass ready-verdicts-each || fail ready-verdicts-each \
	"$(cat "$TMP/ready-verdicts.out")"
grep -q '^FAIL: failing on purpose' "$TMP/logs-r/r1.log" &&
	grep -q 'generation 1' "$TMP/logs-r/r1.log" && pass ready-fail-own ||
	fail ready-fail-own "r1 did not fail by itself after a restore"
vm ready-none 60 test --no-snapshots --logs "$TMP/logs-n" \
	--kernel-dir "$GUESTS" "$TMP/ready.cfg" r2
expect ready-none 0 '^PASS r2 '
grep -q "^ready: generation 0, args 'mix=1000" "$TMP/logs-n/r2.log" &&
	! grep -q '^SNAPSHOT' "$TMP/ready-none.out" && pass ready-no-snapshots ||
	fail ready-no-snapshots "--no-snapshots still restored"

# The CI files: TAP counts every entry, JUnit parses.
n=$(grep -c '^\[' "$MANIFEST")
grep -q "^1\.\.$n\$" "$TMP/guests.tap" && pass guests-tap ||
	fail guests-tap "no 1..$n plan"
[ "$(grep -c '^ok ' "$TMP/guests.tap")" = "$((n - nf))" ] && pass guests-tap-ok ||
	fail guests-tap-ok "TAP's ok lines are not the $((n - nf)) passed entries"
python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
s = r.find("testsuite")
assert int(s.get("tests")) == int(sys.argv[2]), s.get("tests")
bad = int(s.get("failures")) + int(s.get("errors") or 0)
assert bad == int(sys.argv[3]), bad' "$TMP/guests.xml" "$n" "$nf" 2>"$TMP/xml.err" &&
	pass guests-junit || fail guests-junit "$(cat "$TMP/xml.err")"

# Bad input to the runner: one line, status 2, before anything runs.
printf '[a]\nsmp = many\n' >"$TMP/bad.cfg"
printf '[a]\nfile = hello.elf\n' >"$TMP/one.cfg"
runner_bad() {
	local name=$1 want=$2
	shift 2
	vm "$name" 30 test --logs "$TMP/logs-bad" "$@"
	if [ "$status" = 2 ] && [ "$(wc -l <"$TMP/$name.err")" = 1 ] &&
	   grep -q -- "$want" "$TMP/$name.err"; then
		pass "$name"
	else
		fail "$name" "status $status, expected 2 and one line with '$want'"
	fi
}
runner_bad bad-test-manifest "bad.cfg:2: smp 'many'" "$TMP/bad.cfg"
runner_bad bad-test-missing "cannot open" "$TMP/nope.cfg"
runner_bad bad-test-name "no test 'b'" "$TMP/one.cfg" b
runner_bad bad-test-jobs "expected 1..64" -j 0 "$TMP/one.cfg"
runner_bad bad-test-timeout "expected seconds" --timeout soon "$TMP/one.cfg"
runner_bad bad-test-peer "expected qemu" --peer xen "$TMP/one.cfg"
runner_bad bad-test-noargs "no manifest"
vm test-fail 60 test --logs "$TMP/logs-f" --kernel-dir "$GUESTS" \
	"$TMP/one.cfg"
expect test-fail 0 '^PASS a '
printf '[t]\nfile = triple.elf\n[s]\nfile = spin.elf\ntimeout = 1\n' \
	>"$TMP/fail.cfg"
vm test-fails 60 test --logs "$TMP/logs-f" --kernel-dir "$GUESTS" \
	"$TMP/fail.cfg"
expect test-fails 1 '^FAIL t \(minivmm: triple fault'
grep -q '^TIMEOUT s (timeout; duration=1s)' "$TMP/test-fails.out" &&
	pass test-fails-timeout || fail test-fails-timeout "no TIMEOUT line"
