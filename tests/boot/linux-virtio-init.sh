#!/bin/sh
# /init of tests/boot/linux-virtio.sh's initramfs (tools/mkinitramfs.sh):
# busybox only.  Checks the virtio devices from guest user space, one
# "@@ ok NAME" or "@@ FAIL NAME" line each: /dev/vda (the ext4 image, its
# serial), /dev/vdb read-only and refusing a write, the virtio-rng as the
# hardware RNG, then mounts /dev/vda, reads the files the host put there,
# writes /from-guest.txt with the marker from minivmm.marker= on the
# kernel command line, syncs and unmounts.  Verdict: "@@ verdict N"
# (failures), then poweroff (minivmm exits 0) when N is 0, else reboot
# (minivmm exits 3); the host checks the image with debugfs and e2fsck.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1

failed=0
check() {
	if eval "$2"; then
		echo "@@ ok $1"
	else
		echo "@@ FAIL $1"
		failed=$((failed + 1))
	fi
}

marker=none
for w in $(cat /proc/cmdline); do
	case $w in
	minivmm.marker=*) marker=${w#minivmm.marker=} ;;
	esac
done

check vda-present '[ -b /dev/vda ]'
check vda-serial '[ "$(cat /sys/block/vda/serial 2>/dev/null)" = minivmm-ext4 ]'
check vdb-read-only '[ "$(cat /sys/block/vdb/ro 2>/dev/null)" = 1 ]'
check vdb-refuses-writes '! dd if=/dev/zero of=/dev/vdb bs=512 count=1 2>/dev/null'
check vdb-readable 'dd if=/dev/vdb of=/dev/null bs=4096 count=16 2>/dev/null'
check rng-virtio 'grep -q virtio /sys/class/misc/hw_random/rng_current 2>/dev/null'
check rng-reads '[ "$(head -c 64 /dev/hwrng | wc -c)" = 64 ]'
mkdir -p /mnt
check mount-ext4 'mount -t ext4 /dev/vda /mnt'
check read-file '[ "$(cat /mnt/hello.txt)" = "hello from the host" ]'
check read-nested '[ "$(cat /mnt/dir/nested.txt)" = nested ]'
check write-file 'echo "$marker" >/mnt/from-guest.txt && sync'
check read-back '[ "$(cat /mnt/from-guest.txt)" = "$marker" ]'
check umount 'umount /mnt'
echo "@@ verdict $failed"
if [ "$failed" = 0 ]; then
	poweroff -f
fi
reboot -f
