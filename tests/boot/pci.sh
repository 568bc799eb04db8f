#!/bin/bash
# PCI: the guest payload tests/guest/pci.c under every ECAM/CF8 mode, exact
# ECAM exit counts from --stats-json (the firmware's own share measured by
# running it alone with the same options), random abuse that must leave
# the VMM running, and the PCI options' bad values.
. "$(dirname "$0")/lib.sh"
PCI="$GUESTS/pci.elf"
HOSTILE_COUNT=10000	# ~1 s per run on an idle development host

# jstat FILE EXPR: EXPR evaluated over a --stats-json file; d is the JSON,
# ecam its ECAM range ({} if none).  "unreadable" if that fails.
jstat() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    ecam = next((r for r in d.get("mmio", [])
                 if r["name"].startswith("ecam")), {})
    print(eval(sys.argv[2]))
except Exception as e:
    print("unreadable (%s)" % e.__class__.__name__)
EOF
}

# same NAME WANT GOT
same() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected $2, got $3"
	fi
}

# counts NAME: the payload's "pci-counts:" line as "READS WRITES REFUSALS".
counts() {
	local n='\([0-9]*\)'
	local re="^pci-counts: ecam-reads $n ecam-writes $n refusals $n\$"

	sed -n "s/$re/\1 \2 \3/p" "$TMP/$1.out"
}

# fw NAME ARGS...: the firmware alone; sets fw_reads, fw_writes, fw_refusals.
fw() {
	local name=$1
	shift
	vm "$name" 30 --stats-json "$TMP/$name.json" "$@"
	expect "$name" 0
	fw_reads=$(jstat "$TMP/$name.json" 'ecam.get("reads", 0)')
	fw_writes=$(jstat "$TMP/$name.json" 'ecam.get("writes", 0)')
	fw_refusals=$(jstat "$TMP/$name.json" 'd["pci_bar_refusals"]')
}

# payload NAME APPEND ARGS...: the pci payload, expected to pass; sets
# reads, writes, refusals (its pci-counts line).
payload() {
	local name=$1 append=$2
	shift 2
	vm "$name" 30 --kernel "$PCI" --append "$append" \
		--stats-json "$TMP/$name.json" "$@"
	expect "$name" 0 '^pci: 0 failure\(s\)$'
	read -r reads writes refusals <<<"$(counts "$name")"
}

# exits NAME READS WRITES: the ECAM range's exit counts, and the BAR
# placements refused, are exactly the firmware's plus the payload's.
exits() {
	local json="$TMP/$1.json"
	same "$1-ecam-read-exits" "$2" "$(jstat "$json" 'ecam.get("reads")')"
	same "$1-ecam-write-exits" "$3" "$(jstat "$json" 'ecam.get("writes")')"
	same "$1-refusals" "$((fw_refusals + refusals))" \
		"$(jstat "$json" 'd["pci_bar_refusals"]')"
}

# --ecam ro: the payload reads every register of every function through
# ECAM (262144+ reads) and makes exactly 40 ECAM writes of widths 1/2/4/8.
fw fw-ro --ecam ro
payload ro "ecam=ro ecam-writes=40" --ecam ro --stats
same ro-payload-ecam-writes 40 "$writes"
[ "${reads:-0}" -ge 262144 ] && pass ro-payload-read-all ||
	fail ro "payload made ${reads:-no} ECAM reads"
exits ro 0 "$((fw_writes + 40))"
line="^  ecam-ro-writes +0x0*e0000000\+0x100000 +reads +0 +writes"
grep -qE "$line +$((fw_writes + 40))\$" "$TMP/ro.err" && pass ro-stats-text ||
	fail ro "--stats ECAM line"
grep -qx 'minivmm: xen-platform: pci payload says hello' "$TMP/ro.err" &&
	grep -qx 'minivmm: xen-platform: ctl..bytes' "$TMP/ro.err" &&
	pass xen-log || fail ro "xen-platform log lines missing or unsanitised"
grep -q '^pci: BAR0 over the UART refused, the UART still prints' \
	"$TMP/ro.out" && pass bar-over-uart || fail ro "UART lost"
same xen-unplug-json "3 1 3 2" "$(jstat "$TMP/ro.json" '" ".join(str(
	d["xen_platform"][k]) for k in ("product", "build", "unplug_mask",
	"log_lines"))')"

