#!/bin/bash
# Runs every test: the Check unit tests (normal and ASan+UBSan builds),
# the layout and option checks, the boot tests (tests/boot/*.sh, against
# both VMM builds), the short hardware-virtualization lane (tests/hw/,
# beside the others where this host has KVM) and a short run of each fuzz
# target.  Ends with one
# "N passed, N failed" line; exits non-zero if anything failed.
set -u
cd "$(dirname "$0")/.."

passed=0
failed=0
failures=()
log_dir=build/test-logs
mkdir -p "$log_dir"

# Check prints "NN%: Checks: N, Failures: F, Errors: E".
run_unit() {
	local bin=$1 name log out n f e
	name=$(basename "$(dirname "$(dirname "$bin")")")/$(basename "$bin")
	log="$log_dir/${name//\//_}.log"
	CK_FORK=yes "$bin" >"$log" 2>&1
	out=$(grep -E '^[0-9]+%: Checks: ' "$log" | tail -n 1)
	if [[ $out =~ Checks:\ ([0-9]+),\ Failures:\ ([0-9]+),\ Errors:\ ([0-9]+) ]]; then
		n=${BASH_REMATCH[1]}; f=${BASH_REMATCH[2]}; e=${BASH_REMATCH[3]}
	else
		n=1; f=0; e=1	# crashed before the summary
	fi
	# A sanitizer report fails the binary even if Check counted a pass.
	if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log"; then
		e=$((e + 1))
	fi
	passed=$((passed + n - f - e))
	failed=$((failed + f + e))
	printf '%-44s %s\n' "$name" "${out:-CRASHED (see $log)}"
	if [ $((f + e)) -gt 0 ]; then
		failures+=("$name: see $log")
		grep -E ':[EF]:|runtime error|Sanitizer' "$log" | head -n 20
	fi
}

# Where this host has KVM, the hardware-virtualization lane's short part
# (below) starts first and runs beside the unit and boot tests: its L1 is
# one software CPU at nice 10 and needs nothing they build, so it takes
# the core they leave (the boot tests are mostly one busy thread) instead
# of 8 minutes after them.  Its tally comes where it did.
lane_pid=
lane_t0=
lane_log="$log_dir/hw-lane.log"
lane_start() {
	[ -e /dev/kvm ] && [ "${MINIVMM_HW_LANE:-1}" != 0 ] || return 0
	lane_t0=$(date +%s)
	# Its own process group, so an interrupted run stops L1 too.
	MINIVMM_L1_CPUS=1 setsid tests/hw/check-hw.sh --short \
		>"$lane_log" 2>&1 </dev/null &
	lane_pid=$!
}
lane_stop() {
	[ -n "$lane_pid" ] && kill -TERM -- "-$lane_pid" 2>/dev/null
	lane_pid=
}
trap lane_stop EXIT
trap 'exit 130' INT TERM
lane_start

for build in build build-asan; do
	for bin in "$build"/tests/check_*; do
		[ -x "$bin" ] && run_unit "$bin"
	done
done

# The tree's structural rules: no include or call circles, devices see only
# the bus contract, no oversized files (tools/check-layout.py).
log="$log_dir/layout.log"
if BUILD=build tools/check-layout.py >"$log" 2>&1; then
	passed=$((passed + 1))
	printf '%-44s ok\n' "layout"
else
	failed=$((failed + 1))
	printf '%-44s FAILED\n' "layout"
	head -n 20 "$log"
	failures+=("layout: see $log")
fi

# The man page is the option reference: it, each --help text and the
# option parsers list the same options (tools/check-options.py).
log="$log_dir/options.log"
if MINIVMM=build/minivmm tools/check-options.py >"$log" 2>&1; then
	passed=$((passed + 1))
	printf '%-44s ok\n' "options"
else
	failed=$((failed + 1))
	printf '%-44s FAILED\n' "options"
	head -n 20 "$log"
	failures+=("options: see $log")
fi

# The guest kernel (tools/check-kernel.sh: make check began its build
# beside the VMM's builds): one check, built or failed with its log.
kernel_rc=
kernel_wait() {
	[ -n "$kernel_rc" ] && return "$kernel_rc"
	tools/check-kernel.sh wait >"$log_dir/kernel-wait.log" 2>&1
	kernel_rc=$?
	return "$kernel_rc"
}
kernel_report() {
	if [ "$kernel_rc" -eq 0 ]; then
		passed=$((passed + 1))
		printf '%-44s %s\n' kernel \
			"$(sed -n '1s/^kernel: //p' "$log_dir/kernel-wait.log")"
	else
		failed=$((failed + 1))
		cat "$log_dir/kernel-wait.log"
		failures+=("kernel: see $log_dir/kernel-wait.log")
	fi
}
# Where the boot tests run here, the Linux ones boot it.
if [ -e /dev/kvm ]; then
	kernel_wait
	kernel_report
fi

# Boot tests print "PASS: name" / "FAIL: name" lines.  The boot test of
# Debian's cloud kernel (linux.sh, linux-serial.sh: 6-15 minutes per boot
# where ring 0 is emulated) runs with `make check-linux`
# (MINIVMM_LINUX_TEST=1), against
# the normal build only; linux-kernel.sh (the kernel built for minivmm)
# runs in both.
if [ "${MINIVMM_LINUX_TEST:-0}" != 1 ]; then
	SKIP_BOOT_TESTS="${SKIP_BOOT_TESTS:-} linux linux-serial"
