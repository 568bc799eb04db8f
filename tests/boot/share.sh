#!/bin/bash
# virtio-fs over vhost-user with a Linux guest (the kernel built for
# minivmm, CONFIG_VIRTIO_FS=y) and Debian's virtiofsd:
#   share        --share of a read-only and a writable temporary tree:
#                the guest (share-init.sh) prints the MD5 of every file
#                (compared with the host's), cannot write the ro one,
#                copies, writes, renames and removes in the rw one (checked
#                on the host afterwards)
#   fs           --fs SOCKET,tag=TAG with a virtiofsd this script starts
#   gone         the back end killed while the guest uses the share: the
#                run ends with status 1 and a line saying so, no hang
#   cmd          --cmd runs: a shared file read (checksum), a file written
#                into a writable share, a status that comes back (3); the
#                host's root as the guest's (--share /, overlay writes stay
#                in the guest); a panic on purpose (status 8, pvpanic), a
#                stall (status 9)
#   bad input    (no boot) a directory that does not exist, a daemon that
#                does not exist or dies at start, a bad tag, a --fs path that is no socket,
#                --share with --snapshot: status 2, nothing left running
# MINIVMM_KERNEL overrides the kernel; MINIVMM_KERNEL_MODS=DIR adds a
# distribution kernel's modules (DIR/*.ko, loaded in minivmm.mods order).
# Prints "SKIP: ..." without virtiofsd, busybox or the kernel.
. "$(dirname "$0")/lib.sh"

BOOT_LIMIT=${MINIVMM_LINUX_TIMEOUT:-600}
ARGS="console=ttyS0 cryptomgr.notests nowatchdog mitigations=off panic=-1"
VIRTIOFSD=${MINIVMM_VIRTIOFSD:-/usr/lib/qemu/virtiofsd}

if [ "$BUILD" = build-asan ]; then
	echo "SKIP: share (runs against the normal build only: Linux boots)"
	exit 0
fi
if [ "$(id -u)" != 0 ] || [ ! -x "$VIRTIOFSD" ] || ! command -v busybox >/dev/null; then
	echo "SKIP: share (needs root, $VIRTIOFSD (qemu-system-common) and busybox)"
	exit 0
fi
minivmm_kernel CONFIG_VIRTIO_FS
if [ -z "$kernel" ]; then
	echo "SKIP: share (no kernel built for minivmm with CONFIG_VIRTIO_FS=y; make guest-kernel builds one)"
	exit 0
fi
mods= modfiles=()
if [ -n "${MINIVMM_KERNEL_MODS:-}" ]; then
	for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev \
		virtio_pci fuse virtiofs; do
		modfiles+=("$MINIVMM_KERNEL_MODS/$m.ko")
		mods=${mods:+$mods,}$m
	done
	ARGS="$ARGS minivmm.mods=$mods"
fi
initrd=$TMP/initrd.cpio
tools/mkinitramfs.sh -o "$initrd" tests/boot/share-init.sh "${modfiles[@]}" >/dev/null || {
	fail share "tools/mkinitramfs.sh failed"
	exit 0
}

# Nothing of ours may outlive a run: no virtiofsd, no socket directory.
leftovers() {
	local p
	p=$(pgrep -f "^$VIRTIOFSD .*/tmp/minivmm-fs\." 2>/dev/null)
	[ -z "$p" ] && ! ls -d /tmp/minivmm-fs.* >/dev/null 2>&1
}
# Socket directories of other runs (e.g. a parallel make check) would
# look like ours: count only what appears during this script.
before=$(ls -d /tmp/minivmm-fs.* 2>/dev/null | wc -l)
if [ "$before" != 0 ]; then
	leftovers() { true; }
fi

