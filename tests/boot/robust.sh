#!/bin/bash
# Robustness: every way a run ends leaves complete output (console file,
# --stats-json) and a restored terminal; the sandbox blocks what a run does
# not need; and each bad input of docs/bad-input.md not covered elsewhere
# gives its one clear line and status 2.
. "$(dirname "$0")/lib.sh"

# json_status FILE: the exit_status recorded in a --stats-json file, or
# "bad" if the file is missing or not complete JSON.
json_status() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert isinstance(d['exits'], dict); print(d['exit_status'])" "$1" \
		2>/dev/null || echo bad
}

# signal_run NAME SIGNAL [ARG...]: boots the spinning payload with its
# console in a file (and ARGs), waits until it has printed, sends SIGNAL,
# and waits for the end.
signal_run() {
	local name=$1 sig=$2 pid i
	shift 2
	rm -f "$TMP/$name.con" "$TMP/$name.json"
	"$MINIVMM" --kernel "$GUESTS/spin.elf" --console "$TMP/$name.con" \
		--stats-json "$TMP/$name.json" "$@" </dev/null \
		>"$TMP/$name.out" 2>"$TMP/$name.err" &
	pid=$!
	# Host-side patience only (never an assertion): up to 60 s to boot.
	for i in $(seq 600); do
		grep -q spinning "$TMP/$name.con" 2>/dev/null && break
		sleep 0.1
	done
	kill "-$sig" "$pid"
	wait "$pid"
	status=$?
}

signal_run sigterm TERM
expect sigterm 143 '' 'stopped by signal 15'
[ "$(json_status "$TMP/sigterm.json")" = 143 ] &&
	pass sigterm-stats-json || fail sigterm "stats JSON missing or incomplete"
grep -qx 'spinning (ring 0)' "$TMP/sigterm.con" &&
	pass sigterm-console-complete || fail sigterm "console file incomplete"
# A run killed from outside (an outer time limit) says where the guest was.
grep -qE '^minivmm: vCPU 0 at RIP 0x[0-9a-f]+ CPL 0 ' "$TMP/sigterm.err" &&
	grep -qE '^  stack: [0-9a-f]+' "$TMP/sigterm.err" &&
	pass sigterm-where || fail sigterm "no vCPU position or stack words"

signal_run sigint INT
expect sigint 130 '' 'stopped by signal 2'
[ "$(json_status "$TMP/sigint.json")" = 130 ] &&
	pass sigint-stats-json || fail sigint "stats JSON missing or incomplete"
grep -qx 'spinning (ring 0)' "$TMP/sigint.con" &&
	pass sigint-console-complete || fail sigint "console file incomplete"

# The same with virtio devices, whose threads (workers, disk helpers)
# exist before the run: one that did not block the run's signals took
# SIGTERM's default action, and minivmm died with no report (status 143,
# nothing on stderr; seen in the crash test's soak).
truncate -s 1M "$TMP/sigdev.img" "$TMP/sigdev2.img"
for sig in TERM INT; do
	n=sig$(echo "$sig" | tr A-Z a-z)-devices
	want=$((128 + $(kill -l "$sig")))
	signal_run "$n" "$sig" --disk "$TMP/sigdev.img" --disk "$TMP/sigdev2.img" --rng
	expect "$n" "$want" '' "stopped by signal $(kill -l "$sig")"
	[ "$(json_status "$TMP/$n.json")" = "$want" ] &&
		pass "$n-stats-json" || fail "$n" "stats JSON missing or incomplete"
done

# A guest crash (triple fault): the report, the status, and still the
# complete stats and console.
vm crash 30 --kernel "$GUESTS/triple.elf" --console "$TMP/crash.con" \
	--stats-json "$TMP/crash.json"
expect crash 4 '' 'triple fault'
[ "$(json_status "$TMP/crash.json")" = 4 ] && pass crash-stats-json ||
	fail crash "stats JSON missing or incomplete"
grep -qx 'triple fault next' "$TMP/crash.con" &&
	pass crash-console-complete || fail crash "console file incomplete"

# The timeout path.
vm tmo 60 --timeout 1 --kernel "$GUESTS/spin.elf" --stats-json "$TMP/tmo.json"
expect tmo 124 'spinning' 'timeout'
[ "$(json_status "$TMP/tmo.json")" = 124 ] && pass timeout-stats-json ||
	fail tmo "stats JSON missing or incomplete"

