#!/bin/sh
# Installs (as root) or names (otherwise) the Debian packages minivmm needs
# to build and test.  Used by `make run` and `make check`.  The second
# line is the guest kernel's build (tools/build-kernel.sh) and the Linux
# boot test's ext4 images (tests/boot/linux-kernel.sh).
set -eu

PKGS="gcc make pkg-config libc6-dev linux-libc-dev libfdt-dev check
acpica-tools libseccomp-dev libcjson-dev libcapstone-dev busybox-static
clang libclang-rt-14-dev python3 cpio zlib1g-dev e2fsprogs
linux-source-6.1 bc bison flex libelf-dev libssl-dev xz-utils lz4"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
	echo "minivmm: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
	exit 0
fi
echo "minivmm: missing packages; install them with:"
echo "  sudo apt-get install -y$missing"
exit 1
