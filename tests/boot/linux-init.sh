#!/bin/sh
# /init of the Linux boot test's initramfs (tools/mkinitramfs.sh): busybox
# only.  The kernel command line picks what it does:
#
#   minivmm.init=shell (the default)  a shell on the console; minivmm ends
#       with status 0 when it exits (or on `poweroff -f`)
#   minivmm.init=check  checks, from user space, what the machine should
#       look like, prints one "@@ check NAME ok|FAIL ..." line each (and
#       "@@ ..." lines of what it saw, for the host-side test), then
#       "@@ verdict pass|fail N" and hands the verdict to minivmm:
#         minivmm.verdict=mmio (default)  a 32-bit write of 0 (pass) or 1
#             (fail) to minivmm's test-exit register at 0xfeb00000
#             (ABI_TEST_EXIT_MMIO) through /dev/mem: minivmm's exit status
#         minivmm.verdict=power  poweroff (status 0) on pass, reboot
#             (status 3) on failure
#       Port I/O is no option: from ring 3 it faults on PVM hosts even with
#       iopl(3), and the kernel may lack /dev/port.
#
# What check expects (all optional): minivmm.cpus=N (CPUs online and
# usable), minivmm.xenbar=wb|uc (the /proc/mtrr type over the Xen
# platform device's BAR1), minivmm.pti=on (page-table isolation on),
# minivmm.ext4=MARKER (virtio-blk: /dev/vda with serial minivmm-ext4 is
# the ext4 image of tests/boot/linux-kernel.sh, mounted, read, and
# MARKER written to /from-guest.txt for the host to find; /dev/vdb is
# read-only), minivmm.rng=virtio (virtio-rng is the hardware RNG).
# Always: the host bridge and the Xen platform device 5853:0001 (class
# 0xff8000) with an I/O BAR0 and a prefetchable BAR1 in sysfs, the ECAM
# window (MMCONFIG) reserved and in use, ACPI MCFG and APIC tables, and
# processes making system calls at once.
#
# With minivmm.ready=port the init first stops at its ready point for a
# snapshot (see below) and takes more of these words from minivmm's
# mailbox when restored.
#
# Where guest ring 0 is emulated every process costs seconds, and every
# system call milliseconds: the checks read one-line files with the
# shell's own `read` (one system call per byte), anything longer with
# grep or cat, and run busybox's applets in the shell (Debian's
# busybox-static runs them without PATH); the applet links are installed
# for the interactive shell only.
# busybox runs its applets through /proc/self/exe: /proc first.
/bin/busybox mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
read -r up _ </proc/uptime
echo "@@ init started, uptime $up"

EXIT_MMIO=0xfeb00000
mode=shell verdict=mmio cpus= xenbar= pti= ext4= rng=
read -r cmdline </proc/cmdline
# minivmm.ready=port (tests/boot/linux-snapshot.sh, docs/snapshot.md): the
# ready point.  /bin/mvsnap (tests/linux/) asks minivmm for a snapshot
# here; a restored copy goes on with the words of ARGS= from the control
# page's mailbox after the command line's: its test's parameters.
case " $cmdline " in
*" minivmm.ready=port "*)
	# Without mvsnap no snapshot comes: fail now, not wait at a shell.
	if [ ! -x /bin/mvsnap ]; then
		echo "@@ minivmm.ready=port but this initramfs has no /bin/mvsnap" \
		     "(tools/mkinitramfs.sh tests/boot/linux-init.sh build/linux/mvsnap)"
		devmem $EXIT_MMIO 32 1
		reboot -f
	fi
	/bin/mvsnap ready >/ready.env
	while IFS= read -r line; do
		case $line in ARGS=*) cmdline="$cmdline ${line#ARGS=}" ;; esac
	done </ready.env
	;;
