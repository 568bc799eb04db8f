#!/bin/sh
# /init of tests/boot/linux-net.sh's initramfs (tools/mkinitramfs.sh):
# busybox only.  Configures eth0 (virtio-net) as minivmm.ip= on the
# kernel command line, checks its MAC (minivmm.mac=), pings the host end
# (minivmm.host=), fetches http://HOST:8080/blob with wget and compares
# its SHA-256 with minivmm.sha=, then serves it with httpd until the host
# says (nc to port 9001) it has fetched it back.  One "@@ ok NAME" or "@@ FAIL NAME" line each, "@@ verdict N",
# then poweroff (minivmm exits 0) when N is 0, else reboot (exits 3).
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp
exec </dev/console >/dev/console 2>&1

failed=0
check() {
	if eval "$2"; then
		echo "@@ ok $1"
	else
		echo "@@ FAIL $1"
		failed=$((failed + 1))
	fi
}

ip=none host=none mac=none sha=none
for w in $(cat /proc/cmdline); do
	case $w in
	minivmm.ip=*) ip=${w#minivmm.ip=} ;;
	minivmm.host=*) host=${w#minivmm.host=} ;;
	minivmm.mac=*) mac=${w#minivmm.mac=} ;;
	minivmm.sha=*) sha=${w#minivmm.sha=} ;;
	esac
done

check eth0-present '[ -d /sys/class/net/eth0 ]'
check eth0-driver '[ "$(basename "$(readlink /sys/class/net/eth0/device/driver)")" = virtio_net ]'
check eth0-mac '[ "$(cat /sys/class/net/eth0/address)" = "$mac" ]'
ip link set lo up
check eth0-up 'ip link set eth0 up && ip addr add "$ip/24" dev eth0'
check eth0-carrier '[ "$(cat /sys/class/net/eth0/carrier)" = 1 ]'
# One echo per ping: with -c 3 busybox waits only about two round trips
# for the last reply once one came back, which a loaded host outlasts.
pings() {
	got=0
	for i in 1 2 3; do
		ping -c 1 -W 30 "$host" >>/tmp/ping.out && got=$((got + 1))
	done
	echo "@@ pings $got of 3 answered"
	[ "$got" = 3 ]
}
check ping-host pings
grep -E "bytes from|packets" /tmp/ping.out
# /proc/uptime around it: the guest's own clock, 10 ms steps.
t0=$(cut -d" " -f1 /proc/uptime)
check wget-blob 'wget -q -O /tmp/blob "http://$host:8080/blob"'
t1=$(cut -d" " -f1 /proc/uptime)
echo "@@ time host-to-guest $(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }') s for $(wc -c </tmp/blob) bytes"
got=$(sha256sum /tmp/blob | cut -d" " -f1)
echo "@@ sha $got"
check blob-sha '[ "$got" = "$sha" ]'
# The other way: the host fetches the blob from the guest's httpd (it
# sends with sendfile: large segments, few system calls), then says so
# on port 9001.
mkdir -p /tmp/www && cp /tmp/blob /tmp/www/blob
check httpd 'httpd -p 8080 -h /tmp/www'
# Listening before "serving": the host connects as soon as it reads it.
nc -l -p 9001 </dev/console >/tmp/msg &
ncpid=$!
echo "@@ serving"
check host-fetched 'wait $ncpid; grep -q fetched /tmp/msg'
cat /proc/net/dev | grep eth0
echo "@@ verdict $failed"
if [ "$failed" = 0 ]; then
	poweroff -f
fi
reboot -f
