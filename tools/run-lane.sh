#!/bin/sh
# run-lane.sh MINIVMM [ARG...]: runs one minivmm command line where this
# host has no /dev/kvm, on the KVM of the hardware-virtualization lane:
# kvm_amd in QEMU's software CPU (tests/hw/run-l1.sh, docs/hw-lane.md).
# Boots L1, runs the command there (this checkout at the same path), prints
# its output here, and exits with its status.  `make run` uses it when
# /dev/kvm is missing.  Output only: the console takes no input.  The
# command sees this host's / read-only; it may write in L1's /tmp (lost
# with L1) and in $L1_OUT, which is $BUILD/hw/run here (emptied first).
# MINIVMM_L1_MEM: L1's RAM (default 2G).
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: tools/run-lane.sh MINIVMM [ARG...]" >&2; exit 2; }
out=${BUILD:-build}/hw/run
rm -rf "$out"
mkdir -p "$out"
out=$(readlink -f "$out")

# The command, quoted for L1's sh, as the script L1 runs (the kernel
# command line that passes arguments cannot carry spaces).
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
# The host's caches (kernels, initramfs images) are L1's too, read-only.
cache=${MINIVMM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/minivmm}
{
	printf 'cd %s || exit 1\n' "$(q "$(pwd)")"
	printf 'export MINIVMM_CACHE=%s\n' "$(q "$cache")"
	printf 'exec'
	for a; do printf ' %s' "$(q "$a")"; done
	printf ' </dev/null\n'
} >"$out/run.sh"

echo "run-lane: no /dev/kvm here: running it on kvm_amd in QEMU's software" \
	"CPU (L1 boots first; docs/hw-lane.md)" >&2
# L1's own lines ("@@ ...") and its kernel's ("[ ... ]") are for the log.
tests/hw/run-l1.sh --out "$out" --mem "${MINIVMM_L1_MEM:-2G}" --timeout 3600 "$out/run.sh" |
	tee "$out/l1-console.log" | grep -v -e '^@@ ' -e '^\[ *[0-9.]*\] '
rc=$(sed -n 's/^@@ script exit \([0-9]*\).*/\1/p' "$out/l1-console.log")
[ -n "$rc" ] || { echo "run-lane: L1 ended without the command's status" \
	"($out/l1-console.log)" >&2; exit 1; }
exit "$rc"
