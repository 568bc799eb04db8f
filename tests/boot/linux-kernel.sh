#!/bin/bash
# Linux with the kernel built for minivmm (tools/build-kernel.sh, cached;
# built on first use) and a busybox initramfs (tools/mkinitramfs.sh, /init
# = tests/boot/linux-init.sh), in make check:
#   shell  `make run-linux` on a pseudo-terminal (linux-shell.py): a shell
#          on the console runs typed commands; `poweroff` gives status 0
#   pvh    vmlinux through PVH, 1 vCPU, --xen-bar-mtrr uc, two disks and
#          the RNG: /dev/vda an ext4 image made with `mkfs.ext4 -d`
#          (mounted, read, written from user space; the host then finds
#          the file with debugfs and e2fsck -fn finds it clean), /dev/vdb
#          read-only; MSI-X and in-kernel kicks only (--stats-json);
#          verdict by powering off
#   bz     bzImage, 2 vCPUs, --xen-bar-mtrr wb, --stats; verdict through
#          the test-exit register (/dev/mem); the host's quirks in --stats
#          and the command line init sees (vmm/host/host.h)
#   as-given  MINIVMM_HOST_EMULATES_RING0=0 (the hardware profile): the
#          kernel's command line is exactly the user's and no quirk acts
# In each boot the kernel's log shows the CPUs, the host bridge, the Xen
# platform device with the firmware's BARs, MMCONFIG reserved, MTRRs on
# and the ACPI tables (linux-lib.sh), and init checks from user space the
# CPU count, the devices in sysfs, /proc/mtrr over the Xen BAR, MMCONFIG
# in use, processes making system calls at once, and the virtio devices
# given; its verdict is minivmm's exit status.
# With MINIVMM_LINUX_TEST=1 (make check-linux) also: PVH with 2 vCPUs,
# bzImage with 1, and the kernel mounting its root file system from
# --disk itself, with MSI-X and with INTx (pci=nomsi).
# TIME: lines give the boot milestones (host clock); the limits are safety
# nets, not assertions.  Runs against the normal build only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/linux-lib.sh"

BOOT_LIMIT=${MINIVMM_LINUX_TIMEOUT:-1800}	# per boot: ~1 min on a quiet host, 10+ at load 10
LINUX_MEM=128M
LINUX_ARGS="earlycon=uart8250,io,0x3f8 ${MINIVMM_LINUX_ARGS:-}"

if [ "$BUILD" = build-asan ]; then
	echo "SKIP: linux-kernel (runs against the normal build only: a minute per boot)"
	exit 0
fi
pvm=no
[ -d /sys/module/kvm_pvm ] && pvm=yes
if [ "$pvm" = yes ] && ! "$MINIVMM" --help 2>&1 | grep -q -- '--syscall-fix'; then
	fail linux-kernel "this host's KVM is PVM and this minivmm has no --syscall-fix: guest user space cannot run"
	exit 0
fi
for t in mkfs.ext4 debugfs e2fsck; do
	command -v "$t" >/dev/null ||
		{ fail linux-kernel "$t not found (apt-get install e2fsprogs)"; exit 0; }
done

t0=$SECONDS
kdir=$(tools/build-kernel.sh) || {
	fail build-kernel "tools/build-kernel.sh failed"
	exit 0
}
echo "TIME: build-kernel: $((SECONDS - t0)) s ($kdir)"
initrd=$(tools/mkinitramfs.sh tests/boot/linux-init.sh) || {
	fail mkinitramfs "tools/mkinitramfs.sh failed"
	exit 0
}

# --- shell: make run-linux at a terminal ------------------------------------
python3 "$(dirname "$0")/linux-shell.py" \
	make --no-print-directory -s run-linux BUILD="$BUILD"

# --- pvh: vmlinux, 1 vCPU, UC BAR, disks + RNG, verdict by power-off -------
mkdir -p "$TMP/root/dir"
echo "hello from the host" >"$TMP/root/hello.txt"
echo nested >"$TMP/root/dir/nested.txt"
mkimage() {
	rm -f "$1"
	truncate -s 64M "$1"
	mkfs.ext4 -q -F -d "$TMP/root" "$1"
}
mkimage "$TMP/vda.img"
mkimage "$TMP/vdb.img"
vdb_sum=$(sha256sum <"$TMP/vdb.img")
marker="written-by-the-guest-$$"

