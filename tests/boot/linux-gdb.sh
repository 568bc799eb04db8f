#!/bin/bash
# gdb on Linux (issue 27): the kernel built for minivmm
# (tools/build-kernel.sh, cached) through PVH with its vmlinux symbols,
# driven by Debian's gdb in batch mode over --gdb unix:SOCK:
#   start   attached before the first instruction (",wait"): `hbreak
#           start_kernel` (a debug register takes the kernel's virtual
#           address before its page tables exist), continue, `bt` there,
#           then continue to the init's verdict: poweroff, status 0, which
#           gdb sees as the end of the inferior
#   attach  gdb attaches to a running kernel (its init holding): the
#           stopped vCPU's function by symbol, `x/s` of linux_banner by
#           virtual address through the guest's page tables, `kill`
#           (status 7)
# The init is tests/boot/linux-gdb-init.sh, built in $TMP (L1 sees the
# host's cache read-only).  Normal build only (a Linux boot is minutes).
# On a PVM host --gdb leaves the syscall fix off (docs/debugging.md): the
# init dies at its first system call and the kernel panics.  There "start"
# checks the kernel got to init and panicked for that reason (a reset,
# status 3: the kernel's panic timeout), and "attach" attaches to the
# kernel spinning in that panic (panic=0: no reset).
. "$(dirname "$0")/lib.sh"

LIMIT=${MINIVMM_LINUX_TIMEOUT:-900}
n=linux-gdb
if [ "$BUILD" = build-asan ]; then
	echo "SKIP: $n (normal build only: a Linux boot is minutes)"
	exit 0
fi
command -v gdb >/dev/null ||
	{ fail $n "gdb missing (tools/deps.sh test)"; exit 0; }
kdir=$(tools/build-kernel.sh) ||
	{ fail build-kernel "tools/build-kernel.sh failed"; exit 0; }
initrd=$(tools/mkinitramfs.sh -o "$TMP/initrd.cpio" \
	tests/boot/linux-gdb-init.sh) ||
	{ fail mkinitramfs "tools/mkinitramfs.sh failed"; exit 0; }
K="$kdir/vmlinux"
GDB=(timeout -k 5 "$(secs "$LIMIT")" gdb -nx -batch -ex 'set pagination off'
     -ex 'set confirm off')

# boot NAME APPEND...: minivmm in the background ($vm_pid), --gdb on
# $TMP/NAME.sock with the given suffix; until the socket is there.
boot() {
	local name=$1 gdbopt=$2
	shift 2
	timeout -k 5 "$(secs "$LIMIT")" "$MINIVMM" --kernel "$K" \
		--initrd "$initrd" -m 128M --append "console=ttyS0 $*" \
		--gdb "unix:$TMP/$name.sock$gdbopt" </dev/null \
		>"$TMP/$name.out" 2>"$TMP/$name.err" &
	vm_pid=$!
	wait_socket "$TMP/$name.sock" "$vm_pid"
}

# has NAME FILE REGEX
has() {
	if grep -qE -- "$3" "$2"; then
		pass "$1"
	else
		fail "$1" "$(basename "$2") lacks /$3/"
		tail -n 20 "$2" | sed 's/^/    /'
	fi
}

pvm=no
host_emulates_ring0 && pvm=yes

# 1. From the first instruction to start_kernel, then to the verdict.
s=$n-start
boot $s ,wait
t0=$SECONDS
"${GDB[@]}" -ex "target remote $TMP/$s.sock" -ex 'hbreak start_kernel' \
	-ex 'continue' -ex 'bt' -ex 'info registers rip' -ex 'delete' \
	-ex 'continue' "$K" >"$TMP/$s.gdb" 2>&1
wait "$vm_pid"
status=$?
echo "TIME: $s: attach to the guest's end: $((SECONDS - t0)) s"
has $s-break "$TMP/$s.gdb" 'Breakpoint 1, (0x[0-9a-f]+ in )?start_kernel \(\)'
has $s-bt "$TMP/$s.gdb" '^#0 +(0x[0-9a-f]+ in )?start_kernel \(\)'
if [ $pvm = yes ]; then
	has $s-init "$TMP/$s.out" 'Kernel panic - not syncing: Attempted to kill init'
	has $s-exited "$TMP/$s.gdb" 'exited with code 03'
	has $s-note "$TMP/$s.err" 'syscall fix off under --gdb'
	expect $s 3
else
	has $s-init "$TMP/$s.out" '^@@ linux-gdb: init ran'
	has $s-exited "$TMP/$s.gdb" 'exited normally'
	expect $s 0
fi

# 2. Attached to a running kernel.
s=$n-attach
if [ $pvm = yes ]; then
	boot $s "" panic=0
	held='Kernel panic - not syncing: Attempted to kill init'
else
	boot $s "" gdbhold
	held='^@@ linux-gdb: holding'
fi
end=$((SECONDS + $(secs "$LIMIT")))
while [ $SECONDS -lt $end ] && kill -0 "$vm_pid" 2>/dev/null; do
	grep -qE "$held" "$TMP/$s.out" && break
	sleep 0.5
done
has $s-holding "$TMP/$s.out" "$held"
"${GDB[@]}" -ex "target remote $TMP/$s.sock" -ex 'info threads' \
	-ex 'x/i $pc' -ex 'x/s &linux_banner' -ex 'kill' \
	"$K" >"$TMP/$s.gdb" 2>&1
wait "$vm_pid"
status=$?
has $s-thread "$TMP/$s.gdb" 'Thread 1 .*vCPU 0'
has $s-pc "$TMP/$s.gdb" '=> 0xffffffff8[0-9a-f]+ <[a-z_0-9.]+(\+[0-9]+)?>:'
has $s-banner "$TMP/$s.gdb" '<linux_banner>:[[:space:]]+"Linux version 6\.1'
expect $s 7 '' 'killed by gdb'
