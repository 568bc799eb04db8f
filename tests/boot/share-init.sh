#!/bin/sh
# /init of tests/boot/share.sh's initramfs (tools/mkinitramfs.sh):
# busybox only.  Mounts the virtio-fs tags "ro" and "rw" (minivmm --share
# ...,tag=ro,ro and --share ...,tag=rw), prints the MD5 of every file
# under ro ("@@ sum HASH ./PATH", the host compares), checks that ro
# refuses writes, copies ro's "big" into rw, writes rw/d/note, reads the
# host's rw/hostfile, then "@@ verdict N" and poweroff (N = 0) or reboot.
# minivmm.mode=hold: after mounting, print "@@ holding" and keep reading
# the share (the host kills the back end meanwhile).  minivmm.mods=a,b:
# insmod /bin/a.ko, /bin/b.ko first (a distribution kernel's modules).
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
exec </dev/console >/dev/console 2>&1

mode=check mods=
for w in $(cat /proc/cmdline); do
	case $w in
	minivmm.mode=*) mode=${w#minivmm.mode=} ;;
	minivmm.mods=*) mods=${w#minivmm.mods=} ;;
	esac
done
for m in $(echo "$mods" | tr , ' '); do
	insmod "/bin/$m.ko" || echo "@@ insmod $m failed"
done

failed=0
check() {
	if eval "$2"; then
		echo "@@ ok $1"
	else
		echo "@@ FAIL $1"
		failed=$((failed + 1))
	fi
}

mkdir -p /mnt/ro /mnt/rw
check mount-ro 'mount -t virtiofs ro /mnt/ro'
check mount-rw 'mount -t virtiofs rw /mnt/rw'
if [ "$mode" = hold ]; then
	echo "@@ holding"
	while :; do ls -R /mnt/rw >/dev/null; sleep 1; done
fi
(cd /mnt/ro && find . -type f | sort | while read -r f; do
	echo "@@ sum $(md5sum "$f" | cut -d' ' -f1) $f"
done)
check ro-refuses-write '! touch /mnt/ro/new 2>/dev/null'
check ro-refuses-mkdir '! mkdir /mnt/ro/newdir 2>/dev/null'
check rw-copy 'cp /mnt/ro/big /mnt/rw/copy'
check rw-mkdir-mv 'echo "written by the guest" >/mnt/rw/note &&
	mkdir /mnt/rw/d && mv /mnt/rw/note /mnt/rw/d/note'
check rw-rm 'rm /mnt/rw/scratch && [ ! -e /mnt/rw/scratch ]'
check rw-host-file '[ "$(cat /mnt/rw/hostfile)" = "written by the host" ]'
check umount 'sync && umount /mnt/rw && umount /mnt/ro'
echo "@@ verdict $failed"
[ "$failed" = 0 ] && poweroff -f
reboot -f