boot pvh "$kdir/vmlinux" "check minivmm.verdict=power minivmm.cpus=1 minivmm.xenbar=uc minivmm.ext4=$marker minivmm.rng=virtio" \
	--xen-bar-mtrr uc --disk "$TMP/vda.img,serial=minivmm-ext4" \
	--disk "$TMP/vdb.img,ro" --rng --stats-json "$TMP/pvh.json"
report_time pvh
check_kernel pvh 1
check_user pvh 'guest powered off'
has pvh '@@ check read-back ok' "init wrote and read back a file on ext4"
has pvh '@@ check rng-virtio ok' "virtio-rng is the guest's hardware RNG"
has pvh 'virtio_blk virtio[0-9]+: \[vda\] 131072 512-byte logical blocks' \
	"virtio_blk found the 64 MiB disk"
got=$(debugfs -R "cat /from-guest.txt" "$TMP/vda.img" 2>/dev/null)
[ "$got" = "$marker" ] && pass "pvh: the host reads the guest's file (debugfs)" ||
	fail pvh "debugfs reads '$got' from /from-guest.txt"
e2fsck -fn "$TMP/vda.img" >"$TMP/fsck.out" 2>&1 &&
	pass "pvh: e2fsck -fn finds the guest's file system clean" ||
	fail pvh "e2fsck -fn: $(tail -n 3 "$TMP/fsck.out")"
[ "$vdb_sum" = "$(sha256sum <"$TMP/vdb.img")" ] &&
	pass "pvh: the read-only disk is unchanged" ||
	fail pvh "the read-only image changed"
if python3 - "$TMP/pvh.json" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))["virtio"]
blk, rng = v[0], v[2]
assert blk["requests"] > 0 and blk["errors"] == 0, blk
assert blk["interrupts"] > 0 and blk["notify_exits"] == 0, blk
assert rng["requests"] > 0, rng
EOF
then
	pass "pvh: virtio requests with interrupts, kicks in the kernel (--stats-json)"
else
	fail pvh "virtio stats: $(head -c 300 "$TMP/pvh.json")"
fi

# --- bz: bzImage, 2 vCPUs, WB BAR, stats, verdict by MMIO ------------------
boot bz "$kdir/bzImage" "check minivmm.cpus=2 minivmm.xenbar=wb" \
	-c 2 --xen-bar-mtrr wb --stats
report_time bz
check_kernel bz 2
check_user bz 'guest test-exit 0x0'
grep -qE 'ecam[a-z-]* +0xe0000000\+0x[0-9a-f]+ +reads +0 ' "$TMP/bz.err" &&
	pass "bz: no ECAM read exits (--ecam ro)" ||
	fail bz "ECAM reads exited, or no ECAM line in --stats"
if [ "$pvm" = yes ]; then
	grep -qE '^  syscall [1-9][0-9]* ' "$TMP/bz.err" &&
		pass "bz: minivmm completed the system calls (--stats)" ||
		fail bz "--stats counts no completed system call"
fi

# The command line init read from /proc/cmdline: with the host's words
# first on PVM hosts, the user's alone elsewhere.
user="console=ttyS0 $LINUX_ARGS minivmm.init=check minivmm.cpus=2 minivmm.xenbar=wb"
want=$user
[ "$pvm" = yes ] &&
	want="noxsave clearcpuid=smap,popcnt,ssse3,erms,fsrm noreplace-smp lapic=notscdeadline $user"
got=$(sed -n 's/^[0-9.]* @@ cmdline //p' "$TMP/bz.out" | head -n 1)
[ "$got" = "$want" ] && pass "bz: /proc/cmdline is the user's (with the host's words on PVM)" ||
	fail bz "/proc/cmdline '$got', expected '$want'"
