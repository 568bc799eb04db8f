#!/bin/bash
# Boots the stock Debian cloud kernel (tools/fetch-kernel.sh) with a
# busybox initramfs whose /init (tests/boot/linux-init.sh) reports what the
# kernel saw as "@@ ..." console lines and powers off (or reboots).  Two
# boots cover the matrix:
#   A  bzImage, 2 vCPUs, --xen-bar-mtrr wb, --stats: PCI devices and BARs,
#      MMCONFIG reserved, MTRRs, both CPUs up, MSR and ECAM stats, ACPI
#      poweroff -> status 0
#   B  vmlinux through PVH, --xen-bar-mtrr uc, --pci-pio off: PCI through
#      ECAM only, the UC MTRR over the Xen BAR, reboot -> status 3
# plus bad-input checks that never start a guest.  Prints the boot times
# (host side) as "TIME:" lines; the limits given to `vm` are safety nets,
# not assertions.  Prints "SKIP:" (and nothing else) only when the kernel
# package cannot be downloaded.
. "$(dirname "$0")/lib.sh"

BOOT_LIMIT=${MINIVMM_LINUX_TIMEOUT:-1500}	# seconds per boot
# For speed where ring 0 is emulated: a quiet console (every byte is an
# exit), and no boot-time ftrace self-check (a kallsyms lookup for each of
# ~38000 call sites: minutes of emulated ring 0, soft-lockup warnings).
LINUX_ARGS="quiet initcall_blacklist=ftrace_check_for_weak_functions"

cache=$(tools/fetch-kernel.sh)
rc=$?
if [ $rc -eq 77 ]; then
	echo "SKIP: linux (the kernel package cannot be downloaded with apt)"
	exit 0
elif [ $rc -ne 0 ]; then
	fail fetch-kernel "tools/fetch-kernel.sh exited $rc"
	exit 0
fi
initrd=$(tools/mkinitramfs.sh tests/boot/linux-init.sh) || {
	fail mkinitramfs "tools/mkinitramfs.sh failed"
	exit 0
}

# boot NAME KERNEL INIT-MODE ARGS...: runs minivmm with host timestamps on
# every console line ($TMP/NAME.out: "seconds line"), status in $status.
boot() {
	local name=$1 kernel=$2 mode=$3
	shift 3
	local t0=${EPOCHREALTIME/./} us
	timeout -k 5 "$BOOT_LIMIT" "$MINIVMM" --kernel "$kernel" \
		--initrd "$initrd" --timing -m 256M --timeout "$BOOT_LIMIT" \
		--append "console=ttyS0 $LINUX_ARGS minivmm.init=$mode" "$@" \
		</dev/null 2>"$TMP/$name.err" |
		while IFS= read -r line; do
			us=$((${EPOCHREALTIME/./} - t0))
			printf '%d.%06d %s\n' $((us / 1000000)) \
				$((us % 1000000)) "$line"
		done >"$TMP/$name.out"
	status=${PIPESTATUS[0]}
}

# seconds of the first console line matching REGEX, or "-".
when() {
	awk -v re="$2" '$0 ~ re { print $1; found = 1; exit } END {
		if (!found) print "-" }' "$TMP/$1.out"
}

report_time() {
	local name=$1 ms
	ms=$(sed -n 's/^ *\([0-9.]*\) *\[0x08\] firmware: handoff$/\1/p' \
		"$TMP/$name.err")
	echo "TIME: $name: kernel entry ${ms:-?} ms, first init line" \
		"$(when "$name" '@@ init started') s, report done" \
		"$(when "$name" '@@ done') s (host clock, from minivmm start)"
}

# has NAME REGEX [WHY]: a console line matches.
has() {
	if grep -qE -- "$2" "$TMP/$1.out"; then
		pass "$1: ${3:-$2}"
	else
		fail "$1" "console lacks /$2/"
	fi
}

# The Xen platform device's slot and BARs as the firmware printed them:
# "pci 00:03.0 5853:0001 BAR0 io 0xc000+0x100".
fw_bar() {
	sed -n "s/^[0-9.]* pci [0-9a-f:.]* 5853:0001 BAR$2 [a-z0-9 ]* \(0x[0-9a-f]*\)+\(0x[0-9a-f]*\).*/\1 \2/p" \
		"$TMP/$1.out" | head -n 1
}

