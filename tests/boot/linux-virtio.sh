#!/bin/bash
# virtio with a Linux guest: the kernel built for minivmm (tools/
# build-kernel.sh, found in the cache) drives --disk and --rng itself.
#   kernel  root=/dev/vda on an ext4 image made with `mkfs.ext4 -d`:
#           virtio_blk probes, ext4 mounts the root read-only, MSI-X
#           interrupts and in-kernel kicks only; the image is unchanged.
#           With MINIVMM_LINUX_TEST=1 also with pci=nomsi (INTx through
#           the IOAPIC, routed by the DSDT's _PRT).
#   user    an initramfs (linux-virtio-init.sh) mounts /dev/vda, reads the
#           host's files, writes one, checks a read-only second disk and
#           the RNG, and powers off; the host then finds the file with
#           debugfs and e2fsck -fn finds the file system clean.
# Each part prints "SKIP: ..." with the reason when it cannot run here:
# no kernel built for minivmm, or (user) no guest user space on this host
# (a PVM host needs minivmm's --syscall-fix).  Boot limits are safety
# nets, not assertions.
. "$(dirname "$0")/lib.sh"

BOOT_LIMIT=${MINIVMM_LINUX_TIMEOUT:-900}
ARGS="console=ttyS0 initcall_blacklist=ftrace_check_for_weak_functions,tracer_init_tracefs cryptomgr.notests nowatchdog mitigations=off panic=-1"

if [ "$BUILD" = build-asan ]; then
	echo "SKIP: linux-virtio (runs against the normal build only: minutes per boot)"
	exit 0
fi

# The kernel of this tree's fragment (tools/build-kernel.sh --print), else
# the newest one in the cache that has virtio-blk built in.
kernel=${MINIVMM_KERNEL:-}
cache=${MINIVMM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/minivmm}
if [ -z "$kernel" ] && dir=$(sh tools/build-kernel.sh --print 2>/dev/null) &&
	grep -q '^CONFIG_VIRTIO_BLK=y' "$dir/config" 2>/dev/null; then
	kernel=$dir/vmlinux
fi
if [ -z "$kernel" ]; then
	for k in $(ls -t "$cache"/kernel/*/vmlinux 2>/dev/null); do
		if grep -q '^CONFIG_VIRTIO_BLK=y' "$(dirname "$k")/config" \
			2>/dev/null; then
			kernel=$k
			break
		fi
	done
fi
if [ -z "$kernel" ] || [ ! -f "$kernel" ]; then
	echo "SKIP: linux-virtio (no kernel built for minivmm with CONFIG_VIRTIO_BLK=y in $cache/kernel/*/; make guest-kernel builds one)"
	exit 0
fi
for t in mkfs.ext4 debugfs e2fsck; do
	if ! command -v "$t" >/dev/null; then
		echo "SKIP: linux-virtio ($t not found: apt-get install e2fsprogs)"
		exit 0
	fi
done

mkdir -p "$TMP/root/dir"
echo "hello from the host" >"$TMP/root/hello.txt"
echo nested >"$TMP/root/dir/nested.txt"
mkimage() {
	rm -f "$1"
	truncate -s 64M "$1"
	mkfs.ext4 -q -F -d "$TMP/root" "$1"
}

# boot NAME ARGS...: the kernel, console in $TMP/NAME.out.
boot() {
	local name=$1
	shift
	vm "$name" $((BOOT_LIMIT + 30)) -m 512M --kernel "$kernel" \
		--timeout "$BOOT_LIMIT" "$@"
}

has() {
	grep -qE -- "$2" "$TMP/$1.out" && pass "$1-$3" ||
		fail "$1" "console lacks /$2/"
}

# --- kernel: the root file system on /dev/vda ------------------------------
kernel_root() {
	local name=$1
	shift
	mkimage "$TMP/$name.img"
	local before
	before=$(sha256sum <"$TMP/$name.img")
	# No init on the image: the kernel panics after mounting the root
	# and panic=-1 reboots (status 3).
	boot "$name" --disk "$TMP/$name.img,ro" --rng \
		--stats-json "$TMP/$name.json" \
		--append "$ARGS root=/dev/vda ro rootfstype=ext4 $*"
	expect "$name" 3
	has "$name" 'virtio_blk virtio[0-9]+: \[vda\] 131072 512-byte logical blocks' probe
	has "$name" 'EXT4-fs \(vda\): mounted filesystem' ext4
	has "$name" 'VFS: Mounted root \(ext4 filesystem\) readonly' root
	[ "$before" = "$(sha256sum <"$TMP/$name.img")" ] &&
		pass "$name-image-unchanged" || fail "$name" "the image changed"
	if python3 - "$TMP/$name.json" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))["virtio"]
blk, rng = v[0], v[1]
assert blk["requests"] > 0 and blk["errors"] == 0, blk
assert blk["interrupts"] > 0 and blk["notify_exits"] == 0, blk
assert rng["requests"] > 0, rng
EOF
	then
		pass "$name-kicks-in-kernel"
	else
		fail "$name" "virtio stats: $(head -c 300 "$TMP/$name.json")"
	fi
}

kernel_root linux-virtio-msix
if [ "${MINIVMM_LINUX_TEST:-0}" = 1 ]; then
	kernel_root linux-virtio-intx pci=nomsi
fi

# --- user space: mount, read, write, check on the host ------------------------
pvm=no
[ -d /sys/module/kvm_pvm ] && pvm=yes
if [ "$pvm" = yes ] && ! "$MINIVMM" --help 2>&1 | grep -q -- '--syscall-fix'; then
	echo "SKIP: linux-virtio-user (this host's KVM is PVM and this minivmm has no --syscall-fix: guest user space cannot run; it needs the SYSCALL completion of issue 12)"
	exit 0
fi
initrd=$(tools/mkinitramfs.sh tests/boot/linux-virtio-init.sh) || {
	fail linux-virtio-user "tools/mkinitramfs.sh failed"
	exit 0
}
marker="written-by-the-guest-$$"
mkimage "$TMP/user.img"
mkimage "$TMP/second.img"
boot linux-virtio-user --initrd "$initrd" \
	--disk "$TMP/user.img,serial=minivmm-ext4" --disk "$TMP/second.img,ro" \
	--rng --append "$ARGS minivmm.marker=$marker"
expect linux-virtio-user 0 '@@ verdict 0'
grep '^@@ FAIL' "$TMP/linux-virtio-user.out" | sed 's/^/    /'
got=$(debugfs -R "cat /from-guest.txt" "$TMP/user.img" 2>/dev/null)
[ "$got" = "$marker" ] && pass linux-virtio-user-debugfs ||
	fail linux-virtio-user "debugfs reads '$got' from /from-guest.txt"
e2fsck -fn "$TMP/user.img" >"$TMP/fsck.out" 2>&1 &&
	pass linux-virtio-user-e2fsck ||
	fail linux-virtio-user "e2fsck -fn: $(tail -n 3 "$TMP/fsck.out")"