# --- share: read-only and writable trees -----------------------------------
mkdir -p "$TMP/ro/sub/deeper" "$TMP/rw"
head -c $((1 << 20)) /dev/urandom >"$TMP/ro/big"
head -c 4097 /dev/urandom >"$TMP/ro/sub/odd"
echo small >"$TMP/ro/sub/deeper/small"
: >"$TMP/ro/empty"
echo "written by the host" >"$TMP/rw/hostfile"
echo scratch >"$TMP/rw/scratch"
vm share $((BOOT_LIMIT + 30)) -m 256M --kernel "$kernel" --initrd "$initrd" \
	--timeout "$BOOT_LIMIT" --append "$ARGS" \
	--share "$TMP/ro,tag=ro,ro" --share "$TMP/rw,tag=rw"
expect share 0 '@@ verdict 0'
for c in mount-ro mount-rw ro-refuses-write ro-refuses-mkdir rw-copy \
	rw-mkdir-mv rw-rm rw-host-file umount; do
	if grep -q "@@ ok $c" "$TMP/share.out"; then
		pass "share-$c"
	else
		fail share "guest check $c did not pass"
	fi
done
want=$(cd "$TMP/ro" && find . -type f | LC_ALL=C sort | while read -r f; do
	echo "$(md5sum <"$f" | cut -d' ' -f1) $f"; done)
got=$(tr -d '\r' <"$TMP/share.out" | sed -n 's/^@@ sum //p' | LC_ALL=C sort -k2)
if [ -n "$want" ] && [ "$want" = "$(echo "$got" | LC_ALL=C sort -k2)" ]; then
	pass "share-checksums (4 files read in the guest match the host's)"
else
	fail share "checksums differ: host [$want] guest [$got]"
fi
if cmp -s "$TMP/ro/big" "$TMP/rw/copy" &&
	[ "$(cat "$TMP/rw/d/note" 2>/dev/null)" = "written by the guest" ] &&
	[ ! -e "$TMP/rw/scratch" ] && [ ! -e "$TMP/ro/new" ]; then
	pass "share-host-sees-writes"
else
	fail share "the host does not see the guest's writes as made"
fi
if leftovers; then pass share-nothing-left; else fail share "virtiofsd or its socket left behind"; fi

# --- fs: a virtiofsd started by the user -----------------------------------
mkdir -p "$TMP/ext"
echo "written by the host" >"$TMP/ext/hostfile"
echo scratch >"$TMP/ext/scratch"
"$VIRTIOFSD" --socket-path="$TMP/ext.sock" -o source="$TMP/ext" \
	-o cache=auto -o log_level=err &
vfs=$!
for _ in $(seq 200); do [ -S "$TMP/ext.sock" ] && break; sleep 0.05; done
vm fs $((BOOT_LIMIT + 30)) -m 256M --kernel "$kernel" --initrd "$initrd" \
	--timeout "$BOOT_LIMIT" --append "$ARGS" \
	--share "$TMP/ro,tag=ro,ro" --fs "$TMP/ext.sock,tag=rw"
expect fs 0 '@@ ok rw-host-file'
kill "$vfs" 2>/dev/null
wait "$vfs" 2>/dev/null

# --- gone: the back end dies under the guest --------------------------------
( for _ in $(seq $((BOOT_LIMIT * 10))); do
	if grep -q '@@ holding' "$TMP/gone.out" 2>/dev/null; then
		pkill -KILL -f -- "source=$TMP/rw -o"
		exit 0
	fi
	sleep 0.1
done ) &
killer=$!
vm gone $((BOOT_LIMIT + 30)) -m 256M --kernel "$kernel" --initrd "$initrd" \
	--timeout "$BOOT_LIMIT" --append "$ARGS minivmm.mode=hold" \
	--share "$TMP/ro,tag=ro,ro" --share "$TMP/rw,tag=rw"
kill "$killer" 2>/dev/null
expect gone 1 '@@ holding' 'virtio-fs1 .*vhost-user back end failed'
if leftovers; then pass gone-nothing-left; else fail gone "virtiofsd or its socket left behind"; fi

