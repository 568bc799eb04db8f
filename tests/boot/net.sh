#!/bin/bash
# virtio-net: the guest drivers of tests/guest/ against --net tap.  Every
# test runs in its own network namespace holding the tap (10.0.2.1/24 on
# the host side, MTU 9000), so traffic never leaves it; the namespaces go
# when the script ends.  The virtio_net payload ARPs and pings the host
# (echo payloads checked byte for byte), takes an MSI-X interrupt, then
# answers the host's pings (busybox ping, 56 and 8000 bytes) until it has
# answered them all; the hostile payload's bad chains must show up as
# drops in --stats-json.  Then the --net refusals.
. "$(dirname "$0")/lib.sh"
NET="$GUESTS/virtio_net.elf"
HOSTILE="$GUESTS/virtio_net_hostile.elf"
GUEST_IP=10.0.2.15
HOST_IP=10.0.2.1

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: not root (network namespaces and taps need it)"
	exit 0
fi
if [ ! -c /dev/net/tun ] || ! command -v ip >/dev/null ||
   ! command -v busybox >/dev/null; then
	echo "SKIP: needs /dev/net/tun, ip (iproute2) and busybox (ping)"
	exit 0
fi

NSES=()
cleanup() {
	for ns in "${NSES[@]}"; do ip netns del "$ns" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

# netns NAME: a namespace with tap0 (host side 10.0.2.1/24, up); its name
# in $NS.
netns() {
	NS="minivmm-$1-$$"
	ip netns add "$NS" || return 1
	NSES+=("$NS")
	ip -n "$NS" link set lo up
	ip -n "$NS" tuntap add dev tap0 mode tap
	ip -n "$NS" link set tap0 mtu 9000
	ip -n "$NS" addr add "$HOST_IP/24" dev tap0
	ip -n "$NS" link set tap0 up
}

# jget FILE EXPR: EXPR over the --stats-json file (v = the virtio list).
jget() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    v = json.load(open(sys.argv[1])).get("virtio", [])
    print(eval("(" + sys.argv[2] + ")"))
except Exception as e:
    print("unreadable (%s)" % e.__class__.__name__)
EOF
}

# vmns NAME TIMEOUT NS ARGS...: vm inside namespace NS, behind $WRAP (a
# command prefix such as setpriv) if set.
vmns() {
	local name=$1 limit=$2 ns=$3
	shift 3
	timeout -k 5 "$(secs "$limit")" ip netns exec "$ns" ${WRAP:-} "$MINIVMM" "$@" \
		</dev/null >"$TMP/$name.out" 2>"$TMP/$name.err"
	status=$?
}

same() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected $2, got $3"; fi
}

# pinged NAME APPEND [NET-SUFFIX]: the payload in its own namespace,
# pinged from the host side once it is ready; status in $status.
pinged() {
	local name=$1 append=$2 suffix=${3:-} i
	netns "$name" || { fail "$name" "ip netns add failed"; return; }
	timeout -k 5 "$(secs 120)" ip netns exec "$NS" "$MINIVMM" --kernel "$NET" \
		--net "tap=tap0$suffix" --stats-json "$TMP/$name.json" \
		--append "ip=$GUEST_IP host=$HOST_IP pings=4 $append" \
		</dev/null >"$TMP/$name.out" 2>"$TMP/$name.err" &
	local pid=$!
	for i in $(seq 1 "$(secs 300)"); do
		grep -qs '^virtio-net: ready' "$TMP/$name.out" && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.2
	done
	if [ -n "${BUSY_CHECK:-}" ]; then
		timeout -k 5 "$(secs 30)" ip netns exec "$NS" "$MINIVMM" \
			--kernel "$GUESTS/hello.elf" --net tap=tap0 </dev/null \
			>"$TMP/$name-busy.out" 2>"$TMP/$name-busy.err"
		status=$?
		expect "$name-busy" 2 '' "TUNSETIFF.*another process holds"
	fi
	ip netns exec "$NS" busybox ping -c 2 -W "$(secs 5)" "$GUEST_IP" \
		>"$TMP/$name.ping" 2>&1
	ip netns exec "$NS" busybox ping -c 2 -W "$(secs 5)" -s 8000 "$GUEST_IP" \
		>>"$TMP/$name.ping" 2>&1
	wait $pid
	status=$?
	expect "$name" 0 '^virtio-net: 0 failure\(s\)$'
	same "$name-host-pings" 2 "$(grep -c '2 packets received' \
		"$TMP/$name.ping")"
	same "$name-counted" True "$(jget "$TMP/$name.json" \
		'v[0]["type"] == "net" and v[0]["rx_packets"] >= 8 and
		 v[0]["tx_packets"] >= 8 and v[0]["rx_bytes"] >= 16000 and
		 v[0]["tx_drops"] == 0 and v[0]["rx_drops"] == 0 and
		 v[0]["interrupts"] >= 1')"
	same "$name-kicks-in-kernel" 0 "$(jget "$TMP/$name.json" \
		'v[0]["notify_exits"]')"
}

BUSY_CHECK=1 pinged net-ping "" ",mac=02:00:00:aa:bb:cc"
BUSY_CHECK=
grep -q 'mac 02:00:00:aa:bb:cc' "$TMP/net-ping.out" && pass net-ping-mac ||
	fail net-ping "mac= not in the device configuration"
