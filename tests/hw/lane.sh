#!/bin/sh
# lane.sh [limit=SECS] [cache=DIR] TEST...: runs inside L1 (run-l1.sh), on
# L1's kvm_amd: each tests/boot/TEST.sh as make check runs it (or
# tests/hw/TEST.sh: short.sh), its output
# in $L1_OUT/logs/TEST.log (TEST-2.log... when named again); one "@@ test
# TEST rc=R secs=S" line each on the console; L1's kernel log at the end
# in $L1_OUT/l1-dmesg.log.  check-hw.sh reads the logs.  A test still running after
# limit seconds (default 900) gets rc 124: first every process's state,
# kernel wait channel and, for minivmm, its threads' kernel stacks go to
# the end of its log (what it hung in), then its process group is killed.
limit=900
cd "$(dirname "$0")/../.." || exit 1
logs=$L1_OUT/logs
mkdir -p "$logs"
up() { cut -d' ' -f1 /proc/uptime; }

snapshot_procs() {
	echo "@@@ still running after $limit s: processes"
	for p in /proc/[0-9]*; do
		read -r c <"$p/comm" 2>/dev/null || continue
		set -- $(cat "$p/stat" 2>/dev/null | sed 's/.*) //')
		echo "  pid ${p#/proc/} ppid $2 $c state $1 wchan $(cat "$p/wchan" 2>/dev/null)"
		case $c in minivmm|qemu*|ip|ping|busybox)
			for t in "$p"/task/*; do
				echo "    thread ${t##*/} $(cat "$t/comm") $(sed 's/.*) \(.\).*/\1/' "$t/stat")"
				sed 's/^/      /' "$t/stack" 2>/dev/null
			done ;;
		esac
	done
}

for a; do
	case $a in
	limit=*) limit=${a#limit=} ;;
	cache=*) export MINIVMM_CACHE=${a#cache=} ;;
	*)
		s=$(up)
		log=$logs/$a.log n=1
		while [ -e "$log" ]; do n=$((n + 1)); log=$logs/$a-$n.log; done
		t=tests/boot/$a.sh
		[ -f "$t" ] || t=tests/hw/$a.sh
		MINIVMM=build/minivmm BUILD=build setsid bash "$t" \
			>"$log" 2>&1 </dev/null &
		pid=$! waited=0 rc=
		while kill -0 $pid 2>/dev/null; do
			if [ $waited -ge "$limit" ]; then
				snapshot_procs >>"$log"
				kill -TERM -- -$pid; sleep 5; kill -KILL -- -$pid
				rc=124
				break
			fi
			sleep 2; waited=$((waited + 2))
		done
		wait $pid; [ -n "$rc" ] || rc=$?
		echo "@@ test $a rc=$rc secs=$(echo "$(up) - $s" | bc)"
		;;
	esac
done
dmesg >"$L1_OUT/l1-dmesg.log"
echo "@@ lane done"
