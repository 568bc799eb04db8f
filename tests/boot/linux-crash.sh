#!/bin/bash
# The crash test (issue 30): a write the guest was told is durable survives
# a SIGKILL of minivmm, and the file system stays consistent whatever the
# moment.  The kernel built for minivmm (cached), an initramfs with
# tests/boot/linux-crash-init.sh, one ext4 --disk.  The guest boots once,
# mounts the disk and is snapshotted (--snapshot-at port from user
# space); each round restores a copy of that machine with a copy of the
# image, the guest's writer (tests/linux/mvcrash.c) appends numbered
# records to /mnt/records, and the host SIGKILLs minivmm after a random
# delay (seed printed: MINIVMM_CRASH_SEED=S reruns one round's choice).
# After each kill, on the image:
#   1. e2fsck -E journal_only -y: replays the journal, as the next mount
#      would, and touches nothing else (no repair hides damage);
#   2. e2fsck -fn: must find nothing wrong (exit 0);
#   3. sync rounds (fsync after each record, "@@ ack N" on the console):
#      records 1..N, N the last acknowledged, all present and intact
#      (debugfs reads the file without mounting).
# Rounds: MINIVMM_CRASH_ROUNDS (20) with the fsync writer, alternately
# cache=writeback and cache=none where the image's file system has
# O_DIRECT, then MINIVMM_CRASH_NOSYNC_ROUNDS (5) with a writer that never
# syncs (the file system must stay consistent).  MINIVMM_CRASH_MIN_MS
# (1000) moves the kill window later where a restored guest is slow to
# start writing (a software CPU needs more than 3.5 s).  MINIVMM_CRASH_KERNEL and
# MINIVMM_CRASH_MODULES (a directory of .ko files with mods.order, loaded
# by the init in that order) boot another kernel, e.g. Debian's.
# Then the soak: one restore runs MINIVMM_SOAK_SECONDS (60; `make soak`
# 600) with disk, network and console traffic (mvcrash soak: records round
# a 4 MiB file, fdatasync every 256, every 1024th also a UDP datagram to
# the host end of the guest's tap, a console line every 4096); every 2 s the
# host samples minivmm's RSS and open descriptors.  After a warm-up (the
# first quarter) the descriptor count must not grow; the RSS at the end of
# the warm-up and at the end, and the growth, are printed (RSS: guest
# pages the guest touches count too, so it is reported, not asserted).
# Then the guest is stopped and its file system must be clean.  A
# minivmm that ends before it is killed or stopped fails its check with
# its report, the guest's last lines and the host KVM's log below
# (ended_early).  Normal build only.
# The network: as root with /dev/net/tun, the script runs again in a
# network namespace of its own (unshare -n) with a tap, mvcrash0
# (10.0.2.1/24); the guest has a virtio-net device on it from its first
# boot (so every restore has it too, the tap reopened by name) and eth0
# 10.0.2.15.  The soak then checks that the tap received the guest's
# datagrams in the warm-up and after it, and prints how many of those the
# guest counted arrived; the host sends the guest a datagram a second,
# and the guest's eth0 count must grow between its first and last "@@
# net" line.  Elsewhere the soak has no network, and says so.
if [ -z "${MINIVMM_CRASH_NETNS:-}" ] && [ "$(id -u)" = 0 ] &&
   [ -c /dev/net/tun ] && command -v unshare >/dev/null &&
   command -v ip >/dev/null; then
	MINIVMM_CRASH_NETNS=1 exec unshare -n bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

LIMIT=${MINIVMM_LINUX_TIMEOUT:-900}
ROUNDS=${MINIVMM_CRASH_ROUNDS:-20}
NOSYNC=${MINIVMM_CRASH_NOSYNC_ROUNDS:-5}
SOAK=${MINIVMM_SOAK_SECONDS:-60}
MIN_MS=${MINIVMM_CRASH_MIN_MS:-1000}	# the kill comes MIN_MS..MIN_MS+2.5 s in
SEED0=${MINIVMM_CRASH_SEED:-$(( $(date +%s) % 100000 ))}
ARGS="console=ttyS0 ${MINIVMM_LINUX_ARGS:-}"

