#!/bin/sh
# check-kernel.sh: make check's guest kernel.  Built (and cached:
# tools/build-kernel.sh) where this host has /dev/kvm, since the Linux
# boot tests use it.  Without /dev/kvm the boot tests skip and the lane's
# make-check part (tests/run.sh's HW_LANE_TESTS) boots only Debian's
# kernel, so the build, most of a fresh machine's make check, is left
# out, saying so.  MINIVMM_KERNEL_BUILD=1
# builds it anyway.
set -eu
cd "$(dirname "$0")/.."
if [ -e /dev/kvm ] || [ "${MINIVMM_KERNEL_BUILD:-0}" = 1 ]; then
	exec tools/build-kernel.sh >/dev/null
fi
echo "kernel: not built: no /dev/kvm here (make check's lane boots" \
	"Debian's kernel; make check-hw boots this one)"
