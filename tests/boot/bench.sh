#!/bin/bash
# Smoke test of `minivmm bench`: a short run over a few cases must finish,
# print a complete table, and write well-formed JSON, markdown and SVG.
# Never checks a timing; exits per op are behaviour (a read-only ECAM read
# never exits, a trapped one always does), so those are checked.
. "$(dirname "$0")/lib.sh"

FLOOR=$BUILD/kvm-floor
[ -x "$FLOOR" ] || FLOOR=build/kvm-floor
CASES=port_in:0,pci_cf8_read:0,pci_ecam_read:3,msr_read,boot,snapshot
CASES=$CASES,blk_rand4k_qd32,syscall:3

vm bench 600 bench --repeat 2 --target-ms 5 --cases "$CASES" \
	--payload "$GUESTS/bench.elf" --floor "$FLOOR" \
	--json "$TMP/bench.json" --report "$TMP/report"
expect bench 0 '^targets \(measured, not asserted\):'

# Every selected case and configuration has a row, none failed.
missing=""
for row in "port_in +0 +default +minivmm" \
	   "pci_ecam_read +3 +ecam=ro +minivmm" \
	   "pci_ecam_read +3 +ecam=trap +minivmm" \
	   "msr_read +0 +msr=deny +minivmm" "msr_read +0 +msr=host +minivmm" \
	   "boot_first_insn +0 +default" "port_in +0 +bare KVM +kvm-floor" \
	   "boot_first_insn +0 +bare KVM +kvm-floor" \
	   "port_pair_rd_q +0 +bare KVM +kvm-floor" \
	   "snap_boot_verdict +0 +default" "snap_write +0 +default" \
	   "snap_restore_run +0 +default" "snap_restore_verdict +0 +default" \
	   "snap_parallel_mem +0 +default" \
	   "blk_rand4k_qd32 +3 +disk +minivmm" \
	   "blk_rand4k_qd32 +3 +pread/pwrite +host" \
	   "syscall +3 +default +minivmm"; do
	grep -qE "^[a-z]+ +$row " "$TMP/bench.out" || missing="$missing [$row]"
done
[ -z "$missing" ] && pass bench-table-complete ||
	fail bench "table lacks$missing"
grep -q 'FAILED' "$TMP/bench.out" && fail bench "a row FAILED" ||
	pass bench-no-failed-rows

# The host kind decides what a ring-3 system call costs in exits.
kind=hw
host_emulates_ring0 && kind=pvm
python3 - "$TMP/bench.json" "$kind" <<'EOF' && pass bench-json || fail bench "bad JSON"
import json, sys
rows = json.load(open(sys.argv[1]))
pvm = sys.argv[2] == "pvm"
keys = {"case", "config", "vmm", "ring", "median_ns", "p10_ns", "p90_ns",
        "exits_per_op", "ratio_to_floor", "ratio_to_best", "status"}
assert isinstance(rows, list) and rows
for r in rows:
    assert keys <= r.keys(), r
    if r["status"] == "ok" and r["case"] != "snap_parallel_mem":
        assert r["median_ns"] > 0 and r["p10_ns"] <= r["p90_ns"], r
def row(case, config):
    m = [r for r in rows if r["case"] == case and r["config"] == config]
    assert len(m) == 1, (case, config, m)
    return m[0]
assert row("pci_ecam_read", "ecam=ro")["exits_per_op"] < 0.01
assert 0.9 < row("pci_ecam_read", "ecam=trap")["exits_per_op"] < 1.1
assert 0.9 < row("msr_read", "msr=ignore")["exits_per_op"] < 1.1
assert row("msr_read", "msr=allow")["exits_per_op"] < 0.01
assert row("pci_ecam_read", "ecam=ro")["floor_case"] == "romem_read:3"
assert row("msr_read", "msr=deny")["ratio_to_floor"] > 0
# CF8's write queued (coalesced PIO) where KVM can: 1 exit, else 2; the
# floor queues its address write the same way.
cf8 = row("pci_cf8_read", "ecam=ro")
assert 0.9 < cf8["exits_per_op"] < 1.1 or 1.9 < cf8["exits_per_op"] < 2.1
assert cf8["floor_case"] == "port_pair_rd_q:0", cf8
q = [r for r in rows if r["case"] == "port_pair_rd_q"][0]
assert abs(q["exits_per_op"] - cf8["exits_per_op"]) < 0.1, (q, cf8)
# Start-up against kvm-floor's: same RAM, its own row, a ratio.
boot = row("boot_first_insn", "default")
assert boot["floor_case"] == "boot_first_insn:0", boot
assert boot["ratio_to_floor"] > 0, boot
assert row("boot_first_insn", "bare KVM")["vmm"] == "kvm-floor"
# A virtio-blk request: no user-space exit (kicks stay in the kernel).
blk = row("blk_rand4k_qd32", "disk")
assert blk["exits_per_op"] < 0.05, blk
assert blk["floor_case"] == "blk_rand4k_qd32:3" and blk["ratio_to_floor"] > 0
assert row("blk_rand4k_qd32", "pread/pwrite")["vmm"] == "host"
# A completed system call, against one ring-3 exit of the floor; of its
# three floor/case pairs one row is kept.  On PVM one exit (the syscall
# fix's debug exit at the #PF handler); on hardware virtualization none:
# SYSCALL and SYSRET stay in the guest.  The few exits per boot outside
# the loop (the ring-3 returns) stay well under 0.25 per call.
sc = row("syscall", "default")
if pvm:
    assert 0.95 < sc["exits_per_op"] < 1.25, sc
