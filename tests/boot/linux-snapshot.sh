#!/bin/bash
# A Linux guest snapshotted at its ready point and restored to run its
# user-space checks (docs/snapshot.md, issue 17): the kernel built for
# minivmm (tools/build-kernel.sh, cached), the busybox initramfs with
# tests/boot/linux-init.sh as /init and build/linux/mvsnap, 1 vCPU,
# virtio-rng and a virtio-blk ext4 image.
#   take     boots with minivmm.ready=port --snapshot-at port: init asks
#            for the snapshot from user space (mvsnap: MMIO through
#            /dev/mem) before any check; the run ends there
#   restore  --restore with the checks' parameters in the mailbox
#            (--append-env ARGS=...): init goes on from the ready point,
#            restored (generation 1), runs the checks with those
#            parameters, and gives its verdict through the test-exit
#            register; when the init has the disk check (minivmm.ext4,
#            the linux branch's), the marker it writes after the restore
#            is on the image and e2fsck -fn finds it clean; the MTRRs
#            survive (snapshot format 2): /proc/mtrr has its reg00 line
#            and, taken with --xen-bar-mtrr uc, the Xen BAR is still
#            uncachable (empty MTRRs would read "default")
# The ratio to a full boot is `minivmm bench --cases snapshot
# --linux-kernel ...`'s business (docs/snapshot.md).  TIME: lines give
# host times; the limits are safety nets, not assertions.  Normal build
# only (a Linux boot is minutes).
. "$(dirname "$0")/lib.sh"

LIMIT=${MINIVMM_LINUX_TIMEOUT:-900}
ARGS="console=ttyS0 earlycon=uart8250,io,0x3f8 ${MINIVMM_LINUX_ARGS:-}"

if [ "$BUILD" = build-asan ]; then
	echo "SKIP: linux-snapshot (normal build only: a Linux boot is minutes)"
	exit 0
fi
for t in mkfs.ext4 debugfs e2fsck; do
	command -v "$t" >/dev/null ||
		{ fail linux-snapshot "$t not found (apt-get install e2fsprogs)"; exit 0; }
done
[ -x "$BUILD/linux/mvsnap" ] ||
	{ fail linux-snapshot "$BUILD/linux/mvsnap missing (make all)"; exit 0; }
kdir=$(tools/build-kernel.sh) ||
	{ fail build-kernel "tools/build-kernel.sh failed"; exit 0; }
initrd=$(tools/mkinitramfs.sh tests/boot/linux-init.sh "$BUILD/linux/mvsnap") ||
	{ fail mkinitramfs "tools/mkinitramfs.sh failed"; exit 0; }

# The disks linux-init.sh's ext4 check expects (as linux-kernel.sh makes
# them): vda with hello.txt and dir/nested.txt, vdb the same, read-only.
mkdir -p "$TMP/root/dir"
echo "hello from the host" >"$TMP/root/hello.txt"
echo nested >"$TMP/root/dir/nested.txt"
for img in vda vdb; do
	truncate -s 64M "$TMP/$img.img"
	mkfs.ext4 -q -F -d "$TMP/root" "$TMP/$img.img"
done
marker="written-after-restore-$$"
S="$TMP/ready.snap"

t0=$SECONDS
vm take "$LIMIT" --kernel "$kdir/vmlinux" --initrd "$initrd" -m 128M \
	--append "$ARGS minivmm.ready=port minivmm.init=check" \
	--disk "$TMP/vda.img,serial=minivmm-ext4" --disk "$TMP/vdb.img,ro" \
	--rng --xen-bar-mtrr uc --snapshot "$S" --snapshot-at port
expect take 0 '^@@ init started' 'snapshot written to .*the guest asked'
echo "TIME: boot to the snapshot: $((SECONDS - t0)) s"
grep -q '^@@ check' "$TMP/take.out" &&
	fail take-before-checks "checks ran before the ready point"
# Where ring 0 is emulated (PVM) the guest reads the host's TSC, which a
# restore cannot set back: a --snapshot boot must keep its clock on
# kvm-clock (restored by value), not switch to tsc (docs/snapshot.md).
if [ -e /sys/module/kvm_pvm ]; then
	cs=$(grep -o 'Switched to clocksource [a-z-]*' "$TMP/take.out" |
		tail -n 1)
	[ "$cs" = "Switched to clocksource kvm-clock" ] &&
		pass take-kvm-clock || fail take-kvm-clock "${cs:-no switch seen}"
fi

t0=$SECONDS
vm restore "$LIMIT" --restore "$S" --timing \
	--append-env "ARGS=minivmm.cpus=1 minivmm.ext4=$marker minivmm.rng=virtio minivmm.xenbar=uc"
expect restore 0 '^@@ verdict pass' 'guest test-exit 0x0'
echo "TIME: restore to the verdict: $((SECONDS - t0)) s"
grep -q '^@@ snapshot generation 1 status 0' "$TMP/restore.out" &&
	pass restore-resumed-at-ready ||
	fail restore-resumed-at-ready "no '@@ snapshot generation 1' line"
grep -q "^@@ cmdline .*minivmm.ext4=$marker" "$TMP/restore.out" &&
	pass restore-args-from-mailbox ||
	fail restore-args-from-mailbox "the checks did not get ARGS"
grep -q '^@@ mtrr reg00:' "$TMP/restore.out" &&
	grep -q '^@@ check xen-bar-mtrr ok' "$TMP/restore.out" &&
	pass restore-mtrrs ||
	fail restore-mtrrs "$(grep -E '^@@ (mtrr|check xen-bar)' "$TMP/restore.out" | tr '\n' ' ')"
n=$(grep -c '^@@ check .* ok' "$TMP/restore.out")
[ "$n" -ge 4 ] && ! grep -q '^@@ check .* FAIL' "$TMP/restore.out" &&
	pass restore-checks || fail restore-checks "$n checks ok"

if grep -q 'minivmm.ext4=' tests/boot/linux-init.sh; then
	got=$(debugfs -R 'cat /from-guest.txt' "$TMP/vda.img" 2>/dev/null)
	[ "$got" = "$marker" ] && pass restore-disk-write ||
		fail restore-disk-write "the image holds '$got'"
	e2fsck -fn "$TMP/vda.img" >"$TMP/fsck.out" 2>&1 &&
		pass restore-disk-clean ||
		fail restore-disk-clean "$(tail -n 3 "$TMP/fsck.out")"
else
	echo "NOTE: linux-init.sh has no disk check (minivmm.ext4) yet:" \
		"the write after the restore is not checked"
fi

# The same snapshot refused with a conflicting machine option, one line.
vm refuse 60 --restore "$S" --syscall-fix off
expect refuse 2 '' '--syscall-fix conflicts'
rm -f "$S"
