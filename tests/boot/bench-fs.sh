#!/bin/bash
# `minivmm bench --cases fs --peer qemu` with the kernel built for minivmm
# (tools/build-kernel.sh: CONFIG_VIRTIO_FS): one boot under minivmm and one
# under QEMU over the same tree with the same virtiofsd, then `minivmm run
# --cmd true` with and without --share /:ro.  Checks that every row was
# measured (a time above zero) for both VMMs and that the target line is
# printed; never checks a timing (the figures are in docs/performance.md).
# Usage errors: status 2.
. "$(dirname "$0")/lib.sh"

if [ "$BUILD" = build-asan ]; then
	echo "SKIP: bench-fs (runs against the normal build only: minutes per boot)"
	exit 0
fi
minivmm_kernel CONFIG_VIRTIO_FS

# Usage first: these need no kernel.
vm bench-fs-nokernel 30 bench --cases fs --no-floor
expect bench-fs-nokernel 2 '' '--cases fs needs --linux-kernel'
vm bench-fs-initrd 30 bench --cases fs --linux-initrd /dev/null --no-floor
expect bench-fs-initrd 2 '' '--linux-initrd needs --linux-kernel'
vm bench-fs-boot-pair 30 bench --cases fs,boot --linux-kernel /dev/null
expect bench-fs-boot-pair 2 '' 'go together for the boot group'

if [ -z "$kernel" ]; then
	echo "SKIP: bench-fs (no kernel built for minivmm with CONFIG_VIRTIO_FS=y: make guest-kernel builds one)"
	exit 0
fi
# Its point is minivmm beside QEMU.  On a PVM host QEMU's Linux guest
# cannot make a system call (no fix: its init dies at the first), and
# minivmm's own boot of these workloads ran over 16 minutes (2026-12-03),
# every FUSE request a system call and every copy emulated ring 0: make
# check-hw runs it on hardware virtualization (the lane) instead.
if host_emulates_ring0; then
	echo "SKIP: bench-fs (this host's KVM is PVM: QEMU's guest cannot make system calls here and minivmm's boot alone takes over 16 minutes; make check-hw runs it)"
	exit 0
fi
if [ ! -x /usr/lib/qemu/virtiofsd ]; then
	echo "SKIP: bench-fs (no /usr/lib/qemu/virtiofsd: apt-get install qemu-system-common)"
	exit 0
fi

vm bench-fs 1800 bench --cases fs --peer qemu --no-floor \
	--linux-kernel "$kernel" --linux-repeat 2 --json "$TMP/fs.json"
expect bench-fs 0 'virtio-fs rows at or above QEMU: [0-4] of 4'
grep -q 'FAILED' "$TMP/bench-fs.out" && fail bench-fs "a row FAILED" ||
	pass bench-fs-no-failed-rows

python3 - "$TMP/fs.json" <<'EOF' && pass bench-fs-rows || fail bench-fs "rows"
import json, sys
rows = json.load(open(sys.argv[1]))
def row(case, vmm):
    m = [r for r in rows if r["case"] == case and r["vmm"] == vmm]
    assert len(m) == 1, (case, vmm, m)
    return m[0]
for case in ("fs_stat_tree", "fs_read_tree", "fs_read_256M", "fs_write_32M"):
    for vmm in ("minivmm", "qemu"):
        r = row(case, vmm)
        assert r["status"] == "ok" and r["median_ns"] > 0, r
        assert r["config"] == "virtiofs", r
for case in ("run_cmd_true", "run_cmd_true_root"):
    r = row(case, "minivmm")
    assert r["status"] == "ok" and r["median_ns"] > 0, r
EOF
for r in fs_stat_tree fs_read_256M run_cmd_true run_cmd_true_root; do
	grep -E "^fs +$r " "$TMP/bench-fs.out" | sed 's/^/    /'
done
grep -E 'virtio-fs rows at or above QEMU' "$TMP/bench-fs.out" | sed 's/^/    /'
# Nothing left behind: the daemons ended with their boots.
pgrep -f "virtiofsd.*minivmm-bench" >/dev/null &&
	fail bench-fs-daemons "a virtiofsd of the bench still runs" ||
	pass bench-fs-daemons
