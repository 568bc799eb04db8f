# Helpers of the Linux boot tests (linux.sh: Debian's cloud kernel,
# linux-kernel.sh: the kernel built for minivmm), sourced after lib.sh.
# The caller sets BOOT_LIMIT (seconds per boot, a safety net), LINUX_MEM
# (-m) and LINUX_ARGS (kernel parameters), and $initrd.

# boot NAME KERNEL INIT-MODE ARGS...: runs minivmm with host timestamps on
# every console line ($TMP/NAME.out: "seconds line"), status in $status.
boot() {
	local name=$1 kernel=$2 mode=$3
	shift 3
	local t0=${EPOCHREALTIME/./} us
	timeout -k 5 "$BOOT_LIMIT" "$MINIVMM" --kernel "$kernel" \
		--initrd "$initrd" --timing -m "$LINUX_MEM" --timeout "$BOOT_LIMIT" \
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
# to kill init" and a fault at entry_SYSCALL_64 in user mode (Debian's
# kernel dumps "RIP: 0033:entry_SYSCALL_64"; minivmm's, without ORC, says
# "init[1]: segfault at"): said plainly.
check_user() {
	local name=$1 ends=$2
	if grep -qE 'RIP: 0033:entry_SYSCALL_64|init\[1\]: segfault at' "$TMP/$name.out"; then
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

