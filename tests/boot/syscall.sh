#!/bin/bash
# System calls from guest user mode (vmm/pvm/syscall.c).  The payloads
# check from inside the guest that SYSCALL and int n enter the kernel as
# the CPU does and that faults still reach the guest: syscall, int80,
# syscall_smp (4 vCPUs calling at once) and syscall_rearm (LSTAR, the IDT
# and a gate changed while running).  --stats-json counts what minivmm
# completed.  On PVM hosts (kvm_pvm) the fix is on by default and said
# once on stderr; elsewhere it stays off and the CPU does the work.  Also:
# --syscall-fix off (the host's own behaviour: the handler runs in ring 3),
# the MSR policy still deciding what LSTAR writes do, and bad values.
. "$(dirname "$0")/lib.sh"

PVM=no
[ -e /sys/module/kvm_pvm ] && PVM=yes

# jcheck NAME RUN EXPR: EXPR holds over RUN's --stats-json (d the JSON,
# f its "syscall_fix" object, {} without one).
jcheck() {
	if python3 - "$TMP/$2.json" "$3" >"$TMP/$1.py" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = d.get("syscall_fix", {})
if not eval(sys.argv[2]):
    print("false:", sys.argv[2])
    print("syscall_fix:", f, "exits:", d.get("exits"))
    sys.exit(1)
EOF
	then
		pass "$1"
	else
		fail "$1" "stats JSON of $2"
		sed 's/^/    /' "$TMP/$1.py"
	fi
}

# guest NAME ELF [ARGS...]: the payload must report no failure.
guest() {
	local name=$1 elf=$2
	shift 2
	vm "$name" 120 --kernel "$GUESTS/$elf.elf" \
		--stats-json "$TMP/$name.json" "$@"
	expect "$name" 0 "$elf: 0 failure" 'guest test-exit 0x0'
}

# fix NAME RUN EXPR: on PVM hosts EXPR holds; elsewhere the fix stayed
# off.
fix() {
	if [ $PVM = yes ]; then
		jcheck "$1" "$2" "$3"
	else
		jcheck "$1" "$2" 'f == {}'
	fi
}

guest syscall syscall
# The genuine faults reach the library's handlers (push $0 first): the
# push is done by minivmm, one exit each and no single step.
fix syscall-stats syscall 'f["syscalls"] == 102 and f["faults_passed"] >= 3 and f["pushes_done"] >= 3 and f["single_steps"] == 0 and f["trap_targets"] == 3 and d["exits"]["debug"] >= 102'
if [ $PVM = yes ]; then
	[ "$(grep -c 'syscall fix on' "$TMP/syscall.err")" -eq 1 ] &&
		pass "syscall: said once on stderr" ||
		fail syscall "no single 'syscall fix on' line on stderr"
fi

guest int80 int80
fix int80-stats int80 'f["int80"] == 102 and f["int_other"] == 1 and f["faults_passed"] >= 3'
# No LSTAR: the DPL-3 gate alone arms the breakpoints.
guest int80-nolstar int80 --append nolstar
fix int80-nolstar-stats int80-nolstar 'f["int80"] == 102 and f["syscalls"] == 0'

guest smp syscall_smp -c 4 --append "cpus=4 iters=200"
fix smp-stats smp 'f["syscalls"] == 4 * 201 and f["int80"] == 4 * 200 and f["rearms"] >= 4'

guest rearm syscall_rearm
# Skipped: the other #PF handlers' nopl and endbr64; stepped: the other
# #UD handler's cld; pushes: the library's handlers.
fix rearm-stats rearm 'f["syscalls"] == 5 and f["int80"] == 5 and f["rearms"] >= 4 and f["nop_skips"] >= 2 and f["single_steps"] >= 1 and f["pushes_done"] >= 1'

# --syscall-fix off: what the host does by itself.
vm off 60 --kernel "$GUESTS/syscall.elf" --syscall-fix off \
	--stats-json "$TMP/off.json"
if [ $PVM = yes ]; then
	expect off 1 'FAIL: the LSTAR handler ran with CS 0x33'
	! grep -q 'syscall fix' "$TMP/off.err" &&
		pass "off: nothing said" || fail off "the fix spoke"
else
	expect off 0 'syscall: 0 failure'
fi
jcheck off-stats off 'f == {}'
vm on 60 --kernel "$GUESTS/syscall.elf" --syscall-fix on
expect on 0 'syscall: 0 failure'

# A snapshot taken after the first system call resumes with the
# completion in place (targets and breakpoints come back with the vCPUs);
# a restore without the completion is refused by name (CONFIG keeps the
# option: the conflict is found before the section).
vm snap-take 60 --kernel "$GUESTS/syscall.elf" --snapshot "$TMP/sc.snap" \
	--snapshot-at "console:syscall: handler CS"
expect snap-take 0 '' 'snapshot written'
vm snap-restore 60 --restore "$TMP/sc.snap" --stats-json "$TMP/snap-restore.json"
expect snap-restore 0 'syscall: 0 failure' 'guest test-exit 0x0'
fix snap-restore-stats snap-restore 'f["syscalls"] == 101 and f["rearms"] >= 1'
if [ $PVM = yes ]; then
	vm snap-off 60 --restore "$TMP/sc.snap" --syscall-fix off
	expect snap-off 2 '' '--syscall-fix conflicts'
fi

# The MSR policy still decides: a denied LSTAR write faults and changes
# nothing; an emulated one never reaches KVM; an allowed one reads back as
# written whatever KVM holds.
MSR="$GUESTS/msr.elf"
vm lstar-deny 60 --kernel "$MSR" --msr "0xc0000082 w deny" \
	--append "wr:0xc0000082:0x101000=gp rd:0xc0000082=0"
expect lstar-deny 0 'msr: 0 failure'
vm lstar-emulate 60 --kernel "$MSR" --msr "0xc0000082 rw emulate=0x5" \
	--append "rd:0xc0000082=0x5 wr:0xc0000082:0x101000=ok rd:0xc0000082=0x101000"
expect lstar-emulate 0 'msr: 0 failure'
vm lstar-allow 60 --kernel "$MSR" --msr-policy preset:xen-strict \
	--append "wr:0xc0000082:0x101000=ok rd:0xc0000082=0x101000 wr:0xc0000084:0x700=ok rd:0xc0000084=0x700"
expect lstar-allow 0 'msr: 0 failure'

# Bad values: one line, status 2, no guest.
for v in maybe ON ''; do
	vm "bad-fix-$v" 30 --kernel "$GUESTS/syscall.elf" --syscall-fix "$v"
	expect "bad-fix-$v" 2 '' "--syscall-fix '$v': expected on, off or auto"
	[ "$(grep -c . "$TMP/bad-fix-$v.err")" -eq 1 ] &&
		[ ! -s "$TMP/bad-fix-$v.out" ] &&
		pass "bad-fix-$v: one line, no guest" ||
		fail "bad-fix-$v" "guest ran or more than one line"
done