# SIGTERM on a raw-mode terminal: the terminal comes back as it was.
python3 - "$MINIVMM" "$GUESTS/spin.elf" >"$TMP/tty.out" 2>&1 <<'EOF'
import os, pty, select, signal, subprocess, sys, termios, time
master, slave = pty.openpty()
before = termios.tcgetattr(slave)
p = subprocess.Popen([sys.argv[1], "--kernel", sys.argv[2]], stdin=slave,
                     stdout=slave, stderr=subprocess.DEVNULL)
out, deadline, raw = b"", time.time() + 60, False
while time.time() < deadline and b"spinning" not in out:
    if select.select([master], [], [], 0.2)[0]:
        out += os.read(master, 4096)
raw = not (termios.tcgetattr(slave)[3] & termios.ICANON)
p.send_signal(signal.SIGTERM)
status = p.wait(timeout=60)
after = termios.tcgetattr(slave)
print("raw while running:", raw, "status:", status,
      "restored:", after == before)
sys.exit(0 if raw and status == 143 and after == before else 1)
EOF
[ $? -eq 0 ] && pass sigterm-terminal-restored ||
	fail tty "terminal not restored after SIGTERM: $(cat "$TMP/tty.out")"

# --- the sandbox -----------------------------------------------------------
# A thread started after the filter (like a vCPU thread) calls socket().
MINIVMM_SANDBOX_SELFTEST=1 vm sandbox-blocks 30 --kernel "$GUESTS/hello.elf"
expect sandbox-blocks 1 '' \
	'sandbox: blocked system call [0-9]+ \(socket\)'
MINIVMM_SANDBOX_SELFTEST=1 vm sandbox-off 30 --no-sandbox \
	--kernel "$GUESTS/hello.elf"
expect sandbox-off 0 'hello: all checks passed' 'socket\(\) was allowed'
# Everything a full run needs gets through: SMP, MSR logging, the files
# written at exit.
vm sandbox-full 60 -c 2 --kernel "$GUESTS/hello.elf" --stats --timing \
	--msr "0x10 allow,log" --console "$TMP/full.con" \
	--stats-json "$TMP/full.json" --dump-acpi "$TMP/acpi"
expect sandbox-full 0 '' 'exits by reason'
[ "$(json_status "$TMP/full.json")" = 0 ] && [ -s "$TMP/acpi/facp.dat" ] &&
	grep -q 'all checks passed' "$TMP/full.con" &&
	pass sandbox-full-files || {
	fail sandbox-full "an exit file is missing"
	sed 's/^/    /' "$TMP/full.con" | tail -n 15	# the guest's console
}
! grep -q 'sandbox' "$TMP/sandbox-full.err" && pass sandbox-full-quiet ||
	fail sandbox-full "the sandbox blocked something"

# --- bad input not covered by foundation.sh --------------------------------
bad() {
	local name=$1 regex=$2
	shift 2
	vm "$name" 30 "$@"
	expect "$name" 2 '' "$regex"
	[ "$(wc -l <"$TMP/$name.err")" -eq 1 ] && pass "$name-one-line" ||
		fail "$name" "expected exactly one line on stderr"
}
mkdir -p "$TMP/dir"
printf 'x' >"$TMP/tiny.bin"
: >"$TMP/empty"
printf '0x10 frobnicate\n' >"$TMP/bad.policy"
printf '\x7fELF\x02\x01\x01' >"$TMP/trunc.elf"
bad bad-missing-value 'needs a value' --memory
bad bad-size-align "memory '3M'" -m 3M
bad bad-size-small "memory '8M'" -m 8M
bad bad-cpus-word "cpus 'two'" --cpus two
bad bad-timeout-zero "timeout '0'" --timeout 0
bad bad-timeout-word "timeout 'soon'" --timeout soon
bad bad-console-empty "console ''" --console ''
bad bad-console-dir "console '$TMP/dir'" --console "$TMP/dir"
bad bad-ecam "ecam 'rw'" --ecam rw
bad bad-pci-pio "pci-pio 'maybe'" --pci-pio maybe
bad bad-pci-both-off 'no way to reach PCI config space' \
	--pci-pio off --ecam off
bad bad-pci-buses "pci-buses '0'" --pci-buses 0
bad bad-pci-buses-many "pci-buses '257'" --pci-buses 257
bad bad-xen-platform "xen-platform 'yes'" --xen-platform yes
bad bad-xen-bar-mtrr "xen-bar-mtrr 'wc'" --xen-bar-mtrr wc
bad bad-fw-tiny 'too small to hold a reset vector' --firmware "$TMP/tiny.bin"
bad bad-kernel-dir "kernel '$TMP/dir'" --kernel "$TMP/dir"
bad bad-kernel-trunc "kernel '$TMP/trunc.elf'" --kernel "$TMP/trunc.elf"
bad bad-initrd-alone 'initrd needs --kernel' --initrd "$TMP/empty"
bad bad-initrd-missing "initrd '$TMP/nope'" --kernel "$GUESTS/hello.elf" \
	--initrd "$TMP/nope"
