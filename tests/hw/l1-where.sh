#!/bin/sh
# l1-where.sh OUT: where L1's CPUs are, as kernel symbols, from QEMU's
# monitor (OUT/qemu-monitor.sock, run-l1.sh) and the symbol table L1
# wrote at boot (OUT/l1-kallsyms, l1-init.sh).  check-hw.sh logs it for a
# wedged L1.  Three looks a second apart, a line each:
#   @@ L1 CPUs at: exc_int3+0x4e __schedule+0x2ab
out=$1
[ -S "$out/qemu-monitor.sock" ] && [ -s "$out/l1-kallsyms" ] || {
	echo "@@ L1 CPUs at: unknown (no monitor or symbols in $out)"; exit 0; }
for i in 1 2 3; do
	{ echo "info registers -a"; sleep 1; } |
		timeout 10 socat - "unix-connect:$out/qemu-monitor.sock" 2>/dev/null |
		sed -n 's/^RIP=\([0-9a-f]*\).*/\1/p' |
		python3 -c '
import bisect, sys
syms = sorted((int(a, 16), n) for a, _, n, *r in
	(l.split() for l in open(sys.argv[1])))
keys = [a for a, _ in syms]
where = []
for rip in sys.stdin.read().split():
	v = int(rip, 16)
	i = bisect.bisect_right(keys, v) - 1
	where.append("%s+%#x" % (syms[i][1], v - syms[i][0]) if i >= 0 else rip)
print("@@ L1 CPUs at:", " ".join(where) or "unknown")
' "$out/l1-kallsyms"
done
