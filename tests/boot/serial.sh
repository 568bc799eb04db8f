#!/bin/bash
# Consoles on host ends of their own (--serial, --virtio-console; the
# payload is tests/guest/serial2.c), driven with socat: COM1 into a file;
# COM2 (a second --serial) into a file, on the shared console, and on a
# socket whose input reaches the guest, announced in the DSDT only when
# it exists, kept by a snapshot; COM1 on a unix socket (mode 0600) with
# input typed through it, Ctrl-A passed to the guest as a byte, a client
# leaving and the next one reconnecting; clients that flood input without reading, or leave
# mid-output, never stop the guest; COM1 on a pty (its path on stderr)
# read and typed on with socat; virtio-console on a socket; bad values
# exit 2 with one line.
. "$(dirname "$0")/lib.sh"

K="$GUESTS/serial2.elf"

if ! command -v socat >/dev/null; then
	echo "FAIL: serial: socat is missing (tools/deps.sh test)"
	exit 0
fi

# has NAME FILE REGEX / lacks NAME FILE REGEX: FILE (in $TMP) holds it or
# not.
has() {
	if grep -qE -- "$3" "$TMP/$2"; then pass "$1"; else
		fail "$1" "$2 lacks /$3/"
		sed 's/^/    /' "$TMP/$2" 2>/dev/null | tail -n 10
	fi
}
lacks() {
	if ! grep -qE -- "$3" "$TMP/$2"; then pass "$1"; else
		fail "$1" "$2 has /$3/"; fi
}

# vm_bg NAME ARGS...: minivmm in the background ($vm_pid); waits until
# $TMP/NAME.sock exists or stderr names a pty, or minivmm has ended (a
# safety net: start-up takes seconds on an emulated host).
vm_bg() {
	local name=$1
	shift
	timeout -k 5 "$(secs 120)" "$MINIVMM" "$@" </dev/null \
		>"$TMP/$name.out" 2>"$TMP/$name.err" &
	vm_pid=$!
	for _ in $(seq 600); do
		[ -S "$TMP/$name.sock" ] && return
		grep -q '^minivmm: serial: /dev/pts/' "$TMP/$name.err" &&
			return
		kill -0 "$vm_pid" 2>/dev/null || return
		sleep 0.1
	done
}

vm_status() {
	wait "$vm_pid"
	status=$?
	expect "$1" "$2" "${3:-}" "${4:-}"
}