bad bad-initrd-empty 'empty file' --kernel "$GUESTS/hello.elf" \
	--initrd "$TMP/empty"
bad bad-msr-policy-missing "$TMP/nope:1:1: error: cannot read" \
	--msr-policy "$TMP/nope"
bad bad-msr-policy-syntax 'bad.policy:1:6: error: unknown action' \
	--msr-policy "$TMP/bad.policy"
bad bad-msr-preset "unknown preset 'nope'" --msr-policy preset:nope
bad bad-msr-rule '--msr:1:1: error: unknown MSR name' --msr 'NOPE deny'
bad bad-msr-x2apic 'x2APIC MSRs 0x800-0x8ff cannot be filtered' \
	--msr '0x802 deny'
bad bad-msr-default "msr-default 'maybe'" --msr-default maybe
many=()
for i in $(seq 65); do many+=(--msr "0x10 allow"); done
bad bad-msr-too-many 'too many --msr rules \(64\)' "${many[@]}"
bad bad-msr-check 'unknown action' --msr-policy-check "$TMP/bad.policy"
bad bad-append-long 'command line is longer' --kernel "$GUESTS/hello.elf" \
	--append "$(head -c 5000 /dev/zero | tr '\0' x)"
bad bad-exit-style "exit-style 'xen'" --exit-style xen
bad bad-cpuid "'warp': unknown CPUID feature" --cpuid +warp
bad bad-cpuid-form 'expected .name or -name' --cpuid x2apic
bad bad-pci-testdev "pci-testdev 'yes'" --pci-testdev yes
# Multiboot kernels with a header asking for what minivmm cannot give,
# one with a bad checksum, one below the IVT.
mb() {	# mb FILE FLAGS CHECKSUM-DELTA PADDR
	python3 - "$@" <<'EOF2'
import struct, sys
path, flags, delta, paddr = sys.argv[1], int(sys.argv[2], 0), \
    int(sys.argv[3]), int(sys.argv[4], 0)
eh = b"\x7fELF\x01\x01\x01" + bytes(9) + struct.pack("<HHIIIIIHHHHHH",
    2, 3, 1, paddr, 52, 0, 0, 52, 32, 1, 0, 0, 0)
ph = struct.pack("<IIIIIIII", 1, 0x200, paddr, paddr, 16, 16, 5, 16)
img = bytearray(eh + ph)
img += bytes(0xb0 - len(img))
img += struct.pack("<III", 0x1badb002, flags,
                   (-(0x1badb002 + flags) + delta) & 0xffffffff)
img += bytes(0x200 - len(img)) + b"\xf4" * 16
open(path, "wb").write(img)
EOF2
}
mb "$TMP/mb-video.elf" 4 0 0x100000
mb "$TMP/mb-sum.elf" 0 1 0x100000
mb "$TMP/mb-ivt.elf" 0 0 0x100
bad bad-kernel-mb-video "asks for a video mode" --kernel "$TMP/mb-video.elf"
bad bad-kernel-mb-checksum "bad checksum" --kernel "$TMP/mb-sum.elf"
bad bad-kernel-mb-low "not in free RAM below 1 MiB" --kernel "$TMP/mb-ivt.elf"
# --msr-default deny leaves the architectural MSRs to KVM: the firmware
# and a payload boot, and an MSR no one implements still faults.
vm msr-default-deny 30 --msr-default deny --kernel "$GUESTS/hello.elf" \
	--append "expect-ram=256"
expect msr-default-deny 0 'hello: all checks passed' 'guest test-exit 0x0'
vm msr-default-deny-msrs 30 --msr-default deny --kernel "$GUESTS/msr.elf" \
	--append "rd:0x12340000=gp wr:0x12340000:1=gp rd:0x19a=gp rd:0x277=any wr:0xc0000102:5=ok rd:0xc0000102=5"
expect msr-default-deny-msrs 0 'msr: 0 failure' 'guest test-exit 0x0'

# Output paths are only used at exit: the run keeps its own status and the
# failure is one line at the end (docs/bad-input.md).
vm bad-stats-json-dir 30 --stats-json "$TMP/dir/x/y.json"
expect bad-stats-json-dir 0 '' "cannot write --stats-json '$TMP/dir/x/y.json'"
vm bad-dump-acpi-file 30 --dump-acpi "$TMP/tiny.bin"
expect bad-dump-acpi-file 0 '' 'dump-acpi: no tables written'
exit 0
