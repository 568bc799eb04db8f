#!/bin/bash
# The hardware-virtualization lane's short part (make check: check-hw.sh
# --short runs it in L1, on kvm_amd with nested paging): the firmware
# boots alone; fwtables checks what it leaves for an OS (the memory map
# reserving the boot page tables among the rest, ACPI, SMBIOS, every BAR
# through ECAM) and powers off through ACPI; the PCI payload reads all of
# ECAM through the read-only window (0 exits: a RAM read) and its writes
# trap, then the same with --ecam trap (every access exits).
. "$(dirname "$0")/../boot/lib.sh"
PCI="$GUESTS/pci.elf"

# ecam_exits NAME FIELD: the ECAM range's reads or writes in --stats-json.
ecam_exits() {
	python3 - "$TMP/$1.json" "$2" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    r = next(r for r in d["mmio"] if r["name"].startswith("ecam"))
    print(r[sys.argv[2]])
except Exception as e:
    print("unreadable (%s)" % e.__class__.__name__)
PY
}

vm banner 120
expect banner 0 '^minivmm firmware ' 'test-exit'

vm tables 180 --kernel "$GUESTS/fwtables.elf"
expect tables 0 '^fwtables: all checks passed'

vm fw-only 120 --ecam ro --stats-json "$TMP/fw-only.json"
expect fw-only 0
fw_writes=$(ecam_exits fw-only writes)

vm ecam-ro 300 --kernel "$PCI" --append "ecam=ro ecam-writes=40" --ecam ro \
	--stats-json "$TMP/ecam-ro.json"
expect ecam-ro 0 '^pci: 0 failure\(s\)$'
reads=$(sed -n 's/^pci-counts: ecam-reads \([0-9]*\) .*/\1/p' "$TMP/ecam-ro.out")
[ "${reads:-0}" -ge 262144 ] && pass ecam-ro-read-all ||
	fail ecam-ro "payload made ${reads:-no} ECAM reads"
r=$(ecam_exits ecam-ro reads)
[ "$r" = 0 ] && pass ecam-ro-reads-no-exit ||
	fail ecam-ro "ECAM reads through the read-only window exited: $r"
w=$(ecam_exits ecam-ro writes)
[ "$w" = "$((fw_writes + 40))" ] && pass ecam-ro-writes-trap ||
	fail ecam-ro "ECAM write exits $w, expected $((fw_writes + 40))"

vm ecam-trap 600 --kernel "$PCI" --append "ecam=trap ecam-writes=40" \
	--ecam trap --stats-json "$TMP/ecam-trap.json"
expect ecam-trap 0 '^pci: 0 failure\(s\)$'
r=$(ecam_exits ecam-trap reads)
[ "${r:-0}" -gt 0 ] 2>/dev/null && pass ecam-trap-reads-exit ||
	fail ecam-trap "ECAM reads with --ecam trap: $r exits"
