#!/bin/bash
# check-hw.sh [--short] [--npt on|off] [--mem SIZE] [--limit SECS]
#             [--name NAME] [--judge] [TEST...]
# minivmm's boot tests on a real hardware-virtualization KVM: kvm_amd in an
# L1 guest on QEMU's software CPU (-cpu max: SVM with nested paging), L2 =
# minivmm's guests (docs/hw-lane.md).  Runs the TESTs (tests/boot/*.sh
# names; default: all that make check runs) in one L1 boot with lane.sh,
# then judges each test's log here against the expected failures in
# tests/hw/xfail.txt (the software CPU's own gaps, each with its reason).
#   --short   make check's part where this host has /dev/kvm: short.sh
#             (the firmware, payloads, PCI with the read-only ECAM
#             window), msr (the MSR policy), virtio (virtio-blk among
#             the rest) and linux (Debian's kernel booted to its
#             verdict), in an L1 of 2 GiB (tests/run.sh;
#             MINIVMM_HW_LANE=0 skips it)
#   --name NAME  logs in $BUILD/hw/NAME-npt-*/, so two lanes can run at
#             once (tests/run.sh: the payloads' and the Linux guests')
#   --judge   no L1: judge the last run's logs again (after editing
#             xfail.txt), with the same options and TESTs
# One line per test, "N passed, N failed" at the end.  Logs in
# $BUILD/hw/npt-{on,off}/, short-npt-on/ or NAME-npt-*/ (BUILD defaults to build, which
# must be built).
# Exit status: 0 no unexpected failure, 1 some, 77 the lane cannot run
# here (no QEMU, no kernel package: said why).
set -u
cd "$(dirname "$0")/../.."
here=tests/hw
npt=on mem= limit=900 short= judge= tag=
while [ $# -gt 0 ]; do
	case $1 in
	--short) short=1; shift ;;
	--npt) npt=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--limit) limit=$2; shift 2 ;;
	--judge) judge=1; shift ;;
	--name) tag=$2; shift 2 ;;
	-*) echo "check-hw: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
case $npt in on|off) ;; *) echo "check-hw: --npt on|off" >&2; exit 2 ;; esac
BUILD=${BUILD:-build}
if [ $# -gt 0 ]; then
	tests="$*"
elif [ -n "$short" ]; then
	tests="short msr virtio linux"
	mem=${mem:-2G}
else
	# As tests/run.sh: linux.sh is Debian's stock kernel (make
	# check-linux there); here it runs too.
	tests=$(tests/boot-tests.sh | tr '\n' ' ')
fi
mem=${mem:-12G}

skip() { echo "check-hw: skipped: $*"; exit 77; }
command -v qemu-system-x86_64 >/dev/null ||
	skip "no qemu-system-x86_64 (tools/deps.sh test)"
[ -x "$BUILD/minivmm" ] || { echo "check-hw: build first (make)" >&2; exit 1; }
"$here/l1-kernel.sh" >/dev/null || {
	rc=$?; [ $rc -eq 77 ] && skip "no L1 kernel (above)"; exit 1; }
cache=${MINIVMM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/minivmm}
# The Linux tests' kernels come from this host's caches (read-only in L1):
# a test whose kernel is not there is left out, saying so.
notes=()
drop() { tests=$(echo " $tests " | sed "s/ $1 / /"); notes+=("hw/$1: skipped: $2"); }
for t in linux linux-serial; do
	case " $tests " in *" $t "*)
		tools/fetch-kernel.sh >/dev/null 2>&1 ||
			drop $t "Debian's cloud kernel cannot be fetched" ;;
	esac
done
# kvm-unit-tests is built here, where the tree is writable (build/kut).
case " $tests " in *" kut "*)
	BUILD=$BUILD tools/kut.sh >/dev/null 2>"$BUILD/kut-build.err" ||
		drop kut "kvm-unit-tests cannot be built: $(tail -n 1 "$BUILD/kut-build.err")" ;;
