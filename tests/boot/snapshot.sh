#!/bin/bash
# Snapshots and restores (docs/snapshot.md).  build/guests/snapshot.elf
# asks for a snapshot in the middle of a computation, with state in every
# place a snapshot must carry (tests/guest/snapshot.c); every way of
# running it must print the same result with every check holding: an
# uninterrupted run, --snapshot-continue, a restore, three restores of one
# snapshot at once, a restore of a snapshot of a restored guest.  Then
# every refusal: truncated or corrupted files, another format version,
# build or kind of host, options that conflict, bad snapshot options.
. "$(dirname "$0")/lib.sh"

K="$GUESTS/snapshot.elf"
S="$TMP/s.snap"
# One rule per MSR-policy action the payload checks.
RULES=(--msr "0x12340000 emulate=0x5" --msr "0x12340001 value=0x77"
       --msr "0x12340002 ignore" --msr "0x12340003 deny"
       --msr "0x174 allow" --msr "0xc0000102 allow,count")
# "mtrr": patterns in the MSRs KVM's index list leaves out (MTRRs, PAT,
# machine-check banks), checked after the request (tests/guest/lib/msr_state.h).
MACHINE=(-c 2 --kernel "$K" --append "cpus=2 msr mtrr" "${RULES[@]}")

result() { sed -n 's/^snapshot: result=//p' "$TMP/$1.out"; }

# same NAME: NAME printed the uninterrupted run's result, no failure.
same() {
	local r
	r=$(result "$1")
	if [ -n "$r" ] && [ "$r" = "$WANT" ] &&
		grep -q '^snapshot: 0 failures' "$TMP/$1.out"; then
		pass "$1-same-result"
	else
		fail "$1" "result '$r', uninterrupted '$WANT'"
	fi
}

# --- round trips --------------------------------------------------------------

vm plain 60 "${MACHINE[@]}"
expect plain 0 'generation 0, status 3' 'guest test-exit 0x0'
WANT=$(result plain)

vm take 60 "${MACHINE[@]}" --snapshot "$S" --snapshot-at port
expect take 0 'snapshot: requesting' 'snapshot written to .*the guest asked'
if [ -s "$S" ] && ! ls "$S".tmp.* >/dev/null 2>&1; then
	pass take-file
else
	fail take "no snapshot file, or a temp file left"
fi

vm restore 60 --restore "$S" --append-env CHECK=42 --append-env MODE=ci
expect restore 0 'generation 1, status 0' 'guest test-exit 0x0'
same restore
n=$(sed -n 's/^msr-state: \([0-9]*\) MSRs set.*/\1/p' "$TMP/take.out")
grep -q "^msr-state: $n of $n MSRs kept" "$TMP/restore.out" && [ "${n:-0}" -ge 30 ] &&
	pass restore-msr-state ||
	fail restore-msr-state "$(grep -h '^msr-state' "$TMP/take.out" "$TMP/restore.out" | tr '\n' ' ')"
grep -q '^snapshot: env CHECK=42$' "$TMP/restore.out" &&
	grep -q '^snapshot: env MODE=ci$' "$TMP/restore.out" &&
	pass restore-env || fail restore "--append-env not seen by the guest"

vm continue 60 "${MACHINE[@]}" --snapshot "$TMP/c.snap" --snapshot-at port \
	--snapshot-continue
expect continue 0 'generation 0, status 1' 'snapshot written'
same continue

# Three restores of one snapshot at once, each with its own parameter.
for i in 1 2 3; do
	timeout -k 5 60 "$MINIVMM" --restore "$S" --append-env RUN=$i \
		</dev/null >"$TMP/par$i.out" 2>"$TMP/par$i.err" &
done
wait
for i in 1 2 3; do
	grep -q "^snapshot: env RUN=$i$" "$TMP/par$i.out" && same "par$i" ||
		fail "par$i" "restore $i of 3 in parallel"
done

# A snapshot of a restored guest (its RAM mapped from the first file),
# taken at a console marker near its end, restored in turn.
vm resnap 60 --restore "$S" --snapshot "$TMP/r.snap" \
	--snapshot-at 'console:snapshot: result='
expect resnap 0 'generation 1' 'snapshot written to .*console marker'
vm resnap-restore 60 --restore "$TMP/r.snap"
r=$(cat "$TMP/resnap.out" "$TMP/resnap-restore.out" |
	tr -d '\n' | sed -n 's/.*snapshot: result=\([0-9a-f]*\)snapshot:.*/\1/p')
[ -n "$r" ] && [ "$r" = "$WANT" ] && pass resnap-same-result ||
	fail resnap-restore "result '$r' across the marker, want '$WANT'"

# vCPU 1 parked by the firmware at the snapshot, started after the restore.
vm take-late 60 -c 2 --kernel "$K" --append "cpus=2 late" \
	--snapshot "$TMP/late.snap" --snapshot-at port
