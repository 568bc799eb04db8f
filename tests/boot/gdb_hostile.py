#!/usr/bin/python3
"""A hostile gdb client for tests/boot/gdb.sh: garbage, bad checksums,
a packet past the stub's limit, unknown and malformed packets, addresses
outside RAM, a second client, a disconnect in the middle of a packet.
Each answer is checked; prints PASS:/FAIL: lines.  Ends detached, so the
guest must then finish as if nobody had been there."""
import socket
import sys
import time

path = sys.argv[1]
fails = 0


def say(ok, name, seen=""):
    global fails
    print(("PASS: " if ok else "FAIL: ") + name + ("" if ok else " (%r)" % seen))
    fails += 0 if ok else 1


def connect():
    for _ in range(100):
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            s.settimeout(20)
            return s
        except OSError:
            time.sleep(0.1)
    raise SystemExit("FAIL: gdb-hostile-connect")


def frame(payload):
    return b"$%s#%02x" % (payload, sum(payload) & 0xff)


def reply(s):
    """The next packet's payload (acks skipped)."""
    buf = b""
    while True:
        c = s.recv(1)
        if not c:
            return None
        if c == b"$":
            break
    while not buf.endswith(b"#") or len(buf) < 1:
        c = s.recv(1)
        if not c:
            return None
        buf += c
    s.recv(2)
    return buf[:-1]


def ask(s, payload):
    s.sendall(frame(payload))
    return reply(s)


s = connect()
say(ask(s, b"?").startswith(b"T05"), "gdb-hostile-stopped-on-attach")
# On, then Ctrl-C: every vCPU stops, gdb hears SIGINT.
s.sendall(frame(b"vCont;c"))
time.sleep(1)
r = ask(s, b"g")
say(r is not None and r.startswith(b"E.the guest is running"),
    "gdb-hostile-refused-while-running", r)
s.sendall(b"\x03")
r = reply(s)
say(r is not None and r.startswith(b"T02thread:"), "gdb-hostile-ctrl-c", r)
s.sendall(b"garbage without a frame\x00\xff\xfe")
s.sendall(b"$g#00")				# bad checksum
c = s.recv(1)
say(c == b"-", "gdb-hostile-bad-checksum-nacked", c)
r = ask(s, b"x" * 20000)
say(r == b"E.packet too long", "gdb-hostile-huge-packet", r)
r = ask(s, b"vNoSuchPacket;1")
say(r == b"", "gdb-hostile-unknown-packet-empty", r)
r = ask(s, b"mffffffffffff0000,10")
say(r == b"E14", "gdb-hostile-read-outside-ram", r)
r = ask(s, b"m123,zz")
say(r.startswith(b"E."), "gdb-hostile-bad-read-args", r)
r = ask(s, b"M10,4:zzzzzzzz")
say(r.startswith(b"E."), "gdb-hostile-bad-write-hex", r)
r = ask(s, b"Mffffffffffff0000,1:00")
say(r.startswith(b"E."), "gdb-hostile-write-outside-ram", r)
r = ask(s, b"Z0,ffffffffffff0000,1")
say(r.startswith(b"E."), "gdb-hostile-break-outside-ram", r)
r = ask(s, b"G00")
say(r.startswith(b"E."), "gdb-hostile-short-G", r)
r = ask(s, b"Hg99")
say(r.startswith(b"E."), "gdb-hostile-bad-thread", r)
r = ask(s, b"p9999")
say(r.startswith(b"E."), "gdb-hostile-bad-register", r)
r = ask(s, b"P3b=0000000000000000")	# cr0: read-only
say(r.startswith(b"E."), "gdb-hostile-cr0-read-only", r)
r = ask(s, b"m" + b"f" * 40 + b",1")
say(r.startswith(b"E."), "gdb-hostile-overlong-number", r)
r = ask(s, b"qRcmd,6e6f7065")		# "nope"
say(bytes.fromhex(r.decode()).startswith(b"unknown monitor command"),
    "gdb-hostile-unknown-monitor", r)
# A second client is turned away while this one is attached.
t = connect()
r = reply(t)
say(r is not None and r.startswith(b"E.another debugger"),
    "gdb-hostile-second-client", r)
t.close()
# Still answering after all that.
r = ask(s, b"qfThreadInfo")
say(r == b"m1,2", "gdb-hostile-still-answers", r)
# Gone in the middle of a packet: the guest runs on.
s.sendall(b"$m1000,")
s.close()
time.sleep(0.5)
# A new client attaches (the guest stops again), releases the guest (the
# hold loop's flag) and detaches.
s = connect()
say(ask(s, b"?").startswith(b"T"), "gdb-hostile-reattach")
r = ask(s, b"qRcmd,70687973")		# monitor phys
say(b"guest-physical" in bytes.fromhex(r.decode()), "gdb-hostile-monitor-phys", r)
r = ask(s, b"qRcmd,76697274")		# monitor virt
addr = sys.argv[2]			# gdb_release's address
r = ask(s, b"M%s,4:01000000" % addr.encode())
say(r == b"OK", "gdb-hostile-release-write", r)
r = ask(s, b"D")
say(r == b"OK", "gdb-hostile-detach", r)
s.close()
sys.exit(1 if fails else 0)
