#!/bin/bash
# virtio: the guest drivers of tests/guest/ against --disk and --rng.  The
# blk payload writes seeded patterns and prints an FNV-1a checksum per
# region; after exit the host recomputes them from the image file (and
# checks the zeroed ranges).  A read-only disk must come back unchanged,
# also from the hostile payload; kicks must stay in the kernel
# (ioeventfd: no notify exits in user space).  Then the --disk refusals.
. "$(dirname "$0")/lib.sh"
BLK="$GUESTS/virtio_blk.elf"
MB=64

# jget FILE EXPR: EXPR over the --stats-json file (d), "unreadable" if not.
jget() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    v = d.get("virtio", [])
    print(eval("(" + sys.argv[2] + ")"))
except Exception as e:
    print("unreadable (%s)" % e.__class__.__name__)
EOF
}

# image_check NAME IMAGE: every blk-written region's FNV-1a and every
# blk-zeroed range, from the image; prints "ok" or what differs.
image_check() {
	python3 - "$TMP/$1.out" "$2" <<'EOF'
import re, sys
out, img = open(sys.argv[1]).read(), open(sys.argv[2], "rb")
def region(s, c):
    img.seek(s * 512)
    return img.read(c * 512)
def fnv(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
    return h
bad = []
# In output order: a region written again after zeroing holds the pattern.
last, written = {}, 0
for m in re.finditer(r"blk-(written|zeroed): sector=(\d+) count=(\d+)"
                     r"(?: fnv=(0x[0-9a-f]+))?", out):
    kind, s, c = m.group(1)[0], int(m.group(2)), int(m.group(3))
    last[s] = (kind, c, int(m.group(4), 16) if m.group(4) else 0)
    written += kind == "w"
for s, (kind, c, h) in sorted(last.items()):
    b = region(s, c)
    if kind == "w" and fnv(b) != h:
        bad.append("sector %d: fnv %#x, guest wrote %#x" % (s, fnv(b), h))
    if kind == "z" and any(b):
        bad.append("sector %d: not zero" % s)
if not written:
    bad.append("no blk-written lines")
print("; ".join(bad) if bad else "ok")
EOF
}

same() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected $2, got $3"; fi
}

truncate -s ${MB}M "$TMP/rw.img"
vm blk-rw 120 --kernel "$BLK" --disk "$TMP/rw.img,serial=minivmm-disk0" \
	--append "seed=7 sectors=$((MB * 2048)) serial=minivmm-disk0" \
	--stats-json "$TMP/blk-rw.json"
expect blk-rw 0 '^virtio-blk: 0 failure\(s\)$'
same blk-rw-image ok "$(image_check blk-rw "$TMP/rw.img")"
same blk-rw-kicks-in-kernel 0 "$(jget "$TMP/blk-rw.json" 'v[0]["notify_exits"]')"
same blk-rw-counted True "$(jget "$TMP/blk-rw.json" \
	'v[0]["requests"] > 20 and v[0]["bytes_written"] >= 96*512*2 and
	 v[0]["interrupts"] >= 3 and 0 < v[0]["notifications"] <= v[0]["requests"]')"

# Cache modes: none (O_DIRECT; the payload's buffers sit at arbitrary
# guest addresses, so some are bounced) and unsafe (no flush offered, a
# warning).  none is refused where $TMP has no O_DIRECT (tmpfs < 6.6).
truncate -s ${MB}M "$TMP/none.img"
vm blk-none 120 --kernel "$BLK" --disk "$TMP/none.img,cache=none" \
	--append "seed=11 sectors=$((MB * 2048))"
if grep -q 'does not support O_DIRECT' "$TMP/blk-none.err"; then
	echo "SKIP: blk-none ($TMP has no O_DIRECT)"
else
	expect blk-none 0 '^virtio-blk: 0 failure\(s\)$'
	same blk-none-image ok "$(image_check blk-none "$TMP/none.img")"
fi
truncate -s ${MB}M "$TMP/unsafe.img"
vm blk-unsafe 120 --kernel "$BLK" --disk "$TMP/unsafe.img,cache=unsafe" \
	--append "seed=13 sectors=$((MB * 2048)) noflush"
expect blk-unsafe 0 '^virtio-blk: 0 failure\(s\)$' \
	"cache=unsafe: the guest's flushes are ignored"
same blk-unsafe-image ok "$(image_check blk-unsafe "$TMP/unsafe.img")"

