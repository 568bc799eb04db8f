#!/usr/bin/env python3
"""Console tests on a pseudo-terminal: input reaches the guest in raw mode,
Ctrl-A x quits with status 7, Ctrl-A s takes a snapshot, and the terminal
is restored afterwards."""
import os, pty, select, subprocess, sys, termios, time

MINIVMM = os.environ.get("MINIVMM", "build/minivmm")
GUESTS = "build/guests"


def run(args, feed, name, want_status, want_out, trigger=b"ready"):
    master, slave = pty.openpty()
    before = termios.tcgetattr(slave)
    p = subprocess.Popen([MINIVMM] + args, stdin=slave, stdout=slave,
                         stderr=subprocess.PIPE)
    out = b""
    deadline = time.time() + 60
    fed = False
    while time.time() < deadline and p.poll() is None:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                out += os.read(master, 4096)
            except OSError:
                break
        if not fed and trigger in out:
            os.write(master, feed)
            fed = True
    if p.poll() is None:
        p.kill()
    status = p.wait()
    after = termios.tcgetattr(slave)
    os.close(master)
    os.close(slave)
    ok = status == want_status
    print(("PASS: " if ok else "FAIL: ") + name +
          ("" if ok else " (status %d, expected %d)" % (status, want_status)))
    ok = want_out.encode() in out
    print(("PASS: " if ok else "FAIL: ") + name + "-output" +
          ("" if ok else " (output %r lacks %r)" % (out[-200:], want_out)))
    ok = before == after
    print(("PASS: " if ok else "FAIL: ") + name + "-terminal-restored")


# Bytes typed on the terminal reach the guest unchanged (raw mode: no echo
# by the host, no line buffering, Ctrl-C is a byte, not a signal).
run(["--kernel", GUESTS + "/echo.elf"], b"a\x03q", "echo-raw", 0,
    "<61><03><71>")
# Ctrl-A Ctrl-A sends one Ctrl-A; other escapes are swallowed.
run(["--kernel", GUESTS + "/echo.elf"], b"\x01\x01\x01zq", "echo-escape",
    0, "<01><71>")
# Ctrl-A x quits.
run(["--kernel", GUESTS + "/echo.elf"], b"\x01x", "quit", 7, "echo ready")
# Ctrl-A s: without --snapshot nothing happens; with it the snapshot is
# taken and the run ends (status 0), or goes on (--snapshot-continue);
# the restored guest reads on from where it was.
snap = "/tmp/minivmm-console-%d.snap" % os.getpid()
run(["--kernel", GUESTS + "/echo.elf"], b"\x01sq", "snapshot-key-unarmed",
    0, "<71>")
run(["--kernel", GUESTS + "/echo.elf", "--snapshot", snap,
     "--snapshot-continue"], b"a\x01sq", "snapshot-key-continue", 0,
    "<61><71>")
run(["--kernel", GUESTS + "/echo.elf", "--snapshot", snap], b"\x01s",
    "snapshot-key", 0, "echo ready")
run(["--restore", snap], b"bq", "snapshot-key-restored", 0, "<62><71>",
    trigger=b"")
if os.path.exists(snap):
    os.unlink(snap)
sys.exit(0)
