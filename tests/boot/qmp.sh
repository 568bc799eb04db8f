#!/bin/bash
# The QMP control socket (--qmp, docs/debugging.md) driven by real
# clients, socat and `minivmm ctl`, against the qmpguest payload
# (tests/guest/qmpguest.c: ticks while it runs, counts NMIs, takes the
# ACPI power button through the SCI and powers off), with the sandbox on.
#   main: the socket's mode (0600), the greeting, commands refused before
#         qmp_capabilities, query-status/stop/cont (the guest's ticks stop
#         and go on), STOP/RESUME/POWERDOWN/SHUTDOWN events with
#         timestamps, inject-nmi (the guest counts it), query-cpus-fast,
#         query-version, x-minivmm-query-stats, x-minivmm-snapshot (the
#         guest goes on), ctl's exit statuses, hostile clients (garbage, a
#         half line left hanging, 10 MB of JSON, a disconnect mid-command;
#         the guest keeps ticking), then system_powerdown: the guest
#         powers off through ACPI (status 0).
#   the snapshot it took, restored: ticking on, powered off the same way.
#   quit over tcp (loopback, port 0), system_reset (RESET, status 3),
#   GUEST_PANICKED (an NMI the guest turns into a pvpanic report, status
#   8), and bad --qmp values (status 2).
. "$(dirname "$0")/lib.sh"

K="$GUESTS/qmpguest.elf"
command -v socat >/dev/null || { echo "FAIL: qmp (socat missing: tools/deps.sh test)"; exit 1; }

# vm_bg NAME ARGS...: minivmm in the background ($vm_pid), until the
# guest says it is ready or minivmm has ended (a safety net).
vm_bg() {
	local name=$1
	shift
	timeout -k 5 "$(secs 240)" "$MINIVMM" "$@" </dev/null \
		>"$TMP/$name.out" 2>"$TMP/$name.err" &
	vm_pid=$!
	wait_for "$TMP/$name.out" 'qmpguest: ready' 120
}

# wait_for FILE REGEX SECONDS: until FILE has REGEX (or minivmm ended).
wait_for() {
	for _ in $(seq $(($(secs "$3") * 10))); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		kill -0 "$vm_pid" 2>/dev/null || break
		sleep 0.1
	done
	grep -qE -- "$2" "$1" 2>/dev/null
}

ticks() { grep -c 'qmpguest: tick' "$TMP/$1.out"; }

# check NAME COND-STATUS WHAT: pass or fail with what was seen.
check() {
	if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "$3"; fi
}

# has NAME FILE REGEX
has() {
	grep -qE -- "$3" "$2"
	check "$1" $? "$(basename "$2") lacks /$3/: $(tail -c 600 "$2")"
}

# ctl NAME ADDR COMMAND [ARGS]: minivmm ctl's reply in $TMP/NAME.ctl,
# its status in $ctl_status.
ctl() {
	local name=$1
	shift
	timeout -k 2 "$(secs 60)" "$MINIVMM" ctl "$@" >"$TMP/$name.ctl" \
		2>"$TMP/$name.ctl.err"
	ctl_status=$?
}

# raw SOCK SECONDS: stdin to the socket with socat, the replies on
# stdout; the connection stays open SECONDS after stdin ends.
raw() {
	timeout -k 2 "$(secs 60)" socat -t "$2" - "UNIX-CONNECT:$1"
}

# listen NAME SOCK: a client that negotiates and then only hears events
# (until minivmm closes the socket), in $TMP/NAME.events.  Its input is
# a fifo this script holds open (closing it would hang the client up);
# heard waits for it to end and closes the fifo.
listen() {
	mkfifo "$TMP/$1.fifo"
	timeout -k 2 "$(secs 220)" socat - "UNIX-CONNECT:$2" \
		<"$TMP/$1.fifo" >"$TMP/$1.events" 2>&1 &
	listener=$!
	exec {listen_fd}>"$TMP/$1.fifo"
	echo '{"execute":"qmp_capabilities"}' >&$listen_fd
	wait_for "$TMP/$1.events" '"return"' 30
}

heard() {
	wait "$listener" 2>/dev/null
	exec {listen_fd}>&-
}

vm_status() {
	wait "$vm_pid"
	status=$?
	expect "$1" "$2" "${3:-}" "${4:-}"
}

i=0
for bad in bogus tcp:x tcp::99999 unix: "unix:$TMP/x,wait"; do
	i=$((i + 1))
	vm "qmp-bad-$i" 10 --kernel "$K" --qmp "$bad"
	expect "qmp-bad-$i" 2 '' "error: --qmp '$bad'"
done
ctl qmp-ctl-usage
check qmp-ctl-usage $([ $ctl_status = 2 ]; echo $?) "status $ctl_status"
ctl qmp-ctl-nosock "$TMP/nothing.sock" query-status
check qmp-ctl-nosock $([ $ctl_status = 2 ]; echo $?) "status $ctl_status"