# Read-only: writes fail with IOERR, the image keeps every byte.
head -c $((MB << 20)) /dev/urandom >"$TMP/ro.img"
sum_before=$(sha256sum <"$TMP/ro.img")
vm blk-ro 120 --kernel "$BLK" --disk "$TMP/ro.img,ro" --append "seed=9 ro"
expect blk-ro 0 '^virtio-blk: 0 failure\(s\)$'
same blk-ro-unchanged "$sum_before" "$(sha256sum <"$TMP/ro.img")"

vm rng 60 --kernel "$GUESTS/virtio_rng.elf" --rng --stats
expect rng 0 '^virtio-rng: 0 failure\(s\)$' 'virtio-rng0 \(00:04\.0\): requests 8'

# Hostile: every rule broken; status 0 from the guest, the disk intact,
# the VMM's invariants kept (a violation would be status 1).
vm hostile 180 --kernel "$GUESTS/virtio_hostile.elf" --disk "$TMP/ro.img,ro" \
	--rng --append "seed=11 rounds=150" --stats-json "$TMP/hostile.json"
expect hostile 0 '^virtio-hostile: 150 random rounds, 0 failure\(s\)$'
same hostile-disk-unchanged "$sum_before" "$(sha256sum <"$TMP/ro.img")"
same hostile-needs-reset True "$(jget "$TMP/hostile.json" \
	'v[0]["needs_reset"] >= 25')"

# Two disks and an rng enumerate in order; the firmware assigns them all.
vm enum 60 --disk "$TMP/rw.img" --disk "$TMP/ro.img,ro" --rng
expect enum 0 '00:04\.0 1af4:1042 BAR0 mem64 0x[0-9a-f]+\+0x8000'
grep -qE '00:05\.0 1af4:1042 BAR0 mem64' "$TMP/enum.out" &&
	grep -qE '00:06\.0 1af4:1044 BAR0 mem64' "$TMP/enum.out" &&
	pass enum-all || fail enum "not every function was assigned"
# QEMU's pci-testdev keeps 00:04.0; the virtio functions move up one.
vm enum-testdev 60 --disk "$TMP/ro.img,ro" --pci-testdev on
expect enum-testdev 0 '00:05\.0 1af4:1042 BAR0 mem64'

# Snapshots: the guest asks for one with a 256 KiB write in flight and a
# read published but not kicked; the run that goes on (--snapshot-continue)
# and each restore
# must complete both and end with the image as the guest wrote it.  A
# restore may point the disk at a copy of the image (--disk, same ro and
# serial) but not change the machine.
SNAPG="$GUESTS/virtio_snap.elf"
truncate -s ${MB}M "$TMP/snap-plain.img"
vm snap-plain 60 --kernel "$SNAPG" --disk "$TMP/snap-plain.img" \
	--snapshot "$TMP/snap-plain.snap" --snapshot-at port --snapshot-continue
expect snap-plain 0 '^virtio-snap: generation 0, 0 failure\(s\)$' \
	'snapshot written to'
same snap-plain-image ok "$(image_check snap-plain "$TMP/snap-plain.img")"
truncate -s ${MB}M "$TMP/snap.img"
vm snap-take 60 --kernel "$SNAPG" --disk "$TMP/snap.img,serial=s0" --rng \
	--snapshot "$TMP/v.snap" --snapshot-at port
expect snap-take 0 '^virtio-snap: requesting$' 'snapshot written to'
cp "$TMP/snap.img" "$TMP/snap-copy.img"
vm snap-restore 60 --restore "$TMP/v.snap"
expect snap-restore 0 '^virtio-snap: generation 1, 0 failure\(s\)$'
same snap-restore-image ok "$(image_check snap-restore "$TMP/snap.img")"
vm snap-copy 60 --restore "$TMP/v.snap" --disk "$TMP/snap-copy.img,serial=s0"
expect snap-copy 0 '^virtio-snap: generation 1, 0 failure\(s\)$'
same snap-copy-image ok "$(image_check snap-copy "$TMP/snap-copy.img")"
# The blk driver snapshotted mid-run (console marker), before its MSI-X and
# INTx checks: the restore finishes them; the image holds what both parts
# wrote.
truncate -s ${MB}M "$TMP/snap-blk.img"
vm snap-blk-take 120 --kernel "$BLK" --disk "$TMP/snap-blk.img" \
	--append "seed=5" --snapshot "$TMP/blk.snap" \
	--snapshot-at 'console:blk-zeroed: sector=1000'