else:
    assert sc["exits_per_op"] < 0.25, sc
assert sc["floor_case"] == "mmio_read:3" and sc["ratio_to_floor"] > 0, sc
# Its reference side by side in the guest: ratios, and the reads' exits
# taken off the call's.
assert "ref_mmio3=" in sc["extra"] and "ref_mmio3_p10=" in sc["extra"], sc
mem = row("snap_parallel_mem", "default")
assert mem["median_ns"] is None and "pss_mib=" in mem["extra"], mem
EOF

grep -qE '^  process start to first guest instruction / kvm-floor.s \(same RAM\): [0-9.e+]+ \(target <= 1.5\): (met|MISSED)$' \
	"$TMP/bench.out" && pass bench-startup-target ||
	fail bench "no start-up target line"

# kvm-floor's start-up mode alone: one line, or status 2 for a bad size.
"$FLOOR" --startup 64 >"$TMP/floor-startup.out" 2>&1
grep -qE '^BENCHBOOT first_insn_ns=[1-9][0-9]* ram_mib=64 irqchip=1$' \
	"$TMP/floor-startup.out" && pass floor-startup ||
	fail floor-startup "$(cat "$TMP/floor-startup.out")"
"$FLOOR" --startup 0 >/dev/null 2>&1
[ $? = 2 ] && pass floor-startup-bad || fail floor-startup-bad "not status 2"

python3 - "$TMP/report" <<'EOF' && pass bench-report || fail bench "bad report"
import os, sys, xml.dom.minidom
d = sys.argv[1]
md = open(os.path.join(d, "report.md")).read()
for want in ("# minivmm benchmarks", "## Targets", "## pci", "## msr",
             "## blk", "## boot", "- KVM: ", "virtio-blk rows at or above"):
    assert want in md, want
for g in ("pci", "exits", "msr", "boot"):
    doc = xml.dom.minidom.parse(os.path.join(d, g + ".svg"))
    assert doc.documentElement.tagName == "svg"
    assert doc.getElementsByTagName("rect"), g
EOF

# Memory shared by parallel restores: PSS well under RSS (behaviour of
# copy-on-write mappings, not a timing).
python3 - "$TMP/bench.out" <<'EOF' && pass bench-snapshot-shared ||
import re, sys
m = re.search(r"RSS ([0-9.]+) MiB, PSS ([0-9.]+) MiB", open(sys.argv[1]).read())
assert m and float(m.group(2)) < 0.6 * float(m.group(1)), m
EOF
	fail bench "parallel restores share no memory"

vm bench-usage 30 bench --cases nosuchcase
expect bench-usage 2 '' "unknown case or group 'nosuchcase'"

# The Linux boots: both files, given and readable, before anything runs.
vm bench-linux-pair 30 bench --cases boot --linux-kernel "$GUESTS/bench.elf"
expect bench-linux-pair 2 '' '--linux-kernel and --linux-initrd go together'
vm bench-linux-missing 30 bench --cases boot --linux-kernel "$TMP/none" \
	--linux-initrd "$GUESTS/bench.elf" --payload "$GUESTS/bench.elf" --no-floor
expect bench-linux-missing 2 '' "--linux-kernel '.*/none': No such file"
vm bench-linux-repeat 30 bench --linux-repeat 21
expect bench-linux-repeat 2 '' "--linux-repeat '21': expected 1..20"

# --vmm-cpu: the children run on that CPU only (a floor that records its
# own affinity, then runs the real one), and the run says so.
cpu=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
printf '#!/bin/sh\ngrep Cpus_allowed_list /proc/self/status >%s\nexec %s "$@"\n' \
	"$TMP/floor-affinity" "$(realpath "$FLOOR")" >"$TMP/floor-wrap"
chmod +x "$TMP/floor-wrap"
vm bench-vmm-cpu 120 bench --vmm-cpu "$cpu" --repeat 1 --target-ms 5 \
	--cases port_in:0 --payload "$GUESTS/bench.elf" --floor "$TMP/floor-wrap"
expect bench-vmm-cpu 0 "^placement: every VMM on CPU $cpu,"
grep -qE "^Cpus_allowed_list:[[:space:]]+$cpu\$" "$TMP/floor-affinity" &&
	pass bench-vmm-cpu-pinned ||
	fail bench-vmm-cpu-pinned "floor ran on $(cat "$TMP/floor-affinity" 2>/dev/null)"
vm bench-vmm-cpu-bad 30 bench --vmm-cpu 4096
expect bench-vmm-cpu-bad 2 '' "--vmm-cpu '4096': expected a CPU number"
vm bench-vmm-cpu-off 30 bench --vmm-cpu 1000
expect bench-vmm-cpu-off 2 '' "--vmm-cpu '1000': not a CPU this process may run on"