# --- --cmd: a command's output and status --------------------------------------
cmdinit=
if [ -n "${MINIVMM_KERNEL_MODS:-}" ]; then
	# A distribution kernel: its modules first, then minivmm's init.
	cat >"$TMP/cmd-wrap.sh" <<-EOS
	#!/bin/sh
	for m in $(echo "$mods,overlay,pvpanic,pvpanic-pci" | tr , ' '); do /bin/busybox insmod /bin/\$m.ko; done
	exec /bin/sh /bin/cmd-init.sh
	EOS
	cmdinit=$TMP/cmd-initramfs.cpio
	tools/mkinitramfs.sh -o "$cmdinit" "$TMP/cmd-wrap.sh" vmm/run/cmd-init.sh \
		"${modfiles[@]}" "$MINIVMM_KERNEL_MODS/overlay.ko" \
		"$MINIVMM_KERNEL_MODS/pvpanic.ko" \
		"$MINIVMM_KERNEL_MODS/pvpanic-pci.ko" >/dev/null
fi
MINIVMM_ABS=$(realpath "$MINIVMM")
# cmdvm NAME DIR ARGS...: minivmm --cmd from DIR (its working directory).
cmdvm() {
	local name=$1 dir=$2
	shift 2
	(cd "$dir" && MINIVMM_CMD_INITRAMFS=${cmdinit:-$MINIVMM_CMD_INITRAMFS} \
		timeout -k 5 $((BOOT_LIMIT + 30)) "$MINIVMM_ABS" -m 256M \
		--kernel "$kernel" --timeout "$BOOT_LIMIT" "$@" </dev/null \
		>"$TMP/$name.out" 2>"$TMP/$name.err")
	status=$?
}
bigsum=$(md5sum <"$TMP/ro/big" | cut -d' ' -f1)
# One boot: read a shared file, run in the shared current directory,
# write into a writable share, and fail on purpose.
cmdvm cmd "$TMP/ro" --share "$TMP/ro,ro" --share "$TMP/rw" \
	--cmd "md5sum big && pwd && echo 'from the command' >$TMP/rw/cmdfile; exit 3"
expect cmd 3 "^$bigsum  big" ''
if grep -q "^$TMP/ro\$" "$TMP/cmd.out"; then
	pass "cmd-cwd (the command ran in the shared current directory)"
else
	fail cmd "the command did not run in $TMP/ro"
fi
if [ "$(cat "$TMP/rw/cmdfile" 2>/dev/null)" = "from the command" ]; then
	pass cmd-write
else
	fail cmd "$TMP/rw/cmdfile: $(cat "$TMP/rw/cmdfile" 2>&1)"
fi
# --share /: the host's root, read-only under a writable overlay, is the
# command's root; a writable share still writes through to the host.
cmdvm cmd-root "$TMP/rw" --share / --share "$TMP/rw" \
	--cmd "echo rooted >viaroot && head -n 1 /etc/os-release && touch /usr/minivmm-overlay-$$ && ls /usr/minivmm-overlay-$$"
expect cmd-root 0 "/usr/minivmm-overlay-$$" ''
if [ "$(cat "$TMP/rw/viaroot" 2>/dev/null)" = rooted ] && [ ! -e "/usr/minivmm-overlay-$$" ]; then
	pass "cmd-root-overlay (shared writes reach the host, overlay writes do not)"
else
	fail cmd-root "viaroot: $(cat "$TMP/rw/viaroot" 2>&1); /usr/minivmm-overlay-$$ on the host: $(ls "/usr/minivmm-overlay-$$" 2>&1)"
fi
cmdvm cmd-panic "$TMP" --cmd 'echo c >/proc/sysrq-trigger; sleep 600'
expect cmd-panic 8 '' 'guest panicked'
cmdvm cmd-stall "$TMP" --stall-timeout 15 --append "console=ttyS0 panic=-1" \
	--cmd 'echo going quiet; sleep 100000'
