#!/bin/bash
# minivmm test as CI engines run it (docs/ci.md): shards from --shard, from
# GitLab's CI_NODE_* and from Bazel's TEST_* variables (the same tests for
# the same shard, every test in exactly one), bad shard values refused,
# Bazel's files (XML_OUTPUT_FILE, TEST_UNDECLARED_OUTPUTS_DIR, TEST_TMPDIR,
# TEST_SHARD_STATUS_FILE, TESTBRIDGE_TEST_ONLY), TEST_TIMEOUT as the run's
# budget, expected failures (--xfail) and retries, and minivmm's own
# failures (status 3, TEST_INFRASTRUCTURE_FAILURE_FILE).  Real guests:
# hello.elf passes, triple.elf triple-faults, spin.elf never ends.
. "$(dirname "$0")/lib.sh"

# Seven entries that SKIP without starting a VM (i386 only), for the
# shard arithmetic, and the real ones.
for i in 1 2 3 4 5 6 7; do printf '[s%d]\nfile = hello.elf\narch = i386\n' $i; done \
	>"$TMP/skips.cfg"
printf '[hello]\nfile = hello.elf\n[hello-2]\nfile = hello.elf\n[triple]\nfile = triple.elf\n[spin]\nfile = spin.elf\ntimeout = 1\n' \
	>"$TMP/real.cfg"

names() { awk '$1 ~ /^(PASS|FAIL|SKIP|TIMEOUT|XFAIL|XPASS|FLAKY)$/ { print $2 }' "$1"; }

# --- shards ---------------------------------------------------------------
ok=1
for n in 1 2 3 4 7 8; do
	: >"$TMP/union"
	for i in $(seq 1 $n); do
		vm "shard-$i-$n" 30 test --logs "$TMP/l" --shard "$i/$n" "$TMP/skips.cfg"
		[ "$status" = 0 ] || { ok=0; fail "shard-$i-$n" "status $status"; }
		names "$TMP/shard-$i-$n.out" >>"$TMP/union"
	done
	[ "$(sort "$TMP/union" | tr '\n' ' ')" = "s1 s2 s3 s4 s5 s6 s7 " ] ||
		{ ok=0; fail shards-union "N=$n: $(sort "$TMP/union" | tr '\n' ' ')"; }
done
[ $ok = 1 ] && pass shards-partition
grep -q '^SHARD 2/3 (--shard): 2 of 7 tests$' "$TMP/shard-2-3.out" &&
	[ "$(names "$TMP/shard-2-3.out" | tr '\n' ' ')" = "s2 s5 " ] &&
	pass shard-round-robin || fail shard-round-robin "$(cat "$TMP/shard-2-3.out")"
grep -q '^SHARD 8/8 (--shard): no tests (7 over 8 shards): this shard passes' \
	"$TMP/shard-8-8.out" && pass shard-empty-passes ||
	fail shard-empty-passes "$(cat "$TMP/shard-8-8.out")"
CI_NODE_INDEX=2 CI_NODE_TOTAL=3 vm shard-gitlab 30 test --logs "$TMP/l" "$TMP/skips.cfg"
TEST_SHARD_INDEX=1 TEST_TOTAL_SHARDS=3 vm shard-bazel 30 test --logs "$TMP/l" "$TMP/skips.cfg"
[ "$(names "$TMP/shard-gitlab.out")" = "$(names "$TMP/shard-2-3.out")" ] &&
	[ "$(names "$TMP/shard-bazel.out")" = "$(names "$TMP/shard-2-3.out")" ] &&
	grep -q '^SHARD 2/3 (GitLab)' "$TMP/shard-gitlab.out" &&
	grep -q '^SHARD 2/3 (Bazel)' "$TMP/shard-bazel.out" &&
	pass shard-same-everywhere || fail shard-same-everywhere \
	"$(cat "$TMP/shard-gitlab.out" "$TMP/shard-bazel.out")"
CI_NODE_INDEX=1 CI_NODE_TOTAL=3 vm shard-option-wins 30 test --logs "$TMP/l" \
	--shard 2/3 "$TMP/skips.cfg"
