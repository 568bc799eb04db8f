#!/bin/bash
# The MSR policy seen from the guest: build/guests/msr.elf runs the checks
# named on its command line (tests/guest/msr.c) and exits 0 only if every
# one held.  One boot per configuration: each action and preset on
# THERM_CONTROL (0x19a) and an MSR nobody implements, per-vCPU emulation,
# the --stats table and JSON, random hammering, and bad policy input.
. "$(dirname "$0")/lib.sh"

K="$GUESTS/msr.elf"
DATA=tests/unit/data
U=0x12340000		# unknown to KVM and to every preset
TC=0x19a		# IA32_THERM_CONTROL
# MSR_EMUL_MAX / MSR_STATS_MAX: the per-vCPU store and the stats table.
EMUL_MAX=$(sed -n 's/^#define MSR_EMUL_MAX[[:space:]]*\([0-9]*\).*/\1/p' \
	vmm/msr/exit.h)
STATS_MAX=$(sed -n 's/^#define MSR_STATS_MAX[[:space:]]*\([0-9]*\).*/\1/p' \
	vmm/msr/exit.h)
HOST_MSR=no
[ -r /dev/cpu/0/msr ] && HOST_MSR=yes

# guest NAME CHECKS [VMM ARGS...]: boots the payload, statistics in
# $TMP/NAME.json.
guest() {
	local name=$1 checks=$2
	shift 2
	vm "$name" 30 --kernel "$K" --append "$checks" \
		--stats-json "$TMP/$name.json" "$@"
}

# ok NAME CHECKS [VMM ARGS...]: every check must hold.
ok() {
	guest "$@"
	expect "$1" 0 'msr: 0 failure' "guest test-exit 0x0"
}

# jcheck NAME RUN PYTHON-EXPR: EXPR holds over the JSON of boot RUN, with
# d = the document, m = its msrs by index, t = msr_totals, and their sums
# exits = reads + writes, gps = gp.
jcheck() {
	local name=$1 run=$2 expr=$3
	if python3 - "$TMP/$run.json" "$expr" >"$TMP/$name.py" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
m = {e["index"]: e for e in d["msrs"]}
t = d["msr_totals"]
exits = sum(e["reads"] + e["writes"] for e in m.values())
gps = sum(e["gp"] for e in m.values())
if not eval(sys.argv[2]):
    print("false:", sys.argv[2])
    print("msr_totals:", t)
    for i in sorted(m)[:8]:
        print("  ", m[i])
    sys.exit(1)
EOF
	then
		pass "$name"
	else
		fail "$name" "stats JSON of $run"
		sed 's/^/    /' "$TMP/$name.py"
	fi
}

# --- each action on THERM_CONTROL and an unknown MSR (default allow) -------

# allow: KVM implements neither, so each access exits as "unknown to KVM",
# which no rule explains: #GP, counted as unattributed.
ok act-allow "rd:$TC=gp wr:$TC:0x10=gp rd:$U=gp wr:$U:1=gp" \
	--msr "$TC allow" --msr "$U allow"
jcheck act-allow-unattributed act-allow \
	"m[0x19a]['unattributed'] == 2 and m[$U]['unattributed'] == 2"
# Silent denials (deny without log or count): KVM's filter raises the #GP
# itself, no exit, unless another denied access needs one (PVM's system
# call fix watches LSTAR: --syscall-fix off keeps the guest ring 0 here).
ok act-deny "rd:$TC=gp wr:$TC:0x10=gp rd:$U=gp wr:$U:1=gp" \
	--msr "$TC deny" --msr "$U deny" --syscall-fix off --stats
jcheck act-deny-in-kvm act-deny \
	"t['silent_denials_in_kvm'] and 0x19a not in m and $U not in m \
and d['exits'].get('rdmsr', 0) + d['exits'].get('wrmsr', 0) == \
exits + t['untracked']"
grep -q "silent denials .*#GP from KVM's filter without an exit, not counted" \
	"$TMP/act-deny.err" && pass act-deny-stats-says ||
	fail act-deny "--stats does not say silent denials go uncounted"
ok act-deny-count "rd:$TC=gp wr:$TC:0x10=gp rd:$U=gp wr:$U:1=gp" \
	--msr "$TC deny,count" --msr "$U deny,count" --syscall-fix off
