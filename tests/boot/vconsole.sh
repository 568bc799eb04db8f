#!/bin/bash
# virtio-console (--console-device virtio): the guest driver of
# tests/guest/virtio_console.c prints through the device only (lines
# "vconsole: ..."), and echoes what is typed on minivmm's terminal (a
# pseudo-terminal here, tests/boot/pty_run.py) with MSI-X and with INTx;
# input typed before the driver is up waits in the device.  Ctrl-A x
# still quits; the UART keeps printing; a console marker sees the
# device's output; a snapshot taken with input waiting in the device and
# buffers posted restores and goes on.  The hostile driver must not break
# the VMM.  Then the refusals.
. "$(dirname "$0")/lib.sh"
G="$GUESTS/virtio_console.elf"
PTY="python3 $(dirname "$0")/pty_run.py"

# pty NAME LIMIT [TRIGGER FEED]... -- ARGS: like vm, on a terminal.
pty() {
	local name=$1 limit=$2
	shift 2
	local feeds=()
	while [ "$1" != -- ]; do feeds+=("$1"); shift; done
	shift
	$PTY "$TMP/$name.out" "$limit" "${feeds[@]}" -- \
		timeout -k 5 "$limit" "$MINIVMM" "$@"
	status=$?
	mv "$TMP/$name.out.err" "$TMP/$name.err"
}

# jget FILE EXPR: EXPR over the --stats-json file's console entry (c).
jget() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    c = [v for v in d["virtio"] if v["type"] == "console"][0]
    print(eval("(" + sys.argv[2] + ")"))
except Exception as e:
    print("unreadable (%s)" % e.__class__.__name__)
EOF
}

same() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected $2, got $3"; fi
}

has() {
	if grep -qE -- "$3" "$TMP/$2.out"; then pass "$1"; else
		fail "$1" "stdout lacks /$3/"; fi
}

# Output only (no terminal: no input), every transmit shape, the
# emergency register, counters.
vm out 60 --kernel "$G" --console-device virtio --append noinput \
	--stats-json "$TMP/out.json"
expect out 0 '^virtio-console: 0 failure\(s\)$'
for l in 'emergency write' 'hello from the guest' 'split chain' indirect \
	 'with an interrupt'; do
	has "out-$l" out "^vconsole: $l\$"
done
has out-enumerated out '00:04\.0 1af4:1043 BAR0 mem64'
same out-counted True "$(jget "$TMP/out.json" \
	'c["name"] == "virtio-console0" and c["bytes_written"] == 126 and
	 c["bytes_read"] == 0 and c["requests"] == 4 and
	 c["notify_exits"] == 0 and c["interrupts"] == 1')"

# The same into --console FILE: both sources there, lines intact.
vm file 60 --kernel "$G" --console-device virtio --append noinput \
	--console "$TMP/file.txt"
expect file 0
grep -qx 'vconsole: split chain' "$TMP/file.txt" &&
	grep -qx 'virtio-console: 0 failure(s)' "$TMP/file.txt" &&
	pass file-both-sources || fail file "console file lacks a line"

# Input on the terminal, echoed back through the device: MSI-X, then INTx.
pty echo 90 'vconsole: ready' 'hello, hvc0\x03q' 'intx ready' 'xyq' -- \
	--kernel "$G" --console-device virtio --stats-json "$TMP/echo.json"
expect echo 0 '^virtio-console: 0 failure\(s\)'
has echo-msix echo '^vconsole: received <68><65><6c><6c><6f><2c><20><68><76><63><30><03><71>'
has echo-intx echo '^vconsole: intx received <78><79><71>'
same echo-counted True "$(jget "$TMP/echo.json" 'c["bytes_read"] == 16')"

# Typed before the driver is up (more than its four 16-byte buffers):
# kept in the device until there are buffers, nothing lost.
early='typed early, longer than four sixteen-byte buffers: 0123456789q'
pty early 90 '' "$early" 'intx ready' 'q' -- --kernel "$G" --console-device virtio
expect early 0 '^virtio-console: 0 failure\(s\)'
want=$(printf '%s' "$early" | od -An -tx1 -v | tr -s ' \n' ' ' |
	sed 's/^ //; s/ $//; s/\([0-9a-f][0-9a-f]\)/<\1>/g; s/ //g')
has early-all early "^vconsole: received $want"

# Ctrl-A x quits (status 7) with the virtio console taking input.
pty quit 60 'vconsole: ready' '\x01x' -- --kernel "$G" --console-device virtio
expect quit 7 'vconsole: ready' 'quit \(Ctrl-A x\)'

# Without --console-device virtio (uart, the default) there is none.
vm uart-default 60 --kernel "$G" --console-device uart --append noinput
expect uart-default 1 '^virtio-console: no device$'

# Console marker on the device's output; input typed at once waits in the
# device (its own snapshot section) while the guest has posted no buffers
# yet, and comes out after the restore; the restore's own input arrives
# with INTx.
pty snap-take 60 '' 'before q' -- --kernel "$G" --console-device virtio \
	--snapshot "$TMP/c.snap" --snapshot-at 'console:with an interrupt'
expect snap-take 0 'vconsole: with an interrupt' 'snapshot written to'
pty snap-restore 60 'intx ready' 'after q' -- --restore "$TMP/c.snap"
expect snap-restore 0 '^virtio-console: 0 failure\(s\)'
has snap-restore-early snap-restore '^vconsole: received <62><65><66><6f><72><65><20><71>'
has snap-restore-intx snap-restore '^vconsole: intx received <61><66><74><65><72><20><71>'

# Hostile driver, with typed input for its receive cases: the VMM
# survives, the device works after each reset, no input byte is lost or
# repeated, only emerg_wr's low byte is acted on.
digits=$(python3 -c "print('0123456789' * 100, end='')")
pty hostile 180 'console-hostile: type' "$digits" -- \
	--kernel "$GUESTS/virtio_console_hostile.elf" --console-device virtio \
	--append "seed=3 rounds=100" --stats-json "$TMP/hostile.json"
expect hostile 0 '^virtio-console-hostile: 100 random rounds, 0 failure\(s\)'
has hostile-emerg hostile '^###.?$'
same hostile-needs-reset True "$(jget "$TMP/hostile.json" \
	'c["needs_reset"] >= 10')"

# --- refusals: one line, status 2, before the guest runs ---------------------
bad() {
	local name=$1 regex=$2
	shift 2
	vm "$name" 30 "$@"
	expect "$name" 2 '' "$regex"
	[ "$(wc -l <"$TMP/$name.err")" -eq 1 ] && pass "$name-one-line" ||
		fail "$name" "expected exactly one line on stderr"
	grep -q 'minivmm firmware' "$TMP/$name.out" &&
		fail "$name" "the guest ran"
}
bad bad-value "--console-device 'hvc': expected uart or virtio" \
	--console-device hvc
bad bad-empty "--console-device '': expected uart or virtio" \
	--console-device ''
bad bad-missing "option '--console-device' needs a value" --console-device
bad bad-snap "--console-device conflicts with the snapshot's machine \(its console device is virtio" \
	--restore "$TMP/c.snap" --console-device uart
exit 0