# Frames over many small mergeable buffers, and without mergeable
# buffers (one big buffer each).
pinged net-ping-small-buffers "rxbuf=256"
pinged net-ping-no-mrg "rxbuf=9216 mrg=0"
pinged net-ping-no-offload "" ",offload=off"

netns hostile
vmns net-hostile 90 "$NS" --kernel "$HOSTILE" \
	--net tap=tap0 --stats-json "$TMP/net-hostile.json" \
	--append "ip=$GUEST_IP host=$HOST_IP"
expect net-hostile 0 '^virtio-net-hostile: 0 failure\(s\)$'
same net-hostile-counted True "$(jget "$TMP/net-hostile.json" \
	'v[0]["tx_drops"] == 7 and v[0]["rx_drops"] >= 1 and
	 v[0]["needs_reset"] >= 2 and v[0]["resets"] >= 3')"

# Snapshot at the payload's "ready", then restore onto the same tap and
# ping it: the driver's rings, MAC and offloads come back as they were.
netns snap
vmns net-snap 90 "$NS" --kernel "$NET" --net tap=tap0,mac=02:00:00:00:00:05 \
	--append "ip=$GUEST_IP host=$HOST_IP pings=2" \
	--snapshot "$TMP/net.snap" --snapshot-at "console:virtio-net: ready"
expect net-snap 0 '^virtio-net: ready'
timeout -k 5 "$(secs 90)" ip netns exec "$NS" "$MINIVMM" --restore "$TMP/net.snap" \
	--stats-json "$TMP/net-restore.json" </dev/null \
	>"$TMP/net-restore.out" 2>"$TMP/net-restore.err" &
rpid=$!
sleep 1
ip netns exec "$NS" busybox ping -c 2 -W "$(secs 10)" "$GUEST_IP" \
	>"$TMP/net-restore.ping" 2>&1
wait $rpid
status=$?
expect net-restore 0 '^virtio-net: 0 failure\(s\)$'
same net-restore-pings 1 "$(grep -c '2 packets received' "$TMP/net-restore.ping")"

# A tap made for the run (no name): there while it runs, up, gone after.
netns created
vmns net-created 60 "$NS" --kernel "$GUESTS/hello.elf" --net tap --stats
expect net-created 0 '' 'virtio-net0 \(00:0[45]\.0 tap tap[0-9]+\)'
same net-created-gone 1 "$(ip -n "$NS" -o link show type tun | wc -l)"

# Refusals: one line, status 2, before the guest starts.
bad() {
	local name=$1 regex=$2
	shift 2
	if [ -n "${IN_NS:-}" ]; then
		vmns "$name" 30 "$IN_NS" "$@"
	else
		vm "$name" 30 "$@"
	fi
	expect "$name" 2 '' "$regex"
	[ "$(wc -l <"$TMP/$name.err")" -eq 1 ] && pass "$name-one-line" ||
		fail "$name" "expected exactly one line on stderr"
	grep -q 'minivmm firmware' "$TMP/$name.out" &&
		fail "$name" "the guest ran"
}
HELLO="$GUESTS/hello.elf"
bad net-restore-other-mac "--net conflicts with the snapshot's 1 network" \
	--restore "$TMP/net.snap" --net tap,mac=02:00:00:00:00:06
bad net-bad-kind "--net 'user': expected tap" --kernel "$HELLO" --net user
bad net-bad-name "--net 'tap=a/b': tap name" --kernel "$HELLO" --net tap=a/b
bad net-long-name "tap name" --kernel "$HELLO" --net tap=abcdefghijklmnop
bad net-bad-mac "mac: expected a unicast" --kernel "$HELLO" \
	--net tap,mac=01:00:5e:00:00:01
bad net-short-mac "mac: expected a unicast" --kernel "$HELLO" \
	--net tap,mac=02:00:00:00:00
bad net-bad-word "unknown 'vhost=on'" --kernel "$HELLO" --net tap,vhost=on
bad net-too-many "at most 4" --kernel "$HELLO" --net tap --net tap \
	--net tap --net tap --net tap
netns refusals
ip -n "$NS" tuntap add dev tun0 mode tun
IN_NS=$NS
bad net-tun-not-tap "--net tap=tun0: TUNSETIFF: Invalid argument" \
	--kernel "$HELLO" --net tap=tun0
# Without CAP_NET_ADMIN: no new tap, and none owned by someone else (one
# without an owner is anyone's who may open /dev/net/tun).
ip -n "$NS" tuntap add dev taptheirs mode tap user 4321
WRAP="setpriv --inh-caps=-net_admin --bounding-set=-net_admin" \
bad net-no-cap-create \
	"--net tap: TUNSETIFF: Operation not permitted \(needs CAP_NET_ADMIN" \
	--kernel "$HELLO" --net tap
WRAP="setpriv --inh-caps=-net_admin --bounding-set=-net_admin" \
bad net-no-cap-theirs \
	"TUNSETIFF: Operation not permitted \(needs CAP_NET_ADMIN" \
	--kernel "$HELLO" --net tap=taptheirs
WRAP="setpriv --reuid=65534 --regid=65534 --clear-groups" \
bad net-no-tun-access "/dev/net/tun: Permission denied" \
	--kernel "$HELLO" --net tap=tap0
IN_NS=
