#!/bin/bash
# Many guests at once (issue 30): MINIVMM_LOAD_GUESTS (16) minivmm
# processes started together, alternately
# the virtio-blk payload, each on its own disk image with its own seed
# (its read-back checks catch data from another guest), and the
# virtio-rng payload.  Every one must end with status 0 and its payload's
# "0 failure(s)".  Printed, not asserted (times are not test verdicts):
# each kind's time alone and the median and slowest time together, their
# ratio (GNU time), and per guest the peak RSS (GNU time's %M) and the
# peak PSS (/proc/PID/smaps_rollup, lib.sh's pss_watch: 0 for a guest
# that ended before its first sample).
. "$(dirname "$0")/lib.sh"

[ -x /usr/bin/time ] || { echo "SKIP: load (GNU time missing: apt-get install time)"; exit 0; }

N=${MINIVMM_LOAD_GUESTS:-16}
BLK="$GUESTS/virtio_blk.elf"
RNG="$GUESTS/virtio_rng.elf"
SECT=16384		# 8 MiB images


# start NAME I: guest I in the background under GNU time (exact run time
# and peak RSS from wait4: lib.sh's timed); time's pid in $pid.
start() {
	local name=$1 i=$2
	if [ $((i % 2)) -eq 0 ]; then
		[ -f "$TMP/$name.img" ] || truncate -s $((SECT * 512)) "$TMP/$name.img"
		set -- --kernel "$BLK" --disk "$TMP/$name.img" \
			--append "seed=$((100 + i)) sectors=$SECT"
	else
		set -- --kernel "$RNG" --rng
	fi
	timed "$name" "$MINIVMM" --timeout 300 "$@"
}

# verdict NAME I: status and the payload's own checks.
verdict() {
	local name=$1 i=$2 want='^virtio-rng: 0 failure\(s\)$'
	[ $((i % 2)) -eq 0 ] && want='^virtio-blk: 0 failure\(s\)$'
	expect "$name" 0 "$want"
}


# --- each kind alone ------------------------------------------------------------
declare -A alone
for i in 0 1; do
	start "alone$i" $i
	wait "$pid"
	status=$?
	verdict "alone$i" $i
	alone[$i]=$(timed_field "alone$i" 1)
done

# --- all at once ----------------------------------------------------------------
# Images first, so the guests start close together.
for ((i = 0; i < N; i += 2)); do
	truncate -s $((SECT * 512)) "$TMP/g$i.img"
done
pids=() names=()
for ((i = 0; i < N; i++)); do names[$i]=g$i; done
pss_watch "${names[@]}"
for ((i = 0; i < N; i++)); do
	start "g$i" $i
	pids[$i]=$pid
done
for ((i = 0; i < N; i++)); do
	wait "${pids[$i]}"
	status=$?
	verdict "g$i" $i
done
pss_stop

# --- figures --------------------------------------------------------------------
for k in 0 1; do
	kind=$([ $k = 0 ] && echo virtio-blk || echo virtio-rng)
	ts=$(for ((i = k; i < N; i += 2)); do timed_field "g$i" 1; done | sort -n)
	cnt=$(echo "$ts" | wc -l)
	med=$(echo "$ts" | sed -n "$(((cnt + 1) / 2))p")
	max=$(echo "$ts" | tail -n 1)
	echo "load: $kind: alone ${alone[$k]} s; $N guests at once: median" \
		"$med s, slowest $max s (x$(echo "scale=1; $max / ${alone[$k]}" | bc 2>/dev/null || echo ?))"
done
for ((i = 0; i < N; i++)); do
	p=$(pss_of "g$i")
	[ "$p" -gt 0 ] && p="$p kB" || p="n/a (ended before a sample)"
	echo "load: g$i: peak RSS $(timed_field "g$i" 2) kB, peak PSS $p"
done
