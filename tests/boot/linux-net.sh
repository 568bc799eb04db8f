#!/bin/bash
# virtio-net with a Linux guest: the kernel built for minivmm (tools/
# build-kernel.sh) and a busybox initramfs (linux-net-init.sh) in its own
# network namespace with a tap (host side 10.0.2.1/24), removed at the
# end.  The guest configures eth0, pings the host end, fetches a file
# from busybox httpd on the tap address and compares its SHA-256, then
# serves it back over its own busybox httpd: the host fetches it with wget
# and compares too.
# MINIVMM_NET_BLOB_MIB (default 1) sizes the blob and MINIVMM_NET_OFFLOAD
# (on|off) passes offload= to --net; the run times both transfers
# ("time" lines): how the offloads were measured (docs/performance.md, virtio-net).
# Prints "SKIP: ..." without root, /dev/net/tun, ip, busybox, the kernel,
# or guest user space (a PVM host needs --syscall-fix).  Boot limits are
# safety nets, not assertions.
. "$(dirname "$0")/lib.sh"
# Counted for the verdict line at the end.
passed=0 failed=0
eval "lib_$(declare -f pass)"
eval "lib_$(declare -f fail)"
pass() { passed=$((passed + 1)); lib_pass "$@"; }
fail() { failed=$((failed + 1)); lib_fail "$@"; }

BOOT_LIMIT=${MINIVMM_LINUX_TIMEOUT:-1800}
ARGS="console=ttyS0 initcall_blacklist=ftrace_check_for_weak_functions,tracer_init_tracefs cryptomgr.notests nowatchdog mitigations=off panic=-1"
GUEST_IP=10.0.2.15
HOST_IP=10.0.2.1
MAC=02:00:00:12:34:99

# In make check: CI runs nothing else, and the guest's network is a
# feature to test from inside a guest.  A boot plus the transfers take
# about a minute on a quiet PVM host and up to 15 with a loaded one.
if [ "$BUILD" = build-asan ]; then
	echo "SKIP: linux-net (runs against the normal build only: minutes per boot)"
	exit 0
fi
if [ "$(id -u)" != 0 ] || [ ! -c /dev/net/tun ] || ! command -v ip >/dev/null ||
   ! command -v busybox >/dev/null; then
	echo "SKIP: linux-net (needs root, /dev/net/tun, ip and busybox)"
	exit 0
fi
minivmm_kernel CONFIG_VIRTIO_NET
if [ -z "$kernel" ]; then
	echo "SKIP: linux-net (no kernel built for minivmm with CONFIG_VIRTIO_NET=y; make guest-kernel builds one)"
	exit 0
fi
if [ -d /sys/module/kvm_pvm ] &&
   ! "$MINIVMM" --help 2>&1 | grep -q -- '--syscall-fix'; then
	echo "SKIP: linux-net (PVM host and no --syscall-fix: guest user space cannot run)"
	exit 0
fi
initrd=$(tools/mkinitramfs.sh tests/boot/linux-net-init.sh) || {
	fail linux-net "tools/mkinitramfs.sh failed"
	exit 0
}

NS=minivmm-linux-net-$$
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	ip netns del "$NS" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
ip netns add "$NS" || { fail linux-net "ip netns add failed"; exit 0; }
ip -n "$NS" link set lo up
ip -n "$NS" tuntap add dev tap0 mode tap
ip -n "$NS" addr add "$HOST_IP/24" dev tap0
ip -n "$NS" link set tap0 up

mkdir -p "$TMP/www"
head -c $((${MINIVMM_NET_BLOB_MIB:-1} << 20)) /dev/urandom >"$TMP/www/blob"
sha=$(sha256sum <"$TMP/www/blob" | cut -d' ' -f1)
ip netns exec "$NS" busybox httpd -f -p "$HOST_IP:8080" -h "$TMP/www" &
PIDS+=($!)
timeout -k 5 $((BOOT_LIMIT + 30)) ip netns exec "$NS" "$MINIVMM" -m 512M \
	--kernel "$kernel" --initrd "$initrd" --timeout "$BOOT_LIMIT" \
	--net "tap=tap0,mac=$MAC${MINIVMM_NET_OFFLOAD:+,offload=$MINIVMM_NET_OFFLOAD}" --stats-json "$TMP/linux-net.json" \
	--append "$ARGS minivmm.ip=$GUEST_IP minivmm.host=$HOST_IP minivmm.mac=$MAC minivmm.sha=$sha" \
	</dev/null >"$TMP/linux-net.out" 2>"$TMP/linux-net.err" &
vmpid=$!
while kill -0 $vmpid 2>/dev/null &&
	! grep -q '@@ serving' "$TMP/linux-net.out"; do
	sleep 1
done
# busybox 1.35's wget crashes with -T: timeout(1) bounds it instead.  The
# guest listens on 9001 before it says "serving"; a few tries all the same.
if kill -0 $vmpid 2>/dev/null; then
	t0=$(date +%s.%N)
	timeout 600 ip netns exec "$NS" busybox wget -q -O "$TMP/back" \
		"http://$GUEST_IP:8080/blob"
	t1=$(date +%s.%N)
	echo "    time guest-to-host $(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }') s for $(stat -c %s "$TMP/back") bytes"
	for i in 1 2 3 4 5; do
		echo fetched | timeout 60 ip netns exec "$NS" \
			busybox nc "$GUEST_IP" 9001 && break
		sleep 2
	done
fi
wait $vmpid
status=$?
expect linux-net 0 '@@ verdict 0'
grep -E '^@@ (FAIL|sha|time)|packets|eth0:' "$TMP/linux-net.out" | sed 's/^/    /'
for c in eth0-driver eth0-mac ping-host wget-blob blob-sha httpd host-fetched; do
	grep -q "^@@ ok $c" "$TMP/linux-net.out" && pass "linux-net-$c" ||
		fail "linux-net-$c" "no '@@ ok $c' on the console"
done
[ "$(sha256sum <"$TMP/back" | cut -d' ' -f1)" = "$sha" ] &&
	pass linux-net-back-on-host ||
	fail linux-net-back-on-host "the host fetched $(stat -c %s "$TMP/back" 2>/dev/null) bytes, not the blob"
python3 - "$TMP/linux-net.json" <<'PY' && pass linux-net-stats || fail linux-net-stats "$(head -c 400 "$TMP/linux-net.json")"
import json, sys
v = [d for d in json.load(open(sys.argv[1]))["virtio"] if d["type"] == "net"][0]
assert v["rx_bytes"] > 1 << 20 and v["tx_bytes"] > 1 << 20, v
assert v["notify_exits"] == 0 and v["interrupts"] > 0, v
assert v["needs_reset"] == 0, v
PY
echo "linux-net: $passed passed, $failed failed"
[ "$failed" = 0 ]