esac
for w in $cmdline; do
	case $w in
	minivmm.init=*) mode=${w#*=} ;;
	minivmm.verdict=*) verdict=${w#*=} ;;
	minivmm.cpus=*) cpus=${w#*=} ;;
	minivmm.xenbar=*) xenbar=${w#*=} ;;
	minivmm.pti=*) pti=${w#*=} ;;
	minivmm.ext4=*) ext4=${w#*=} ;;
	minivmm.rng=*) rng=${w#*=} ;;
	esac
done

failed=0
# ok NAME WHAT CONDITION...: one check line, the condition as for test;
# counts failures.
ok() {
	name=$1 what=$2
	shift 2
	if [ "$@" ]; then
		echo "@@ check $name ok: $what"
	else
		echo "@@ check $name FAIL: $what"
		failed=$((failed + 1))
	fi
}

# rd VAR FILE: VAR = the first line of FILE ("none" if unreadable or
# empty).  read fails on a last line without a newline (sysfs's
# virtio-blk serial) but still sets VAR.
rd() {
	read -r "$1" 2>/dev/null <"$2" || eval "[ -n \"\$$1\" ]" ||
		eval "$1=none"
}

# pci_find VENDOR DEVICE: found = the first such function's sysfs dir.
pci_find() {
	found=
	for d in /sys/bus/pci/devices/*; do
		rd v "$d/vendor"
		rd i "$d/device"
		[ "$v $i" = "$1 $2" ] && found=$d && return
	done
}

report_pci() {
	for d in /sys/bus/pci/devices/*; do
		[ -e "$d" ] || continue
		rd v "$d/vendor"
		rd i "$d/device"
		rd c "$d/class"
		echo "@@ pci ${d##*/} $v $i $c"
	done
	while read -r line; do
		echo "@@ mtrr $line"
	done </proc/mtrr
}

check_cpus() {
	rd online /sys/devices/system/cpu/online
	echo "@@ cpus online $online"
	[ -n "$cpus" ] || return 0
	want=0
	[ "$cpus" -gt 1 ] && want=0-$((cpus - 1))
	n=$(nproc)
	ok cpus "online '$online', nproc $n, want $cpus" \
		"$online" = "$want" -a "$n" = "$cpus"
}

# bar DIR N: start end flags = BAR N of the device (resource line N).
bar() {
	k=0
	while read -r start end flags; do
		[ $k -eq "$2" ] && return
		k=$((k + 1))
	done <"$1/resource"
}

# mtrr_type ADDR: type = that of the /proc/mtrr variable range covering
# ADDR ("reg01: base=0x0df000000 ( 3568MB), size=   16MB, count=1:
# uncachable"), "default" if none does.
mtrr_type() {
	type=default
	while read -r line; do
		base=${line#*base=}
		base=${base%% *}
		size=${line#*size=}
		size=${size%%,*}
		size=${size# *}
		size=${size##* }
		case $size in
		*MB) size=$((${size%MB} << 20)) ;;
		*KB) size=$((${size%KB} << 10)) ;;
		*) continue ;;
		esac
		if [ $(($1)) -ge $((base)) ] &&
			[ $(($1)) -lt $((base + size)) ]; then
			type=${line##*: }
			return
		fi
	done </proc/mtrr
}

check_pci() {
	pci_find 0x1b36 0x0008
	ok host-bridge "1b36:0008 at ${found##*/}" -n "$found"
	pci_find 0x5853 0x0001
	xen=$found
	rd class "$xen/class"
	ok xen-device "5853:0001 at ${xen##*/} class $class" \
		-n "$xen" -a "$class" = 0xff8000
	[ -n "$xen" ] || return 0
	bar "$xen" 0
	ok xen-bar0 "$start-$end flags $flags (I/O)" \
		$((start)) -ne 0 -a $((flags & 0x100)) -ne 0
	bar "$xen" 1
	bar1=$start
	ok xen-bar1 "$start-$end flags $flags (prefetchable memory)" \
		$((start)) -ne 0 -a $((flags & 0x2200)) -eq $((0x2200))
	[ -n "$xenbar" ] || return 0
	mtrr_type "$bar1"
	if [ "$xenbar" = uc ]; then
		ok xen-bar-mtrr "type over BAR1 $bar1: $type, want uncachable" \
			"$type" = uncachable
	else
		ok xen-bar-mtrr "type over BAR1 $bar1: $type, want write-back" \
			"$type" = write-back -o "$type" = default
	fi
}

check_platform() {
	dmesg >/tmp/dmesg
	grep -q 'PCI MMCONFIG' /proc/iomem
	iomem=$?
	grep -q 'MMCONFIG at .* reserved' /tmp/dmesg
	reserved=$?
	ok mmconfig "MMCONFIG in /proc/iomem and reserved" \
		$iomem -eq 0 -a $reserved -eq 0
	tables=
	for t in /sys/firmware/acpi/tables/*; do
		tables="$tables ${t##*/}"
	done
	echo "@@ acpi tables$tables"
	case "$tables " in
	*" MCFG "*) t=$tables ;;
	*) t= ;;
	esac
	case "$t " in
	*" APIC "*) ok acpi "MCFG and APIC among:$tables" 1 ;;
	*) ok acpi "MCFG and APIC among:$tables" "" ;;
	esac
	if [ -n "$pti" ]; then
		grep -q 'page tables isolation: enabled' /tmp/dmesg
		on=$?
		ok pti "page-table isolation enabled" $on -eq 0
	fi
}