# --- 1. one guest, most commands, hostile clients, the power button -----
n=qmp-main
S="$TMP/$n.sock"
vm_bg $n -c 2 --kernel "$K" --msr '0x174 allow' --qmp "unix:$S"
has $n-listening "$TMP/$n.err" "qmp: listening on unix:$S"
check $n-mode $([ "$(stat -c %a "$S")" = 600 ]; echo $?) \
	"mode $(stat -c %a "$S")"
listen $n "$S"

printf '{"execute":"query-status"}\n{"execute":"qmp_capabilities","id":1}\n{"execute":"query-status","id":2}\n' |
	raw "$S" 1 >"$TMP/$n.greet"
has $n-greeting "$TMP/$n.greet" '^\{"QMP":\{"version":\{"qemu":\{.*"package":"minivmm .*"capabilities":\[\]\}\}'
has $n-before-caps "$TMP/$n.greet" '"class":"CommandNotFound","desc":"Expecting capabilities negotiation'
has $n-caps "$TMP/$n.greet" '^\{"return":\{\},"id":1\}'
has $n-running "$TMP/$n.greet" '"running":true,"singlestep":false,"status":"running"\},"id":2'

ctl $n-stop "$S" stop
check $n-stop-status $ctl_status "ctl stop: status $ctl_status"
ctl $n-paused "$S" query-status
has $n-paused "$TMP/$n-paused.ctl" '"running":false.*"status":"paused"'
t0=$(ticks $n)
sleep 2
t1=$(ticks $n)
check $n-stopped-guest $([ "$t0" = "$t1" ]; echo $?) "ticks $t0 -> $t1 while paused"
ctl $n-cont "$S" cont
check $n-cont-status $ctl_status "ctl cont: status $ctl_status"
wait_for "$TMP/$n.out" "qmpguest: tick $((t1 + 2))\$" 30
check $n-runs-again $? "no tick after $t1 once continued"

ctl $n-nmi "$S" inject-nmi
check $n-nmi-status $ctl_status "status $ctl_status"
wait_for "$TMP/$n.out" 'qmpguest: nmi 1$' 30
check $n-nmi-taken $? "the guest saw no NMI"

ctl $n-cpus "$S" query-cpus-fast
has $n-cpus "$TMP/$n-cpus.ctl" '"cpu-index":1,.*"thread-id":[1-9][0-9]*,'
ctl $n-version "$S" query-version
has $n-version "$TMP/$n-version.ctl" '"package":"minivmm '
ctl $n-stats "$S" x-minivmm-query-stats
has $n-stats "$TMP/$n-stats.ctl" '^\{"return":\{.*"exits":\{[^}]*"io":[1-9]'
has $n-stats-running "$TMP/$n-stats.ctl" '"exit_status":null'
has $n-stats-no-msr "$TMP/$n-stats.ctl" '"msrs":\[\]'
# The guest reads SYSENTER_CS every tick; allowed, it stays in KVM until
# count is switched on, then each read exits and is counted.
ctl $n-msr-flags "$S" x-minivmm-msr-flags '{"count": true}'
has $n-msr-flags "$TMP/$n-msr-flags.ctl" '^\{"return":\{"log":false,"count":true\}\}'
t0=$(ticks $n)
wait_for "$TMP/$n.out" "qmpguest: tick $((t0 + 2))\$" 30
ctl $n-msr-stats "$S" x-minivmm-query-stats
has $n-msr-counted "$TMP/$n-msr-stats.ctl" '"msrs":\[.*\{"index":372,"name":"[^"]*","reads":[1-9]'
ctl $n-msr-off "$S" x-minivmm-msr-flags '{"count": false}'
has $n-msr-off "$TMP/$n-msr-off.ctl" '"count":false'
ctl $n-unknown "$S" no-such-command
check $n-unknown $([ $ctl_status = 1 ]; echo $?) "status $ctl_status"
has $n-unknown-reply "$TMP/$n-unknown.ctl" '"class":"CommandNotFound"'
ctl $n-badargs "$S" stop '[1'
check $n-badargs $([ $ctl_status = 2 ]; echo $?) "status $ctl_status"
ctl $n-snap "$S" x-minivmm-snapshot "{\"file\": \"$TMP/$n.snap\"}"
check $n-snapshot $([ $ctl_status = 0 ] && [ -s "$TMP/$n.snap" ]; echo $?) \
	"status $ctl_status, $(ls -l "$TMP/$n.snap" 2>&1); $(cat "$TMP/$n-snap.ctl")"

