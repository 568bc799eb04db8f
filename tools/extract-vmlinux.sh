#!/bin/sh
# extract-vmlinux.sh BZIMAGE OUTPUT: writes the uncompressed vmlinux ELF
# that a bzImage carries (for booting it through its PVH entry note).
#
# The setup header says where the compressed payload is: payload_offset
# (0x248) and payload_length (0x24c), relative to the protected-mode part,
# which starts at (setup_sects + 1) * 512 (boot protocol 2.08+).  The
# payload's first bytes name its compressor.
set -eu

die() { echo "extract-vmlinux: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: extract-vmlinux.sh BZIMAGE OUTPUT"
in=$1
out=$2
[ -f "$in" ] || die "$in: no such file"

# le32 FILE OFFSET / u8 FILE OFFSET: unsigned little-endian fields.
le32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
u8() { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '; }
hexat() { od -An -tx1 -j "$2" -N"$3" "$1" | tr -d ' \n'; }

size=$(stat -c %s "$in")
[ "$size" -ge 1024 ] || die "$in: too small for a bzImage"
[ "$(hexat "$in" $((0x202)) 4)" = 48647253 ] ||
	die "$in: no 'HdrS' setup header (not a bzImage)"
version=$(od -An -tu2 -j $((0x206)) -N2 "$in" | tr -d ' ')
[ "$version" -ge $((0x208)) ] ||
	die "$in: boot protocol $(printf '%x' "$version") has no payload fields"

setup_sects=$(u8 "$in" $((0x1f1)))
[ "$setup_sects" -ne 0 ] || setup_sects=4
start=$(( (setup_sects + 1) * 512 + $(le32 "$in" $((0x248))) ))
length=$(le32 "$in" $((0x24c)))
[ "$length" -gt 0 ] && [ $((start + length)) -le "$size" ] ||
	die "$in: payload [$start, +$length) is outside the file"

payload() { tail -c +$((start + 1)) "$in" | head -c "$length"; }

# The kernel's LZ4 stream is the legacy frame followed by the 4-byte
# uncompressed size, which lz4 reports as trailing garbage: keep its
# output, judge it by the ELF check below.
magic=$(hexat "$in" "$start" 6)
case $magic in
1f8b*)		payload | gzip -dc >"$out" 2>/dev/null || true ;;
fd377a585a00)	payload | xz -dc >"$out" 2>/dev/null || true ;;
28b52ffd*)	payload | zstd -dcq >"$out" 2>/dev/null || true ;;
02214c18*)	payload | lz4 -dc >"$out" 2>/dev/null || true ;;
425a68*)	payload | bzip2 -dc >"$out" 2>/dev/null || true ;;
5d0000*)	payload | xz -dc --format=lzma >"$out" 2>/dev/null || true ;;
894c5a4f*)	payload | lzop -dc >"$out" 2>/dev/null || true ;;
*)		die "$in: unknown payload compression (magic $magic)" ;;
esac

[ -s "$out" ] && [ "$(hexat "$out" 0 4)" = 7f454c46 ] || {
	rm -f "$out"
	die "$in: decompressing the payload did not give an ELF image" \
		"(is the tool for magic $magic installed?)"
}
