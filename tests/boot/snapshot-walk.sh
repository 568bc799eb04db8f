#!/bin/bash
# A snapshot minivmm wrote, walked section by section (issue #30;
# tests/unit/check_snapshot_walk.c walks every byte of a smaller file
# without KVM): for every section of the table, a copy truncated at its
# start, its table entry flipped, and one payload byte flipped (first,
# middle or last in turn); plus cuts inside the header.  Each is given to
# minivmm --restore: status 2, one line on stderr naming the problem, no
# guest output (nothing restored, the guest never ran) and no file left
# beside the copy.  Memory images (RAM, ROM, the Xen BAR) are mapped,
# not read, so their flips are checked with --restore-verify.
. "$(dirname "$0")/lib.sh"

K="$GUESTS/snapshot.elf"
S="$TMP/s.snap"
W="$TMP/walk"			# only the working copy lives here
mkdir -p "$W"

vm take 60 --kernel "$K" -m 32M --snapshot "$S" --snapshot-at port
expect take 0 'snapshot: requesting' 'snapshot written to'
[ -s "$S" ] || { fail take "no snapshot"; exit 0; }

# The table: "TYPE-NAME OFFSET LENGTH FLAGS" per section, with its index.
python3 - "$S" >"$TMP/table" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read(1 << 20)
n = struct.unpack_from("<I", d, 16)[0]
for i in range(n):
    t, inst, off, ln, crc, fl = struct.unpack_from("<IIQQII", d, 64 + 32 * i)
    print(i, t, inst, off, ln, fl)
EOF
cp --sparse=always "$S" "$W/c.snap"
size=$(stat -c %s "$S")
walked=0 bad=0

# flip OFFSET: xor the byte at OFFSET of the copy with 0xff.
flip() {
	local b
	b=$(od -An -tu1 -j "$1" -N1 "$W/c.snap" | tr -d ' ')
	printf "$(printf '\\x%02x' $((b ^ 255)))" |
		dd of="$W/c.snap" bs=1 seek="$1" conv=notrunc status=none
}

# check NAME REGEX [OPTIONS...]: the copy refused as a restore must be.
check() {
	local name=$1 re=$2
	shift 2
	walked=$((walked + 1))
	timeout -k 5 "$(secs 60)" "$MINIVMM" --restore "$W/c.snap" "$@" \
		</dev/null >"$TMP/$name.out" 2>"$TMP/$name.err"
	status=$?
	if [ "$status" != 2 ] || ! grep -qE -- "$re" "$TMP/$name.err" ||
		[ "$(wc -l <"$TMP/$name.err")" -ne 1 ] ||
		[ -s "$TMP/$name.out" ] || [ "$(ls -A "$W")" != c.snap ]; then
		bad=$((bad + 1))
		fail "$name" "status $status (want 2), want one line /$re/, no guest output, nothing beside the copy: $(ls -A "$W" | tr '\n' ' ')"
	fi
}

# Flips, on the full copy (each undone after its restore).
while read -r i t inst off len fl; do
	name=$(printf 's%02d-type%d-%d' "$i" "$t" "$inst")
	flip $((64 + 32 * i + 8))		# its offset, in the table
	check "$name-entry" 'section table checksum mismatch'
	flip $((64 + 32 * i + 8))
	case $((i % 3)) in
	0) at=$off ;;
	1) at=$((off + len / 2)) ;;
	*) at=$((off + len - 1)) ;;
	esac
	[ "$len" -gt 0 ] || continue
	flip "$at"
	if [ "$fl" = 1 ]; then
		check "$name-payload" 'memory section [a-z0-9-]+/[0-9]+: checksum mismatch' \
			--restore-verify
	else
		check "$name-payload" ': section [a-z0-9-]+/[0-9]+: checksum mismatch'
	fi
	flip "$at"
done <"$TMP/table"
for at in 0 8 24 60; do
	flip "$at"
	check "header-$at" 'bad magic|format version|header checksum'
	flip "$at"
done
cmp -s "$S" "$W/c.snap" && pass flips-undone || fail flips-undone "copy differs"

# Truncations, on the same copy, from the end down: each section's start,
# then inside the table and the header.
cuts=$( (awk '{ print $4 }' "$TMP/table"; echo 96 64 40 8 0) | sort -rnu)
for c in $cuts; do
	[ "$c" -lt "$size" ] || continue
	truncate -s "$c" "$W/c.snap"
	check "cut-$c" 'truncated'
done

n=$(wc -l <"$TMP/table")
echo "walked $walked copies of a snapshot of $n sections, $size bytes"
[ "$bad" = 0 ] && [ "$walked" -ge $((n * 2)) ] && pass walk ||
	fail walk "$bad of $walked copies not refused as they must be"
