#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal (stdin and stdout; stderr to a file)
and types into it as a person would: each FEED once its TRIGGER has
appeared in the output (an empty TRIGGER: at once).

usage: pty_run.py OUT LIMIT [TRIGGER FEED]... -- COMMAND...

OUT receives what the terminal showed, OUT.err the command's stderr.
FEEDs take Python escapes (\\x01 is Ctrl-A).  Exits with the command's
status, or 124 if it was still running after LIMIT seconds (a safety net,
not an assertion: the caller checks the output).  Also fails (status 125)
if the terminal's settings were not restored."""
import os, pty, select, subprocess, sys, termios, time


def main():
    sep = sys.argv.index("--")
    out_path, limit = sys.argv[1], float(sys.argv[2])
    pairs = sys.argv[3:sep]
    cmd = sys.argv[sep + 1:]
    steps = [(pairs[i].encode(),
              pairs[i + 1].encode().decode("unicode_escape").encode("latin1"))
             for i in range(0, len(pairs) - 1, 2)]
    master, slave = pty.openpty()
    before = termios.tcgetattr(slave)
    with open(out_path + ".err", "wb") as err:
        p = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=err)
    out = b""
    deadline = time.time() + limit
    seen = 0    # output already searched for the current trigger
    while time.time() < deadline:
        if steps and steps[0][0] in out[seen:]:
            seen = out.index(steps[0][0], seen) + len(steps[0][0])
            os.write(master, steps.pop(0)[1])
            continue
        r, _, _ = select.select([master], [], [], 0.1)
        if r:
            try:
                out += os.read(master, 65536)
            except OSError:
                break
        elif p.poll() is not None:
            break
    status = p.poll()
    if status is None:
        p.kill()
        p.wait()
        status = 124
    after = termios.tcgetattr(slave)
    os.close(master)
    os.close(slave)
    with open(out_path, "wb") as f:
        f.write(out)
    if status == 0 and before != after:
        status = 125
    sys.exit(status if status >= 0 else 128 - status)


main()
