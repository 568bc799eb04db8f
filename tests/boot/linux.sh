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
. "$(dirname "$0")/linux-lib.sh"

BOOT_LIMIT=${MINIVMM_LINUX_TIMEOUT:-2400}	# seconds per boot (a loaded host)
LINUX_MEM=256M
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