# --ecam trap: one exit per ECAM access, reads included.
fw fw-trap --ecam trap
payload trap "ecam=trap ecam-writes=40" --ecam trap
same trap-payload-ecam-writes 40 "$writes"
exits trap "$((fw_reads + reads))" "$((fw_writes + writes))"
same trap-range-name ecam-trap "$(jstat "$TMP/trap.json" 'ecam["name"]')"

# --ecam off: no window; everything through CF8.
fw fw-ecam-off --ecam off
payload ecam-off "ecam=off" --ecam off
same ecam-off-no-range "{}" "$(jstat "$TMP/ecam-off.json" 'ecam')"
same ecam-off-refusals "$((fw_refusals + refusals))" \
	"$(jstat "$TMP/ecam-off.json" 'd["pci_bar_refusals"]')"

# --pci-pio off: CF8/CFC read all-ones; every config write is an ECAM write.
fw fw-pio-off --pci-pio off
payload pio-off "pio=off" --pci-pio off
exits pio-off 0 "$((fw_writes + writes))"
same pio-off-no-cf8-range False "$(jstat "$TMP/pio-off.json" \
	'any(r["name"] == "pci-cf8-cfc" for r in d["pio"])')"
fw fw-pio-off-trap --pci-pio off --ecam trap
payload pio-off-trap "pio=off ecam=trap" --pci-pio off --ecam trap
exits pio-off-trap "$((fw_reads + reads))" "$((fw_writes + writes))"

# CF8/CFC (tests/guest/cf8.c): CF8 writes queued in KVM's coalesced ring
# where it has KVM_CAP_COALESCED_PIO, so a config read is one exit; two runs
# differing by 1000 reads give the exits they cost, the firmware's cancel.
CF8="$GUESTS/cf8.elf"
cf8() {
	local name=$1 append=$2
	shift 2
	vm "$name" 60 --kernel "$CF8" --append "$append" \
		--stats-json "$TMP/$name.json" "$@"
	expect "$name" 0 '^cf8: reads [0-9]+, 0 failure\(s\)$'
}
# cf8d RUN-A RUN-B EXPR: EXPR over the CF8/CFC ranges a and b of the runs.
cf8d() {
	jstat "$TMP/$2.json" "(lambda b, a: $3)(next(r for r in d['pio']
		if r['name'] == 'pci-cf8-cfc'), next(r for r in json.load(open(
		'$TMP/$1.json'))['pio'] if r['name'] == 'pci-cf8-cfc'))"
}
cf8 cf8-100 "reads=100"
cf8 cf8-1100 "reads=1100"
offered=$(jstat "$TMP/cf8-1100.json" 'd["coalesced_pio"]["offered"]')
same cf8-read-exits 1000 "$(cf8d cf8-100 cf8-1100 'b["reads"] - a["reads"]')"
if [ "$offered" = True ]; then
	same cf8-write-exits 0 "$(cf8d cf8-100 cf8-1100 \
		'b["writes"] - a["writes"]')"
	same cf8-queued 1000 "$(cf8d cf8-100 cf8-1100 \
		'b["queued"] - a["queued"]')"
else
	echo "note: KVM lacks KVM_CAP_COALESCED_PIO: every CF8 write exits"
	same cf8-write-exits-uncoalesced 1000 "$(cf8d cf8-100 cf8-1100 \
		'b["writes"] - a["writes"]')"
fi
# --coalesced-pio off: two exits per read, nothing asked of KVM.
cf8 cf8-off-100 "reads=100" --coalesced-pio off
cf8 cf8-off-1100 "reads=1100" --coalesced-pio off
same cf8-off-write-exits 1000 "$(cf8d cf8-off-100 cf8-off-1100 \
	'b["writes"] - a["writes"]')"
same cf8-off-not-asked False "$(jstat "$TMP/cf8-off-100.json" \
	'"coalesced_pio" in d')"
# More queued writes than the ring holds, byte writes between; two vCPUs
# sharing the one latch, and locked reads from both at once.
cf8 cf8-burst "reads=10 burst"
cf8 cf8-smp "reads=200 cpus=2" -c 2
cf8 cf8-smp-off "reads=50 cpus=2" -c 2 --coalesced-pio off

# --pci-buses 4: a 4 MiB window, buses 1-3 empty (all-ones) both ways.
payload buses4 "buses=4" --pci-buses 4
grep -q '^pci: ecam scan: 1024 functions on 4 bus(es), every register, 2 fo' \
	"$TMP/buses4.out" && pass buses4-ecam-scan || fail buses4 "ECAM scan"
