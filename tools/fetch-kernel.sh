#!/bin/sh
# fetch-kernel.sh [--refresh]: makes a stock Debian kernel available for
# the Linux boot tests, in a cache outside git:
#
#   $CACHE/bzImage   the distribution's vmlinuz (Linux boot protocol)
#   $CACHE/vmlinux   the same kernel uncompressed (ELF, PVH entry note)
#   $CACHE/config    its .config;  $CACHE/version  the package version
#
# CACHE is $MINIVMM_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/minivmm.  The
# only network access is `apt-get download` of linux-image-cloud-amd64's
# kernel package.  A complete cache is reused without touching apt;
# --refresh downloads again.  Prints the cache directory on success.
#
# Exit status: 0 ready; 77 the package cannot be downloaded (callers may
# skip); 1 anything else.
set -eu

die() { echo "fetch-kernel: $*" >&2; exit "${2:-1}"; }

META=linux-image-cloud-amd64
here=$(cd "$(dirname "$0")" && pwd)
cache=${MINIVMM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/minivmm}

if [ "${1:-}" != --refresh ] && [ -s "$cache/bzImage" ] &&
	[ -s "$cache/vmlinux" ] && [ -s "$cache/version" ]; then
	echo "$cache"
	exit 0
fi
mkdir -p "$cache"
work=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
deb=$("$here/fetch-deb.sh" "$META" "$work") || exit $?
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" ./boot ||
	die "$deb: cannot unpack"
vmlinuz=$(ls "$work"/boot/vmlinuz-* 2>/dev/null | head -n 1)
[ -n "$vmlinuz" ] || die "$deb: no /boot/vmlinuz-*"
"$here/extract-vmlinux.sh" "$vmlinuz" "$work/vmlinux"
cp "$work"/boot/config-* "$work/config"

# Install atomically: a half-written cache must never look complete.
mv "$vmlinuz" "$cache/bzImage.new"
mv "$work/vmlinux" "$cache/vmlinux.new"
mv "$work/config" "$cache/config"
mv "$cache/bzImage.new" "$cache/bzImage"
mv "$cache/vmlinux.new" "$cache/vmlinux"
dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >"$cache/version"
echo "$cache"
