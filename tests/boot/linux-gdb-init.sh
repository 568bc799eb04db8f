#!/bin/sh
# /init of tests/boot/linux-gdb.sh's initramfs: says it runs, then powers
# off (the verdict), or with "gdbhold" on the kernel command line sleeps
# until the debugger kills the machine.  Busybox applets by full name:
# nothing to install, no fork more than needed.
/bin/busybox mount -t proc proc /proc
echo "@@ linux-gdb: init ran"
case " $(/bin/busybox cat /proc/cmdline) " in
*" gdbhold "*)
	echo "@@ linux-gdb: holding"
	while :; do /bin/busybox sleep 3600; done ;;
esac
/bin/busybox poweroff -f