expect cmd-stall 9 'going quiet' 'guest stalled: no console output and no exits for 15 s'
if grep -q 'vCPU 0 at RIP' "$TMP/cmd-stall.err"; then
	pass "cmd-stall-report (where the vCPU was)"
else
	fail cmd-stall "no vCPU report"
fi
cmdvm cmd-initrd "$TMP" --initrd "$initrd" --cmd true
expect cmd-initrd 2 '' '--initrd: conflicts with --cmd'
# A kernel without the options the README lists (Debian's stock kernels:
# virtio-pci, FUSE and virtio-fs are modules the initramfs does not load;
# the cloud kernel has no /dev/port either): the init names what is
# missing, and the run ends with the init's 125, or where the status
# cannot be passed on, with a reboot (3) that says so: never a hang or a
# power-off that would read as success.  The fetched cloud kernel or the
# lane's own L1 kernel (which has /dev/port), whichever the cache has.
cache=${MINIVMM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/minivmm}
stock=
for k in "$cache/bzImage" "$cache/l1/vmlinuz"; do
	[ -s "$k" ] && { stock=$k; break; }
done
if [ -n "$stock" ] && host_emulates_ring0; then
	# Soft lockups, then the boot limit (2026-12-03): a Debian
	# kernel here is 6-15 minutes a boot (tests/run.sh: make check-linux).
	echo "SKIP: cmd-stock (this host's KVM is PVM: a Debian kernel boots for 6-15 minutes here; the lane runs it)"
elif [ -n "$stock" ]; then
	own=$kernel kernel=$stock
	cmdvm cmd-stock "$TMP" --share "$TMP/rw" --cmd true
	kernel=$own
	if grep -q 'no /dev/port (CONFIG_DEVPORT)' "$TMP/cmd-stock.out"; then
		pass "cmd-stock-devport (the status that could not be passed on is named)"
		want=3
	else
		want=125
	fi
	expect cmd-stock $want 'cannot mount share .*\(no virtio.*CONFIG_VIRTIO'
else
	echo "SKIP: cmd-stock (no Debian kernel in $cache: tools/fetch-kernel.sh fetches one)"
fi

# --- bad input: status 2, one line, nothing started or left ------------------
vm nodir 30 --kernel "$kernel" --share "$TMP/does-not-exist"
expect nodir 2 '' 'share .*does-not-exist: No such file or directory'
MINIVMM_VIRTIOFSD=/nonexistent/virtiofsd vm nodaemon 30 --kernel "$kernel" --share "$TMP/rw"
expect nodaemon 2 '' '/nonexistent/virtiofsd: No such file or directory'
MINIVMM_VIRTIOFSD=/bin/false vm diesatstart 30 --kernel "$kernel" --share "$TMP/rw"
expect diesatstart 2 '' 'exited with status 1 before its socket was ready'
vm badtag 30 --kernel "$kernel" --share "$TMP/rw,tag=has space"
expect badtag 2 '' 'a tag is 1..36 bytes'
vm longtag 30 --kernel "$kernel" --fs "$TMP/x.sock,tag=$(printf 'a%.0s' $(seq 37))"
expect longtag 2 '' 'a tag is 1..36 bytes'
vm notag 30 --kernel "$kernel" --fs "$TMP/x.sock"
expect notag 2 '' 'tag=TAG is needed'
vm dup 30 --kernel "$kernel" --share "$TMP/rw,tag=a" --share "$TMP/ro,tag=a"
expect dup 2 '' 'tag a is taken already'
vm nosock 30 --kernel "$kernel" --fs "$TMP/ro/big,tag=x"
expect nosock 2 '' 'not a socket'
vm snap 30 --kernel "$kernel" --share "$TMP/rw" --snapshot "$TMP/s.snap"
expect snap 2 '' 'snapshots cannot hold --fs or --share'
if leftovers; then pass bad-input-nothing-left; else fail bad-input "virtiofsd or its socket left behind"; fi
