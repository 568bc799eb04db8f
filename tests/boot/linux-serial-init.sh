#!/bin/sh
# /init of tests/boot/linux-serial.sh's initramfs (tools/mkinitramfs.sh):
# busybox only.  Lists the PNP devices the kernel found in the DSDT and
# the 8250 ports it registered, says hello on ttyS1 (COM2), reads one line
# there (the host types it into COM2's socket: the UART's receive
# interrupt, IRQ 3, wakes the reader) and prints it on the console, then
# powers off.
if [ $$ -ne 1 ]; then	# never on a host: it powers off
	echo "linux-serial-init.sh: a guest's /init, not a test" >&2
	exit 2
fi
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
echo "@@ init started"
oneline() { tr '\n' ' ' <"$1" 2>/dev/null; }
for d in /sys/bus/pnp/devices/*; do
	echo "@@ pnp $(oneline "$d/id")$(oneline "$d/resources")"
done
for t in ttyS0 ttyS1; do
	s=/sys/class/tty/$t
	echo "@@ $t port $(cat $s/port 2>/dev/null) irq $(cat $s/irq 2>/dev/null)"
done
# Held open from before the hello: input that came while the port was
# closed would be dropped with the FIFO when it opens.
if exec 3<>/dev/ttyS1; then
	stty -echo <&3
	echo "hello from ttyS1" >&3
	line=
	read -t 120 line <&3
	echo "@@ ttyS1 read: $line"
	grep -E '^ *3:' /proc/interrupts | sed 's/^/@@ irq /'
fi
echo "@@ verdict done"
poweroff -f