# check_bar NAME INDEX KIND: the kernel's resource for the Xen BAR equals
# the firmware's assignment, and has the expected kind flags.
check_bar() {
	local name=$1 idx=$2 kind=$3 fw base size line start end flags
	fw=$(fw_bar "$name" "$idx")
	read -r base size <<<"$fw"
	line=$(awk -v i="$idx" '$2 == "@@" && $3 == "bar" && $6 == i &&
		slot[$5] { print $7, $8, $9; exit }
		$2 == "@@" && $3 == "pci" && $5 == "0x5853" && $6 == "0x0001" {
			slot[$4] = 1 }' "$TMP/$name.out")
	read -r start end flags <<<"$line"
	if [ -z "$fw" ] || [ -z "$line" ]; then
		fail "$name" "BAR$idx: firmware '$fw', kernel '$line'"
	elif [ $((start)) -ne $((base)) ] ||
	     [ $((end - start + 1)) -ne $((size)) ]; then
		fail "$name" "BAR$idx at $start-$end, firmware put it at $base+$size"
	elif [ "$kind" = io ] && [ $((flags & 0x100)) -eq 0 ]; then
		fail "$name" "BAR$idx flags $flags: not I/O"
	elif [ "$kind" = pref ] && [ $((flags & 0x2200)) -ne $((0x2200)) ]; then
		fail "$name" "BAR$idx flags $flags: not prefetchable memory"
	else
		pass "$name: Xen BAR$idx $kind at the firmware's $base+$size"
	fi
}

# mtrr_type NAME ADDR: the type of the /proc/mtrr range covering ADDR
# ("none": no variable range does, the default type applies).  Lines look
# like "@@ mtrr reg01: base=0x0df000000 ( 3568MB), size=   16MB, count=1:
# write-back".
mtrr_type() {
	local addr=$(($2)) line base size unit type
	while IFS= read -r line; do
		[[ $line =~ base=(0x[0-9a-f]+).*size=\ *([0-9]+)([MK])B.*:\ ([a-z-]+)$ ]] ||
			continue
		base=$((BASH_REMATCH[1]))
		size=${BASH_REMATCH[2]}
		unit=${BASH_REMATCH[3]}
		type=${BASH_REMATCH[4]}
		[ "$unit" = M ] && size=$((size << 20)) || size=$((size << 10))
		if [ "$addr" -ge "$base" ] && [ "$addr" -lt $((base + size)) ]; then
			echo "$type"
			return
		fi
	done < <(grep ' @@ mtrr ' "$TMP/$1.out")
	echo none
}

check_common() {
	local name=$1 cpus=$2
	has "$name" '@@ done' "init ran and reported"
	has "$name" '@@ pci 0000:00:00\.0 0x1b36 0x0008 0x060000' \
		"host bridge 00:00.0"
	has "$name" '@@ pci [0-9a-f:.]+ 0x5853 0x0001 0xff8000' \
		"Xen platform device 5853:0001, class 0xff8000"
	check_bar "$name" 0 io
	check_bar "$name" 1 pref
	has "$name" "@@ cpus online $cpus\$" "CPUs online: $cpus"
	has "$name" '@@ acpi tables .*MCFG' "ACPI tables include MCFG"
}

# --- A: bzImage, 2 vCPUs, write-back BAR, stats ----------------------

# Count the architectural and KVM paravirtual MSRs (not FS/GS bases:
# those change on every context switch).
boot bzimage "$cache/bzImage" report -c 2 --stats \
	--msr "0x0-0x7ff rw allow,count" --msr "0x4b564d00-0x4b564dff rw allow,count"
expect bzimage 0 '' 'guest powered off'
report_time bzimage
check_common bzimage 0-1
has bzimage 'MMCONFIG at \[mem 0xe0000000-0xe00fffff\] reserved' \
	"ECAM window accepted as reserved (MMCONFIG)"
t=$(mtrr_type bzimage "$(fw_bar bzimage 1 | cut -d' ' -f1)")
[ "$t" != uncachable ] && pass "bzimage: Xen BAR is write-back ($t)" ||
	fail bzimage "MTRR type over the Xen BAR: $t, expected write-back"
# kvm-clock's MSR is written by Linux only, never by the firmware.
grep -qE '^  0x4b564d01 +[A-Z0-9_]* +[0-9]+ +[1-9][0-9]* ' "$TMP/bzimage.err" &&
	grep -qE '^  0x0000001b +IA32_APIC_BASE ' "$TMP/bzimage.err" &&
	pass "bzimage: --stats lists the MSRs the kernel touched" ||
	fail bzimage "--stats lacks kvm-clock (0x4b564d01) or APIC_BASE"
grep -qE 'ecam[a-z-]* +0xe0000000\+0x[0-9a-f]+ +reads +0 ' \
	"$TMP/bzimage.err" &&
	pass "bzimage: no ECAM read exits (--ecam ro)" ||
	fail bzimage "ECAM reads exited, or no ECAM line in --stats"

# --- B: vmlinux via PVH, UC BAR, no CF8/CFC, reboot --------------------

boot pvh "$cache/vmlinux" report-reboot --xen-bar-mtrr uc --pci-pio off
expect pvh 3 '' 'guest reset'
report_time pvh
check_common pvh 0
t=$(mtrr_type pvh "$(fw_bar pvh 1 | cut -d' ' -f1)")
[ "$t" = uncachable ] && pass "pvh: Xen BAR is uncachable (--xen-bar-mtrr uc)" ||
	fail pvh "MTRR type over the Xen BAR: $t, expected uncachable"

# --- bad input: one line, status 2, no guest ---------------------------

bad() {
	local name=$1 regex=$2
	shift 2
	vm "$name" 60 "$@"
	expect "$name" 2 '' "$regex"
	[ "$(grep -c . "$TMP/$name.err")" -le 3 ] && [ ! -s "$TMP/$name.out" ] &&
		pass "$name: no guest output" ||
		fail "$name" "guest ran or too many lines"
}
head -c 100000 "$cache/bzImage" >"$TMP/trunc.bz"
bad bad-truncated 'truncated' --kernel "$TMP/trunc.bz"
bad bad-notkernel 'neither a bzImage nor an ELF' --kernel "$initrd"
truncate -s 200M "$TMP/huge.img"
bad bad-initrd 'initrd.*(do not fit|too large)' --kernel "$cache/bzImage" \
	--initrd "$TMP/huge.img" -m 128M
bad bad-cmdline 'longer than the 2047 bytes' --kernel "$cache/bzImage" \
	--append "$(printf 'x%.0s' $(seq 1 2100))"