# Hostile clients: garbage, half a line left hanging, 10 MB of JSON, a
# client gone mid-command.  Each gets errors or is dropped; the guest
# goes on.
{ printf 'garbage\n\x01\x02{]\n'; sleep 2; } | raw "$S" 1 >"$TMP/$n.garbage" &
junk=$!
{ printf '{"execute": "qmp_capa'; sleep 6; } | raw "$S" 1 >/dev/null &
half=$!
{
	echo '{"execute":"qmp_capabilities"}'
	printf '{"execute":"stop","arguments":{"x":"'
	head -c 10000000 /dev/zero | tr '\0' A
	printf '"}}\n{"execute":"query-status"}\n'
} | raw "$S" 3 >"$TMP/$n.huge"
printf '{"execute":"qmp_capabilities"}\n{"execute":"sto' | raw "$S" 0 >/dev/null
wait "$junk" "$half"
has $n-garbage "$TMP/$n.garbage" '"class":"GenericError","desc":"JSON parse error"'
has $n-huge "$TMP/$n.huge" '"class":"GenericError","desc":"JSON message too long'
has $n-after-huge "$TMP/$n.huge" '"status":"running"'
t0=$(ticks $n)
wait_for "$TMP/$n.out" "qmpguest: tick $((t0 + 2))\$" 30
check $n-guest-runs-on $? "no tick after $t0 following the hostile clients"
ctl $n-still "$S" query-status
has $n-still "$TMP/$n-still.ctl" '"status":"running"'

ctl $n-powerdown "$S" system_powerdown
check $n-powerdown $ctl_status "status $ctl_status"
vm_status $n 0 'qmpguest: power button \(SCI\), PM1_STS=0x1..: powering off' \
	'guest powered off \(ACPI S5\)'
heard
E="$TMP/$n.events"
has $n-ev-stop "$E" '^\{"event":"STOP","timestamp":\{"seconds":[0-9]+,"microseconds":[0-9]+\}\}$'
has $n-ev-resume "$E" '^\{"event":"RESUME","timestamp"'
has $n-ev-powerdown "$E" '^\{"event":"POWERDOWN","timestamp"'
has $n-ev-shutdown "$E" '^\{"event":"SHUTDOWN","data":\{"guest":true,"reason":"guest-shutdown","x-minivmm-exit-status":0\}'
check $n-socket-removed $([ ! -e "$S" ]; echo $?) "$S is left behind"

# --- 1b. The snapshot QMP took, restored: the guest ticks on from where
# it was, and the power button still reaches it. --------------------------
n=qmp-restore
timeout -k 5 "$(secs 240)" "$MINIVMM" --restore "$TMP/qmp-main.snap" \
	--qmp "unix:$TMP/$n.sock" </dev/null >"$TMP/$n.out" 2>"$TMP/$n.err" &
vm_pid=$!
wait_for "$TMP/$n.out" 'qmpguest: tick [0-9]+$' 120
check $n-ticks $? "no tick after the restore"
ctl $n-powerdown "$TMP/$n.sock" system_powerdown
check $n-powerdown $ctl_status "status $ctl_status"
vm_status $n 0 'power button \(SCI\)' 'guest powered off'

# --- 2. quit over TCP (loopback, a port the kernel picks) ----------------
# (The hardware lane's L1 boots with lo down.)
ip link show lo 2>/dev/null | grep -q 'state UNKNOWN\|LOOPBACK,UP' ||
	ip link set lo up 2>/dev/null
n=qmp-tcp
vm_bg $n --kernel "$K" --qmp tcp::0
port=$(sed -n 's/.*qmp: listening on tcp:127\.0\.0\.1:\([0-9]*\)$/\1/p' "$TMP/$n.err")
check $n-loopback $([ -n "$port" ]; echo $?) "$(cat "$TMP/$n.err")"
ctl $n-status "tcp:127.0.0.1:$port" query-status
has $n-status "$TMP/$n-status.ctl" '"status":"running"'
ctl $n-quit "tcp::$port" quit
check $n-quit $ctl_status "status $ctl_status: $(cat "$TMP/$n-quit.ctl.err")"
vm_status $n 7 '' 'quit by QMP'

# --- 3. system_reset: RESET, then the run ends with status 3 ------------
n=qmp-reset
vm_bg $n --kernel "$K" --qmp "unix:$TMP/$n.sock"
listen $n "$TMP/$n.sock"
ctl $n-reset "$TMP/$n.sock" system_reset
check $n-reset $ctl_status "status $ctl_status"
vm_status $n 3 '' 'reset by QMP system_reset'
heard
has $n-ev-reset "$TMP/$n.events" '"event":"RESET","data":\{"guest":false,"reason":"host-qmp-system-reset"\}'
has $n-ev-shutdown "$TMP/$n.events" '"event":"SHUTDOWN","data":\{"guest":false,"reason":"host-qmp-system-reset","x-minivmm-exit-status":3\}'

# --- 4. GUEST_PANICKED: the guest answers an NMI with a pvpanic report --
n=qmp-panic
vm_bg $n --kernel "$K" --append panic-on-nmi --pvpanic on \
	--qmp "unix:$TMP/$n.sock"
listen $n "$TMP/$n.sock"
ctl $n-nmi "$TMP/$n.sock" inject-nmi
vm_status $n 8 'panicking through pvpanic' 'guest panicked'
heard
has $n-ev-panic "$TMP/$n.events" '"event":"GUEST_PANICKED","data":\{"action":"poweroff"\}'
has $n-ev-shutdown "$TMP/$n.events" '"event":"SHUTDOWN","data":\{"guest":true,"reason":"guest-panic"'
