#!/bin/sh
# /init of the initramfs minivmm ships for --cmd (build/cmd-initramfs.cpio,
# busybox-static + this script).  minivmm appends /minivmm/ to it: cmd
# (the command), cwd (where to run it), shares ("TAG PATH ro|rw" lines)
# and root (the tag of --share /, if given).  With a root share: the
# host's / read-only under a tmpfs overlay becomes the command's root;
# every other share appears at its host path.  The command runs as root
# with stdin/stdout/stderr on the console; its status goes to minivmm's
# test-exit port (0xf4), which minivmm exits with.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
exec </dev/console >/dev/console 2>&1
stty -onlcr 2>/dev/null		# the command's newlines, not CR LF

m=/minivmm
say() { echo "minivmm-init: $*" >&2; }
# finish STATUS: the run ends with it, through the test-exit port.  A
# kernel without /dev/port cannot pass it on, and its power-off would
# read as status 0: say so and reboot instead (minivmm's status 3).
finish() {
	sync
	if [ ! -c /dev/port ]; then
		say "the command's status was $1, but this kernel has no /dev/port (CONFIG_DEVPORT) to tell minivmm: rebooting (status 3)"
		reboot -f
	fi
	printf "\\$(printf %o $(($1 & 255)))" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
	poweroff -f
}

# The kernel options a share needs that this kernel lacks, by what it
# shows: no virtio-fs file system, or no virtio PCI devices at all.
why_no_fs() {
	grep -qw virtiofs /proc/filesystems ||
		{ echo "no virtiofs file system: CONFIG_VIRTIO_FS, CONFIG_FUSE_FS"; return; }
	ls /sys/bus/virtio/devices/* >/dev/null 2>&1 ||
		{ echo "no virtio devices: CONFIG_VIRTIO_PCI"; return; }
	echo "CONFIG_VIRTIO_FS?"
}

R=
root=$(cat $m/root 2>/dev/null)
if [ -n "$root" ]; then
	R=/newroot
	mkdir -p /lower /rw $R
	mount -t virtiofs -o ro "$root" /lower ||
		{ say "cannot mount the root share $root ($(why_no_fs))"; finish 125; }
	mount -t tmpfs rw /rw && mkdir -p /rw/upper /rw/work
	mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work $R ||
		{ say "cannot mount the overlay (CONFIG_OVERLAY_FS?)"; finish 125; }
	# Before the shares: one under /tmp must not end up hidden.
	mount -t proc proc $R/proc
	mount -t sysfs sys $R/sys
	mount -o bind /dev $R/dev
	mount -t tmpfs tmp $R/tmp
fi
while read -r tag path mode; do
	[ -n "$tag" ] || continue
	mkdir -p "$R$path"
	o=; [ "$mode" = ro ] && o="-o ro"
	# shellcheck disable=SC2086
	mount -t virtiofs $o "$tag" "$R$path" ||
		{ say "cannot mount share $tag at $path ($(why_no_fs))"; finish 125; }
done <$m/shares
cwd=$(cat $m/cwd)
if [ -n "$R" ]; then
	chroot $R /bin/sh -c 'cd "$1" 2>/dev/null || cd /; eval "$2"' sh "$cwd" "$(cat $m/cmd)"
else
	cd "$cwd" 2>/dev/null || cd /
	sh -c "$(cat $m/cmd)"
fi
finish $?
