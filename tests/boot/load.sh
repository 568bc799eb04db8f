#!/bin/bash
# Many guests at once (issue 30): MINIVMM_LOAD_GUESTS (8 in make check, 16
# with `make check-load`) minivmm processes started together, alternately
# the virtio-blk payload, each on its own disk image with its own seed
# (its read-back checks catch data from another guest), and the
# virtio-rng payload.  Every one must end with status 0 and its payload's
# "0 failure(s)".  Printed, not asserted (times are not test verdicts):
# each kind's time alone and the median and slowest time together, their
# ratio (GNU time), and per guest the peak RSS (GNU time's %M) and the
# peak PSS (/proc/PID/smaps_rollup, sampled every 0.2 s: 0 for a guest
# that ended before its first sample).
. "$(dirname "$0")/lib.sh"

[ -x /usr/bin/time ] || { echo "SKIP: load (GNU time missing: apt-get install time)"; exit 0; }

N=${MINIVMM_LOAD_GUESTS:-8}
BLK="$GUESTS/virtio_blk.elf"
RNG="$GUESTS/virtio_rng.elf"
SECT=16384		# 8 MiB images


# start NAME I: guest I in the background under GNU time (exact run time
# and peak RSS from wait4); time's pid in $pid.
start() {
	local name=$1 i=$2
	if [ $((i % 2)) -eq 0 ]; then
		truncate -s $((SECT * 512)) "$TMP/$name.img"
		set -- --kernel "$BLK" --disk "$TMP/$name.img" \
			--append "seed=$((100 + i)) sectors=$SECT"
	else
		set -- --kernel "$RNG" --rng
	fi
	/usr/bin/time -f "%e %M" -o "$TMP/$name.time" \
		"$MINIVMM" --timeout 300 "$@" </dev/null >"$TMP/$name.out" \
		2>"$TMP/$name.err" &
	pid=$!
}

# verdict NAME I: status and the payload's own checks.
verdict() {
	local name=$1 i=$2 want='^virtio-rng: 0 failure\(s\)$'
	[ $((i % 2)) -eq 0 ] && want='^virtio-blk: 0 failure\(s\)$'
	expect "$name" 0 "$want"
}

# watch: samples the running guests' PSS every 0.2 s until all ended
# (pss[] by position; 0 if one ended before its first sample).
watch() {
	local running k m v
	for ((k = 0; k < ${#pids[@]}; k++)); do
		pss[$k]=0
	done
	while :; do
		running=0
		for ((k = 0; k < ${#pids[@]}; k++)); do
			kill -0 "${pids[$k]}" 2>/dev/null || continue
			running=1
			m=$(pgrep -P "${pids[$k]}" | head -n 1)
			[ -n "$m" ] || continue
			v=$(sed -n 's/^Pss:[[:space:]]*\([0-9]*\) kB/\1/p' \
				"/proc/$m/smaps_rollup" 2>/dev/null)
			[ "${v:-0}" -gt "${pss[$k]}" ] && pss[$k]=$v
		done
		[ $running = 1 ] || break
		sleep 0.2
	done
}

# field NAME N: field N of GNU time's line (1 seconds, 2 peak RSS kB).
field() { cut -d' ' -f"$2" "$TMP/$1.time" 2>/dev/null; }

# --- each kind alone ------------------------------------------------------------
declare -A alone
for i in 0 1; do
	start "alone$i" $i
	pids=("$pid")
	watch
	wait "$pid"
	status=$?
	verdict "alone$i" $i
	alone[$i]=$(field "alone$i" 1)
done

# --- all at once ----------------------------------------------------------------
pids=()
for ((i = 0; i < N; i++)); do
	start "g$i" $i
	pids[$i]=$pid
done
watch
for ((i = 0; i < N; i++)); do
	wait "${pids[$i]}"
	status=$?
	verdict "g$i" $i
done

# --- figures --------------------------------------------------------------------
for k in 0 1; do
	kind=$([ $k = 0 ] && echo virtio-blk || echo virtio-rng)
	ts=$(for ((i = k; i < N; i += 2)); do field "g$i" 1; done | sort -n)
	cnt=$(echo "$ts" | wc -l)
	med=$(echo "$ts" | sed -n "$(((cnt + 1) / 2))p")
	max=$(echo "$ts" | tail -n 1)
	echo "load: $kind: alone ${alone[$k]} s; $N guests at once: median" \
		"$med s, slowest $max s (x$(echo "scale=1; $max / ${alone[$k]}" | bc 2>/dev/null || echo ?))"
done
for ((i = 0; i < N; i++)); do
	p=${pss[$i]}
	[ "$p" -gt 0 ] && p="$p kB" || p="n/a (ended before a sample)"
	echo "load: g$i: peak RSS $(field "g$i" 2) kB, peak PSS $p"
done
