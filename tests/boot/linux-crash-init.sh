#!/bin/sh
# /init of tests/boot/linux-crash.sh's initramfs (tools/mkinitramfs.sh with
# build/linux/mvsnap and build/linux/mvcrash): mounts the ext4 disk
# /dev/vda on /mnt, asks for the snapshot (mvsnap ready: the take run ends
# there), and in each restored copy runs the writer the mailbox names
# (WRITER=sync|nosync|soak) on /mnt/records until the host kills minivmm.
# With minivmm.ip=A minivmm.host=H on the command line (a --net device):
# eth0 gets A/24 before the snapshot, and the soak's writer also sends
# datagrams to H.
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
ip= host=
for w in $(cat /proc/cmdline); do
	case $w in
	minivmm.ip=*) ip=${w#minivmm.ip=} ;;
	minivmm.host=*) host=${w#minivmm.host=} ;;
	esac
done
if [ -n "$ip" ]; then
	if ip addr add "$ip/24" dev eth0 && ip link set eth0 up; then
		echo "@@ crash: eth0 up"
		ping -c 1 -W 10 "$host" >/dev/null 2>&1 &&
			echo "@@ crash: the host answers" ||
			echo "@@ crash: the host is silent"
	else
		echo "@@ crash: eth0 failed"
	fi
fi
/bin/mvsnap ready >/ready.env
WRITER=
while IFS= read -r line; do
	case $line in
	WRITER=sync|WRITER=nosync|WRITER=soak) WRITER=${line#WRITER=} ;;
	esac
done </ready.env
echo "@@ crash: writer ${WRITER:-none}"
[ "$WRITER" = soak ] && [ -n "$host" ] && exec /bin/mvcrash soak /mnt/records "$host"
[ -n "$WRITER" ] && exec /bin/mvcrash "$WRITER" /mnt/records
poweroff -f
