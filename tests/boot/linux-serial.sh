#!/bin/bash
# COM2 with a Linux guest: Debian's cloud kernel (tools/fetch-kernel.sh,
# 8250 PNP and four legacy ports) booted through PVH with the console on
# COM1 and COM2 (a second --serial) on a unix socket.  The kernel must
# find both UARTs in the DSDT (PNP0501 at 0x3f8/IRQ 4 and 0x2f8/IRQ 3)
# and register ttyS1 at 0x2f8; init (linux-serial-init.sh) says hello on
# ttyS1, which arrives on the socket (socat), and the line typed there
# comes back through IRQ 3 to init, which prints it on the console.
# Prints "SKIP: ..." when the kernel package cannot be had.  The limits
# are safety nets, not assertions.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/linux-lib.sh"

BOOT_LIMIT=$(secs ${MINIVMM_LINUX_TIMEOUT:-900})
LINUX_MEM=256M
LINUX_ARGS="initcall_blacklist=ftrace_check_for_weak_functions,tracer_init_tracefs,trace_eval_init cryptomgr.notests nowatchdog mitigations=off panic=-1"

if ! command -v socat >/dev/null; then
	echo "FAIL: linux-serial: socat is missing (tools/deps.sh test)"
	exit 0
fi
cache=$(tools/fetch-kernel.sh)
rc=$?
if [ $rc -eq 77 ]; then
	echo "SKIP: linux-serial (the kernel package cannot be downloaded with apt)"
	exit 0
elif [ $rc -ne 0 ]; then
	fail fetch-kernel "tools/fetch-kernel.sh exited $rc"
	exit 0
fi
initrd=$(tools/mkinitramfs.sh tests/boot/linux-serial-init.sh) || {
	fail mkinitramfs "tools/mkinitramfs.sh failed"
	exit 0
}

n=linux-com2
sock="$TMP/$n.sock"
: >"$TMP/$n.c1"
(boot $n "$cache/vmlinux" serial --serial stdio --serial "unix:$sock"
 exit "$status") &
boot_pid=$!
wait_socket "$sock" "$boot_pid"	# once minivmm is up
# Types a line once the hello came, then holds the connection until
# minivmm ends (it closes the socket).
{
	end=$((SECONDS + BOOT_LIMIT))
	until grep -q 'hello from ttyS1' "$TMP/$n.c1" ||
		[ $SECONDS -ge $end ]; do
		sleep 0.5
	done
	printf 'ping over COM2\n'
	while kill -0 "$boot_pid" 2>/dev/null; do sleep 0.5; done
} | timeout -k 5 "$BOOT_LIMIT" socat - "UNIX-CONNECT:$sock" >"$TMP/$n.c1" 2>/dev/null
wait "$boot_pid"
status=$?
report_time $n
[ "$status" = 0 ] && pass "$n: powered off (status 0)" ||
	fail "$n" "status $status, expected 0"
has $n '@@ pnp PNP0501 .*io 0x3f8-0x3ff irq 4' "COM1 in the DSDT"
has $n '@@ pnp PNP0501 .*io 0x2f8-0x2ff irq 3' "COM2 in the DSDT"
has $n '@@ ttyS1 port 0x2F8 irq 3' "ttyS1 at 0x2f8, IRQ 3"
has $n '@@ ttyS1 read: ping over COM2' "a line typed on COM2's socket"
has $n '@@ irq +3: +[1-9]' "COM2's interrupts counted"
grep -q 'hello from ttyS1' "$TMP/$n.c1" &&
	pass "$n: ttyS1's output on the socket" ||
	fail "$n" "the socket got no 'hello from ttyS1'"
grep -q 'hello from ttyS1' "$TMP/$n.out" &&
	fail "$n" "ttyS1's output on the console" ||
	pass "$n: ttyS1's output only on the socket"
exit 0
