#!/bin/sh
# /init of the lane's L1 guest (tests/hw/l1-kernel.sh builds it in): loads
# KVM and the 9p modules, mounts this host's / read-only (9p tag "host")
# with the lane's output folder writable over its own path (tag "out"),
# chroots there and runs the lane script, then powers off.  Kernel
# command-line words:
#   l1kvmopt=K=V[,K=V]   kvm_amd's options (npt=0: shadow paging)
#   l1script=PATH        `sh PATH` in the chroot (a host path)
#   l1out=PATH           the host path of the writable share
#   l1args=A[,B...]      the script's arguments
# Lines starting with "@@ " are for the host side (check-hw.sh).
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# What a booted system has and devtmpfs lacks: loopback up (Bazel's server
# listens on it) and /dev/fd (bash's process substitution).
ip link set lo up
ln -sf /proc/self/fd /dev/fd
arg() {
	for w in $(cat /proc/cmdline); do
		case $w in "$1"=*) echo "${w#*=}" ;; esac
	done
}
kopt=$(arg l1kvmopt | tr , ' ')
script=$(arg l1script)
out=$(arg l1out)
args=$(arg l1args | tr , ' ')

for m in $(cat /mods/order); do
	case $m in
	kvm_amd) insmod /mods/$m.ko $kopt ;;
	kvm_intel) grep -qw vmx /proc/cpuinfo && insmod /mods/$m.ko $kopt ;;
	*) insmod /mods/$m.ko ;;
	esac
done
[ -c /dev/kvm ] || echo "@@ no /dev/kvm: $(dmesg | grep -i -E 'kvm|svm' | tail -n 3 | tr '\n' ' ')"
echo "@@ kvm_amd $(for f in npt nested vgif; do
	echo "$f=$(cat /sys/module/kvm_amd/parameters/$f 2>/dev/null)"; done | tr '\n' ' ')"

mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose \
	host /host || echo "@@ 9p: cannot mount the host's /"
# A writable /tmp that still shows the host's: a checkout (or the output
# folder) under /tmp, as a CI runner's may be, stays visible; what L1
# writes there stays in L1's RAM.
mkdir -p /ovl
mount -t tmpfs -o size=75% tmpfs /ovl
mkdir -p /ovl/up /ovl/work
mount -t overlay overlay -o lowerdir=/host/tmp,upperdir=/ovl/up,workdir=/ovl/work \
	/host/tmp || { echo "@@ overlay: /tmp is L1's own"; mount -t tmpfs \
	-o size=75% tmpfs /host/tmp; }
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out "/host$out" ||
	echo "@@ 9p: cannot mount $out"
mkdir -p /dev/pts /dev/shm
mount --bind /dev /host/dev
mount -t devpts devpts /host/dev/pts
mount -t tmpfs tmpfs /host/dev/shm
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t tmpfs tmpfs /host/run
mkdir -p "/host$out/home"
# L1's kernel text symbols at their randomized addresses: with QEMU's
# monitor they name where a wedged L1's CPUs are (check-hw.sh).
grep -i ' t ' /proc/kallsyms >"/host$out/l1-kallsyms" 2>/dev/null
echo "@@ L1 ready at $(cut -d' ' -f1 /proc/uptime) s"

if [ -n "$script" ]; then
	chroot /host /usr/bin/env -i HOME="$out/home" TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		L1_OUT="$out" /bin/sh "$script" $args
	echo "@@ script exit $?"
fi
sync
umount "/host$out" 2>/dev/null
echo "@@ L1 power off"
poweroff -f