# typer FILE [REGEX BYTES]...: for each pair, once FILE holds REGEX
# (empty: at once), prints BYTES (printf escapes); a last REGEX without
# BYTES: returns once it came, which ends the client.  Each wait is a
# safety net of 60 s (scaled).
typer() {
	local f=$1 end
	shift
	while [ $# -ge 1 ]; do
		end=$((SECONDS + $(secs 60)))
		while [ -n "$1" ] && ! grep -qE -- "$1" "$f" 2>/dev/null &&
			[ $SECONDS -lt $end ]; do
			sleep 0.1
		done
		[ $# -lt 2 ] && return
		printf "$2"
		shift 2
	done
	sleep "$(secs 5)"
}

# client NAME N [REGEX BYTES]...: socat as the Nth client of NAME's
# socket, its output in $TMP/NAME.cN, typing as typer does.
client() {
	local c="$TMP/$1.c$2"
	shift 2
	: >"$c"
	typer "$c" "$@" | timeout -k 5 "$(secs 90)" socat - \
		"UNIX-CONNECT:${c%.c*}.sock" >"$c"
}

# --- bad values: exit 2, one line, no guest ----------------------------
bad() {
	local name=$1 regex=$2
	shift 2
	vm "$name" 30 --kernel "$K" "$@"
	expect "$name" 2 '' "$regex"
	[ "$(wc -l <"$TMP/$name.err")" -eq 1 ] && pass "$name-one-line" ||
		fail "$name" "expected exactly one line on stderr"
	grep -q 'com1: hello' "$TMP/$name.out" && fail "$name" "the guest ran"
}
bad bad-kind "--serial 'tcp:1': expected stdio, pty, unix:PATH, file:PATH or none" \
	--serial tcp:1
bad bad-empty "--serial '': expected stdio" --serial ''
bad bad-unix-empty "--serial 'unix:': unix: needs a path" --serial unix:
bad bad-file-empty "--serial 'file:': file: needs a path" --serial file:
bad bad-three "--serial 'none': at most two \(COM1, then COM2\)" \
	--serial stdio --serial stdio --serial none
bad bad-vcon "--virtio-console 'pts': expected stdio" --virtio-console pts
bad bad-long "unix socket path longer than 107 bytes" \
	--serial "unix:/$(printf 'x%.0s' $(seq 120))"
bad bad-dir "--serial unix:$TMP/no/such.sock: bind: No such file" \
	--serial "unix:$TMP/no/such.sock"
bad bad-file "--serial file:$TMP/no/such.txt: open: No such file" \
	--serial "file:$TMP/no/such.txt"
: >"$TMP/taken.sock"
bad bad-taken "--serial unix:$TMP/taken.sock: bind: Address already in use" \
	--serial "unix:$TMP/taken.sock"
[ -e "$TMP/taken.sock" ] && pass bad-taken-kept ||
	fail bad-taken-kept "minivmm removed a path it did not create"
bad bad-missing "option '--serial' needs a value" --serial

# --- file: COM1's output only there ------------------------------------
vm file 60 --kernel "$K" --serial "file:$TMP/com1.txt" --append "lines=50"
expect file 0
has file-hello com1.txt '^com1: hello$'
has file-firmware com1.txt 'minivmm firmware'
has file-lines com1.txt '^line 50 of 50$'
has file-verdict com1.txt '^serial2: 0 failure\(s\)$'
lacks file-not-stdout file.out 'com1: hello'

# --- COM2 ----------------------------------------------------------------
# Into a file; the DSDT lists it (PNP0501 at 0x2f8, IRQ 3).
vm com2-file 60 --kernel "$K" --serial stdio --serial "file:$TMP/com2.txt" \
	--append "dsdt=1"
expect com2-file 0 '^com2: in the DSDT$'
has com2-file-com1 com2-file.out '^com1: hello$'
has com2-file-hello com2.txt '^com2: hello$'
lacks com2-file-only com2.txt 'com1'
lacks com2-file-not-stdout com2-file.out 'com2: hello'
# Without a second --serial there is no COM2, and the DSDT says so.
vm com2-none 60 --kernel "$K" --append "dsdt=0"
expect com2-none 0 '^com2: not in the DSDT$'
lacks com2-none-silent com2-none.out 'com2: hello'
# Both on the shared console: each line whole.
vm com2-shared 60 --kernel "$K" --serial stdio --serial stdio \
	--append "lines=20"
expect com2-shared 0 '^com2: hello$'
has com2-shared-com1 com2-shared.out '^line 20 of 20$'
# On a socket: its output there, and input typed there reaches COM2.
n=com2-sock
vm_bg $n --kernel "$K" --serial stdio --serial "unix:$TMP/$n.sock" \
	--append "echo=2"
client $n 1 'com2: ready' 'zq' '<71>'
vm_status $n 0 '^serial2: 0 failure\(s\)$'
has $n-hello $n.c1 '^com2: hello'
has $n-echo $n.c1 '<7a><71>'
lacks $n-not-com1 $n.c1 'com1'

# A snapshot keeps COM2 (its UART's state with it): taken when the guest
# waits for COM2 input, restored with COM2 on a socket instead of a file,
# and the guest reads on there.  A restore cannot add a COM2 the snapshot
# lacks.
n=com2-snap
vm $n 60 --kernel "$K" --serial stdio --serial "file:$TMP/$n.txt" \
	--append "echo=2" --snapshot "$TMP/$n.snap" \
	--snapshot-at "console:com2: ready"
expect $n 0
has $n-before $n.txt '^com2: ready'
n=com2-restore
vm_bg $n --restore "$TMP/com2-snap.snap" --serial stdio \
	--serial "unix:$TMP/$n.sock"
client $n 1 '' 'rq' '<71>'
vm_status $n 0 '^serial2: 0 failure\(s\)$'
has $n-echo $n.c1 '<72><71>'
vm com1-snap 60 --kernel "$K" --append "echo=1" \
	--snapshot "$TMP/com1.snap" --snapshot-at "console:com1: ready"
expect com1-snap 0
vm com2-refused 30 --restore "$TMP/com1.snap" --serial stdio --serial none
expect com2-refused 2 '' "--serial \(a second one: COM2\) conflicts"

# --- unix: COM1 on a socket ---------------------------------------------
n=unix
vm_bg $n --kernel "$K" --serial "unix:$TMP/$n.sock" --append "echo=1"
mode=$(stat -c %a "$TMP/$n.sock" 2>/dev/null)
[ "$mode" = 600 ] && pass unix-mode || fail unix-mode "mode $mode, not 600"
# Ctrl-A x is two bytes for the guest here, not a quit.
client $n 1 'com1: ready' 'a\001xq' 'failure\(s\)'
vm_status $n 0
has unix-firmware unix.c1 'minivmm firmware'
has unix-echo unix.c1 '<61><01><78><71>'
has unix-verdict unix.c1 'serial2: 0 failure\(s\)'
lacks unix-not-stdout unix.out 'com1: hello'
[ -e "$TMP/$n.sock" ] && fail unix-removed "the socket file stayed" ||
	pass unix-removed

# A client types and leaves; others connect and leave at once; the next
# one is let in and types on.
n=reconnect
vm_bg $n --kernel "$K" --serial "unix:$TMP/$n.sock" --append "echo=1"
client $n 1 'com1: ready' 'a' '<61>'
for _ in 1 2 3; do
	timeout 10 socat -u /dev/null "UNIX-CONNECT:$TMP/$n.sock" 2>/dev/null
done
client $n 2 '' 'bq' 'failure\(s\)'
vm_status $n 0
has $n-first $n.c1 'com1: ready'
has $n-second $n.c2 '<62><71>'
has $n-verdict $n.c2 'serial2: 0 failure\(s\)'

# A client floods input and never reads (the FIFO fills; minivmm reads
# no more than it takes), while the guest writes more than the socket
# holds: the guest still runs to its end.
n=flood
vm_bg $n --kernel "$K" --serial "unix:$TMP/$n.sock" --append "lines=3000"
timeout -k 5 "$(secs 90)" socat -u /dev/zero "UNIX-CONNECT:$TMP/$n.sock" \
	2>/dev/null &
flood_pid=$!
vm_status $n 0
kill "$flood_pid" 2>/dev/null
wait "$flood_pid" 2>/dev/null
# A client leaves in the middle of the output.
n=midway
vm_bg $n --kernel "$K" --serial "unix:$TMP/$n.sock" --append "lines=3000"
timeout -k 5 "$(secs 90)" socat -u "UNIX-CONNECT:$TMP/$n.sock" - 2>/dev/null |
	head -c 300 >"$TMP/$n.c1"
vm_status $n 0
has $n-got $n.c1 'minivmm firmware'

# --- pty ------------------------------------------------------------------
n=pty
vm_bg $n --kernel "$K" --serial pty --append "echo=1"
has pty-said $n.err '^minivmm: serial: /dev/pts/[0-9]+$'
pts=$(sed -n 's|^minivmm: serial: \(/dev/pts/[0-9]*\)$|\1|p' "$TMP/$n.err")
: >"$TMP/$n.c1"
if [ -n "$pts" ]; then
	typer "$TMP/$n.c1" 'com1: ready' 'p\001xq' 'failure\(s\)' |
		timeout -k 5 "$(secs 90)" socat - "$pts,raw,echo=0" \
		>"$TMP/$n.c1" 2>/dev/null
fi
vm_status $n 0
has pty-output $n.c1 'com1: hello'
has pty-echo $n.c1 '<70><01><78><71>'

# --- virtio-console on a socket --------------------------------------------
n=vcon
vm_bg $n --kernel "$GUESTS/virtio_console.elf" \
	--virtio-console "unix:$TMP/$n.sock"
client $n 1 'vconsole: ready' 'vq' 'intx ready' 'wq' '<77><71>'
vm_status $n 0 '^virtio-console: 0 failure\(s\)$'
has vcon-lines $n.c1 '^vconsole: hello from the guest'
has vcon-echo $n.c1 '<76><71>'
has vcon-intx $n.c1 '<77><71>'
lacks vcon-not-stdout $n.out 'vconsole: hello'
exit 0
