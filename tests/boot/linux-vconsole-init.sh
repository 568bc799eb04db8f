#!/bin/sh
# /init of tests/boot/linux-vconsole.sh's initramfs (tools/mkinitramfs.sh):
# busybox only.  Says which console the kernel uses, writes one line to
# /dev/hvc0 by itself (the CI channel), then runs an interactive shell on
# /dev/hvc0 as its controlling terminal, with the prompt "hvc0-shell# ".
# The host types into it on minivmm's terminal; the shell's exit (or
# poweroff -f typed there) ends the run.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
echo "@@ active consoles: $(cat /sys/class/tty/console/active)" >/dev/hvc0
echo "@@ on hvc0: $(cat /sys/class/tty/hvc0/dev 2>/dev/null)" >/dev/hvc0
export PS1='hvc0-shell# '
setsid sh -c 'exec sh -i <>/dev/hvc0 >&0 2>&1'
echo "@@ shell on hvc0 ended" >/dev/hvc0
poweroff -f
