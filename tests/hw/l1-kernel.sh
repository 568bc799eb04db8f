#!/bin/sh
# l1-kernel.sh: makes the hardware-virtualization lane's L1 guest ready, in
# a cache outside git, and prints that directory:
#
#   $CACHE/l1/vmlinuz   Debian's linux-image-amd64 kernel (the -amd64
#                       flavour: -cloud-amd64 has no 9p)
#   $CACHE/l1/l1.cpio   its initramfs: busybox-static, the modules below
#                       in load order, tests/hw/l1-init.sh as /init
#   $CACHE/l1/version   the package version
#
# CACHE is $MINIVMM_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/minivmm.  The
# only network access is `apt-get download` of the versioned kernel
# package linux-image-amd64 depends on.  The initramfs is rebuilt when
# l1-init.sh or this script is newer.
#
# Exit status: 0 ready; 77 something needed cannot be had (the lane is
# skipped, saying why); 1 anything else.
set -eu

die() { echo "l1-kernel: $*" >&2; exit "${2:-1}"; }

META=linux-image-amd64
# What L1 needs: KVM (AMD; Intel's for when QEMU's software CPU offers
# VMX), the 9p shares, tun for the network tests, overlay for L1's /tmp.
MODULES="kvm_amd kvm_intel 9p 9pnet_virtio virtio_pci tun overlay"
here=$(cd "$(dirname "$0")" && pwd)
cache=${MINIVMM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/minivmm}/l1

[ -x /bin/busybox ] && /bin/busybox --list | grep -qx insmod ||
	die "needs busybox-static (/bin/busybox with insmod): tools/deps.sh test" 77
mkdir -p "$cache"

if [ ! -s "$cache/vmlinuz" ] || [ ! -d "$cache/modules" ]; then
	work=$(mktemp -d "$cache/.fetch.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	deb=$("$here/../../tools/fetch-deb.sh" "$META" "$work") || exit $?
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" ./boot ./lib/modules ||
		die "$deb: cannot unpack"
	rm -rf "$cache/modules"
	mv "$work"/lib/modules/* "$cache/modules"
	mv "$work"/boot/vmlinuz-* "$cache/vmlinuz"
	dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >"$cache/version"
	rm -f "$cache/l1.cpio"
	rm -rf "$work"
fi

if [ -s "$cache/l1.cpio" ] && [ "$cache/l1.cpio" -nt "$here/l1-init.sh" ] &&
	[ "$cache/l1.cpio" -nt "$0" ]; then
	echo "$cache"
	exit 0
fi

# The initramfs: the wanted modules and their depends= closure (read from
# each module's .modinfo section), dependencies first.
root=$(mktemp -d "$cache/.root.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/host" \
	"$root/mods"
cp /bin/busybox "$root/bin/busybox"
for a in $(/bin/busybox --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
find "$cache/modules/kernel" -name '*.ko' >"$root/.all"
path_of() {
	grep -E "/($1|$(echo "$1" | tr _ -))\.ko\$" "$root/.all" | head -n 1
}
order=
visit() {
	case " $order " in *" $1 "*) return ;; esac
	p=$(path_of "$1")
	[ -n "$p" ] || return 0		# built in
	objcopy -O binary --only-section=.modinfo "$p" "$root/.info"
	for d in $(tr '\0' '\n' <"$root/.info" | sed -n 's/^depends=//p' |
		tr , ' '); do
		visit "$d"
	done
	p=$(path_of "$1")		# the recursion reused $p
	order="$order $1"
	cp "$p" "$root/mods/$1.ko"
}
for m in $MODULES; do visit "$m"; done
echo "$order" >"$root/mods/order"
rm -f "$root/.all" "$root/.info"
cp "$here/l1-init.sh" "$root/init"
chmod 755 "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) >"$cache/l1.cpio.new"
mv "$cache/l1.cpio.new" "$cache/l1.cpio"
echo "$cache"
