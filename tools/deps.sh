#!/bin/sh
# deps.sh [TIER...]: installs (as root) or names (otherwise: the exact
# `sudo apt-get install -y ...` line, exit 1) the Debian packages minivmm
# needs, by tier:
#
#   build   `make` and `make run`: the VMM, the firmware, the test guests
#           and host tools (libc6-dev's static libc for tests/linux/),
#           --cmd's initramfs (busybox-static, cpio)
#   test    what `make check` needs beyond that: the unit tests (check,
#           pkg-config), iasl (acpica-tools), the fuzzers (clang-14 and its
#           libFuzzer), the boot tests (python3; busybox, cpio and
#           e2fsprogs for the Linux initramfs and disk images; iproute2
#           for the network namespaces; socat for the QMP and console
#           sockets and ptys), and qemu-system-x86 for the
#           kvm-unit-tests and bench peers (`make check-kut`) and as the
#           software CPU of the hardware-virtualization lane (tests/hw/)
#   kernel  the Linux guest: its kernel built from linux-source-6.1
#           (tools/build-kernel.sh) and its busybox initramfs
#           (tools/mkinitramfs.sh); `make run-linux` needs build + kernel
#   all     every tier (the default): `make check`, `make check-linux`
#
# Packages of the base system (coreutils, util-linux, dpkg, gzip,
# binutils with gcc) are taken as given.  An unknown tier: one line on
# stderr, exit 2.
set -eu

BUILD_PKGS="gcc make libc6-dev linux-libc-dev libfdt-dev libseccomp-dev
libcjson-dev libcapstone-dev zlib1g-dev busybox-static cpio"
TEST_PKGS="check pkg-config acpica-tools clang libclang-rt-14-dev python3
busybox-static cpio e2fsprogs iproute2 qemu-system-x86 socat"
KERNEL_PKGS="linux-source-6.1 bc bison flex libelf-dev libssl-dev xz-utils
lz4 busybox-static cpio"

pkgs=""
[ $# -gt 0 ] || set -- all
for tier in "$@"; do
	case $tier in
	build)	pkgs="$pkgs $BUILD_PKGS" ;;
	test)	pkgs="$pkgs $TEST_PKGS" ;;
	kernel)	pkgs="$pkgs $KERNEL_PKGS" ;;
	all)	pkgs="$pkgs $BUILD_PKGS $TEST_PKGS $KERNEL_PKGS" ;;
	-h|--help)
		sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"
		exit 0 ;;
	*)	echo "tools/deps.sh: unknown tier '$tier'" \
			"(build, test, kernel or all)" >&2
		exit 2 ;;
	esac
done

missing=""
for p in $pkgs; do
	case " $missing " in *" $p "*) continue ;; esac
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
