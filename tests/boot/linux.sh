#!/bin/bash
# Boots the stock Debian cloud kernel (tools/fetch-kernel.sh) with a
# busybox initramfs (tools/mkinitramfs.sh, /init = tests/boot/linux-init.sh)
# to user space, and checks what the kernel saw, from its own log on the
# console:
#   A  bzImage, 2 vCPUs, --xen-bar-mtrr wb, --stats: both CPUs up, the host
#      bridge and the Xen platform device with the firmware's BARs, the
#      ECAM window accepted (MMCONFIG reserved), MTRRs on, ACPI tables,
#      the MSRs the kernel touched, no ECAM read exits, system calls
#      completed by minivmm where the host needs it (--stats)
#   B  vmlinux through PVH, 1 vCPU, --xen-bar-mtrr uc, --pci-pio off: the
#      same devices found through ECAM alone
#   C  bzImage, 1 vCPU, and D  vmlinux through PVH, 2 vCPUs: the other two
#      pairings of boot path and vCPU count (verdict by power-off for C,
#      by MMIO for D)
# then init's own checks from user space (linux-init.sh check: CPUs, the
# devices in sysfs, /proc/mtrr over the Xen BAR, MMCONFIG, ACPI, processes
# making system calls at once) and its verdict as minivmm's exit status:
# A through the test-exit register (MMIO, /dev/mem: status 0), B by
# powering off (status 0; a failure reboots: status 3).  Bad-input checks
# never start a guest.  Prints the boot times as "TIME:" lines; the limits
# are safety nets, not assertions.  Prints "SKIP:" (and nothing else) only
# when the kernel package cannot be downloaded.  MINIVMM_LINUX_ARGS adds
# kernel parameters to every boot (with pti=on init also checks that
# page-table isolation is on); MINIVMM_LINUX_BOOTS picks boots by name
# (default "bzimage pvh bzimage-1cpu pvh-2cpu").
. "$(dirname "$0")/lib.sh"

BOOT_LIMIT=${MINIVMM_LINUX_TIMEOUT:-2400}	# seconds per boot (a loaded host)
# For speed where ring 0 is emulated (each costs minutes there): no boot-
# time ftrace self-check and tracefs setup, no rewriting of every trace
# event's format with the enum values (trace_eval_init: 3-4 minutes,
# holding the event mutex init waits for), no crypto self-tests, no
# watchdog; no speculation mitigations.  A panic reboots at once (the
# run ends with status 3 instead of waiting for the time limit).
LINUX_ARGS="initcall_blacklist=ftrace_check_for_weak_functions,tracer_init_tracefs,trace_eval_init cryptomgr.notests nowatchdog mitigations=off panic=-1 ${MINIVMM_LINUX_ARGS:-}"
# MINIVMM_LINUX_LOGS=DIR keeps each boot's console and stderr there.
if [ -n "${MINIVMM_LINUX_LOGS:-}" ]; then
	mkdir -p "$MINIVMM_LINUX_LOGS"
	trap 'cp "$TMP"/*.out "$TMP"/*.err "$MINIVMM_LINUX_LOGS"/ 2>/dev/null; rm -rf "$TMP"' EXIT
fi

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
			line=${line%$'\r'}	# the serial console ends lines CR LF
			us=$((${EPOCHREALTIME/./} - t0))
			printf '%d.%06d %s\n' $((us / 1000000)) \
				$((us % 1000000)) "$line"
		done >"$TMP/$name.out"
	status=${PIPESTATUS[0]}
}

# Seconds (host clock, from minivmm's start) of the first console line
# matching REGEX, or "-".
when() {
	awk -v re="$2" '$0 ~ re { print $1; found = 1; exit } END {
		if (!found) print "-" }' "$TMP/$1.out"
}

report_time() {
	local name=$1 ms
	ms=$(sed -n 's/^ *\([0-9.]*\) *\[0x08\] firmware: handoff$/\1/p' \
		"$TMP/$name.err")
	echo "TIME: $name: kernel entry ${ms:-?} ms, kernel console on" \
		"$(when "$name" '\] Linux version') s, init run" \
		"$(when "$name" 'Run /init as init process') s, first init" \
		"line $(when "$name" '@@ init started') s, verdict" \
		"$(when "$name" '@@ verdict') s"
}

# has NAME REGEX WHY: a console line matches.
has() {
	if grep -qE -- "$2" "$TMP/$1.out"; then
		pass "$1: $3"
	else
		fail "$1" "$3: console lacks /$2/"
	fi
}

# The Xen platform device's BAR as the firmware printed it ("pci 00:03.0
# 5853:0001 BAR1 mem32 pref 0xdf000000+0x1000000"): "base size".
fw_bar() {
	sed -n "s/^ *[0-9.]* pci [0-9a-f:.]* 5853:0001 BAR$2 [a-z0-9 ]* \(0x[0-9a-f]*\)+\(0x[0-9a-f]*\).*/\1 \2/p" \
		"$TMP/$1.out" | head -n 1
}