esac
if ! tools/build-kernel.sh --print >/dev/null 2>&1; then
	for t in $(grep -l 'build-kernel.sh' tests/boot/*.sh); do
		t=$(basename "$t" .sh)
		case " $tests " in *" $t "*)
			drop "$t" "the guest kernel is not built (tools/build-kernel.sh)" ;;
		esac
	done
fi

[ -n "$short" ] && tag=${tag:-short}
out=$BUILD/hw/${tag:+$tag-}npt-$npt
console=$out/l1-console.log
t0=$SECONDS
# A wedged L1 (its kernel or the software CPU stops: first seen in
# 2026-12-02's lane, in gdb.sh after five checks, with not even lane.sh's
# own loop running) stops lane.sh's heartbeat; a test's own hang does not
# (lane.sh kills that one at its limit).  After STALL seconds without a
# beat L1 is killed and the test it was running runs again in a new L1
# with the tests after it, up to RETRIES times; wedged once more, it fails
# as "wedged".  2026-12-02's wedges came in or just after guests of
# 2 vCPUs (gdb-attach, milestones, syscall, nmi, pci), in 5 of 11 tests of one
# quiet make check: each costs STALL seconds.  Generous: a starved L1 beats
# slowly (a beat is due every 2 s).
stall=${MINIVMM_HW_STALL:-120}
retries=${MINIVMM_HW_RETRIES:-5}
# run_l1 TEST...: one L1 boot running the TESTs; prints the tests still
# to run if L1 wedged (nothing when it finished).
run_l1() {
	local hb= seen=$SECONDS pid t w
	rm -f "$out/heartbeat"
	# L1's own run: every test's limit, plus L1's boot.  Niced to 10,
	# not further: at 19 beside other loads L1 all but stops.
	n=$((10 - $(nice)))
	[ $n -gt 0 ] || n=0
	nice -n $n "$here/run-l1.sh" --out "$out" --npt "$npt" --mem "$mem" \
		--timeout $(( limit * $# + 300 )) \
		"$here/lane.sh" "limit=$limit" "cache=$cache" "$@" \
		>>"$console" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		sleep 5
		t=$(cat "$out/heartbeat" 2>/dev/null)
		[ "$t" != "$hb" ] && { hb=$t; seen=$SECONDS; continue; }
		# Before the first beat L1 is still booting: slower when loaded.
		w=$stall
		[ -n "$hb" ] || w=$((3 * stall))
		[ $((SECONDS - seen)) -lt "$w" ] && continue
		"$here/l1-where.sh" "$out" >>"$console"
		kill $pid; sleep 5; pkill -KILL -P $pid 2>/dev/null
		while [ $# -gt 0 ] && grep -q "^@@ test $1 " "$console"; do
			shift
		done
		t=$1; shift
		# A wedge is L1's (no test stops lane.sh's loop): the test
		# runs once more in the new L1, its first log kept aside.
		w=$(grep -cx "$t" "$out/wedged.list" 2>/dev/null)
		if [ "${w:-0}" -lt "$retries" ]; then
			echo "$t" >>"$out/wedged.list"
			w=$((${w:-0} + 1))
			mv "$out/logs/$t.log" "$out/logs/$t.wedged$w.log" 2>/dev/null
			rm -f "$out/logs/$t.log.progress"
			echo "@@ wedged: $t (time $w; runs again in a new L1)" >>"$console"
			echo "$t $*"
			break
		fi
		echo "@@ test $t rc=wedged secs=$((SECONDS - seen))" >>"$console"
		echo "$@"
		break
	done
	wait $pid 2>/dev/null
}

if [ -z "$judge" ]; then
	rm -rf "$out"
	mkdir -p "$out"
	: >"$console"
	rest=$tests
	while [ -n "$rest" ]; do
		rest=$(run_l1 $rest)
	done
	# A wedged L1 ends without its own last line; the rounds did finish.
	if grep -q '^@@ test .* rc=wedged' "$console" &&
		! tail -n 5 "$console" | grep -q '^@@ lane done'; then
		echo "@@ lane done" >>"$console"
	fi
fi
l1_secs=$((SECONDS - t0))
grep -q '^@@ lane done' "$console" || [ -n "$judge" ] || {
	echo "check-hw: L1 did not finish the lane (${l1_secs} s); its console:"
	grep -v '^\[' "$console" | tail -n 20
	exit 1
}

# The expected failures (xfail.txt): "TEST CHECK NPT | SIGNATURE | REASON";
# a failure is expected only if its output holds SIGNATURE, what the
# software CPU's gap prints, so any other way of failing still fails.
entries() {	# TEST: "CHECK<tab>SIGNATURE" for this TEST and NPT
	awk -F' [|] ' -v t="$1" -v n="$npt" '
		/^#/ || NF < 3 { next }
		{ split($1, k, " ") }
		(k[1] == t || k[1] == "*") && (k[3] == n || k[3] == "any") {
			print k[2] "\t" $2 }
	' "$here/xfail.txt"
}
# block LOG CHECK: the FAIL line of CHECK and the indented lines after it.
block() {
	awk -v c="FAIL: $2" 'index($0, c) == 1 && (length($0) == length(c) ||
		substr($0, length(c) + 1, 1) == " ") { on = 1; print; next }
		on && /^[ \t]/ { print; next } { on = 0 }' "$1"
}
# holds TEXT SIG: TEXT holds every part of SIG ("A && B").
holds() {
	local rest=$2 part
	while [ -n "$rest" ]; do
		part=${rest%% && *}
		[ "$part" = "$rest" ] && rest= || rest=${rest#* && }
		grep -qF -- "$part" <<<"$1" || return 1
	done
}
expected() {	# LOG TEST CHECK: true if an entry explains this failure
	local sig
	while IFS=$'\t' read -r c sig; do
		[ "$c" = "$3" ] || [ "$c" = "*" ] || continue
		holds "$(block "$1" "$3")" "$sig" && return 0
	done < <(entries "$2")
	return 1
}

passed=0 failed=0
failures=() details=()
for n in "${notes[@]}"; do echo "$n"; done
sed -n 's/^@@ wedged: \([^ ]*\) (time \([0-9]*\).*/hw\/\1: L1 wedged during it (time \2); it ran again in a new L1 (logs\/\1.wedged\2.log)/p' \
	"$console" 2>/dev/null
for t in $tests; do
	log=$out/logs/$t.log
	line=$(grep "^@@ test $t " "$console")
	if [ -z "$line" ] && [ -n "$judge" ]; then
		echo "hw/$t [npt=$npt]: not run (yet)"; continue
	fi
	rc=$(echo "$line" | sed -n 's/.* rc=\([^ ]*\).*/\1/p')
	secs=$(echo "$line" | sed -n 's/.* secs=\([0-9.]*\).*/\1/p')
	p=$(grep -c '^PASS: ' "$log" 2>/dev/null)
	p=${p:-0} x=0 f=0
	while read -r name; do
		[ -n "$name" ] || continue
		if expected "$log" "$t" "$name"; then
			x=$((x + 1))
		else
			f=$((f + 1))
			failures+=("$t: $(grep -m1 "^FAIL: $name" "$log")")
			# What fail() printed with it, for a CI log that has
			# only this summary.
			details+=("$t: $(block "$log" "$name" | head -n 15 |
				sed '2,$s/^/    /')")
		fi
	done < <(sed -n 's/^FAIL: \([^ ]*\).*/\1/p' "$log" 2>/dev/null)
	if [ "${rc:-x}" = wedged ]; then
		f=$((f + 1)); failures+=("$t: L1 stopped (no heartbeat for $stall s) during it $((retries + 1)) times; the tests after it ran in a new L1")
	elif [ "${rc:-x}" = limit ]; then
		f=$((f + 1)); failures+=("$t: still running after $limit s (killed)")
	elif [ "$p" -eq 0 ] && [ $((f + x)) -eq 0 ]; then
		if grep -q '^SKIP: ' "$log" 2>/dev/null; then
			printf '%-32s skipped: %s\n' "hw/$t [npt=$npt]" \
				"$(grep -m1 '^SKIP: ' "$log" | cut -c7-)"
			continue
		fi
		f=1; failures+=("$t: died before reporting (rc ${rc:-none})")
	fi
	# An expected failure that now passes: the list is stale.
	while IFS=$'\t' read -r c sig; do
		if [ "$c" != "*" ] && grep -q "^PASS: $c\$" "$log" 2>/dev/null; then
			f=$((f + 1)); failures+=("$t: $c passed: remove it from $here/xfail.txt")
		fi
	done < <(entries "$t")
	passed=$((passed + p))
	failed=$((failed + f))
	printf '%-32s %d passed, %d failed, %d expected failures (%s s)\n' \
		"hw/$t [npt=$npt]" "$p" "$f" "$x" "${secs:-?}"
done
for f in "${failures[@]}"; do
	echo "failed: $f"
done
for d in "${details[@]}"; do
	echo "details: $d"
done
[ -n "$judge" ] || echo "L1 ran ${l1_secs} s"
echo "logs in $out"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
