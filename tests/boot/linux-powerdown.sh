#!/bin/bash
# QMP system_powerdown to a Linux guest (issue 27): the kernel built for
# minivmm (tools/build-kernel.sh, cached; ACPI_BUTTON and evdev), the
# busybox initramfs with tests/boot/linux-powerdown-init.sh as /init
# (busybox acpid with a PWRF/00000080 handler that runs poweroff), 1 vCPU,
# --qmp unix:SOCK.  Once the init says it is ready, `minivmm ctl SOCK
# system_powerdown` presses the ACPI fixed power button; then:
#   - the kernel found the power button (ACPI_BUTTON: "Power Button" input
#     device), acpid's handler ran, the init shut down on poweroff's
#     SIGUSR2 and the kernel said "reboot: Power down";
#   - minivmm ended with status 0 (the guest's ACPI S5);
#   - a QMP client listening from before the press heard POWERDOWN, then
#     SHUTDOWN (guest-shutdown), and the socket is gone.
# The initramfs is built in $TMP, not the cache: in the hardware lane L1
# sees the host's cache read-only.  Normal build only (a Linux boot is
# minutes).  The waits are safety nets, scaled (lib.sh's secs).
. "$(dirname "$0")/lib.sh"

LIMIT=${MINIVMM_LINUX_TIMEOUT:-900}
ARGS="console=ttyS0 ${MINIVMM_LINUX_ARGS:-}"
n=linux-powerdown

if [ "$BUILD" = build-asan ]; then
	echo "SKIP: $n (normal build only: a Linux boot is minutes)"
	exit 0
fi
command -v socat >/dev/null ||
	{ fail $n "socat missing (tools/deps.sh test)"; exit 0; }
kdir=$(tools/build-kernel.sh) ||
	{ fail build-kernel "tools/build-kernel.sh failed"; exit 0; }
initrd=$(tools/mkinitramfs.sh -o "$TMP/initrd.cpio" \
	tests/boot/linux-powerdown-init.sh) ||
	{ fail mkinitramfs "tools/mkinitramfs.sh failed"; exit 0; }

# wait_for FILE REGEX SECONDS: until FILE has REGEX (or minivmm ended).
wait_for() {
	local end=$((SECONDS + $(secs "$3")))
	while [ $SECONDS -lt $end ]; do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		kill -0 "$vm_pid" 2>/dev/null || break
		sleep 0.5
	done
	grep -qE -- "$2" "$1" 2>/dev/null
}

# has CHECK FILE REGEX WHY
has() {
	if grep -qE -- "$3" "$2"; then
		pass "$1"
	else
		fail "$1" "$4: $(basename "$2") lacks /$3/"
	fi
}

S="$TMP/q.sock"
t0=$SECONDS
timeout -k 5 "$(secs "$LIMIT")" "$MINIVMM" --kernel "$kdir/vmlinux" \
	--initrd "$initrd" -m 128M --append "$ARGS" --qmp "unix:$S" \
	</dev/null >"$TMP/$n.out" 2>"$TMP/$n.err" &
vm_pid=$!
wait_for "$TMP/$n.out" '^@@ powerdown: (ready|no power button)' "$LIMIT"
echo "TIME: boot to ready: $((SECONDS - t0)) s"
if ! grep -q '^@@ powerdown: ready' "$TMP/$n.out"; then
	kill "$vm_pid" 2>/dev/null
	wait "$vm_pid"
	fail $n-ready "the init never said it was ready"
	tail -n 20 "$TMP/$n.out" "$TMP/$n.err" | sed 's/^/    /'
	exit 0
fi
pass $n-ready
has $n-button "$TMP/$n.out" 'input: Power Button as /devices/LNXSYSTM:00/LNXPWRBN:00/input/' \
	"the kernel registered no fixed power button (ACPI_BUTTON)"
has $n-acpid-open "$TMP/$n.out" '^@@ powerdown: power button at /dev/input/event' \
	"the init found no power button event device"
grep -q '^@@ powerdown: acpid did not open' "$TMP/$n.out" &&
	fail $n-acpid-open "acpid did not open the button's device"

# A client that negotiates and then only hears events, from a fifo this
# script holds open (closing it would hang the client up).
mkfifo "$TMP/ev.fifo"
timeout -k 2 "$(secs 300)" socat - "UNIX-CONNECT:$S" <"$TMP/ev.fifo" \
	>"$TMP/$n.events" 2>&1 &
listener=$!
exec {ev_fd}>"$TMP/ev.fifo"
echo '{"execute":"qmp_capabilities"}' >&$ev_fd
wait_for "$TMP/$n.events" '"return"' 30 ||
	fail $n-listener "the listening client got no reply: $(cat "$TMP/$n.events")"

t0=$SECONDS
timeout -k 2 "$(secs 60)" "$MINIVMM" ctl "$S" system_powerdown \
	>"$TMP/ctl.out" 2>&1
rc=$?
[ $rc = 0 ] && pass $n-ctl || fail $n-ctl "minivmm ctl status $rc: $(cat "$TMP/ctl.out")"

wait "$vm_pid"
status=$?
echo "TIME: system_powerdown to minivmm's exit: $((SECONDS - t0)) s"
wait "$listener" 2>/dev/null
exec {ev_fd}>&-

O="$TMP/$n.out"
has $n-handler "$O" '^@@ powerdown: acpid ran PWRF/00000080' \
	"acpid did not run the power button's handler"
has $n-init "$O" '^@@ powerdown: init got SIGUSR2' \
	"poweroff did not reach the init"
has $n-init-off "$O" '^@@ powerdown: init: powering off' \
	"the init did not finish its shutdown"
has $n-kernel-off "$O" 'reboot: Power down' \
	"the kernel did not power down"
[ "$status" = 0 ] && pass $n-status ||
	fail $n "minivmm exit status $status, expected 0 (guest ACPI S5)"
has $n-s5 "$TMP/$n.err" 'guest powered off \(ACPI S5\)' "minivmm did not see S5"
E="$TMP/$n.events"
has $n-ev-powerdown "$E" '^\{"event":"POWERDOWN","timestamp"' \
	"no POWERDOWN event"
has $n-ev-shutdown "$E" '^\{"event":"SHUTDOWN","data":\{"guest":true,"reason":"guest-shutdown","x-minivmm-exit-status":0\}' \
	"no SHUTDOWN event from the guest"
p=$(grep -n '"event":"POWERDOWN"' "$E" | head -n 1 | cut -d: -f1)
s=$(grep -n '"event":"SHUTDOWN"' "$E" | head -n 1 | cut -d: -f1)
[ -n "$p" ] && [ -n "$s" ] && [ "$p" -lt "$s" ] && pass $n-ev-order ||
	fail $n-ev-order "POWERDOWN (line ${p:-none}) not before SHUTDOWN (line ${s:-none})"
[ ! -e "$S" ] && pass $n-socket-removed || fail $n-socket-removed "$S left behind"
# What the guest said, for the log.
grep -aE '^@@ |Power Button|reboot: ' "$O" | tr -d '\r' | sed 's/^/    /'
