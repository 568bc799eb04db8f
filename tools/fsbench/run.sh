#!/bin/bash
# tools/fsbench/run.sh KERNEL [ROUNDS]: virtio-fs (--share, Debian's
# virtiofsd) beside virtio-blk (an ext4 image of the same tree) in one
# guest boot: stat of every file of a 2000-file tree, reading all of it,
# a 64 MiB sequential read, a 32 MiB write with fsync.  The page cache is
# dropped before each timed step; medians over ROUNDS (default 3), in
# seconds of guest time.  MINIVMM (default build/minivmm), MINIVMM_ARGS
# (e.g. "-c 2"), MINIVMM_KERNEL_MODS=DIR (a distribution kernel's virtio
# and virtio-fs modules, loaded first).  Needs root, mke2fs, busybox.
set -eu
kernel=$1 rounds=${2:-3}
MINIVMM=${MINIVMM:-build/minivmm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree/small"
for d in $(seq 40); do
	mkdir "$tmp/tree/small/d$d"
	for f in $(seq 50); do
		head -c 4096 /dev/urandom >"$tmp/tree/small/d$d/f$f"
	done
done
head -c $((64 << 20)) /dev/urandom >"$tmp/tree/big"
mke2fs -q -t ext4 -d "$tmp/tree" "$tmp/tree.img" 256M
files=() args="console=ttyS0 quiet panic=-1 minivmm.rounds=$rounds"
if [ -n "${MINIVMM_KERNEL_MODS:-}" ]; then
	mods="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci fuse virtiofs virtio_blk crc16 mbcache jbd2 crc32c_generic ext4"
	cat >"$tmp/wrap.sh" <<-EOS
	#!/bin/sh
	for m in $mods; do /bin/busybox insmod /bin/\$m.ko; done
	exec /bin/sh /bin/init.sh
	EOS
	for m in $mods; do files+=("$MINIVMM_KERNEL_MODS/$m.ko"); done
	tools/mkinitramfs.sh -o "$tmp/initrd" "$tmp/wrap.sh" tools/fsbench/init.sh "${files[@]}" >/dev/null
else
	tools/mkinitramfs.sh -o "$tmp/initrd" tools/fsbench/init.sh >/dev/null
fi
# shellcheck disable=SC2086
"$MINIVMM" -m 512M ${MINIVMM_ARGS:-} --kernel "$kernel" --initrd "$tmp/initrd" \
	--append "$args" --share "$tmp/tree,tag=tree" --disk "$tmp/tree.img" \
	--timeout 3000 </dev/null | tr -d '\r' | tee "$tmp/out" | grep '^@@' >&2 || true
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "-") }'; }
printf '%-10s %12s %12s %8s\n' workload virtio-fs virtio-blk fs/blk
for wl in stat-tree read-tree read-64M write-32M; do
	f=$(awk -v w=$wl '$2 == "time" && $3 == "fs" && $4 == w { print $5 }' "$tmp/out" | median)
	b=$(awk -v w=$wl '$2 == "time" && $3 == "blk" && $4 == w { print $5 }' "$tmp/out" | median)
	printf '%-10s %11ss %11ss %8s\n' "$wl" "$f" "$b" \
		"$(awk -v f="$f" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", f / b; else print "-" }')"
done