jcheck act-deny-count-stats act-deny-count \
	"not t['silent_denials_in_kvm'] and m[0x19a]['gp'] == 2 \
and m[$U]['gp'] == 2 and t['unattributed'] == 0"
# One rule that needs an answer from the table makes every denial exit.
ok act-deny-mixed "rd:$TC=gp wr:$TC:0x10=gp rd:$U=5" \
	--msr "$TC deny" --msr "$U value=5" --syscall-fix off
jcheck act-deny-mixed-stats act-deny-mixed \
	"not t['silent_denials_in_kvm'] and m[0x19a]['gp'] == 2"
ok act-ignore "rd:$TC=0 wr:$TC:0x10=ok rd:$TC=0 rd:$U=0 wr:$U:1=ok rd:$U=0" \
	--msr "$TC ignore" --msr "$U ignore"
ok act-value "rd:$TC=0x10 wr:$TC:0=ok rd:$TC=0x10 rd:$U=0xfedcba9876543210 \
wr:$U:1=ok rd:$U=0xfedcba9876543210" \
	--msr "$TC value=0x10" --msr "$U value=0xfedcba9876543210"
ok act-value-wgp "rd:$TC=0x10 wr:$TC:0=gp rd:$TC=0x10 rd:$U=7 wr:$U:7=gp" \
	--msr "$TC value=0x10,wgp" --msr "$U value=7,wgp"
ok act-emulate "rd:$TC=0 wr:$TC:0x1e=ok rd:$TC=0x1e rd:$U=0 \
wr:$U:0xffffffffffffffff=ok rd:$U=0xffffffffffffffff" \
	--msr "$TC emulate" --msr "$U emulate"
ok act-emulate-init "rd:$TC=0x10 wr:$TC:0=ok rd:$TC=0 rd:$U=0x8000000000000001 \
wr:$U:2=ok rd:$U=2" \
	--msr "$TC emulate=0x10" --msr "$U emulate=0x8000000000000001"
# Direction: reads get the value, writes keep the default (allow: KVM
# does not know 0x19a, so #GP).
ok act-read-only "rd:$TC=0x10 wr:$TC:0x10=gp" --msr "$TC r value=0x10"
ok act-log "rd:$TC=0x10 wr:$TC:0x3=ok" --msr "$TC value=0x10,log"
grep -qE 'rdmsr 0x19a IA32_THERM_CONTROL -> 0x10' "$TMP/act-log.err" &&
	grep -qE 'wrmsr 0x19a IA32_THERM_CONTROL <- 0x3' "$TMP/act-log.err" &&
	pass act-log-lines || fail act-log "no log line per access"

# host: needs /dev/cpu/N/msr.  Without the msr driver a rule with no
# fallback must stop the VMM at start-up; with =V the run goes on with a
# warning and reads give V.
if [ "$HOST_MSR" = no ]; then
	vm act-host 30 --kernel "$K" --append "rd:$TC=0" --msr "$TC host"
	expect act-host 2 '' '/dev/cpu/0/msr.*msr driver'
	[ "$(wc -l <"$TMP/act-host.err")" -eq 1 ] && pass act-host-one-line ||
		fail act-host "expected exactly one line on stderr"
	ok act-host-fallback "rd:$TC=0x77 wr:$TC:1=ok rd:$TC=0x77 rd:$U=0x78" \
		--msr "$TC host=0x77" --msr "$U host=0x78"
	grep -q 'warning: .*host MSR reads' "$TMP/act-host-fallback.err" &&
		pass act-host-fallback-warning ||
		fail act-host-fallback "no warning about host MSR reads"
	ok act-host-wgp "rd:$TC=0x77 wr:$TC:1=gp" --msr "$TC host=0x77,wgp"
else
	# SYSENTER_CS exists on every x86_64 host CPU; compare with CPU 0's
	# value (the kernel's code selector, the same on every CPU).
	hv=$(python3 -c "import os,struct; f=os.open('/dev/cpu/0/msr', \
os.O_RDONLY); print(hex(struct.unpack('<Q', os.pread(f, 8, 0x174))[0]))")
	ok act-host "rd:0x174=$hv wr:0x174:0x5=ok rd:0x174=$hv" \
		--msr "0x174 host"
	ok act-host-wgp "rd:0x174=$hv wr:0x174:0=gp" --msr "0x174 host,wgp"
fi

# --- presets ----------------------------------------------------------------