expect take-late 0 'snapshot: requesting' 'snapshot written'
vm restore-late 60 --restore "$TMP/late.snap"
expect restore-late 0 'generation 1' 'guest test-exit 0x0'
vm plain-late 60 -c 2 --kernel "$K" --append "cpus=2 late"
[ -n "$(result plain-late)" ] && [ "$(result plain-late)" = "$(result restore-late)" ] &&
	pass restore-late-same-result ||
	fail restore-late "result differs from the uninterrupted run"

# RAM above 4 GiB (a second RAM section), trapped ECAM, two buses.
vm take-big 60 -m 5G --ecam trap --pci-buses 2 --kernel "$K" \
	--snapshot "$TMP/big.snap" --snapshot-at port
expect take-big 0 'snapshot: requesting' 'snapshot written'
vm restore-big 60 --restore "$TMP/big.snap"
expect restore-big 0 'generation 1' 'guest test-exit 0x0'
vm plain-big 60 -m 5G --ecam trap --pci-buses 2 --kernel "$K"
[ -n "$(result plain-big)" ] && [ "$(result plain-big)" = "$(result restore-big)" ] &&
	pass restore-big-same-result ||
	fail restore-big "result differs from the uninterrupted run"
rm -f "$TMP/big.snap"

# The platform devices (RTC, CMOS, fw_cfg, pc-testdev: every run checks
# them) and pci-testdev, with the machine options --exit-style, --cpuid and
# --pci-testdev, which the restore must take from the snapshot: exit style
# qemu turns the payload's 0 into status 1, the restored vCPUs must still
# hide x2APIC, and pci-testdev's selected eventfd test must still swallow
# writes.
QEMU=(--kernel "$K" --append testdev --pci-testdev on --exit-style qemu
      --cpuid -x2apic)
vm plain-qemu 60 "${QEMU[@]}"
expect plain-qemu 1 'snapshot: x2apic 0' 'guest test-exit 0x0'
vm take-qemu 60 "${QEMU[@]}" --snapshot "$TMP/q.snap" --snapshot-at port
expect take-qemu 0 'snapshot: requesting' 'snapshot written'
vm restore-qemu 60 --restore "$TMP/q.snap"
expect restore-qemu 1 'snapshot: x2apic 0' 'guest test-exit 0x0'
[ -n "$(result plain-qemu)" ] && [ "$(result plain-qemu)" = "$(result restore-qemu)" ] &&
	grep -q '^snapshot: 0 failures' "$TMP/restore-qemu.out" &&
	pass restore-qemu-same-result ||
	fail restore-qemu "result or checks differ from the uninterrupted run"

# Options that agree with the snapshot are fine.
vm agree 60 --restore "$S" -m 256M -c 2 --ecam ro "${RULES[@]}"
expect agree 0 'generation 1' 'guest test-exit 0x0'

# A bit flip in guest RAM goes unnoticed without --restore-verify
# (memory is mapped, not read); with it the restore is refused.
cp "$S" "$TMP/ram.snap"
python3 - "$TMP/ram.snap" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack_from("<I", d, 16)[0]
for i in range(n):
    t, inst, off, ln, crc, fl = struct.unpack_from("<IIQQII", d, 64 + 32 * i)
    if t == 64 and inst == 0:
        d[off + 0x100000 - 4] ^= 1	# RAM below the payload, unused
open(sys.argv[1], "wb").write(d)
EOF
vm ram-flip 60 --restore "$TMP/ram.snap"
expect ram-flip 0 'generation 1'
vm ram-flip-verify 60 --restore "$TMP/ram.snap" --restore-verify
expect ram-flip-verify 2 '' "error: --restore .*ram/0: checksum mismatch"

# --- refusals: one line, status 2, the guest never runs ------------------------

# refuse NAME REGEX FILE [OPTIONS...]
refuse() {
	local name=$1 re=$2 file=$3
	shift 3
	vm "$name" 60 --restore "$file" "$@"
	expect "$name" 2 '' "$re"
	if [ "$(wc -l <"$TMP/$name.err")" -ne 1 ] || [ -s "$TMP/$name.out" ]; then
		fail "$name-one-line" "stderr is not one line, or the guest ran"
	else
		pass "$name-one-line"
	fi
}

head -c 100000 "$S" >"$TMP/trunc.snap"
refuse truncated 'truncated or extended' "$TMP/trunc.snap"
head -c 40 "$S" >"$TMP/tiny.snap"
refuse tiny 'truncated' "$TMP/tiny.snap"
echo "not a snapshot" >"$TMP/text.snap"
refuse not-a-snapshot 'bad magic' "$TMP/text.snap"
refuse missing 'No such file' "$TMP/none.snap"