grep -q '^pci: cf8 scan: 1024 functions on 4 bus(es), 2 found' \
	"$TMP/buses4.out" && pass buses4-cf8-scan || fail buses4 "CF8 scan"
same buses4-window $((4 << 20)) "$(jstat "$TMP/buses4.json" 'ecam["len"]')"
payload buses4-trap "buses=4 ecam=trap" --pci-buses 4 --ecam trap
# Every valid bus count boots (firmware alone): the window's size sets
# the MTRR layout, and 256 buses are 64 Ki config pages to map.
for n in 2 3 127 255 256; do
	vm "buses$n" 30 --pci-buses "$n"
	expect "buses$n" 0
done
vm buses256-trap 30 --pci-buses 256 --ecam trap
expect buses256-trap 0

# --xen-platform off: nothing at 00:03.0, nothing on ports 0x10-0x1f.
payload xen-off "xen=off" --xen-platform off
same xen-off-json False "$(jstat "$TMP/xen-off.json" '"xen_platform" in d')"

# A RAM BAR over 0xfe000000-0xfeffffff must not hide the IOAPIC/LAPIC.
payload apic-overlap "apic-overlap"

# Hostile guests: random config, BAR, COMMAND and port abuse; the VMM
# keeps running and the bus still works afterwards.
hostile() {
	local name=$1 seed=$2 append=$3
	shift 3
	vm "$name" 60 --kernel "$PCI" --stats-json "$TMP/$name.json" \
		--append "$append hostile seed=$seed count=$HOSTILE_COUNT" "$@"
	expect "$name" 0 '^pci: hostile done: ' 'test-exit 0x0'
	grep -q '^FAIL' "$TMP/$name.out" && fail "$name" "payload check failed"
	[ "$(jstat "$TMP/$name.json" 'd["pci_bar_refusals"] > 0')" = True ] &&
		pass "$name-refusals" || fail "$name" "no placement refused"
}
hostile hostile-ro 1 "ecam=ro" --ecam ro
hostile hostile-trap 2 "ecam=trap buses=2" --ecam trap --pci-buses 2
hostile hostile-ecam-off 3 "ecam=off" --ecam off
hostile hostile-pio-off 4 "pio=off" --pci-pio off

# Sanitizer reports fail the run even where the status looked fine.
if grep -lE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$TMP"/*.err \
	>"$TMP/san.txt" 2>/dev/null; then
	fail sanitizer "reports in $(tr '\n' ' ' <"$TMP/san.txt")"
else
	pass sanitizer-clean
fi

# Bad values: one clear line on stderr and status 2, before the guest runs.
bad() {
	local name=$1 regex=$2
	shift 2
	vm "$name" 30 "$@"
	expect "$name" 2 '' "$regex"
	[ "$(wc -l <"$TMP/$name.err")" -eq 1 ] && pass "$name-one-line" ||
		fail "$name" "expected exactly one line on stderr"
}
bad bad-ecam "ecam 'foo': expected ro, trap or off" --ecam foo
bad bad-ecam-empty "ecam '': expected ro, trap or off" --ecam ''
bad bad-ecam-case "ecam 'RO': expected ro, trap or off" --ecam RO
bad bad-ecam-novalue "option '--ecam' needs a value" --ecam
bad bad-pio "pci-pio 'maybe': expected on or off" --pci-pio maybe
bad bad-pio-num "pci-pio '1': expected on or off" --pci-pio 1
bad bad-buses-0 "pci-buses '0': expected 1..256" --pci-buses 0
bad bad-buses-257 "pci-buses '257': expected 1..256" --pci-buses 257
bad bad-buses-neg "pci-buses '-1': expected 1..256" --pci-buses -1
bad bad-buses-word "pci-buses 'four': expected 1..256" --pci-buses four
bad bad-buses-huge "pci-buses '99999999999999999999': expected 1..256" \
	--pci-buses 99999999999999999999
bad bad-xen "xen-platform 'x': expected on or off" --xen-platform x
bad bad-xen-mtrr "xen-bar-mtrr 'wt': expected wb or uc" --xen-bar-mtrr wt
bad bad-coalesced "coalesced-pio 'x': expected on or off" --coalesced-pio x
bad bad-no-config 'no way to reach PCI config space' --pci-pio off --ecam off
exit 0