ok preset-kvm "rd:$TC=gp wr:$TC:0x10=gp rd:$U=gp wr:$U:1=gp \
rd:0x174=any wr:0x174:0x5=ok rd:0x174=5" --msr-policy preset:kvm
# KVM handles SYSENTER_CS itself: no exit, so no line in the statistics.
jcheck preset-kvm-allow-no-exit preset-kvm \
	"0x174 not in m and m[0x19a]['unattributed'] == 2"
XS="rd:0x198=0 wr:0x198:0=gp rd:0x199=0 wr:0x199:0x1234=ok rd:0x199=0 \
rd:0x19c=0 wr:0x19c:0=gp rd:0xc0010064=0 wr:0xc0010064:1=ok \
rd:0x174=any wr:0x174:0x5=ok rd:0x174=5"
ok preset-xen-strict "rd:$TC=gp wr:$TC:0x10=gp rd:$U=gp wr:$U:1=gp \
rd:0x1b0=gp rd:0x35=gp $XS" --msr-policy preset:xen-strict
jcheck preset-xen-strict-allow-no-exit preset-xen-strict \
	"0x174 not in m and m[0x19a]['gp'] == 2 and m[$U]['gp'] == 2"
ok preset-xen-relaxed "rd:$TC=0 wr:$TC:0x10=ok rd:$TC=0 rd:$U=0 wr:$U:1=ok \
rd:$U=0 rd:0x35=0 $XS" --msr-policy preset:xen-relaxed
if [ "$HOST_MSR" = no ]; then THERM=0; else THERM=any; fi
ok preset-therm-compat "rd:$TC=$THERM wr:$TC:0x10=gp rd:0x1b0=$THERM \
wr:0x1b0:0=gp rd:$U=gp wr:$U:1=gp $XS" --msr-policy preset:therm-compat
# Rules after a preset refine it: Xen's read-only THERM_CONTROL.
ok preset-refined "rd:$TC=0x10 wr:$TC:0=gp rd:$U=gp" \
	--msr-policy preset:xen-strict --msr "$TC r value=0x10"
ok policy-file "rd:$TC=0x10 wr:$TC:0x10=ok rd:$TC=0x10 rd:$U=0x5a \
wr:$U:3=ok rd:$U=3 rd:0x12340001=0*3 wr:0x12340001:0=gp rd:0x199=0x800 \
wr:0x199:0=gp rd:0x1b0=gp" --msr-policy "$DATA/msr_guest.policy"

# --- per-vCPU emulation (vCPU 1 started by the payload with INIT/SIPI) -------

# A second smp: check restarts the parked vCPU 1 with INIT/SIPI.
ok smp-emulate "smp:$U:0x10:0x1111:0x2222 smp:0x12340001:0x10:0x3333:0x4444" \
	-c 2 --msr "$U-0x12340001 emulate=0x10"
ok smp-emulate-therm "smp:$TC:0:0xaaaa:0x5555" -c 2 \
	--msr-policy preset:xen-strict --msr "$TC emulate"
# Negative control: value= is not per-vCPU, so the same check must fail.
guest smp-value "smp:$U:7:0x1111:0x2222" -c 2 --msr "$U value=7"
expect smp-value 1 'FAIL: .*vcpu1 does not read back its write'

# --- statistics: counts, allow vs exits, the text table, the JSON -----------

ST="rd:$U=0*5 wr:$U:9=ok*3 rd:0x174=any*2 wr:0x174:0x5=ok rd:0xc0000102=any \
wr:0xc0000102:0x1000=ok rd:0xc0000102=0x1000 rd:$TC=0x10*4 wr:$TC:1=gp"
echo stale >"$TMP/stats.json"
before=$(stat -c %i "$TMP/stats.json")
ok stats "$ST" --stats --msr-policy preset:xen-strict \
	--msr "$U ignore,count" --msr "SYSENTER_CS allow,count" \
	--msr "$TC r value=0x10"
jcheck stats-count stats \
	"(m[$U]['reads'], m[$U]['writes'], m[$U]['gp']) == (5, 3, 0)"
# allow,count exits (and goes through KVM: the write reads back); plain
# allow (KERNEL_GS_BASE under xen-strict) never exits.
jcheck stats-allow-count stats \
	"(m[0x174]['reads'], m[0x174]['writes']) == (2, 1) and 0xc0000102 not in m"