fi
for build in build build-asan; do
	[ -x "$build/minivmm" ] || continue
	for name in $(tests/boot-tests.sh); do
		t=tests/boot/$name.sh
		case " ${SKIP_BOOT_TESTS:-} " in *" $name "*) continue ;; esac
		if [ "$build" = build-asan ] && { [ "$(basename "$t")" = linux.sh ] ||
			[ "$(basename "$t")" = linux-serial.sh ]; }; then
			continue
		fi
		log="$log_dir/$(basename "$t" .sh)-$build.log"
		t0=$SECONDS
		MINIVMM="$build/minivmm" BUILD="$build" bash "$t" >"$log" 2>&1
		secs=$((SECONDS - t0))
		p=$(grep -c '^PASS: ' "$log"); f=$(grep -c '^FAIL: ' "$log")
		if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && grep -q '^SKIP: ' "$log"; then
			printf '%-44s skipped: %s\n' "boot/$(basename "$t") [$build]" \
				"$(grep -m1 '^SKIP: ' "$log" | cut -c7-)"
			continue	# nothing it needs is here (it says why)
		fi
		if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
			f=1	# the script died before reporting anything
		fi
		passed=$((passed + p))
		failed=$((failed + f))
		printf '%-44s %d passed, %d failed (%d s)\n' \
			"boot/$(basename "$t") [$build]" "$p" "$f" "$secs"
		grep '^TIME: ' "$log" | sed 's/^/    /'	# measured, not asserted
		if [ "$f" -gt 0 ]; then
			grep -A8 '^FAIL: ' "$log" | head -n 40
			failures+=("boot/$(basename "$t") [$build]: see $log")
		fi
	done
done

# The hardware-virtualization lane: kvm_amd with nested paging in QEMU's
# software CPU (tests/hw/check-hw.sh, docs/hw-lane.md).  Where this host
# has KVM, its short part (the firmware, payloads, PCI with the read-only
# ECAM window, the MSR policy, virtio, a Linux boot), so every change is
# tested on both kinds of KVM.  Where it has none, every boot test above
# said SKIP and the lane runs them instead, with the normal build (the
# sanitizer build in a software CPU would take hours), in two L1s at once
# (tests/hw/lanes.sh): the payloads' tests (HW_LANE_TESTS: every boot
# test but the Linux ones and the long lanes' own, bench) in one, then
# kvm-unit-tests in its own (two shards and their union, as where there is
# KVM), and the Linux guests' (HW_LANE_LINUX_TESTS, with the kernel built
# for minivmm) in the other.  The rest of the Linux tests (Debian's
# kernel, gdb, the network: linux, linux-serial, linux-gdb, linux-net) are
# `make check-hw`'s.  MINIVMM_HW_LANE=0 skips the lane.
HW_LANE_TESTS=${HW_LANE_TESTS:-"short firmware foundation console emulate
vconsole nmi serial pci virtio qmp syscall gdb msr robust snapshot
snapshot-walk net guests testci load kut"}
HW_LANE_LINUX_TESTS=${HW_LANE_LINUX_TESTS:-"linux-kernel linux-crash share
linux-load linux-snapshot linux-powerdown linux-vconsole"}
if [ "${MINIVMM_HW_LANE:-1}" != 0 ]; then
	log=$lane_log
	t0=$SECONDS
	if [ -n "$lane_pid" ]; then
		lane_name="hw-lane [short, real KVM]"
		# Started first (lane_start); its linux boot needs one L1
		# CPU (lanes.sh says why).
		wait "$lane_pid"
		rc=$?
		lane_pid=
		secs=$(($(stat -c %Y "$log") - lane_t0))
	else
		lane_name="hw-lane [no /dev/kvm here: boot tests]"
		# L1 of 12 GiB (check-hw.sh's default): highmem.
		tests/hw/lanes.sh --limit 900 $HW_LANE_TESTS \
			$HW_LANE_LINUX_TESTS >"$log" 2>&1
		rc=$?
		secs=$((SECONDS - t0))
	fi
	if [ $rc -eq 77 ]; then
		printf '%-44s skipped: %s\n' "hw-lane" \
			"$(sed -n 's/^check-hw: skipped: //p' "$log" | head -n 1)"
	else
		tally=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
		if [[ $tally =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
			p=${BASH_REMATCH[1]}; f=${BASH_REMATCH[2]}
		else
			p=0; f=0
		fi
		[ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1	# died or L1 hung
		passed=$((passed + p))
		failed=$((failed + f))
		printf '%-44s %d passed, %d failed (%d s)\n' \
			"$lane_name" "$p" "$f" "$secs"
		grep -E '^(hw/|kernel: )' "$log" | sed 's/^/    /'
		if [ "$f" -gt 0 ]; then
			grep -E '^(failed|check-hw): ' "$log" | head -n 20
			sed -n '/^details: /,/^L1 ran /p' "$log" |
				grep -v '^L1 ran ' | head -n 60
			failures+=("hw-lane: see $log")
		fi
	fi
fi

# Fuzz smoke: each libFuzzer target replays its regressions and seeds,
# then fuzzes for a few seconds (tests/fuzz/fuzz.mk).
if [ -x build-fuzz/fuzz_pci ]; then
	for t in pci xen_ports uart msr_policy loader fdt virtq net snapshot \
		manifest xfail insn vhost_user gdb qmp; do
		log="$log_dir/fuzz-$t.log"
		if make --no-print-directory -s "fuzz-$t" \
			FUZZ_SECONDS="${FUZZ_SMOKE_SECONDS:-5}" >"$log" 2>&1; then
			passed=$((passed + 1))
			printf '%-44s ok\n' "fuzz/$t"
		else
			failed=$((failed + 1))
			printf '%-44s FAILED\n' "fuzz/$t"
			tail -n 20 "$log"
			failures+=("fuzz/$t: see $log")
		fi
	done
fi

for f in "${failures[@]}"; do
	echo "failed: $f"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
