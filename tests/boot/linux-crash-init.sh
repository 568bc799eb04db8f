#!/bin/sh
# /init of tests/boot/linux-crash.sh's initramfs (tools/mkinitramfs.sh with
# build/linux/mvsnap and build/linux/mvcrash): mounts the ext4 disk
# /dev/vda on /mnt, asks for the snapshot (mvsnap ready: the take run ends
# there), and in each restored copy runs the writer the mailbox names
# (WRITER=sync|nosync|soak) on /mnt/records until the host kills minivmm.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
# A kernel with the drivers as modules (MINIVMM_CRASH_KERNEL): they come
# in /bin with mods.order; the disk node appears once virtio_blk is in.
if [ -f /bin/mods.order ]; then
	for m in $(cat /bin/mods.order); do
		insmod "/bin/$m.ko" || echo "@@ crash: insmod $m failed"
	done
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -b /dev/vda ] && break
		sleep 1
	done
fi
mkdir -p /mnt
if ! mount -t ext4 /dev/vda /mnt; then
	echo "@@ crash: cannot mount /dev/vda"
	poweroff -f
fi
echo "@@ crash: mounted"
/bin/mvsnap ready >/ready.env
WRITER=
while IFS= read -r line; do
	case $line in
	WRITER=sync|WRITER=nosync|WRITER=soak) WRITER=${line#WRITER=} ;;
	esac
done </ready.env
echo "@@ crash: writer ${WRITER:-none}"
[ -n "$WRITER" ] && exec /bin/mvcrash "$WRITER" /mnt/records
poweroff -f
