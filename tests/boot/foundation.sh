#!/bin/bash
# Foundation: the firmware boots and exits, payloads enter through PVH, and
# every way a run ends has its documented status.
. "$(dirname "$0")/lib.sh"

vm banner 30
expect banner 0 '^minivmm firmware ' 'test-exit'
grep -qE '^machine: 256 MiB RAM, 1 CPU\(s\)' "$TMP/banner.out" &&
	pass banner-default-machine || fail banner "default machine line"

vm big 30 -m 1G -c 2
expect big 0 '^machine: 1024 MiB RAM, 2 CPU\(s\)'

vm highmem 30 -m 4G
expect highmem 0 '^machine: 4096 MiB RAM, 1 CPU\(s\)'

vm hello 30 --kernel "$GUESTS/hello.elf" --append "expect-ram=256 hi"
expect hello 0 'hello from payload'

vm timeout 60 --timeout 1 --kernel "$GUESTS/spin.elf"
expect timeout 124 'spinning' 'timeout'

vm triple 30 --kernel "$GUESTS/triple.elf"
expect triple 4 'triple fault next' 'triple fault'

# xrstor in ring 0: the PVM host's emulator gives up (status 5 and the
# report); on hardware virtualization the CPU runs it (the payload says so).
vm emufail 30 --kernel "$GUESTS/emufail.elf"
if host_emulates_ring0; then
	expect emufail 5 '' 'RIP 0x[0-9a-f]+.*64-bit'
	grep -qE 'bytes at RIP: [0-9a-f]{2}' "$TMP/emufail.err" &&
		grep -qE 'CR0 0x[0-9a-f]+ +CR2 .*EFER' "$TMP/emufail.err" &&
		pass emufail-report ||
		fail emufail "report lacks bytes or registers"
else
	expect emufail 1 'emufail: xrstor executed'
fi

vm stats 30 --stats --stats-json "$TMP/stats.json"
expect stats 0 '' 'exits by reason'
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
assert d['exit_status']==0 and d['exits']['io']>0 and d['pio']" \
	"$TMP/stats.json" && pass stats-json || fail stats "bad stats json"

vm timing 30 --timing --kernel "$GUESTS/hello.elf"
expect timing 0 '' 'first guest instruction'
grep -q 'payload entry' "$TMP/timing.err" && pass timing-payload ||
	fail timing "no payload entry milestone"

vm confile 30 --console "$TMP/console.txt"
expect confile 0
grep -q '^minivmm firmware' "$TMP/console.txt" && pass console-file ||
	fail confile "banner not in the console file"
[ ! -s "$TMP/confile.out" ] && pass console-file-stdout-empty ||
	fail confile "guest output leaked to stdout"

vm connone 30 --console none
expect connone 0
[ ! -s "$TMP/connone.out" ] && pass console-none ||
	fail connone "output with --console none"

# Bad input: one clear line on stderr and status 2, before the guest runs.
bad() {
	local name=$1 regex=$2
	shift 2
	vm "$name" 30 "$@"
	expect "$name" 2 '' "$regex"
	[ "$(wc -l <"$TMP/$name.err")" -eq 1 ] && pass "$name-one-line" ||
		fail "$name" "expected exactly one line on stderr"
}
mkdir -p "$TMP/dir"
head -c $((2 * 1024 * 1024)) /dev/zero >"$TMP/huge.bin"
echo "not an elf" >"$TMP/notelf"
bad bad-option 'unknown option' --frobnicate
bad bad-size-suffix "memory '12Q'" -m 12Q
bad bad-size-zero "memory '0'" -m 0
bad bad-size-host 'more than this host has' -m 64T
bad bad-cpus-zero "cpus '0'" --cpus 0
bad bad-cpus-many "cpus '100000'" --cpus 100000
bad bad-fw-missing "firmware '$TMP/nope'" --firmware "$TMP/nope"
bad bad-fw-dir 'not a regular file' --firmware "$TMP/dir"
bad bad-fw-huge 'too large' --firmware "$TMP/huge.bin"
bad bad-kernel-missing "kernel '$TMP/nope'" --kernel "$TMP/nope"
bad bad-kernel-notelf 'neither a bzImage, an ELF' --kernel "$TMP/notelf"
bad bad-timeout 'timeout' --timeout -1
bad bad-extra-arg 'unexpected argument' stray
exit 0
