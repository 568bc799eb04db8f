#!/bin/sh
# /init of the Linux boot test's initramfs (tools/mkinitramfs.sh): busybox
# only.  With "minivmm.init=report" on the kernel command line it prints
# what the kernel saw as "@@ <topic> ..." lines on the console, then
# "@@ done" and powers off (ACPI S5: minivmm exits 0); "report-reboot"
# reboots instead (minivmm exits 3).  The host-side test
# (tests/boot/linux.sh) judges the lines.  Otherwise it starts a shell on
# the console and powers off when the shell exits.
#
# Why no test-exit port: on the target host, port I/O from ring 3 faults
# even with iopl(3), and the kernel lacks /dev/port (CONFIG_DEVPORT=n); the
# console plus the guest's own poweroff carry the verdict instead.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
echo "@@ init started, uptime $(cut -d' ' -f1 /proc/uptime)"

mode=shell
for w in $(cat /proc/cmdline); do
	case $w in
	minivmm.init=*) mode=${w#minivmm.init=} ;;
	esac
done

hex() { cat "$1" 2>/dev/null || echo none; }

report_pci() {
	for d in /sys/bus/pci/devices/*; do
		[ -e "$d" ] || continue
		s=${d##*/}
		echo "@@ pci $s $(hex "$d/vendor") $(hex "$d/device")" \
			"$(hex "$d/class")"
		# resource: one "start end flags" line per BAR (0-5), then ROM.
		i=0
		while read -r start end flags; do
			[ "$start" != 0x0000000000000000 ] &&
				echo "@@ bar $s $i $start $end $flags"
			i=$((i + 1))
		done <"$d/resource"
	done
}

report() {
	echo "@@ cmdline $(cat /proc/cmdline)"
	echo "@@ kernel $(uname -r)"
	echo "@@ cpus online $(cat /sys/devices/system/cpu/online)"
	echo "@@ acpi tables $(ls /sys/firmware/acpi/tables 2>/dev/null |
		tr '\n' ' ')"
	report_pci
	while read -r line; do
		echo "@@ mtrr $line"
	done </proc/mtrr
	dmesg | grep -iE 'mmconfig|ecam|e820|acpi: (rsdp|xsdt|fadt|madt|mcfg|dsdt)|smpboot|x86/pat|mtrr|console' |
		while read -r line; do
			echo "@@ dmesg $line"
		done
	echo "@@ done, uptime $(cut -d' ' -f1 /proc/uptime)"
}

case $mode in
report)
	report
	;;
report-reboot)
	report
	sync
	reboot -f
	echo "@@ reboot failed"
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