# --stats: the quirks the host's profile has, each with how often it acted.
if [ "$pvm" = yes ]; then
	for q in 'cpuid-hide +acted +2 ' 'linux-cmdline +acted +4 ' \
		 'insn-complete +acted +[1-9]' 'syscall-fix +acted +[1-9]'; do
		grep -qE "^  $q" "$TMP/bz.err" &&
			pass "bz: --stats: quirk ${q%% *} acted" ||
			fail bz "--stats lacks /^  $q/ under 'host quirks'"
	done
else
	grep -qE '^host quirks \(.*\): none$' "$TMP/bz.err" &&
		pass "bz: --stats: no host quirks" ||
		fail bz "--stats lists host quirks on hardware virtualization"
fi

# --- as-given: the hardware profile forced (MINIVMM_HOST_EMULATES_RING0=0) --
# No quirk: the kernel gets the user's command line as given, nothing is
# added or said, --stats lists no quirk.  On hardware virtualization the
# boot goes on to init's checks; on a PVM host the kernel stops at the
# first instruction only a quirk completes (XRSTOR in emulated ring 0,
# since nothing said 'noxsave'): status 5, which is why the quirks exist.
user="console=ttyS0 $LINUX_ARGS minivmm.init=check minivmm.cpus=1 minivmm.xenbar=wb"
MINIVMM_HOST_EMULATES_RING0=0 boot as-given "$kdir/bzImage" \
	"check minivmm.cpus=1 minivmm.xenbar=wb" --stats --verbose
got=$(sed -n 's/^[0-9.]* \[ *[0-9.]*\] Kernel command line: //p' \
	"$TMP/as-given.out" | head -n 1)
[ "$got" = "$user" ] && pass "as-given: the kernel's command line is the user's" ||
	fail as-given "Kernel command line: '$got', given '$user'"
! grep -qE "adding '|host quirk [a-z-]+ acts" "$TMP/as-given.err" &&
	grep -qE '^minivmm: host: .* \(MINIVMM_HOST_EMULATES_RING0=0\): no quirks$' \
		"$TMP/as-given.err" &&
	grep -qE '^host quirks \(.*, forced\): none$' "$TMP/as-given.err" &&
	pass "as-given: no quirk on, none acted (--verbose, --stats)" ||
	fail as-given "a quirk acted or was on"
if [ "$pvm" = yes ]; then
	expect as-given 5 '' 'instruction: xrstor'
else
	check_user as-given 'guest test-exit 0x0'
	got=$(sed -n 's/^[0-9.]* @@ cmdline //p' "$TMP/as-given.out" | head -n 1)
	[ "$got" = "$user" ] && pass "as-given: /proc/cmdline is the user's" ||
		fail as-given "/proc/cmdline '$got', given '$user'"
fi

[ "${MINIVMM_LINUX_TEST:-0}" = 1 ] || exit 0

# --- make check-linux: the other two combinations, root on --disk ----------
boot pvh2 "$kdir/vmlinux" "check minivmm.cpus=2 minivmm.xenbar=wb" -c 2
report_time pvh2
check_kernel pvh2 2
check_user pvh2 'guest test-exit 0x0'
boot bz1 "$kdir/bzImage" \
	"check minivmm.verdict=power minivmm.cpus=1 minivmm.xenbar=uc" \
	--xen-bar-mtrr uc
report_time bz1
check_kernel bz1 1
check_user bz1 'guest powered off'

# The kernel mounts /dev/vda as its root and, finding no init there,
# panics; panic=-1 reboots (status 3).
kernel_root() {
	local name=$1 before
	shift
	mkimage "$TMP/$name.img"
	before=$(sha256sum <"$TMP/$name.img")
	vm "$name" $((BOOT_LIMIT + 30)) -m "$LINUX_MEM" --kernel "$kdir/vmlinux" \
		--timeout "$BOOT_LIMIT" --disk "$TMP/$name.img,ro" \
		--append "console=ttyS0 $LINUX_ARGS root=/dev/vda ro rootfstype=ext4 panic=-1 $*"
	expect "$name" 3 'VFS: Mounted root \(ext4 filesystem\) readonly'
	[ "$before" = "$(sha256sum <"$TMP/$name.img")" ] &&
		pass "$name: image unchanged" || fail "$name" "the image changed"
}
kernel_root root-msix
kernel_root root-intx pci=nomsi