# check_bar NAME INDEX KIND: the kernel found the Xen BAR where the
# firmware put it ("pci 0000:00:03.0: BAR 1 [mem 0xdf000000-0xdfffffff
# pref]", or "reg 0x14: [mem ...]" in older kernels at loglevel 8).
check_bar() {
	local name=$1 idx=$2 kind=$3 base size reg line start end
	read -r base size <<<"$(fw_bar "$name" "$idx")"
	reg=$(printf '0x%x' $((0x10 + 4 * idx)))
	line=$(grep -oE "pci 0000:00:03\.0: (BAR $idx|reg $reg:) \[(io|mem) +0x[0-9a-f]+-0x[0-9a-f]+[^]]*\]" \
		"$TMP/$name.out" | head -n 1)
	if [[ -z $base || ! $line =~ \[(io|mem)\ +(0x[0-9a-f]+)-(0x[0-9a-f]+)(.*)\] ]]; then
		fail "$name" "BAR$idx: firmware '$base+$size', kernel '$line'"
		return
	fi
	start=${BASH_REMATCH[2]}
	end=${BASH_REMATCH[3]}
	if [ $((start)) -ne $((base)) ] || [ $((end - start + 1)) -ne $((size)) ]; then
		fail "$name" "BAR$idx at $start-$end, the firmware put it at $base+$size"
	elif [ "$kind" = io ] && [ "${BASH_REMATCH[1]}" != io ]; then
		fail "$name" "BAR$idx is not I/O: $line"
	elif [ "$kind" = pref ] && [[ ${BASH_REMATCH[4]} != *pref* ]]; then
		fail "$name" "BAR$idx is not prefetchable memory: $line"
	else
		pass "$name: Xen BAR$idx ($kind) at the firmware's $base+$size"
	fi
}

# mtrr_type NAME ADDR: the /proc/mtrr type covering ADDR as init reported
# it ("@@ mtrr reg01: base=0x0df000000 ( 3568MB), size=   16MB, count=1:
# uncachable"); "none" if no variable range covers it.
mtrr_type() {
	local addr=$(($2)) line base size
	while IFS= read -r line; do
		[[ $line =~ base=(0x[0-9a-f]+).*size=\ *([0-9]+)([MK])B.*:\ ([a-z-]+)$ ]] ||
			continue
		base=$((BASH_REMATCH[1]))
		size=${BASH_REMATCH[2]}
		[ "${BASH_REMATCH[3]}" = M ] && size=$((size << 20)) ||
			size=$((size << 10))
		if [ "$addr" -ge "$base" ] && [ "$addr" -lt $((base + size)) ]; then
			echo "${BASH_REMATCH[4]}"
			return
		fi
	done < <(grep ' @@ mtrr ' "$TMP/$1.out")
	echo none
}

check_kernel() {
	local name=$1 cpus=$2
	has "$name" "smp: Brought up 1 node, $cpus CPUs?\$" "$cpus CPU(s) up"
	has "$name" 'pci 0000:00:00\.0: \[1b36:0008\] type 00 class 0x060000' \
		"host bridge 00:00.0"
	has "$name" 'pci 0000:00:03\.0: \[5853:0001\] type 00 class 0xff8000' \
		"Xen platform device 5853:0001, class 0xff8000"
	check_bar "$name" 0 io
	check_bar "$name" 1 pref
	has "$name" 'PCI: MMCONFIG at \[mem 0xe0000000-0xe00fffff\] reserved' \
		"the ECAM window is accepted as reserved (MMCONFIG)"
	has "$name" 'ACPI: MCFG 0x' "ACPI tables found (MCFG)"
	# Linux 6.1 leaves PAT at its power-on layout (WB WT UC- UC ...)
	# when the firmware left the MTRRs disabled.
	has "$name" 'x86/PAT: Configuration \[0-7\]: WB +WC ' \
		"MTRRs enabled (PAT programmed)"
	! grep -q 'MTRRs disabled' "$TMP/$name.out" &&
		pass "$name: no 'MTRRs disabled'" ||
		fail "$name" "the kernel found the MTRRs disabled"
}

# What init checked from user space, and its verdict as the exit status.
# A kernel whose init cannot make its first system call dies with "Attempted
# to kill init" and a fault at entry_SYSCALL_64 in user mode: said plainly.
check_user() {
	local name=$1 ends=$2
	if grep -qE 'RIP: 0033:entry_SYSCALL_64' "$TMP/$name.out"; then
		fail "$name" "init's first system call faulted at entry_SYSCALL_64 in user mode: guest user-mode SYSCALL did not reach ring 0 (tests/boot/syscall.sh)"
		return
	fi
	if grep -q ' @@ check .* FAIL' "$TMP/$name.out"; then
		fail "$name" "init's checks: $(grep ' @@ check .* FAIL' "$TMP/$name.out" | cut -d' ' -f2- | tr '\n' ';')"
	else
		pass "$name: init's checks from user space"
	fi
	expect "$name" 0 ' @@ verdict pass$' "$ends"
	has "$name" "@@ check cpus ok" "init sees the CPUs it should"
	has "$name" "@@ check xen-bar-mtrr ok" "init sees the Xen BAR's MTRR type"
	has "$name" "@@ check syscalls ok" "processes make system calls at once"
}

