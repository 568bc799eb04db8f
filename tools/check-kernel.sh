#!/bin/sh
# check-kernel.sh: make check's guest kernel.  Built (and cached:
# tools/build-kernel.sh) where this host has /dev/kvm, since the Linux
# boot tests use it.  Without /dev/kvm no Linux test runs in make check
# (the boot tests skip; the lane's make-check part, tests/run.sh's
# HW_LANE_TESTS, boots payloads only), so the build, most of a fresh
# machine's make check, is left out, saying so.  MINIVMM_KERNEL_BUILD=1
# builds it anyway.
set -eu
cd "$(dirname "$0")/.."
if [ -e /dev/kvm ] || [ "${MINIVMM_KERNEL_BUILD:-0}" = 1 ]; then
	exec tools/build-kernel.sh >/dev/null
fi
echo "kernel: not built: no /dev/kvm here, so no Linux test runs" \
	"(make check-hw boots it in the lane)"
