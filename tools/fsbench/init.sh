#!/bin/sh
# /init of tools/fsbench/run.sh's initramfs: the same tree read and written
# over virtio-fs (tag "tree") and over a virtio-blk ext4 image (/dev/vda),
# each workload ROUNDS times (minivmm.rounds=N) with the page cache dropped
# before each, timed with /proc/uptime; one "@@ time FS WORKLOAD SECONDS"
# line per round, then poweroff.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
exec </dev/console >/dev/console 2>&1
rounds=3
for w in $(cat /proc/cmdline); do
	case $w in minivmm.rounds=*) rounds=${w#minivmm.rounds=} ;; esac
done
now() { cut -d' ' -f1 /proc/uptime; }
# timed FS WORKLOAD COMMAND...
timed() {
	fs=$1 wl=$2
	shift 2
	sync
	echo 3 >/proc/sys/vm/drop_caches
	t0=$(now)
	"$@" >/dev/null 2>&1 || echo "@@ FAIL $fs $wl"
	t1=$(now)
	echo "@@ time $fs $wl $(echo "$t1 $t0" | awk '{ printf "%.2f", $1 - $2 }')"
}
small() { find "$1/small" -type f -exec cat {} + ; }
meta() { find "$1/small" -type f | xargs stat -c %s ; }
big() { cat "$1/big"; }
write() { dd if=/dev/zero of="$1/out" bs=1M count=32 conv=fsync && rm "$1/out"; }
mkdir -p /fs /blk
mount -t virtiofs tree /fs || echo "@@ FAIL mount virtiofs"
mount -t ext4 /dev/vda /blk || echo "@@ FAIL mount ext4"
i=0
while [ $i -lt "$rounds" ]; do
	for fs in fs blk; do
		timed $fs stat-tree meta /$fs
		timed $fs read-tree small /$fs
		timed $fs read-64M big /$fs
		timed $fs write-32M write /$fs
	done
	i=$((i + 1))
done
umount /fs /blk
echo "@@ done"
poweroff -f
