#!/bin/bash
# Many Linux guests at once (issue 30): MINIVMM_LOAD_LINUX (4) guests of
# the kernel built for minivmm (tools/build-kernel.sh, cached) started
# together, each with 1 vCPU, its own ext4 disk (vda) and one read-only
# image all of them share (vdb), running linux-init.sh's checks from user
# space (the disks, the RNG, system calls) to a verdict by power-off.
# Every guest must pass its checks, leave its own marker on its own disk
# (read back with debugfs: no guest's data on another's disk), a clean
# file system (e2fsck -fn), and the shared image unchanged.  One guest
# first runs alone.  Printed, not asserted (times are not verdicts): the
# time alone, the median and slowest together and their ratio, and per
# guest the peak RSS (GNU time's %M) and peak PSS (smaps_rollup,
# lib.sh's pss_watch).  Normal build only.
. "$(dirname "$0")/lib.sh"

N=${MINIVMM_LOAD_LINUX:-4}
LIMIT=$(secs 600)	# a safety net per guest, never a verdict
ARGS="console=ttyS0 minivmm.init=check minivmm.verdict=power minivmm.cpus=1 minivmm.rng=virtio"

if [ "$BUILD" = build-asan ]; then
	echo "SKIP: linux-load (normal build only: Linux boots)"
	exit 0
fi
[ -x /usr/bin/time ] || { echo "SKIP: linux-load (GNU time missing: apt-get install time)"; exit 0; }
for t in mkfs.ext4 debugfs e2fsck; do
	command -v "$t" >/dev/null ||
		{ fail linux-load "$t not found (apt-get install e2fsprogs)"; exit 0; }
done
kdir=$(tools/build-kernel.sh) ||
	{ fail build-kernel "tools/build-kernel.sh failed"; exit 0; }
initrd=$(tools/mkinitramfs.sh tests/boot/linux-init.sh) ||
	{ fail mkinitramfs "tools/mkinitramfs.sh failed"; exit 0; }

mkdir -p "$TMP/root/dir"
echo "hello from the host" >"$TMP/root/hello.txt"
echo nested >"$TMP/root/dir/nested.txt"
mkimage() {
	truncate -s 64M "$1"
	mkfs.ext4 -q -F -d "$TMP/root" "$1"
}
mkimage "$TMP/shared.img"
shared_sum=$(sha256sum <"$TMP/shared.img")

# start NAME: one guest in the background under GNU time (lib.sh's
# timed); time's pid in $pid.
start() {
	local name=$1
	[ -f "$TMP/$name.img" ] || mkimage "$TMP/$name.img"
	timed "$name" "$MINIVMM" --kernel "$kdir/vmlinux" --initrd "$initrd" -m 256M \
		--timeout "$LIMIT" --append "$ARGS minivmm.ext4=marker-of-$name" \
		--disk "$TMP/$name.img,serial=minivmm-ext4" \
		--disk "$TMP/shared.img,ro" --rng
}

# verdict NAME: its status, init's verdict, its own disk.
verdict() {
	local name=$1 got
	expect "$name" 0 '@@ verdict pass'
	got=$(debugfs -R "cat /from-guest.txt" "$TMP/$name.img" 2>/dev/null)
	[ "$got" = "marker-of-$name" ] &&
		pass "$name-own-disk" ||
		fail "$name-own-disk" "debugfs reads '$got' from its /from-guest.txt"
	e2fsck -fn "$TMP/$name.img" >"$TMP/$name.fsck" 2>&1 &&
		pass "$name-fsck" ||
		fail "$name-fsck" "e2fsck -fn: $(tail -n 3 "$TMP/$name.fsck")"
}

start alone
wait "$pid"
status=$?
verdict alone

for ((i = 0; i < N; i++)); do mkimage "$TMP/g$i.img"; done
pids=() names=()
for ((i = 0; i < N; i++)); do names[$i]=g$i; done
pss_watch "${names[@]}"
for ((i = 0; i < N; i++)); do
	start "g$i"
	pids[$i]=$pid
done
for ((i = 0; i < N; i++)); do
	wait "${pids[$i]}"
	status=$?
	verdict "g$i"
done
pss_stop
[ "$shared_sum" = "$(sha256sum <"$TMP/shared.img")" ] &&
	pass "shared-image-unchanged" ||
	fail "shared-image-unchanged" "the read-only image all guests shared changed"

alone=$(timed_field alone 1)
ts=$(for ((i = 0; i < N; i++)); do timed_field "g$i" 1; done | sort -n)
med=$(echo "$ts" | sed -n "$(((N + 1) / 2))p")
max=$(echo "$ts" | tail -n 1)
echo "load: Linux: alone $alone s; $N guests at once: median $med s," \
	"slowest $max s (x$(echo "scale=1; $max / $alone" | bc 2>/dev/null || echo ?))"
for ((i = 0; i < N; i++)); do
	echo "load: Linux g$i: peak RSS $(timed_field "g$i" 2) kB, peak PSS $(pss_of "g$i") kB"
done
