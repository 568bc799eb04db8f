#!/bin/sh
# mkinitramfs.sh [-z] [-o OUTPUT] INIT [FILE...]: builds a newc initramfs
# from the host's busybox-static, INIT installed as /init, and each FILE
# copied into /bin.  Prints the output path.
#
# Uncompressed unless -z (gzip): where guest ring 0 is emulated, the
# kernel's inflate of a 1 MiB image costs about a minute, a plain copy
# seconds.
#
# Without -o the image goes to the cache ($MINIVMM_CACHE, else
# ${XDG_CACHE_HOME:-~/.cache}/minivmm), named after a hash of its inputs,
# and an existing one is reused (under TMPDIR where the cache is
# read-only).  No device nodes are created (that needs root): the kernel's
# built-in initramfs already has /dev/console, and the init mounts
# devtmpfs.
set -eu

die() { echo "mkinitramfs: $*" >&2; exit 1; }

out=
gz=
if [ "${1:-}" = -z ]; then
	gz=1
	shift
fi
if [ "${1:-}" = -o ]; then
	[ $# -ge 2 ] || die "-o needs a file name"
	out=$2
	shift 2
fi
[ $# -ge 1 ] || die "usage: mkinitramfs.sh [-z] [-o OUTPUT] INIT [FILE...]"
init=$1
shift
[ -f "$init" ] || die "$init: no such file"
for f in "$@"; do
	[ -f "$f" ] || die "$f: no such file"
done

busybox=${BUSYBOX:-/bin/busybox}
[ -x "$busybox" ] || die "$busybox: not found (apt-get install busybox-static)"
# A dynamic busybox would need the host's libraries in the image.
if command -v file >/dev/null 2>&1; then
	file -L "$busybox" | grep -q 'statically linked' ||
		die "$busybox is not statically linked (need busybox-static)"
fi
command -v cpio >/dev/null || die "cpio not found (apt-get install cpio)"

if [ -z "$out" ]; then
	cache=${MINIVMM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/minivmm}
	mkdir -p "$cache" 2>/dev/null || :
	sum=$(cat "$busybox" "$init" "$@" | sha256sum | cut -c1-16)
	out=$cache/initramfs-$sum.cpio${gz:+.gz}
	if [ -s "$out" ]; then
		echo "$out"
		exit 0
	fi
	# A cache that cannot be written (the hardware lane's L1 sees the
	# host's read-only): the same name under TMPDIR.
	if ! [ -d "$cache" ] || ! [ -w "$cache" ]; then
		out=${TMPDIR:-/tmp}/minivmm-initramfs-$sum.cpio${gz:+.gz}
		if [ -s "$out" ]; then
			echo "$out"
			exit 0
		fi
	fi
fi

root=$(mktemp -d)
chmod 755 "$root"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" "$root/tmp" \
	"$root/etc" "$root/root"
cp "$busybox" "$root/bin/busybox"
cp "$init" "$root/init"
chmod 755 "$root/init"
for f in "$@"; do
	cp "$f" "$root/bin/"
done
# The init installs the applet links itself (busybox --install -s /bin);
# sh is needed before that.
ln -s busybox "$root/bin/sh"

# Sorted names, owner root, fixed mtimes: the same inputs give the same
# image.
find "$root" -exec touch -h -d @0 {} +
tmp=$out.tmp.$$
(cd "$root" && find . | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --quiet) | if [ -n "$gz" ]; then gzip -9n; else
	cat; fi >"$tmp"
mv "$tmp" "$out"
echo "$out"