expect shard-option-wins 0 '^SHARD 2/3 \(--shard\)'

# Refused: one line, status 2, and Bazel's infrastructure file says so.
shard_bad() {
	local name=$1 want=$2
	shift 2
	env "$@" TEST_INFRASTRUCTURE_FAILURE_FILE="$TMP/$name.infra" \
		timeout -k 5 30 "$MINIVMM" test --logs "$TMP/l" "$TMP/skips.cfg" \
		</dev/null >"$TMP/$name.out" 2>"$TMP/$name.err"
	status=$?
	if [ "$status" = 2 ] && [ "$(wc -l <"$TMP/$name.err")" = 1 ] &&
	   grep -q -- "$want" "$TMP/$name.err" &&
	   [ "$(head -n 1 "$TMP/$name.infra")" = minivmm-test/shard ] &&
	   grep -q -- "$want" "$TMP/$name.infra"; then
		pass "$name"
	else
		fail "$name" "status $status, expected 2 and '$want'"
	fi
}
shard_bad shard-bad-range "CI_NODE_INDEX '4': expected 1..3" CI_NODE_INDEX=4 CI_NODE_TOTAL=3
shard_bad shard-bad-zero "CI_NODE_INDEX '0'" CI_NODE_INDEX=0 CI_NODE_TOTAL=3
shard_bad shard-bad-pair "TEST_TOTAL_SHARDS is set without TEST_SHARD_INDEX" TEST_TOTAL_SHARDS=2
shard_bad shard-bad-conflict "disagree" TEST_SHARD_INDEX=0 TEST_TOTAL_SHARDS=2 \
	CI_NODE_INDEX=2 CI_NODE_TOTAL=2
vm shard-bad-option 30 test --logs "$TMP/l" --shard 3/2 "$TMP/skips.cfg"
expect shard-bad-option 2 '' "--shard '3/2': I must be 1..2"

# --- Bazel's protocol, with real guests ----------------------------------
b=$TMP/bazel
mkdir -p "$b/out" "$b/tmp"
vmm=$(realpath "$MINIVMM")
( cd "$b" && env MINIVMM="$vmm" TEST_TOTAL_SHARDS=2 TEST_SHARD_INDEX=0 TEST_SHARD_STATUS_FILE="$b/shard" \
	XML_OUTPUT_FILE="$b/test.xml" TEST_UNDECLARED_OUTPUTS_DIR="$b/out" \
	TEST_TMPDIR="$b/tmp" TESTBRIDGE_TEST_ONLY='hello*' TEST_TIMEOUT=60 \
	TEST_INFRASTRUCTURE_FAILURE_FILE="$b/infra" \
	timeout -k 5 90 "$vmm" test --kernel-dir "$OLDPWD/$GUESTS" \
	"$TMP/real.cfg" </dev/null >"$TMP/bazel.out" 2>"$TMP/bazel.err" )
status=$?
# the filter leaves hello and hello-2; shard 1 of 2 takes hello
if [ "$status" = 0 ] && [ -f "$b/shard" ] && [ ! -e "$b/infra" ] &&
   [ "$(names "$TMP/bazel.out")" = hello ] && [ -f "$b/out/hello.log" ] &&
   [ -f "$b/tmp/environ" ] && [ ! -e "$b/test-logs" ] &&
   python3 -c 'import sys, xml.etree.ElementTree as E
s = E.parse(sys.argv[1]).getroot().find("testsuite")
assert s.get("tests") == "1" and s.get("failures") == "0", s.attrib
assert [c.get("name") for c in s.iter("testcase")] == ["hello"]
assert s.find("properties/property").get("value") == "1/2"' "$b/test.xml"; then
	pass bazel-protocol
else
	fail bazel "status $status; $(ls -R "$b" | tr '\n' ' ')"
fi