if [ "$BUILD" = build-asan ]; then
	echo "SKIP: linux-crash (normal build only: a Linux boot is minutes)"
	exit 0
fi
for t in mkfs.ext4 debugfs e2fsck; do
	command -v "$t" >/dev/null ||
		{ fail linux-crash "$t not found (apt-get install e2fsprogs)"; exit 0; }
done
for t in mvsnap mvcrash; do
	[ -x "$BUILD/linux/$t" ] ||
		{ fail linux-crash "$BUILD/linux/$t missing (make all)"; exit 0; }
done
if [ -n "${MINIVMM_CRASH_KERNEL:-}" ]; then
	kernel=$MINIVMM_CRASH_KERNEL
else
	kdir=$(tools/build-kernel.sh) ||
		{ fail build-kernel "tools/build-kernel.sh failed"; exit 0; }
	kernel=$kdir/vmlinux
fi
mods=()
[ -n "${MINIVMM_CRASH_MODULES:-}" ] &&
	mods=("$MINIVMM_CRASH_MODULES"/*.ko "$MINIVMM_CRASH_MODULES/mods.order")
initrd=$(tools/mkinitramfs.sh tests/boot/linux-crash-init.sh \
	"$BUILD/linux/mvsnap" "$BUILD/linux/mvcrash" "${mods[@]}") ||
	{ fail mkinitramfs "tools/mkinitramfs.sh failed"; exit 0; }

NET=() TAP=
if [ -n "${MINIVMM_CRASH_NETNS:-}" ] && ip link set lo up &&
   ip tuntap add dev mvcrash0 mode tap &&
   ip addr add 10.0.2.1/24 dev mvcrash0 && ip link set mvcrash0 up; then
	TAP=mvcrash0
	NET=(--net tap=mvcrash0,mac=02:00:00:12:34:98)
	ARGS="$ARGS minivmm.ip=10.0.2.15 minivmm.host=10.0.2.1"
else
	echo "NOTE: the soak has no network here (needs root, /dev/net/tun, unshare and ip)"
fi

truncate -s 32M "$TMP/base.img"
mkfs.ext4 -q -F "$TMP/base.img"
S="$TMP/ready.snap"
t0=$SECONDS
vm take "$LIMIT" --kernel "$kernel" --initrd "$initrd" -m 256M \
	--append "$ARGS" --disk "$TMP/base.img" "${NET[@]}" \
	--snapshot "$S" --snapshot-at port
expect take 0 '^@@ crash: mounted' 'snapshot written to .*the guest asked'
if [ -n "$TAP" ]; then
	grep -q '^@@ crash: eth0 up' "$TMP/take.out" && pass take-eth0 ||
		fail take-eth0 "the guest did not bring eth0 up on the tap"
	grep -q '^@@ crash: the host answers' "$TMP/take.out" && pass take-ping ||
		fail take-ping "the guest's ping of the host's tap end went unanswered"
fi
echo "TIME: boot to the snapshot: $((SECONDS - t0)) s"
[ -s "$S" ] || { fail take "no snapshot"; exit 0; }

# cache=none where $TMP has O_DIRECT (not tmpfs before Linux 6.6).
modes=(writeback)
cp "$TMP/base.img" "$TMP/probe.img"
if "$MINIVMM" --restore "$S" --disk "$TMP/probe.img,cache=none" \
	--timeout 1 </dev/null >/dev/null 2>"$TMP/probe.err" ||
	! grep -q 'O_DIRECT' "$TMP/probe.err"; then
	modes=(writeback none)
else
	echo "NOTE: $TMP has no O_DIRECT: cache=writeback rounds only"
fi

# up: seconds since this machine booted, the kernel log's clock.
up() { cut -d' ' -f1 /proc/uptime; }

# ended_early CHECK NAME T0 WHY...: CHECK fails with WHY, and below it,
# indented (the FAIL block check-hw.sh judges), minivmm's report
# ($TMP/NAME.err), the guest's last console lines and what this kernel's
# KVM logged since T0 (up; dmesg needs root): a failed VM entry is
# explained only there (the VMCB kvm_amd dumps with dump_invalid_vmcb=1,
# as in the lane).  A recorded exception with a vector of 32 or more is
# named: only an external interrupt has such a vector, so the record is
# the CPU's error (QEMU 7.2's software CPU: docs/hw-lane.md).
ended_early() {
	local check=$1 name=$2 t0=$3 kvm v
	shift 3
	fail "$check" "$*"
	# The report on a vCPU's failure, else stderr's last lines (--stats
	# comes after the report).
	{ grep -m 1 -A 7 '^minivmm: .* on vCPU [0-9]*$' "$TMP/$name.err" ||
		tail -n 12 "$TMP/$name.err"; } | sed 's/^/    /'
	tr -d '\r' <"$TMP/$name.out" | tail -n 3 | sed 's/^/    guest: /'
	kvm=$(dmesg 2>/dev/null | awk -v t0="$t0" '
		{ ts = $0; sub(/^\[ */, "", ts); sub(/\].*/, "", ts) }
		ts + 1 >= t0 && /SVM|kvm/ && !/Unhandled [RW][DR]MSR/' |
		tail -n 80)
	[ -n "$kvm" ] || return 0
	sed 's/^/    host: /' <<<"$kvm"
	v=$(sed -n 's/.*exit_int_info: *800003\([0-9a-f][0-9a-f]\)$/\1/p' \
		<<<"$kvm" | tail -n 1)
	[ -n "$v" ] && [ $((16#$v)) -ge 32 ] &&
		echo "    host: exit_int_info 0x800003$v: an exception of vector" \
			"$((16#$v)), an external interrupt recorded as an exception"
	return 0
}

# round NAME WRITER MODE SEED: one restore, killed after a random delay;
# sets $acked (last "@@ ack N", 0 if none) and $written.
round() {
	local name=$1 writer=$2 mode=$3 seed=$4 pid delay t0
	RANDOM=$seed
	delay=$((MIN_MS + RANDOM % 2500))	# ms after the restore starts
	cp "$TMP/base.img" "$TMP/$name.img"
	t0=$(up)
	"$MINIVMM" --restore "$S" --disk "$TMP/$name.img,cache=$mode" \
		--append-env "WRITER=$writer" </dev/null \
		>"$TMP/$name.out" 2>"$TMP/$name.err" &
	pid=$!
	sleep "$((delay / 1000)).$(printf %03d $((delay % 1000)))"
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	status=$?
	acked=$(sed -n 's/^@@ ack \([0-9]*\)\r\{0,1\}$/\1/p' "$TMP/$name.out" | tail -n 1)
	acked=${acked:-0}
	written=$(sed -n 's/^@@ wrote \([0-9]*\)\r\{0,1\}$/\1/p' "$TMP/$name.out" | tail -n 1)
	echo "round $name: seed $seed, $writer, cache=$mode, killed after" \
		"$delay ms (status $status), acked ${acked}, wrote ${written:-?}"
	# 137: our SIGKILL; anything else means the guest or minivmm ended
	# first, and the round tested nothing.
	if [ "$status" = 137 ]; then
		pass "$name-killed"
	else
		ended_early "$name-killed" "$name" "$t0" \
			"minivmm ended before the kill (status $status)"
	fi
}

# fs_clean NAME: journal replayed, then a read-only full check.
fs_clean() {
	local img="$TMP/$1.img" rc
	e2fsck -E journal_only -y "$img" >"$TMP/$1.replay" 2>&1
	e2fsck -fn "$img" >"$TMP/$1.fsck" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "$1-fsck"
	else
		fail "$1-fsck" "e2fsck -fn exit $rc: $(grep -v '^Pass\|^e2fsck' "$TMP/$1.fsck" | head -n 3 | tr '\n' ' ')"
	fi
}

# records_kept NAME N: records 1..N of /records, intact.
records_kept() {
	local bad
	debugfs -R "cat /records" "$TMP/$1.img" >"$TMP/$1.records" 2>/dev/null
	bad=$(python3 - "$TMP/$1.records" "$2" <<'PY'
import sys
data, n = open(sys.argv[1], "rb").read(), int(sys.argv[2])
for i in range(1, n + 1):
    want = ("record %010u" % i).ljust(63, ".").encode() + b"\n"
    got = data[64 * (i - 1):64 * i]
    if got != want:
        print("record %d of %d acknowledged: %r" % (i, n, got[:24]))
        break
PY
)
	[ -z "$bad" ] && pass "$1-acked-records" || fail "$1-acked-records" "$bad"
}

total=0
for ((r = 1; r <= ROUNDS; r++)); do
	mode=${modes[$((r % ${#modes[@]}))]}
	round "sync$r" sync "$mode" $((SEED0 + r))
	fs_clean "sync$r"
	records_kept "sync$r" "$acked"
	total=$((total + acked))
done
echo "crash: $ROUNDS fsync rounds, $total acknowledged records checked"
for ((r = 1; r <= NOSYNC; r++)); do
	round "nosync$r" nosync writeback $((SEED0 + 1000 + r))
	fs_clean "nosync$r"
done
# --- the soak ----------------------------------------------------------------
# Column COL of the tap's line in /proc/net/dev, as this network namespace
# sees it (/sys/class/net shows the namespace sysfs was mounted in): 3
# packets received from the guest, 4 and 5 receive errors and drops, 11
# packets sent to it (the host's ARP replies among them).
tap_stat() {
	sed 's/:/ /' /proc/net/dev | awk -v t="$TAP" -v c="$1" '$1 == t { print $c }'
}

soak() {
	local pid n=0 warm=$((SOAK / 4)) rss0= fd0= rss fds peak=0 grew=0
	local rx0=0 rxw=0 rx=0 t0 rc
	cp "$TMP/base.img" "$TMP/soak.img"
	t0=$(up)
	[ -n "$TAP" ] && rx0=$(tap_stat 3)
	"$MINIVMM" --restore "$S" --disk "$TMP/soak.img" --stats \
		--append-env WRITER=soak </dev/null >"$TMP/soak.out" \
		2>"$TMP/soak.err" &
	pid=$!
	# The host's own traffic to the guest, a datagram a second (the
	# guest answers each with ICMP): what the receive check counts.  The
	# host's ARP and ICMP answers alone come when timing decides; on a
	# slow guest (PVM: 4 datagrams a minute) none came between its first
	# and last datagram in 2 of 3 soaks.
	local feed=
	if [ -n "$TAP" ]; then
		while :; do
			echo feed >/dev/udp/10.0.2.15/9 2>/dev/null
			sleep 1
		done &
		feed=$!
	fi
	for ((t = 0; t < SOAK; t += 2)); do
		sleep 2
		kill -0 "$pid" 2>/dev/null || break
		rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$pid/status")
		fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
		[ "${rss:-0}" -gt "$peak" ] && peak=$rss
		if [ $t -ge $warm ] && [ -z "$rss0" ]; then
			rss0=$rss fd0=$fds
			[ -n "$TAP" ] && rxw=$(tap_stat 3)
		fi
		[ -n "$fd0" ] && [ "$fds" -gt "$fd0" ] && grew=$fds
		n=$((n + 1))
	done
	if ! kill -0 "$pid" 2>/dev/null; then
		[ -n "$feed" ] && kill "$feed" 2>/dev/null
		wait "$pid"
		rc=$?
		ended_early soak-ran soak "$t0" \
			"minivmm ended early (status $rc) after ${t}s"
		return
	fi
	# What the guest had sent by now, against what reached the tap 3 s
	# later (minivmm still running).  UDP: a starved guest or device
	# thread may lose some, so the loss is a figure; asserted is that
	# traffic reached the host in the warm-up and after it, and that the
	# guest kept receiving (the host's feed above: its eth0 count, first
	# and last "@@ net" line).
	local sent=0 unsent=0 grx0= grx=
	if [ -n "$TAP" ]; then
		net_field() {
			sed -n 's/^@@ net \([0-9]*\) \([0-9]*\) \(-\{0,1\}[0-9]*\)\r\{0,1\}$/\'"$1"'/p' \
				"$TMP/soak.out"
		}
		sleep 3
		rx=$(tap_stat 3)
	fi
	[ -n "$feed" ] && kill "$feed" 2>/dev/null
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null
	pass soak-ran
	# Read once the guest is stopped: every line it printed (on a slow
	# guest the second "@@ net" line came after a read made before).
	local nlines=0
	if [ -n "$TAP" ]; then
		sent=$(net_field 1 | tail -n 1)
		unsent=$(net_field 2 | tail -n 1)
		grx0=$(net_field 3 | head -n 1)
		grx=$(net_field 3 | tail -n 1)
		nlines=$(net_field 3 | wc -l)
	fi
	local soaked
	soaked=$(sed -n 's/^@@ soak \([0-9]*\)\r\{0,1\}$/\1/p' "$TMP/soak.out" | tail -n 1)
	echo "soak: ${SOAK}s, $n samples, ${soaked:-0} records written; RSS" \
		"${rss0:-?} kB after the ${warm}s warm-up, $rss kB at the end" \
		"(growth $(( ${rss:-0} - ${rss0:-0} )) kB, peak $peak kB);" \
		"descriptors ${fd0:-?} -> $fds"
	[ "${soaked:-0}" -gt 0 ] && pass soak-traffic ||
		fail soak-traffic "no '@@ soak' line: the writer never ran"
	if [ -n "$TAP" ]; then
		echo "soak: network: the guest had sent ${sent:-0} datagrams" \
			"(${unsent:-0} more refused by its socket);" \
			"3 s later the tap had received $((rx - rx0)) packets" \
			"($((rxw - rx0)) in the warm-up; the tap sent the guest $(tap_stat 11))"
		# minivmm's own count, at SIGTERM (--stats): where a loss is.
		sed -n 's/^\(virtio-net0 .*\)$/soak: minivmm: \1/p' "$TMP/soak.err"
		echo "soak: network: the guest's eth0 had received ${grx0:-?} frames" \
			"at the first count after the restore, ${grx:-?} at the last"
		# A restore that lost the receive queue's interrupt left the
		# driver waiting for it for good (event index): no frame after.
		if [ "$nlines" -lt 2 ]; then
			fail soak-net-receive "fewer than two '@@ net' lines ($nlines): the guest sent under two datagrams"
		elif [ "$grx" -gt "$grx0" ]; then
			pass soak-net-receive
		else
			fail soak-net-receive "the guest's eth0 received nothing after the restore ($grx0 -> $grx frames)"
		fi
		[ "${sent:-0}" -gt 0 ] && [ "$rxw" -gt "$rx0" ] && [ "$rx" -gt "$rxw" ] &&
			pass soak-net-traffic ||
			fail soak-net-traffic "sent ${sent:-0}; the tap received $((rxw - rx0)) in the warm-up, $((rx - rxw)) after ($(tap_stat 4) errors, $(tap_stat 5) dropped)"
	fi
	[ "$grew" = 0 ] && pass soak-no-fd-growth ||
		fail soak-no-fd-growth "descriptors ${fd0} -> ${grew}"
	fs_clean soak
}
[ "$SOAK" -gt 0 ] && soak

# At least one round must have got as far as acknowledging a record, or
# the test tested nothing.
if [ "$ROUNDS" -gt 0 ]; then
	[ "$total" -gt 0 ] && pass crash-acks-seen ||
		fail crash-acks-seen "no round acknowledged a record (seed base $SEED0)"
fi
