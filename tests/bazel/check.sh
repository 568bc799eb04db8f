#!/bin/bash
# make check-bazel: kvm-unit-tests through minivmm as a Bazel sh_test with
# shard_count = 4 (this folder's workspace), run by Debian's bazel-bootstrap
# offline, the way a team with Bazel would run it:
#   bazel test --test_sharding_strategy=explicit //:kvm_unit_tests
# with make check's selection (tests/boot/kut.sh: the default entries but
# vmx*, svm*, ept*; tests/kut-xfail.txt; expected failures cut to 5 s,
# every other test 180 s).
# Checked: Bazel says every shard passed; each shard touched its status
# file and wrote its JUnit (XML_OUTPUT_FILE); over the shards every
# selected test ran exactly once, by the JUnit files and by the logs.
# Bazel 4.2 keeps one test.xml per shard: they are merged into
# build/bazel-kut.xml.  Bazel's output root is build/bazel; its server is
# shut down at the end.  Ends with "N passed, N failed".
# Where this host has no /dev/kvm, Bazel is installed and the suite built
# here, then the same check runs in the hardware-virtualization lane's L1
# (kvm_amd in QEMU's software CPU, tools/run-lane.sh), with that lane's
# expected failures (tests/hw/kut-xfail.txt); there Bazel's output root is
# in L1's memory and the merged JUnit and Bazel's log come back through the
# lane's writable folder ($L1_OUT: build/hw/run here).
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=$ROOT/build/bazel	# Bazel's output root and this script's files
RES=$ROOT/build		# bazel-kut.xml
if [ -n "${L1_OUT:-}" ]; then	# in the lane's L1: the tree is read-only
	OUT=/tmp/minivmm-bazel
	RES=$L1_OUT
fi
XFAIL=${MINIVMM_KUT_XFAIL:-tests/kut-xfail.txt}
SELECT=(--filter='-vmx*:svm*:ept*' --timeout=180 --xfail-timeout=5)	# as tests/boot/kut.sh
SHARDS=4
passed=0
failed=0

die() {
	echo "check-bazel: $*" >&2
	exit 2
}
ok() { echo "PASS: $1"; passed=$((passed + 1)); }
bad() { echo "FAIL: $1 ($2)"; failed=$((failed + 1)); }

mkdir -p "$OUT"
if ! command -v bazel >/dev/null; then
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null ||
		die "needs Bazel: apt-get install bazel-bootstrap (as root; Debian 12 has Bazel 4.2)"
	echo "check-bazel: installing Debian's bazel-bootstrap"
	{ apt-get install -y bazel-bootstrap || { apt-get update &&
	  apt-get install -y bazel-bootstrap; }; } >"$OUT/apt.log" 2>&1 ||
		die "apt-get install bazel-bootstrap failed (see $OUT/apt.log)"
fi
x86=$(BUILD=build tools/kut.sh) || exit 2
[ -x build/minivmm ] && [ -x build/minivmm-test ] || die "build minivmm first (make all)"
if [ ! -e /dev/kvm ]; then
	echo "check-bazel: no /dev/kvm here: Bazel runs in the lane's L1 (kvm_amd in QEMU's software CPU; docs/hw-lane.md)"
	MINIVMM_L1_MEM=4G tools/run-lane.sh env MINIVMM_KUT_XFAIL=tests/hw/kut-xfail.txt \
		bash tests/bazel/check.sh
	rc=$?
	cp build/hw/run/bazel-kut.xml build/ 2>/dev/null
	cp build/hw/run/bazel-test.log build/bazel/test.log 2>/dev/null
	exit $rc
fi

bz() {
	# A JVM on a software CPU (the lane) starts in minutes, not seconds.
	(cd tests/bazel && bazel --output_user_root="$OUT" --max_idle_secs=60 \
		--local_startup_timeout_secs=1800 "$@")
}
args=()
for a in "${SELECT[@]}"; do
	args+=("--test_arg=$a")
done
args+=("--test_env=MINIVMM_KUT_XFAIL=$XFAIL")
t0=$SECONDS
bz test --symlink_prefix=/ --nocache_test_results \
	--test_sharding_strategy=explicit "${args[@]}" //:kvm_unit_tests \
	>"$OUT/test.log" 2>&1
status=$?
secs=$((SECONDS - t0))
grep -E '^//|Executed|Stats over' "$OUT/test.log"
logs=$(bz info bazel-testlogs 2>/dev/null)/kvm_unit_tests
bz shutdown >/dev/null 2>&1
[ "$status" = 0 ] && grep -q '^//:kvm_unit_tests  *PASSED' "$OUT/test.log" &&
	ok "bazel-test-passed ($SHARDS shards in $secs s)" ||
	bad bazel-test-passed "bazel test exited $status; see $OUT/test.log"

: >"$OUT/junit.names"
: >"$OUT/log.names"
for i in $(seq 1 $SHARDS); do
	d=$logs/shard_${i}_of_$SHARDS
	if [ -e "$d/test.shard" ] && [ -s "$d/test.xml" ] &&
	   grep -q "^SHARD $i/$SHARDS (Bazel): " "$d/test.log" &&
	   [ ! -e "$d/test.infrastructure_failure" ]; then
		ok "bazel-shard-$i-of-$SHARDS"
	else
		bad "bazel-shard-$i-of-$SHARDS" "no status file, JUnit or SHARD line in $d"
	fi
	awk '$1 ~ /^(PASS|FAIL|SKIP|TIMEOUT|XFAIL|XPASS|FLAKY)$/ { print $2 }' \
		"$d/test.log" >>"$OUT/log.names" 2>/dev/null
done
python3 - "$RES/bazel-kut.xml" "$logs"/shard_*_of_$SHARDS/test.xml \
	>"$OUT/junit.names" 2>"$OUT/merge.err" <<'PY'
import sys, xml.etree.ElementTree as E
merged = E.Element("testsuites")
for f in sys.argv[2:]:
    for s in E.parse(f).getroot().iter("testsuite"):
        merged.append(s)
        for c in s.iter("testcase"):
            print(c.get("name"))
E.ElementTree(merged).write(sys.argv[1], encoding="UTF-8", xml_declaration=True)
PY
build/minivmm test --list --xfail "$XFAIL" "${SELECT[@]}" \
	"$x86/unittests.cfg" | sort >"$OUT/want.names"
n=$(wc -l <"$OUT/want.names")
if [ "$n" -gt 0 ] && [ "$(sort "$OUT/junit.names")" = "$(cat "$OUT/want.names")" ] &&
   [ "$(sort "$OUT/log.names")" = "$(cat "$OUT/want.names")" ]; then
	ok "bazel-each-test-once ($n tests; merged JUnit: build/bazel-kut.xml)"
else
	sort "$OUT/junit.names" >"$OUT/junit.sorted"	# no /dev/fd in the lane's L1
	bad bazel-each-test-once "$(diff "$OUT/want.names" "$OUT/junit.sorted" | head; cat "$OUT/merge.err")"
fi
[ "$RES" = "$ROOT/build" ] || cp "$OUT/test.log" "$RES/bazel-test.log"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