# TEST_TIMEOUT: spin's own timeout is cut to the budget (less a margin
# for the files), and what cannot start in it is a TIMEOUT that says so.
printf '[long]\nfile = spin.elf\ntimeout = 90\n[next]\nfile = hello.elf\n' >"$TMP/long.cfg"
t0=$SECONDS
TEST_TIMEOUT=5 XML_OUTPUT_FILE="$TMP/budget.xml" vm budget 60 test -j 1 \
	--logs "$TMP/l" --kernel-dir "$GUESTS" "$TMP/long.cfg"
secs=$((SECONDS - t0))
expect budget 1 '^TIMEOUT long \(timeout; duration=[34](\.[0-9])?s\)'
grep -q "^TIMEOUT next (not started: the run's time budget (TEST_TIMEOUT) is spent)" \
	"$TMP/budget.out" && [ "$secs" -lt 30 ] && [ -s "$TMP/budget.xml" ] &&
	pass budget-next-not-started || fail budget-next-not-started "$secs s"

# --- expected failures and retries ---------------------------------------
printf 'triple  triple-faults on purpose\nspin    never ends # by design\n' >"$TMP/xfail.txt"
vm xfail 60 test -j 2 --logs "$TMP/lx" --kernel-dir "$GUESTS" --xfail "$TMP/xfail.txt" \
	--tap "$TMP/xfail.tap" --junit "$TMP/xfail.xml" "$TMP/real.cfg"
expect xfail 0 '^XFAIL triple \(minivmm: triple fault.*; expected to fail: triple-faults on purpose$'
grep -q '^XFAIL spin (timeout; duration=1s) .*; expected to fail: never ends$' "$TMP/xfail.out" &&
	grep -q '2 PASS, 0 FAIL, 0 TIMEOUT, 0 SKIP, 2 XFAIL' "$TMP/xfail.out" &&
	grep -q '^not ok 3 - triple: .* # TODO triple-faults on purpose$' "$TMP/xfail.tap" &&
	grep -q '^ok 1 - hello' "$TMP/xfail.tap" &&
	python3 -c 'import sys, xml.etree.ElementTree as E
s = E.parse(sys.argv[1]).getroot().find("testsuite")
assert s.get("failures") == "0" and s.get("skipped") == "2", s.attrib
k = {c.get("name"): c for c in s.iter("testcase")}
assert k["spin"].find("skipped").get("type") == "xfail"
assert k["hello"].find("skipped") is None' "$TMP/xfail.xml" &&
	pass xfail-reports || fail xfail-reports "$(cat "$TMP/xfail.out")"
printf 'hello  said to fail\n' >"$TMP/xpass.txt"
vm xpass 60 test --logs "$TMP/lx" --kernel-dir "$GUESTS" --xfail "$TMP/xpass.txt" \
	--junit "$TMP/xpass.xml" "$TMP/real.cfg" hello
expect xpass 1 '^XPASS hello .*; expected to fail: said to fail$'
grep -q 'type="xpass"' "$TMP/xpass.xml" && pass xpass-junit-failure ||
	fail xpass-junit-failure "$(cat "$TMP/xpass.xml")"
vm xpass-ok 60 test --logs "$TMP/lx" --kernel-dir "$GUESTS" --xfail "$TMP/xpass.txt" \
	--xpass-ok "$TMP/real.cfg" hello
expect xpass-ok 0 '^XPASS hello '
printf 'nosuch  not in the manifest\n' >"$TMP/stale.txt"
vm xfail-stale 30 test --logs "$TMP/lx" --xfail "$TMP/stale.txt" "$TMP/real.cfg"
expect xfail-stale 2 '' "stale.txt:1: no test 'nosuch'"
printf 'hello\n' >"$TMP/noreason.txt"
vm xfail-noreason 30 test --logs "$TMP/lx" --xfail "$TMP/noreason.txt" "$TMP/real.cfg"
expect xfail-noreason 2 '' "noreason.txt:1: 'hello' has no reason"
# an expected failure's timeout is cut by --xfail-timeout
printf '[long]\nfile = spin.elf\ntimeout = 90\n' >"$TMP/long1.cfg"
printf 'long  never ends\n' >"$TMP/long.txt"
vm xfail-timeout 60 test --logs "$TMP/lx" --kernel-dir "$GUESTS" --xfail "$TMP/long.txt" \
	--xfail-timeout 2 "$TMP/long1.cfg"