jcheck stats-fields stats \
	"m[0x19a]['name'] == 'IA32_THERM_CONTROL' and m[0x19a]['reads'] == 4 \
and m[0x19a]['writes'] == 1 and m[0x19a]['gp'] == 1 \
and m[0x19a]['read_action'] == 'value=0x10' \
and m[0x19a]['write_action'] == 'deny' \
and m[$U]['read_action'] == 'ignore,count'"
jcheck stats-totals stats \
	"t['exits'] == exits + t['untracked'] and t['gp'] == gps"
grep -qE '^  0x0000019a IA32_THERM_CONTROL +4 +1 +1  r:value=0x10 w:deny$' \
	"$TMP/stats.err" &&
	grep -qE '^  0x12340000 - +5 +3 +0  r:ignore,count w:ignore,count$' \
		"$TMP/stats.err" &&
	! grep -qE '^  0xc0000102 ' "$TMP/stats.err" &&
	pass stats-table || fail stats "--stats table lacks the MSR lines"
# The text table and the JSON list the same MSRs.
txt=$(sed -n 's/^  0x\([0-9a-f]\{8\}\) .*/\1/p' "$TMP/stats.err" | tr '\n' ' ')
js=$(python3 -c "import json,sys; print(' '.join('%08x' % e['index'] for e \
in json.load(open(sys.argv[1]))['msrs']) + ' ')" "$TMP/stats.json")
[ -n "$txt" ] && [ "$txt" = "$js" ] && pass stats-text-json-same ||
	fail stats "table lists '$txt', JSON '$js'"
# Written atomically: a new file renamed over the old, no temporary left.
after=$(stat -c %i "$TMP/stats.json")
[ "$before" != "$after" ] && ! ls "$TMP" | grep -q 'stats\.json\..' &&
	pass stats-json-atomic || fail stats "JSON not replaced by a rename"

# The emulated-MSR store and the stats table are bounded: the first
# EMUL_MAX distinct writes succeed, later new ones #GP; MSRs past STATS_MAX
# are counted as untracked.
N=$((EMUL_MAX + 4))
ok fill "fill:0x50000000:$N:$EMUL_MAX rd:0x50000000=0x50000000 \
rd:$(printf '%#x' $((0x50000000 + EMUL_MAX - 1)))=$(printf '%#x' \
$((0x50000000 + EMUL_MAX - 1))) rd:0x50001fff=3 wr:0x50000005:9=ok \
rd:0x50000005=9" --msr "0x50000000-0x50001fff emulate=3"
# o: MSRs outside the filled range (any the firmware made exit, seen first).
jcheck fill-stats fill \
	"[o := [e for i, e in m.items() if not 0x50000000 <= i <= 0x50001fff]] \
and len(m) == $STATS_MAX and t['untracked'] == $N + 1 - ($STATS_MAX - len(o)) \
and t['gp'] - sum(e['gp'] for e in o) == 4 \
and t['exits'] - sum(e['reads'] + e['writes'] for e in o) == $N + 5"

# --- hammer: random indices and values; the VMM must stay up ----------------

# hammer NAME SEED [VMM ARGS...]
hammer() {
	local name=$1 seed=$2 line gp x2
	shift 2
	guest "$name" "hammer=$seed iters=1500" "$@"
	expect "$name" 0 "hammer: seed $seed: .* other=0" "guest test-exit 0x0"
	line=$(grep -m1 '^hammer: seed' "$TMP/$name.out")
	gp=$(sed -n 's/.* gp=\([0-9]*\) .*/\1/p' <<<"$line")
	x2=$(sed -n 's/.* gp-x2apic=\([0-9]*\) .*/\1/p' <<<"$line")
	# Every #GP outside the x2APIC range is the VMM's answer to an exit.
	[ -n "$gp" ] && jcheck "$name-stats" "$name" \
		"(t['silent_denials_in_kvm'] or $gp - $x2 <= t['gp']) \
and t['gp'] <= $gp and t['exits'] >= t['gp'] \
and t['exits'] == exits + t['untracked']"
}
hammer hammer-kvm 1 --msr-policy preset:kvm
hammer hammer-xen-strict 2 --msr-policy preset:xen-strict
hammer hammer-xen-relaxed 3 --msr-policy preset:xen-relaxed
hammer hammer-therm-compat 4 --msr-policy preset:therm-compat
hammer hammer-mixed 5 --msr-policy preset:xen-relaxed \
	--msr "0x40000000-0x400001ff emulate=1" \
	--msr "0xc0010000-0xc0011fff value=0x5a,wgp,log" \
	--msr "0x0-0x7 rw ignore,count" --msr "0x4b564d00-0x4b564dff deny,log"