# corrupt NAME WHAT: a copy of the snapshot with one change (python).
corrupt() {
	cp "$S" "$TMP/$1.snap"
	python3 - "$TMP/$1.snap" "$2" <<'EOF'
import struct, sys, zlib
path, what = sys.argv[1], sys.argv[2]
d = bytearray(open(path, "rb").read())
n = struct.unpack_from("<I", d, 16)[0]
ents = [struct.unpack_from("<IIQQII", d, 64 + 32 * i) for i in range(n)]
def section(t, inst=0):
    return next(e for e in ents if e[0] == t and e[1] == inst)
def fix_crcs(t, inst):
    for i, e in enumerate(ents):
        if e[0] == t and e[1] == inst:
            crc = zlib.crc32(bytes(d[e[2]:e[2] + e[3]]))
            struct.pack_into("<I", d, 64 + 32 * i + 24, crc)
    struct.pack_into("<I", d, 32, zlib.crc32(bytes(d[64:64 + 32 * n])))
    struct.pack_into("<I", d, 60, zlib.crc32(bytes(d[:60])))
if what == "header":
    d[24] ^= 0x10			# the file size, under the header CRC
elif what == "table":
    d[64 + 8] ^= 1			# an offset, under the table CRC
elif what == "vcpu":
    e = section(16, 1)			# vCPU 1's state
    d[e[2] + e[3] // 2] ^= 0x40
elif what in ("version", "version-old"):
    struct.pack_into("<I", d, 8, 3 if what == "version" else 1)
    struct.pack_into("<I", d, 60, zlib.crc32(bytes(d[:60])))
elif what == "build":
    e = section(1)			# META: the build string comes first
    d[e[2] + 4] ^= 1
    fix_crcs(1, 0)
elif what == "pci":
    e = section(52, 3 << 3)		# the Xen device: BAR1 moved, not mapped
    d[e[2] + 0x14] ^= 0x10
    fix_crcs(52, 3 << 3)
open(path, "wb").write(d)
EOF
}
corrupt header header
refuse bad-header 'header checksum mismatch' "$TMP/header.snap"
corrupt table table
refuse bad-table 'section table checksum mismatch' "$TMP/table.snap"
corrupt vcpu vcpu
refuse bad-vcpu 'vcpu/1: checksum mismatch' "$TMP/vcpu.snap"
corrupt version version
refuse wrong-version 'format version 3, this minivmm reads version 2' \
	"$TMP/version.snap"
# Version 1 files lack the MTRRs and machine-check banks: refused, not
# restored with them lost.
corrupt version-old version-old
refuse old-version 'format version 1, this minivmm reads version 2' \
	"$TMP/version-old.snap"
corrupt build build
refuse other-build 'made by another minivmm build' "$TMP/build.snap"
# The host profile (vmm/host/host.h) goes into META: a restore under the other
# kind (MINIVMM_HOST_EMULATES_RING0 forces it) is refused by name.
if [ -e /sys/module/kvm_pvm ]; then
	MINIVMM_HOST_EMULATES_RING0=0 refuse other-host \
		'made on a host whose KVM emulates guest ring 0' "$S"
else
	MINIVMM_HOST_EMULATES_RING0=1 refuse other-host \
		'made on a host whose KVM does not emulate guest ring 0' "$S"
fi
corrupt pci pci
refuse pci-inconsistent 'pci-function/24: .*malformed' "$TMP/pci.snap"

refuse conflict-memory '--memory conflicts' "$S" -m 512M
refuse conflict-cpus '--cpus conflicts' "$S" -c 1
refuse conflict-ecam '--ecam conflicts' "$S" --ecam trap
refuse conflict-xen '--xen-platform conflicts' "$S" --xen-platform off
refuse conflict-msr 'MSR policy options conflict' "$S" --msr "0x174 deny"
refuse conflict-testdev '--pci-testdev conflicts' "$TMP/q.snap" \
	--pci-testdev off
refuse conflict-exit-style '--exit-style conflicts' "$TMP/q.snap" \
	--exit-style raw
refuse conflict-cpuid '--cpuid conflicts' "$TMP/q.snap" --cpuid -rdrand
refuse conflict-cpuid-none '--cpuid conflicts' "$S" --cpuid -x2apic
vm conflict-kernel 60 --restore "$S" --kernel "$K"
expect conflict-kernel 2 '' 'conflict with --restore'

# --- bad snapshot options: status 2 before the guest starts --------------------

vm bad-dir 60 --kernel "$K" --snapshot "$TMP/no/such/dir/s.snap"
expect bad-dir 2 '' 'error: --snapshot: cannot create'
[ ! -s "$TMP/bad-dir.out" ] && pass bad-dir-no-guest ||
	fail bad-dir "the guest ran"
vm at-alone 60 --kernel "$K" --snapshot-at port
expect at-alone 2 '' '--snapshot-at needs --snapshot'
vm at-bad 60 --kernel "$K" --snapshot "$S" --snapshot-at never
expect at-bad 2 '' "--snapshot-at 'never'"
vm env-bad 60 --kernel "$K" --append-env NOEQUALS
expect env-bad 2 '' "--append-env 'NOEQUALS'"
long=$(head -c 4000 /dev/zero | tr '\0' x)
vm env-long 60 --kernel "$K" --append-env "K=$long"
expect env-long 2 '' '--append-env: more than 3840 bytes'
vm verify-alone 60 --kernel "$K" --restore-verify
expect verify-alone 2 '' '--restore-verify needs --restore'
