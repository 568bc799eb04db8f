#!/usr/bin/env python3
"""`make run-linux` on a pseudo-terminal, as a user at a terminal would use
it: the kernel built for minivmm boots to a busybox shell on the console,
commands typed there run in the guest, `poweroff` ends minivmm with status
0, and the terminal is back in its own mode afterwards.

Usage: linux-shell.py COMMAND...  (the command, e.g. make run-linux).
Prints PASS:/FAIL: lines and TIME: lines (seconds from the start).  The
limit is a safety net for a hung boot, not an assertion."""
import os, pty, re, select, subprocess, sys, termios, time

LIMIT = float(os.environ.get("MINIVMM_LINUX_TIMEOUT", "1800"))
CMD_LIMIT = 300  # per command (seconds; a command takes ~1 s on a quiet host)


class Session:
    def __init__(self, argv):
        self.master, self.slave = pty.openpty()
        self.mode = termios.tcgetattr(self.slave)
        self.t0 = time.time()
        self.p = subprocess.Popen(argv, stdin=self.slave, stdout=self.slave,
                                  stderr=self.slave, start_new_session=True)
        self.out = b""

    def read_until(self, pattern, limit):
        """Reads until pattern (a regex on bytes) matches the output after
        self.mark; the match, or None at the limit or when minivmm ends."""
        deadline = time.time() + limit
        rx = re.compile(pattern)
        while time.time() < deadline:
            m = rx.search(self.out, self.mark)
            if m:
                self.mark = m.end()
                return m
            r, _, _ = select.select([self.master], [], [], 0.5)
            if r:
                try:
                    self.out += os.read(self.master, 4096)
                except OSError:
                    return None
            elif self.p.poll() is not None:
                return None
        return None

    def send(self, line):
        # As a paste: minivmm feeds the guest's 16-byte UART FIFO as it
        # drains.
        os.write(self.master, line.encode())

    def wait_exit(self, limit):
        """Keeps reading (the guest's output must not back up) until the
        command ends; its status, or None at the limit."""
        deadline = time.time() + limit
        while time.time() < deadline:
            if self.p.poll() is not None:
                return self.p.returncode
            r, _, _ = select.select([self.master], [], [], 0.5)
            if r:
                try:
                    self.out += os.read(self.master, 4096)
                except OSError:
                    pass
        return None

    def elapsed(self):
        return time.time() - self.t0


def check(ok, name, why=""):
    print(("PASS: " if ok else "FAIL: ") + name + ("" if ok else " (%s)" % why))
    return ok


def main():
    s = Session(sys.argv[1:])
    s.mark = 0
    # The prompt ends the output read so far ("/ # "); ash's line editor
    # then asks the terminal for the cursor (ESC [6n), a reply is optional.
    prompt = rb"# (\x1b\[6n)?$"
    got = s.read_until(rb"minivmm: busybox shell", LIMIT)
    t_shell = s.elapsed()
    if check(got is not None, "linux-shell-banner",
             "no shell banner: %r" % s.out[-600:]):
        got = s.read_until(prompt, CMD_LIMIT)
        check(got is not None, "linux-shell-prompt",
              "no prompt: %r" % s.out[-300:])
        print("TIME: linux-shell: shell banner %.1f s" % t_shell)
    if got is not None:
        s.send("echo sum=$((6 * 7)); uname -r\r")
        got = s.read_until(rb"sum=42\r*\n([^\r\n]*)\r*\n", CMD_LIMIT)
        check(got is not None and got.group(1).endswith(b"-minivmm"),
              "linux-shell-command",
              "no 'sum=42' and the minivmm kernel's release: %r" %
              s.out[-300:])
        s.read_until(prompt, CMD_LIMIT)
        s.send("grep -c ^processor /proc/cpuinfo\r")
        got = s.read_until(rb"\n(\d+)\r*\n", CMD_LIMIT)
        check(got is not None and got.group(1) == b"1", "linux-shell-cpus",
              "processors: %r" % (got.group(1) if got else s.out[-300:]))
        s.read_until(prompt, CMD_LIMIT)
        s.send("poweroff\r")
    status = s.wait_exit(CMD_LIMIT)
    if status is None:
        os.killpg(s.p.pid, 9)
        status = s.p.wait()
    print("TIME: linux-shell: ended %.1f s" % s.elapsed())
    check(status == 0, "linux-shell-poweroff",
          "status %d after poweroff; output ends %r" % (status, s.out[-400:]))
    check(termios.tcgetattr(s.slave) == s.mode, "linux-shell-terminal",
          "the terminal's mode was not restored")
    os.close(s.master)
    os.close(s.slave)


if __name__ == "__main__":
    main()
