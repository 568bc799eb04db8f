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
# platform device's BAR1), minivmm.pti=on (page-table isolation on).
# Always: the host bridge and the Xen platform device 5853:0001 (class
# 0xff8000) with an I/O BAR0 and a prefetchable BAR1 in sysfs, the ECAM
# window (MMCONFIG) reserved and in use, ACPI MCFG and APIC tables, and a
# few hundred system calls from several processes at once.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
echo "@@ init started, uptime $(cut -d' ' -f1 /proc/uptime)"

EXIT_MMIO=0xfeb00000
mode=shell verdict=mmio cpus= xenbar= pti=
for w in $(cat /proc/cmdline); do
	case $w in
	minivmm.init=*) mode=${w#*=} ;;
	minivmm.verdict=*) verdict=${w#*=} ;;
	minivmm.cpus=*) cpus=${w#*=} ;;
	minivmm.xenbar=*) xenbar=${w#*=} ;;
	minivmm.pti=*) pti=${w#*=} ;;
	esac
done

failed=0
# ok NAME WHAT [true|false]: one check line; counts failures.
ok() {
	if [ "$3" = true ]; then
		echo "@@ check $1 ok: $2"
	else
		echo "@@ check $1 FAIL: $2"
		failed=$((failed + 1))
	fi
}
is() { [ "$@" ] && echo true || echo false; }

hex() { cat "$1" 2>/dev/null || echo none; }

# The sysfs directory of the first PCI function with VENDOR DEVICE.
pci_find() {
	for d in /sys/bus/pci/devices/*; do
		[ "$(hex "$d/vendor") $(hex "$d/device")" = "$1 $2" ] &&
			echo "$d" && return
	done
}

report_pci() {
	for d in /sys/bus/pci/devices/*; do
		[ -e "$d" ] || continue
		echo "@@ pci ${d##*/} $(hex "$d/vendor") $(hex "$d/device")" \
			"$(hex "$d/class")"
	done
	while read -r line; do
		echo "@@ mtrr $line"
	done </proc/mtrr
}

check_cpus() {
	online=$(cat /sys/devices/system/cpu/online)
	echo "@@ cpus online $online"
	[ -n "$cpus" ] || return 0
	want=0
	[ "$cpus" -gt 1 ] && want=0-$((cpus - 1))
	ok cpus "online '$online', nproc $(nproc), want $cpus" \
		"$(is "$online" = "$want" -a "$(nproc)" = "$cpus")"
}

# BAR N of the device in sysfs: "start end flags" (resource line N).
bar() {
	sed -n "$(($2 + 1))p" "$1/resource"
}

# The /proc/mtrr type over ADDR: that of the variable range covering it
# ("reg01: base=0x0df000000 ( 3568MB), size=   16MB, count=1:
# uncachable"), "default" if none does.
mtrr_type() {
	sed -n 's/.*base=\(0x[0-9a-f]*\).*size= *\([0-9]*\)\([MK]\)B.*: \(.*\)$/\1 \2 \3 \4/p' \
		/proc/mtrr | while read -r base size unit type; do
		[ "$unit" = M ] && size=$((size << 20)) || size=$((size << 10))
		if [ $(($1)) -ge $((base)) ] &&
			[ $(($1)) -lt $((base + size)) ]; then
			echo "$type"
			exit 1
		fi
	done && echo default
}

check_pci() {
	bridge=$(pci_find 0x1b36 0x0008)
	ok host-bridge "1b36:0008 at ${bridge##*/}" "$(is -n "$bridge")"
	xen=$(pci_find 0x5853 0x0001)
	ok xen-device "5853:0001 at ${xen##*/} class $(hex "$xen/class")" \
		"$(is -n "$xen" -a "$(hex "$xen/class")" = 0xff8000)"
	[ -n "$xen" ] || return 0
	set -- $(bar "$xen" 0)
	ok xen-bar0 "$1-$2 flags $3 (I/O)" \
		"$(is $(($1)) -ne 0 -a $(($3 & 0x100)) -ne 0)"
	set -- $(bar "$xen" 1)
	bar1=$1
	ok xen-bar1 "$1-$2 flags $3 (prefetchable memory)" \
		"$(is $(($1)) -ne 0 -a $(($3 & 0x2200)) -eq $((0x2200)))"
	[ -n "$xenbar" ] || return 0
	t=$(mtrr_type "$bar1")
	case $xenbar in
	uc) ok xen-bar-mtrr "type over BAR1 $bar1: $t, want uncachable" \
		"$(is "$t" = uncachable)" ;;
	*) ok xen-bar-mtrr "type over BAR1 $bar1: $t, want write-back" \
		"$(is "$t" = write-back -o "$t" = default)" ;;
	esac
}

check_platform() {
	grep -q 'PCI MMCONFIG' /proc/iomem
	iomem=$?
	dmesg | grep -q 'PCI: MMCONFIG at .* reserved'
	reserved=$?
	ok mmconfig "MMCONFIG in /proc/iomem and reserved" \
		"$(is $iomem -eq 0 -a $reserved -eq 0)"
	tables=$(ls /sys/firmware/acpi/tables 2>/dev/null | tr '\n' ' ')
	echo "@@ acpi tables $tables"
	case " $tables " in
	*" MCFG "*" APIC "* | *" APIC "*" MCFG "*) t=true ;;
	*) t=false ;;
	esac
	ok acpi "MCFG and APIC among: $tables" $t
	if [ -n "$pti" ]; then
		dmesg | grep -q 'page tables isolation: enabled'
		on=$?
		ok pti "page-table isolation enabled" "$(is $on -eq 0)"
	fi
}

# Several processes at once, each many system calls (fork, exec, open,
# read, write, wait): what SMP user space does all day.
check_syscalls() {
	n=${cpus:-1}
	[ "$n" -lt 2 ] && n=2
	i=0
	pids=
	while [ $i -lt "$n" ]; do
		(j=0; while [ $j -lt 20 ]; do
			cat /proc/self/stat >/dev/null || exit 1
			j=$((j + 1))
		done) &
		pids="$pids $!"
		i=$((i + 1))
	done
	bad=0
	for p in $pids; do
		wait "$p" || bad=$((bad + 1))
	done
	ok syscalls "$n processes x 20 forks and reads, $bad failed" \
		"$(is $bad -eq 0)"
}

finish() {
	if [ "$failed" -eq 0 ]; then
		echo "@@ verdict pass"
	else
		echo "@@ verdict fail $failed"
	fi
	echo "@@ done, uptime $(cut -d' ' -f1 /proc/uptime)"
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
	echo "@@ cmdline $(cat /proc/cmdline)"
	echo "@@ kernel $(uname -r)"
	check_cpus
	check_pci
	report_pci
	check_platform
	check_syscalls
	finish
	;;
*)
	echo "minivmm: busybox shell; 'poweroff -f' or exit to end the VM"
	setsid cttyhack sh -l
	;;
esac
sync
poweroff -f
# Still here: the kernel could not power off.
echo "@@ poweroff failed"
while :; do sleep 3600; done
