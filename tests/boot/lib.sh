# Helpers for boot tests: run minivmm, check its status and output.
# Each check prints "PASS: name" or "FAIL: name" plus what was seen.
MINIVMM=${MINIVMM:-build/minivmm}
BUILD=${BUILD:-build}
GUESTS=build/guests

. "$(dirname "${BASH_SOURCE[0]}")/need-kvm.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Safety-net limits (timeouts, waits) are sized for a host running guests
# at hardware speed; a slow one (the hardware-virtualization lane's
# software CPU, tests/hw/) multiplies them by MINIVMM_TIMEOUT_SCALE, a
# whole number (default 1).  secs N: N scaled.
SCALE=${MINIVMM_TIMEOUT_SCALE:-1}
case $SCALE in '' | *[!0-9]* | 0) SCALE=1 ;; esac
secs() { echo $(($1 * SCALE)); }

# vm NAME TIMEOUT ARGS...: runs minivmm, output in $TMP/NAME.{out,err},
# status in $status.  TIMEOUT (scaled: secs) is a host-side safety net
# (never a test assertion): a hung VMM fails the test instead of hanging
# CI.
vm() {
	local name=$1 limit=$2
	shift 2
	timeout -k 5 "$(secs "$limit")" "$MINIVMM" "$@" </dev/null \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
	status=$?
}

# wait_socket PATH PID: until the unix socket PATH exists or PID has
# ended.  A start-up takes seconds on a loaded or emulated host (a safety
# net of 60 s, not a limit under test).
wait_socket() {
	for _ in $(seq 600); do
		[ -S "$1" ] && return
		kill -0 "$2" 2>/dev/null || return
		sleep 0.1
	done
}

pass() { echo "PASS: $1"; }
fail() {
	echo "FAIL: $1 ($2)"
	for f in "$TMP/$1.out" "$TMP/$1.err"; do
		[ -f "$f" ] && sed 's/^/    /' "$f" | tail -n 15
	done
}

# expect NAME STATUS [REGEX-in-stdout] [REGEX-in-stderr]
expect() {
	local name=$1 want=$2 out=${3:-} err=${4:-}
	if [ "$status" != "$want" ]; then
		fail "$name" "status $status, expected $want"
	elif [ -n "$out" ] && ! grep -qE -- "$out" "$TMP/$name.out"; then
		fail "$name" "stdout lacks /$out/"
	elif [ -n "$err" ] && ! grep -qE -- "$err" "$TMP/$name.err"; then
		fail "$name" "stderr lacks /$err/"
	else
		pass "$name"
	fi
}

# host_emulates_ring0: true where minivmm's host profile (vmm/host/) says
# this KVM emulates guest ring 0 (PVM), false on hardware virtualization;
# for the checks whose right answer depends on the kind of host.  Asked of
# minivmm itself (--verbose says the profile before anything else), once.
host_emulates_ring0() {
	if [ -z "${HOST_RING0:-}" ]; then
		HOST_RING0=no
		"$MINIVMM" --verbose --msr-policy-check /dev/null 2>&1 >/dev/null |
			grep -q '^minivmm: host: PVM' && HOST_RING0=yes
	fi
	[ "$HOST_RING0" = yes ]
}

# timed NAME CMD...: CMD in the background under GNU time ("SECONDS
# PEAK-RSS-kB" in $TMP/NAME.time), its output in $TMP/NAME.{out,err}, its
# own pid in $TMP/NAME.pid (the shell that writes it execs CMD), GNU
# time's in $pid.
timed() {
	local name=$1
	shift
	rm -f "$TMP/$name.pid"
	/usr/bin/time -f "%e %M" -o "$TMP/$name.time" \
		sh -c 'echo $$ >"$0"; exec "$@"' "$TMP/$name.pid" "$@" \
		</dev/null >"$TMP/$name.out" 2>"$TMP/$name.err" &
	pid=$!
}

# minivmm_kernel OPTION: the kernel to boot in $kernel: $MINIVMM_KERNEL if
# set, else the one built for minivmm (tools/build-kernel.sh) if its
# config has OPTION=y, else empty (the test says SKIP, naming OPTION).
minivmm_kernel() {
	local dir
	kernel=${MINIVMM_KERNEL:-}
	if [ -z "$kernel" ] &&
		dir=$(sh tools/build-kernel.sh --print 2>/dev/null) &&
		grep -q "^$1=y" "$dir/config" 2>/dev/null; then
		kernel=$dir/vmlinux
	fi
	[ -n "$kernel" ] && [ -f "$kernel" ] || kernel=
}

# timed_field NAME N: field N of NAME's GNU time line (1 seconds, 2 peak
# RSS kB); the file's last line, as a failed command's starts with
# "Command exited with non-zero status S".
timed_field() { tail -n 1 "$TMP/$1.time" 2>/dev/null | cut -d' ' -f"$2"; }

# pss_watch NAME...: in the background until pss_stop, the peak PSS in kB
# of each NAME's command (timed) in $TMP/NAME.pss, sampled every 0.1 s;
# pss_of NAME reads it (0: it ended before its first sample).  Started
# before the commands, so none ends unseen, and reading /proc with shell
# builtins: a loop that forked per sample missed guests of a few seconds
# on a slow host.
pss_watch() {
	(
		declare -A peak=() cmd=()
		while :; do
			for n in "$@"; do
				[ -n "${cmd[$n]:-}" ] ||
					read -r "cmd[$n]" 2>/dev/null <"$TMP/$n.pid" ||
					continue
				key=
				while read -r key val _; do
					[ "$key" = Pss: ] && break
				done 2>/dev/null <"/proc/${cmd[$n]}/smaps_rollup"
				[ "$key" = Pss: ] && [ "$val" -gt "${peak[$n]:-0}" ] &&
					peak[$n]=$val && echo "$val" >"$TMP/$n.pss"
			done
			sleep 0.1
		done
	) &
	pss_watcher=$!
}
pss_stop() { kill "$pss_watcher" 2>/dev/null; wait "$pss_watcher" 2>/dev/null; }
pss_of() { cat "$TMP/$1.pss" 2>/dev/null || echo 0; }