expect xfail-timeout 0 '^XFAIL long \(timeout; duration=2s\)'

# --retries: a timeout runs again, every attempt in the log, and the
# verdict says how many it took.
vm retries 60 test --logs "$TMP/lr" --kernel-dir "$GUESTS" --retries 2 \
	--tap "$TMP/retries.tap" "$TMP/real.cfg" spin
expect retries 1 '^TIMEOUT spin \(3 attempts, the last: timeout; duration=1s\)'
[ "$(grep -c -- '--kernel .*spin.elf' "$TMP/lr/spin.log")" = 3 ] &&
	grep -q '^(minivmm test: attempt 3)' "$TMP/lr/spin.log" &&
	grep -q '^  attempts: 3' "$TMP/retries.tap" && pass retries-log ||
	fail retries-log "$(grep -c -- --kernel "$TMP/lr/spin.log") runs logged"
vm retries-bad 30 test --retries 11 "$TMP/real.cfg"
expect retries-bad 2 '' "--retries '11': expected 0..10"

# --- minivmm's own failures: status 3 and the infrastructure file --------
# infra NAME STATUS WANT COMPONENT MANIFEST [VAR=VALUE...]
infra() {
	local name=$1 want_status=$2 want=$3 comp=$4 cfg=$5
	shift 5
	env "$@" TEST_INFRASTRUCTURE_FAILURE_FILE="$TMP/$name.infra" \
		timeout -k 5 30 "$MINIVMM" test --logs "$TMP/li" --kernel-dir "$GUESTS" \
		"$cfg" </dev/null >"$TMP/$name.out" 2>"$TMP/$name.err"
	status=$?
	if [ "$status" = "$want_status" ] && grep -q -- "$want" "$TMP/$name.err" &&
	   [ "$(head -n 1 "$TMP/$name.infra")" = "$comp" ] &&
	   [ "$(sed -n 2p "$TMP/$name.infra")" = "$(sed 's/^minivmm: test: //' "$TMP/$name.err" | tail -n 1)" ] &&
	   ! grep -q '^PASS' "$TMP/$name.out"; then
		pass "$name"
	else
		fail "$name" "status $status; infra: $(cat "$TMP/$name.infra" 2>&1)"
	fi
}
printf '[hello]\nfile = hello.elf\n' >"$TMP/one.cfg"
infra infra-vmm-missing 3 "no minivmm at '/nonexistent/minivmm'" minivmm-test/vmm "$TMP/one.cfg" \
	MINIVMM=/nonexistent/minivmm
infra infra-vmm-broken 3 "does not start" minivmm-test/vmm "$TMP/one.cfg" \
	MINIVMM=/bin/false
printf '[a]\nsmp = many\n' >"$TMP/bad.cfg"
infra infra-manifest 2 "bad.cfg:2: smp" minivmm-test/manifest "$TMP/bad.cfg"
# no /dev/kvm: /dev/null in its place, in a mount namespace of its own
if unshare -m true 2>/dev/null; then
	env TEST_INFRASTRUCTURE_FAILURE_FILE="$TMP/nokvm.infra" timeout -k 5 30 \
		unshare -m sh -c 'mount --bind /dev/null /dev/kvm && exec "$@"' sh \
		"$MINIVMM" test --logs "$TMP/li" --kernel-dir "$GUESTS" "$TMP/real.cfg" hello \
		</dev/null >"$TMP/nokvm.out" 2>"$TMP/nokvm.err"
	status=$?
	[ "$status" = 3 ] && [ "$(head -n 1 "$TMP/nokvm.infra")" = minivmm-test/kvm ] &&
		grep -q 'this host cannot run VMs: minivmm: error: KVM API version' "$TMP/nokvm.infra" &&
		pass infra-no-kvm || fail infra-no-kvm "status $status: $(cat "$TMP/nokvm.err")"
else
	echo "SKIP: infra-no-kvm (no mount namespaces here)"
fi
