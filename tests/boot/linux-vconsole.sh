#!/bin/bash
# virtio-console with a Linux guest: the kernel built for minivmm
# (tools/build-kernel.sh, CONFIG_VIRTIO_CONSOLE=y) with --console-device
# virtio and "earlycon=uart8250,io,0x3f8 console=hvc0":
#   kernel  the early boot prints on the UART, then hvc0 takes over the
#           kernel console (the boot console is disabled): with no root
#           the panic message can only have come through the device
#           (its byte counter says so); panic=-1 reboots (status 3).
#   user    an initramfs (linux-vconsole-init.sh) runs an interactive
#           shell on /dev/hvc0; the host types a command on minivmm's
#           terminal (tests/boot/pty_run.py), reads its answer, and types
#           poweroff -f (status 0).
# Each part prints "SKIP: ..." with the reason when it cannot run here:
# no kernel built for minivmm, or (user) no guest user space on this host
# (a PVM host needs minivmm's --syscall-fix).  Boot limits are safety
# nets, not assertions.
. "$(dirname "$0")/lib.sh"

BOOT_LIMIT=${MINIVMM_LINUX_TIMEOUT:-900}
ARGS="earlycon=uart8250,io,0x3f8 console=hvc0 initcall_blacklist=ftrace_check_for_weak_functions,tracer_init_tracefs cryptomgr.notests nowatchdog mitigations=off panic=-1"

if [ "$BUILD" = build-asan ]; then
	echo "SKIP: linux-vconsole (runs against the normal build only: minutes per boot)"
	exit 0
fi
minivmm_kernel CONFIG_VIRTIO_CONSOLE
if [ -z "$kernel" ]; then
	echo "SKIP: linux-vconsole (no kernel built for minivmm with CONFIG_VIRTIO_CONSOLE=y: make guest-kernel builds one)"
	exit 0
fi

has() {
	grep -qE -- "$2" "$TMP/$1.out" && pass "$1-$3" ||
		fail "$1" "console lacks /$2/"
}

# --- kernel: hvc0 becomes the kernel console ------------------------------
vm linux-hvc0 $((BOOT_LIMIT + 30)) -m 512M --kernel "$kernel" \
	--timeout "$BOOT_LIMIT" --console-device virtio \
	--stats-json "$TMP/hvc0.json" --append "$ARGS"
expect linux-hvc0 3
has linux-hvc0 'virtio-pci 0000:00:04\.0|pci 0000:00:04\.0: \[1af4:1043\]' probe
has linux-hvc0 'printk: console \[hvc0\] enabled' console
has linux-hvc0 'Kernel panic - not syncing: VFS: Unable to mount root fs' panic
# What came after the switch came through the device: its bytes.
if python3 - "$TMP/hvc0.json" "$TMP/linux-hvc0.out" <<'EOF'
import json, sys
c = [v for v in json.load(open(sys.argv[1]))["virtio"]
     if v["type"] == "console"][0]
out = open(sys.argv[2], "rb").read()
after = out[out.index(b"bootconsole [uart8250] disabled"):]
tail = after[after.index(b"\n") + 1:]
assert c["bytes_written"] >= len(tail) > 200, (c, len(tail))
assert c["notify_exits"] == 0 and c["needs_reset"] == 0, c
EOF
then
	pass linux-hvc0-bytes
else
	fail linux-hvc0 "device counters: $(head -c 300 "$TMP/hvc0.json")"
fi

# --- user space: a shell on hvc0 ---------------------------------------------
if [ -d /sys/module/kvm_pvm ] &&
	! "$MINIVMM" --help 2>&1 | grep -q -- '--syscall-fix'; then
	echo "SKIP: linux-vconsole-user (this host's KVM is PVM and this minivmm has no --syscall-fix: guest user space cannot run; it needs the SYSCALL completion of issue 12)"
	exit 0
fi
initrd=$(tools/mkinitramfs.sh tests/boot/linux-vconsole-init.sh) || {
	fail linux-vconsole-user "tools/mkinitramfs.sh failed"
	exit 0
}
python3 "$(dirname "$0")/pty_run.py" "$TMP/linux-vconsole-user.out" \
	$((BOOT_LIMIT + 60)) \
	'hvc0-shell# ' 'echo ANSWER=$((6 * 7)) on $(tty)\r' \
	'ANSWER=42' 'poweroff -f\r' -- \
	timeout -k 5 $((BOOT_LIMIT + 30)) "$MINIVMM" -m 512M --kernel "$kernel" \
	--initrd "$initrd" --timeout "$BOOT_LIMIT" --console-device virtio \
	--append "$ARGS"
status=$?
mv "$TMP/linux-vconsole-user.out.err" "$TMP/linux-vconsole-user.err"
expect linux-vconsole-user 0 '@@ active consoles: hvc0'
has linux-vconsole-user 'ANSWER=42 on /dev/hvc0' shell