# --- bad input: one line "FILE:LINE:COL: error: ..." and status 2 -----------

# bad NAME REGEX VMM-ARGS...: the VMM refuses before running the guest.
bad() {
	local name=$1 regex=$2
	shift 2
	vm "$name" 30 --kernel "$K" --append "rd:$TC=any" "$@"
	expect "$name" 2 '' "$regex"
	[ "$(wc -l <"$TMP/$name.err")" -eq 1 ] && pass "$name-one-line" ||
		fail "$name" "expected exactly one line on stderr"
	[ ! -s "$TMP/$name.out" ] && pass "$name-guest-never-ran" ||
		fail "$name" "the guest ran"
}
P="^minivmm: $DATA/msr_bad"
bad bad-action "${P}_action.policy:5:7: error: unknown action 'frobnicate'" \
	--msr-policy "$DATA/msr_bad_action.policy"
bad bad-number "${P}_number.policy:3:15: error: malformed number '0x1O'" \
	--msr-policy "$DATA/msr_bad_number.policy"
bad bad-range "${P}_range.policy:4:1: error: range end 0xc00100ff is below" \
	--msr-policy "$DATA/msr_bad_range.policy"
bad bad-index "${P}_index.policy:4:3: error: .*'0x10000019a'.* 32 bits" \
	--msr-policy "$DATA/msr_bad_index.policy"
bad bad-preset-file \
	"${P}_preset.policy:3:8: error: unknown preset 'xen-strictest'" \
	--msr-policy "$DATA/msr_bad_preset.policy"
bad bad-preset "^minivmm: --msr-policy:1:8: error: unknown preset 'nope'" \
	--msr-policy preset:nope
bad bad-missing "^minivmm: $TMP/nope:1:1: error: cannot read .*No such file" \
	--msr-policy "$TMP/nope"
mkdir -p "$TMP/dir"
bad bad-dir "^minivmm: $TMP/dir:1:1: error: cannot read .*directory" \
	--msr-policy "$TMP/dir"
bad bad-msr-action "^minivmm: --msr:2:7: error: unknown action 'frob'" \
	--msr "$TC deny" --msr "$TC frob"
bad bad-msr-number "^minivmm: --msr:1:13: error: .*'0x10000000000000000'" \
	--msr "$TC value=0x10000000000000000"
bad bad-msr-range "^minivmm: --msr:1:1: error: range end 0xff is below" \
	--msr "0x100-0xff deny"
bad bad-msr-index "^minivmm: --msr:1:6: error: .*'0x100000000'.* 32 bits" \
	--msr "0x10-0x100000000 deny"
bad bad-x2apic "^minivmm: --msr:1:1: error: x2APIC" --msr "0x830 ignore"
# Unreadable: root reads anything, so check as nobody when root (the
# policy check needs no /dev/kvm, unlike a run).
echo "$TC deny" >"$TMP/unreadable.policy"
chmod 000 "$TMP/unreadable.policy"
if [ "$(id -u)" != 0 ]; then
	vm bad-unreadable 30 --msr-policy-check "$TMP/unreadable.policy"
elif command -v setpriv >/dev/null; then
	chmod 755 "$TMP"
	timeout -k 5 30 setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		"$(readlink -f "$MINIVMM")" \
		--msr-policy-check "$TMP/unreadable.policy" </dev/null \
		>"$TMP/bad-unreadable.out" 2>"$TMP/bad-unreadable.err"
	status=$?
else
	echo "SKIP: bad-unreadable (root, and no setpriv to drop privileges)"
fi
[ -f "$TMP/bad-unreadable.err" ] && expect bad-unreadable 2 '' \
	"^minivmm: $TMP/unreadable.policy:1:1: error: cannot read .*Permission denied"

# No sanitizer report from any run (MINIVMM=build-asan/minivmm).
if grep -lE 'ERROR: [A-Za-z]+Sanitizer|runtime error:' "$TMP"/*.err \
	>"$TMP/sanitizer.list" 2>/dev/null; then
	fail sanitizer "reports in: $(tr '\n' ' ' <"$TMP/sanitizer.list")"
else
	pass sanitizer-clean
fi
exit 0
