#!/bin/sh
# /init of the file-system benchmarks' initramfs (build/fsbench-initramfs.cpio):
# the same tree read and written over virtio-fs (tag "tree", mounted at
# /fs) and over a virtio-blk ext4 image (/dev/vda at /blk), each workload
# ROUNDS times (minivmm.rounds=N) with the page cache dropped before each,
# timed with /proc/uptime; one "@@ time FS WORKLOAD SECONDS" line per
# round, then "@@ done" and poweroff.  minivmm.fs=fs,blk (the default;
# tools/fsbench/run.sh) or minivmm.fs=fs (`minivmm bench --cases fs`, the
# same boot under minivmm and QEMU).  The tree: small/*/* (4 KiB files)
# and big.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
exec </dev/console >/dev/console 2>&1
rounds=3 fss="fs blk"
for w in $(cat /proc/cmdline); do
	case $w in
	minivmm.rounds=*) rounds=${w#minivmm.rounds=} ;;
	minivmm.fs=*) fss=$(echo "${w#minivmm.fs=}" | tr , ' ') ;;
	esac
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
for fs in $fss; do
	case $fs in
	fs) mount -t virtiofs tree /fs || echo "@@ FAIL mount virtiofs" ;;
	blk) mount -t ext4 /dev/vda /blk || echo "@@ FAIL mount ext4" ;;
	esac
done
i=0
while [ $i -lt "$rounds" ]; do
	for fs in $fss; do
		timed $fs stat-tree meta /$fs
		timed $fs read-tree small /$fs
		timed $fs "read-$(($(stat -c %s /$fs/big) >> 20))M" big /$fs
		timed $fs write-32M write /$fs
	done
	i=$((i + 1))
done
for fs in $fss; do umount /$fs; done
echo "@@ done"
poweroff -f
