#!/bin/sh
# /init of tests/boot/linux-powerdown.sh's initramfs (tools/mkinitramfs.sh):
# busybox only, an init that powers off the way a distribution's does.
# busybox acpid reads the power button's input device (ACPI_BUTTON, evdev)
# and runs /etc/acpi/PWRF/00000080 for KEY_POWER; that handler says so on
# the console and runs `poweroff`, which asks PID 1 (this script) with
# SIGUSR2; this script then stops acpid, syncs, unmounts and powers off
# (poweroff -f: the kernel's ACPI S5).  "@@ powerdown: ready" once acpid
# holds the button's event device; without one, "@@ powerdown: no power
# button" and poweroff (the host sees the missing handler line).
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
exec </dev/console >/dev/console 2>&1

shutdown() {
	echo "@@ powerdown: init got SIGUSR2 (poweroff): shutting down"
	kill "$acpid" 2>/dev/null
	sync
	umount /tmp
	echo "@@ powerdown: init: powering off"
	poweroff -f
}
trap shutdown USR2

mkdir -p /etc/acpi/PWRF /var/run /var/log
cat >/etc/acpi/PWRF/00000080 <<'EOF'
#!/bin/sh
echo "@@ powerdown: acpid ran PWRF/00000080 (power button)" >/dev/console
exec poweroff
EOF
chmod 755 /etc/acpi/PWRF/00000080

# The power button's event device (its name in sysfs says which).
dev=
for e in /sys/class/input/event*; do
	[ "$(cat "$e/device/name" 2>/dev/null)" = "Power Button" ] &&
		dev=/dev/input/${e##*/}
done
if [ -z "$dev" ]; then
	echo "@@ powerdown: no power button"
	poweroff -f
fi
echo "@@ powerdown: power button at $dev"

# -f: stays a child of this init, so the shutdown can stop it.
acpid -f -l /var/log/acpid.log &
acpid=$!
# Ready once acpid has the device open: an event before that is lost.
for _ in $(seq 600); do
	ls -l "/proc/$acpid/fd" 2>/dev/null | grep -q "$dev" && break
	sleep 0.1
done
ls -l "/proc/$acpid/fd" 2>/dev/null | grep -q "$dev" ||
	echo "@@ powerdown: acpid did not open $dev"
echo "@@ powerdown: ready"
# Signals interrupt wait, not a foreground sleep: the shutdown starts at once.
while :; do
	sleep 3600 &
	wait $!
done
