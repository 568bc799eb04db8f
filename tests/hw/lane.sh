#!/bin/sh
# lane.sh [limit=SECS] [cache=DIR] TEST...: runs inside L1 (run-l1.sh), on
# L1's kvm_amd: each tests/boot/TEST.sh (or tests/hw/TEST.sh: short.sh) as
# make check runs it, in a session of its own, its output in
# $L1_OUT/logs/TEST.log (TEST-2.log... when named again), with
# TEST.log.progress: "L1-uptime checks-so-far" whenever the count moved
# (polled every 2 s); one "@@ test TEST rc=R secs=S" line each on the
# console; L1's kernel log at the end in
# $L1_OUT/l1-dmesg.log.  check-hw.sh judges the logs.
#   A test still running after limit seconds (default 900) gets rc=limit
#   (a word: a script's own status, 124 from a timeout inside it, is
#   not this): first every process's state and kernel wait channel, and
#   the kernel stacks of minivmm's (ip's, ping's) threads, go to the end
#   of its log (what it hung in), then its session is killed.
#   Processes a test leaves running are listed ("@@ leftover") and killed:
#   they would slow every later test down.
limit=900
# The tests' own safety-net timeouts, sized for guests at hardware speed
# (tests/boot/lib.sh): L2 on a software CPU runs many times slower.
export MINIVMM_TIMEOUT_SCALE=${MINIVMM_TIMEOUT_SCALE:-3}
# kvm-unit-tests' expected failures here are the software CPU's, not the
# PVM host's (tests/boot/kut.sh).
export MINIVMM_KUT_XFAIL=${MINIVMM_KUT_XFAIL:-tests/hw/kut-xfail.txt}
cd "$(dirname "$0")/../.." || exit 1
logs=$L1_OUT/logs
mkdir -p "$logs"
up() { cut -d' ' -f1 /proc/uptime; }

# stat PID: state, ppid, session and comm of a process in st_state,
# st_ppid, st_sid, st_comm, without a fork (these loops run often).
stat() {
	{ read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
	st_comm=${line#*(}
	st_comm=${st_comm%)*}
	set -- ${line##*) }
	st_state=$1 st_ppid=$2 st_sid=$4
}

snapshot_procs() {
	echo "@@@ still running after $limit s: processes"
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		stat "$p" || continue
		echo "  pid $p ppid $st_ppid $st_comm state $st_state wchan $(cat "/proc/$p/wchan" 2>/dev/null)"
		case $st_comm in minivmm|qemu*|ip|ping|busybox)
			for t in /proc/"$p"/task/*; do
				echo "    thread ${t##*/} $(cat "$t/comm" 2>/dev/null)"
				sed 's/^/      /' "$t/stack" 2>/dev/null
			done ;;
		esac
	done
}

# leftovers SID: the processes of session SID still there, one "comm pid"
# line each.
leftovers() {
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		stat "$p" || continue
		[ "$st_sid" = "$want" ] && [ "$st_state" != Z ] &&
			echo "$st_comm $p"
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
		pid=$! rc= seen=0
		# Timed by L1's clock: a starved L1 takes far longer than 2 s
		# per turn of this loop.
		end=$(echo "$s + $limit" | bc)
		while kill -0 $pid 2>/dev/null; do
			# When each check came, for the gaps between them.
			n=$(grep -cE '^(PASS|FAIL): ' "$log")
			[ "$n" = "$seen" ] || echo "$(up) $n" >>"$log.progress"
			# check-hw.sh watches this: when it stops moving, L1
			# itself has stopped (not a test: that has its limit).
			up >"$L1_OUT/heartbeat"
			seen=$n
			if [ "$(echo "$(up) >= $end" | bc)" = 1 ]; then
				snapshot_procs >>"$log"
				/bin/kill -s TERM -- -$pid; sleep 5
				/bin/kill -s KILL -- -$pid 2>/dev/null
				rc=limit
				break
			fi
			sleep 2
		done
		wait $pid
		st=$?
		[ -n "$rc" ] || rc=$st
		# Whatever it left running would slow every later test down.
		want=$pid
		left=$(leftovers | tr '\n' ' ')
		if [ -n "$left" ]; then
			echo "@@ leftover after $a: $left"
			echo "@@@ left running, killed: $left" >>"$log"
			/bin/kill -s KILL -- -$pid 2>/dev/null
			for p in $(leftovers | cut -d' ' -f2); do
				kill -KILL "$p"
			done
		fi
		echo "@@ test $a rc=$rc secs=$(echo "$(up) - $s" | bc)"
		;;
	esac
done
dmesg >"$L1_OUT/l1-dmesg.log"
echo "@@ lane done"
