# Sourced by each boot test (lib.sh, console.sh): a host without KVM (no
# /dev/kvm, or one this user cannot open) cannot run a guest, and every
# check would fail the same way.  The test says so once and runs nothing;
# tests/run.sh counts it as skipped, and make check runs the guests in the
# hardware-virtualization lane instead (tests/hw/, docs/hw-lane.md).
if [ ! -e /dev/kvm ]; then
	echo "SKIP: no /dev/kvm on this host (guests run in the lane: make check-hw)"
	exit 0
elif [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
	echo "SKIP: /dev/kvm is not readable and writable for $(id -un)"
	exit 0
fi