expect snap-blk-take 0 '' 'snapshot written to'
vm snap-blk-restore 120 --restore "$TMP/blk.snap"
expect snap-blk-restore 0 '^virtio-blk: 0 failure\(s\)$'
cat "$TMP/snap-blk-take.out" "$TMP/snap-blk-restore.out" >"$TMP/snap-blk.out"
same snap-blk-image ok "$(image_check snap-blk "$TMP/snap-blk.img")"

# --- refusals: one line, status 2, before the guest runs ---------------------
bad() {
	local name=$1 regex=$2
	shift 2
	vm "$name" 30 "$@"
	expect "$name" 2 '' "$regex"
	[ "$(wc -l <"$TMP/$name.err")" -eq 1 ] && pass "$name-one-line" ||
		fail "$name" "expected exactly one line on stderr"
	grep -q 'minivmm firmware' "$TMP/$name.out" &&
		fail "$name" "the guest ran"
}
: >"$TMP/empty.img"
mkdir -p "$TMP/dir.img"
mkfifo "$TMP/fifo.img"
bad bad-disk-missing "disk '$TMP/nope.img': cannot open for writing: No such" \
	--disk "$TMP/nope.img"
bad bad-disk-dir "not a regular file or block device" --disk "$TMP/dir.img,ro"
bad bad-disk-fifo "not a regular file or block device" --disk "$TMP/fifo.img,ro"
bad bad-disk-empty "smaller than one 512-byte sector" --disk "$TMP/empty.img"
bad bad-disk-twice "locked: another user has it open" \
	--disk "$TMP/rw.img" --disk "$TMP/rw.img"
bad bad-disk-ro-rw "locked" --disk "$TMP/rw.img,ro" --disk "$TMP/rw.img"
bad bad-disk-option "unknown option 'frob' \(expected ro, serial=S or cache=" \
	--disk "$TMP/rw.img,frob"
bad bad-disk-cache "cache=direct: expected writeback, none or unsafe" \
	--disk "$TMP/rw.img,cache=direct"
# The lock is the inode's: another minivmm reaching a busy image through
# a symlink or a hard link is refused too.
ln -s "$TMP/rw.img" "$TMP/sym.img"
ln "$TMP/rw.img" "$TMP/hard.img"
timeout -k 5 60 "$MINIVMM" --kernel "$GUESTS/spin.elf" --disk "$TMP/rw.img" \
	</dev/null >"$TMP/holder.out" 2>&1 &
holder=$!
for _ in $(seq 100); do grep -q spinning "$TMP/holder.out" && break; sleep 0.2; done
bad bad-disk-symlink "locked: another user has it open" --disk "$TMP/sym.img"
bad bad-disk-hardlink "locked: another user has it open" --disk "$TMP/hard.img"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
bad bad-disk-serial "serial is longer than 20 bytes" \
	--disk "$TMP/rw.img,serial=123456789012345678901"
bad bad-disk-empty-path "expected PATH\[,ro\]\[,serial=S\]\[,cache=C\]" --disk ",ro"
bad bad-disk-many "at most 8 disks" $(for i in 1 2 3 4 5 6 7 8 9; do
	echo --disk "$TMP/ro.img,ro"; done)
bad bad-snap-disk "--disk conflicts with the snapshot's 1 disk\(s\) \(.*snap.img,serial=s0\)" \
	--restore "$TMP/v.snap" --disk "$TMP/snap-copy.img"
bad bad-snap-rng "--rng conflicts with the snapshot's machine" \
	--restore "$TMP/snap-plain.snap" --rng
truncate -s 32M "$TMP/small.img"
bad bad-snap-size "virtio-blk0 .*small.img: the device configuration differs" \
	--restore "$TMP/v.snap" --disk "$TMP/small.img,serial=s0"

# Two read-only users share an image; a writer elsewhere is refused.
vm ro-shared 30 --disk "$TMP/ro.img,ro" --disk "$TMP/ro.img,ro"
expect ro-shared 0
"$MINIVMM" --kernel "$GUESTS/spin.elf" --disk "$TMP/rw.img" --timeout "$(secs 20)" \
	--console none </dev/null >/dev/null 2>&1 &
holder=$!
for i in $(seq 100); do		# host-side patience until it holds the lock
	python3 -c "import fcntl,sys; f=open(sys.argv[1],'rb');
fcntl.lockf(f, fcntl.LOCK_SH | fcntl.LOCK_NB)" "$TMP/rw.img" 2>/dev/null || break
	sleep 0.1
done
bad bad-disk-other-vm "locked: another user has it open" --disk "$TMP/rw.img"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null || true	# its status is not under test