# Several processes at once, each making system calls (fork, exec, open,
# read, write, exit): what SMP user space does all day.  (The shell's own
# `read` takes a system call per byte: files of any size go to cat.)
check_syscalls() {
	n=${cpus:-1}
	[ "$n" -lt 2 ] && n=2
	i=0
	pids=
	while [ $i -lt "$n" ]; do
		# One process reading each file three times: a process costs
		# seconds here (more with 2 vCPUs on a busy host), a system
		# call milliseconds.
		f="/proc/self/stat /proc/uptime /proc/cmdline"
		# shellcheck disable=SC2086
		cat $f $f $f >/dev/null &
		pids="$pids $!"
		i=$((i + 1))
	done
	bad=0
	for p in $pids; do
		wait "$p" || bad=$((bad + 1))
	done
	ok syscalls "$n processes at once, $bad failed" $bad -eq 0
}

# sh_ok NAME COMMAND: a check whose condition is a shell command.
sh_ok() {
	if eval "$2"; then
		ok "$1" "$2" 1
	else
		ok "$1" "$2" ""
	fi
}

# virtio-blk and virtio-rng as the kernel's drivers present them to user
# space: block devices, sysfs attributes, a mounted ext4 file system, the
# hardware RNG.
check_virtio() {
	if [ -n "$ext4" ]; then
		sh_ok vda-present '[ -b /dev/vda ]'
		rd serial /sys/block/vda/serial
		ok vda-serial "serial '$serial'" "$serial" = minivmm-ext4
		rd ro /sys/block/vdb/ro
		ok vdb-read-only "/sys/block/vdb/ro '$ro'" "$ro" = 1
		sh_ok vdb-refuses-writes \
			'! dd if=/dev/zero of=/dev/vdb bs=512 count=1 2>/dev/null'
		sh_ok vdb-readable \
			'dd if=/dev/vdb of=/dev/null bs=4096 count=16 2>/dev/null'
		mkdir -p /mnt
		sh_ok mount-ext4 'mount -t ext4 /dev/vda /mnt'
		rd got /mnt/hello.txt
		ok read-file "hello.txt '$got'" "$got" = "hello from the host"
		rd got /mnt/dir/nested.txt
		ok read-nested "dir/nested.txt '$got'" "$got" = nested
		sh_ok write-file 'echo "$ext4" >/mnt/from-guest.txt && sync'
		rd got /mnt/from-guest.txt
		ok read-back "from-guest.txt '$got'" "$got" = "$ext4"
		sh_ok umount 'umount /mnt'
	fi
	if [ -n "$rng" ]; then
		rd cur /sys/class/misc/hw_random/rng_current
		ok rng-virtio "rng_current '$cur'" "${cur#virtio}" != "$cur"
		sh_ok rng-reads '[ "$(head -c 64 /dev/hwrng | wc -c)" = 64 ]'
	fi
}

finish() {
	if [ "$failed" -eq 0 ]; then
		echo "@@ verdict pass"
	else
		echo "@@ verdict fail $failed"
	fi
	read -r up _ </proc/uptime
	echo "@@ done, uptime $up"
	sync
	if [ "$verdict" = mmio ]; then
		devmem $EXIT_MMIO 32 $((failed ? 1 : 0))
		echo "@@ the test-exit register did not end the run"
	elif [ "$failed" -ne 0 ]; then
		reboot -f
	fi
	poweroff -f
}

case $mode in
check)
	echo "@@ cmdline $cmdline"
	check_cpus
	check_pci
	report_pci
	check_platform
	check_syscalls
	check_virtio
	finish
	;;
*)
	/bin/busybox --install -s /bin
	export PATH=/bin
	echo "minivmm: busybox shell; poweroff (or exit) ends the VM, reboot resets it"
	# busybox's poweroff, halt and reboot ask init with a signal (USR2,
	# USR1, TERM).  A trap waits for a foreground command to end, so the
	# shell runs in the background and init waits for it: `wait` returns
	# at once for a trapped signal.
	trap 'sync; poweroff -f' USR1 USR2
	trap 'sync; reboot -f' TERM
	setsid cttyhack sh -l </dev/console &
	wait $!
	;;
esac
sync
poweroff -f
# Still here: the kernel could not power off.
echo "@@ poweroff failed"
while :; do sleep 3600; done
