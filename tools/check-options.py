#!/usr/bin/env python3
"""check-options.py: the man page is the option reference; keep it true.

For each command (minivmm, minivmm bench, minivmm test) three lists of
options must agree:

  help    every -x / --word the command's --help text names (the built
          binary is run: what a user sees);
  man     the options docs/minivmm.1 documents in that command's section
          (OPTIONS, BENCHMARKS, TEST RUNNER): the tag line of each .TP;
  parser  the options the command's getopt_long tables accept (struct
          option entries and the short-option string in its sources).

help and man must be equal (both directions); every option the parser
accepts must be in help (-h/--help excepted: a help text need not name
itself), and every option help names must be accepted.  Each mismatch is
one line saying which option is missing where.  Exit status 0 when all
agree, 1 on a mismatch, 2 when a binary or file cannot be read.

Usage: tools/check-options.py [-v]   (MINIVMM=build/minivmm by default)
Used by make check (tests/run.sh, the "options" line).
"""
import glob
import os
import re
import subprocess
import sys

MAN = "docs/minivmm.1"
# command words after minivmm, man page section, parser sources
COMMANDS = (
    ((), "OPTIONS", "vmm/cli/*.c"),
    (("bench",), "BENCHMARKS", "tools/bench/*.c"),
    (("test",), "TEST RUNNER", "tools/test/*.c"),
)
LONG = re.compile(r"(?<![\w-])--([a-z0-9][a-z0-9-]*[a-z0-9])")
SHORT = re.compile(r"(?<![\w-])-([a-zA-Z])(?![\w-])")
# In help text a short option opens its line ("  -m, --memory") or sits
# in brackets; elsewhere "-M q35" is QEMU's, quoted in a description.
HELP_SHORT = re.compile(r"(?:^[ \t]*|\[)-([a-zA-Z])(?![\w-])", re.M)
STRUCT_OPTION = re.compile(
    r'\{\s*"([a-z0-9-]+)"\s*,\s*(?:no|required|optional)_argument')
OPTSTRING = re.compile(r'getopt_long\s*\([^,]+,[^,]+,\s*"([^"]*)"')
SELF = {"--help", "-h"}


def die(msg):
    print(f"check-options: {msg}", file=sys.stderr)
    sys.exit(2)


def options_in(text, short=SHORT):
    return ({"--" + m for m in LONG.findall(text)} |
            {"-" + m for m in short.findall(text)})


def help_options(minivmm, words):
    cmd = [minivmm, *words, "--help"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except OSError as e:
        die(f"cannot run {' '.join(cmd)}: {e}")
    if r.returncode != 0 or not r.stdout.strip():
        die(f"'{' '.join(cmd)}' failed (status {r.returncode}): "
            f"{r.stderr.strip()[:200]}")
    return options_in(r.stdout, HELP_SHORT)


def man_sections(path):
    """{section name: set of options in its .TP tags}"""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        die(f"{path}: {e.strerror}")
    sections, name, tag_next = {}, None, False
    for line in lines:
        if line.startswith(".SH "):
            name = line[4:].strip().strip('"')
            sections.setdefault(name, set())
            tag_next = False
        elif line.startswith(".TP"):
            tag_next = True
        elif tag_next and name:
            tag_next = False
            plain = re.sub(r"\\f[BIRP]", "", line).replace("\\-", "-")
            sections[name] |= options_in(plain)
    return sections


def parser_options(pattern):
    found = set()
    files = sorted(glob.glob(pattern))
    if not files:
        die(f"no sources match {pattern}")
    for path in files:
        with open(path, encoding="utf-8") as f:
            src = f.read()
        found |= {"--" + n for n in STRUCT_OPTION.findall(src)}
        for s in OPTSTRING.findall(src):
            found |= {"-" + c for c in s if c.isalnum()}
    return found


def main():
    verbose = "-v" in sys.argv[1:]
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    minivmm = os.environ.get("MINIVMM", "build/minivmm")
    sections = man_sections(MAN)
    problems = []
    checked = 0
    for words, section, sources in COMMANDS:
        name = " ".join(("minivmm", *words))
        helped = help_options(minivmm, words)
        manned = sections.get(section)
        if manned is None:
            problems.append(f"{name}: {MAN} has no '.SH {section}' section")
            manned = set()
        accepted = parser_options(sources)
        where_help = f"'{name} --help'"
        where_man = f"{MAN} ({section})"
        for o in sorted(helped - manned):
            problems.append(f"{name}: {o} is in {where_help} but not in "
                            f"{where_man}")
        for o in sorted(manned - helped):
            problems.append(f"{name}: {o} is in {where_man} but not in "
                            f"{where_help}")
        for o in sorted(accepted - helped - SELF):
            problems.append(f"{name}: {o} is accepted ({sources}) but not "
                            f"in {where_help}")
        for o in sorted(helped - accepted):
            problems.append(f"{name}: {o} is in {where_help} but not "
                            f"accepted ({sources})")
        checked += len(helped | manned)
        if verbose:
            print(f"{name}: {len(helped)} in --help, {len(manned)} in "
                  f"{where_man}, {len(accepted)} accepted")
    for p in problems:
        print(p)
    if problems:
        print(f"check-options: {len(problems)} mismatch(es); {MAN} is the "
              "option reference: document each option there and in --help")
        return 1
    if verbose:
        print(f"check-options: {checked} options agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