# --- A: bzImage, 2 vCPUs, write-back BAR, stats, verdict by MMIO --------

BOOTS=${MINIVMM_LINUX_BOOTS:-bzimage pvh bzimage-1cpu pvh-2cpu}
want() {
	case " $BOOTS " in *" $1 "*) return 0 ;; esac
	return 1
}
# With pti=on init checks that page-table isolation is on.
PTI=
case " $LINUX_ARGS " in *" pti=on "*) PTI=" minivmm.pti=on" ;; esac
# check_more NAME: init got as far as its verdict (no FAIL line alone
# proves that), and page-table isolation with pti=on.
check_more() {
	has "$1" "@@ verdict " "init reached its verdict"
	[ -z "$PTI" ] || has "$1" "@@ check pti ok" "page-table isolation on"
}

if want bzimage; then
	# Count the architectural and the KVM paravirtual MSRs, but not the hot
	# ones (TSC deadline: every timer event; FS/GS bases: context switches).
	boot bzimage "$cache/bzImage" \
		"check minivmm.cpus=2 minivmm.xenbar=wb$PTI" -c 2 --stats \
		--msr "0x0-0x6df rw allow,count" --msr "0x6e1-0x7ff rw allow,count" \
		--msr "0x4b564d00-0x4b564dff rw allow,count"
	report_time bzimage
	check_kernel bzimage 2
	# kvm-clock's MSR is written by Linux only, never by the firmware.
	grep -qE '^  0x4b564d01 +[A-Z0-9_]* +[0-9]+ +[1-9][0-9]* ' "$TMP/bzimage.err" &&
		grep -qE '^  0x0000001b +IA32_APIC_BASE ' "$TMP/bzimage.err" &&
		pass "bzimage: --stats lists the MSRs the kernel touched" ||
		fail bzimage "--stats lacks kvm-clock (0x4b564d01) or APIC_BASE"
	grep -qE 'ecam[a-z-]* +0xe0000000\+0x[0-9a-f]+ +reads +0 ' \
		"$TMP/bzimage.err" &&
		pass "bzimage: no ECAM read exits (--ecam ro)" ||
		fail bzimage "ECAM reads exited, or no ECAM line in --stats"
	check_user bzimage 'guest test-exit 0x0'
	if [ -e /sys/module/kvm_pvm ]; then
		grep -qE '^  syscall [1-9][0-9]* ' "$TMP/bzimage.err" &&
			pass "bzimage: minivmm completed the system calls (--stats)" ||
			fail bzimage "--stats counts no completed system call"
	fi
	check_more bzimage
fi

# --- B: vmlinux via PVH, UC BAR, no CF8/CFC, verdict by power-off -------

if want pvh; then
	boot pvh "$cache/vmlinux" \
		"check minivmm.verdict=power minivmm.cpus=1 minivmm.xenbar=uc$PTI" \
		--xen-bar-mtrr uc --pci-pio off
	report_time pvh
	check_kernel pvh 1
	check_user pvh 'guest powered off'
	check_more pvh
fi

# --- C, D: the other pairings of boot path and vCPU count ----------------

if want bzimage-1cpu; then
	boot bzimage-1cpu "$cache/bzImage" \
		"check minivmm.verdict=power minivmm.cpus=1 minivmm.xenbar=wb$PTI"
	report_time bzimage-1cpu
	check_kernel bzimage-1cpu 1
	check_user bzimage-1cpu 'guest powered off'
	check_more bzimage-1cpu
fi
if want pvh-2cpu; then
	boot pvh-2cpu "$cache/vmlinux" \
		"check minivmm.cpus=2 minivmm.xenbar=uc$PTI" \
		-c 2 --xen-bar-mtrr uc
	report_time pvh-2cpu
	check_kernel pvh-2cpu 2
	check_user pvh-2cpu 'guest test-exit 0x0'
	check_more pvh-2cpu
fi

# --- bad input: one line, status 2, no guest ---------------------------

bad() {
	local name=$1 regex=$2
	shift 2
	vm "$name" 60 "$@"
	expect "$name" 2 '' "$regex"
	[ "$(grep -c . "$TMP/$name.err")" -eq 1 ] && [ ! -s "$TMP/$name.out" ] &&
		pass "$name: one line, no guest output" ||
		fail "$name" "guest ran or more than one line"
}
head -c 100000 "$cache/bzImage" >"$TMP/trunc.bz"
bad bad-truncated 'truncated' --kernel "$TMP/trunc.bz"
bad bad-notkernel 'neither a bzImage, an ELF' --kernel "$initrd"
truncate -s 200M "$TMP/huge.img"
bad bad-initrd 'initrd.*(do not fit|too large)' --kernel "$cache/bzImage" \
	--initrd "$TMP/huge.img" -m 128M
bad bad-cmdline 'longer than the 2047 bytes' --kernel "$cache/bzImage" \
	--append "$(printf 'x%.0s' $(seq 1 2100))"
