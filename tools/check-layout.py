#!/usr/bin/env python3
"""check-layout.py: the source tree's structural rules, checked.

A module is a .c file and its .h (same path, same stem).  Module A
depends on module B when A's .c or .h includes B's header, or when A's
object calls a function or uses data that B's object defines (read with
nm from the build; assembly files only as callees, since entry and trap
stubs call into C by nature).  The rules:

  1. No circles: the dependency graph between modules is acyclic
     (within vmm/, devices/, firmware/, tests/guest/lib/ and tools/).
  2. devices/ never includes vmm/ except vmm/bus.h (the bus contract)
     and never another device family's private header: a device sees
     buses, IRQ lines and its own family.
  3. No source file over MAX_LINES lines (tests excepted: they are
     checked at MAX_TEST_LINES).
  4. The front door stays short: README.md at most README_LINES lines,
     and vmm/'s top holds at most VMM_TOP_FILES files (the core: KVM,
     VM, vCPUs, exits, memory, buses, layout, host); the rest of the
     VMM lives in folders named for what they do.
  5. The VMM library is the VMM alone: no object of libminivmm.a comes
     from tools/ (the benchmark driver and the test runner are programs
     of their own), and none defines a bench_ or test-runner symbol.
  6. The host is probed in one function: only vmm/host/host.c (its
     host_probe()) looks at which KVM this is (/sys/module, the CPU
     flags, MINIVMM_HOST_EMULATES_RING0); everyone else gets the
     profile it returns.

Prints one line per violation and exits 1 if there is any; with -v also
prints the module count.  Used by make check (tests/run.sh).
"""
import os
import re
import subprocess
import sys

MAX_LINES = 600
MAX_TEST_LINES = 800
README_LINES = 200
VMM_TOP_FILES = 17
ROOTS = ("vmm", "devices", "firmware", "tests/guest/lib", "tools")
# Symbol prefixes of the benchmark driver and the test runner (tools/).
TOOL_SYMBOLS = ("bench_", "test_main", "manifest_", "plan_make",
                "report_tap", "report_junit")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# devices/ may use these from vmm/: the bus contract only.
DEVICE_ALLOWED = {"vmm/bus.h"}


def sources(root):
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith((".c", ".h", ".S")):
                yield os.path.join(d, f)


def module(path):
    return os.path.splitext(path)[0]


def graph():
    deps = {}
    for root in ROOTS:
        for p in sources(root):
            m = module(p)
            deps.setdefault(m, set())
            with open(p, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                if not os.path.exists(inc) or not inc.endswith(".h"):
                    continue
                t = module(inc)
                if t != m:
                    deps[m].add(t)
    return deps


def object_modules(build):
    """(module, object) pairs of the C objects of a build."""
    pairs = []
    for d, _, files in os.walk(build):
        for f in files:
            if not f.endswith(".o"):
                continue
            obj = os.path.join(d, f)
            rel = os.path.relpath(obj, build)
            if rel.startswith("host/"):
                src = rel[len("host/"):-2]
            elif rel.startswith("fw/"):
                src = "firmware/" + rel[len("fw/"):-2]
            elif rel.startswith("guest-obj/lib/"):
                src = "tests/guest/lib/" + rel[len("guest-obj/lib/"):-2]
            else:
                continue
            if src.endswith((".c", ".S")):
                src = src[:-2]
            if not src.startswith(ROOTS) or src == "vmm/main":
                continue
            if os.path.exists(src + ".c"):
                pairs.append((src, obj, True))
            elif os.path.exists(src + ".S"):
                pairs.append((src, obj, False))
    return pairs


def link_edges(build, deps):
    """Adds module -> module edges for symbols one object takes from
    another, per program (host, firmware, guest library)."""
    pairs = object_modules(build)
    groups = {}
    for m, obj, is_c in pairs:
        prog = obj.split(os.sep)[len(build.split(os.sep))]
        groups.setdefault(prog, []).append((m, obj, is_c))
    for members in groups.values():
        defined, undefined = {}, {}
        for m, obj, is_c in members:
            out = subprocess.run(["nm", obj], capture_output=True,
                                 text=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "TDBRCVW":
                    defined.setdefault(parts[2], m)
                elif len(parts) == 2 and parts[0] == "U" and is_c:
                    undefined.setdefault(m, set()).add(parts[1])
        for m, syms in undefined.items():
            for s in syms:
                t = defined.get(s)
                if t and t != m:
                    deps.setdefault(m, set()).add(t)


def cycles(deps):
    """Strongly connected components with more than one module."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(deps.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    return out


def device_violations():
    bad = []
    for p in sources("devices"):
        with open(p, encoding="utf-8", errors="replace") as f:
            for inc in INCLUDE.findall(f.read()):
                if inc.startswith("vmm/") and inc not in DEVICE_ALLOWED:
                    bad.append(f"{p}: a device includes {inc} "
                               "(devices see only vmm/bus.h)")
    return bad


def long_files():
    bad = []
    for root in ROOTS + ("tests/unit", "tests/fuzz", "tests/guest", "tools"):
        for p in sources(root):
            limit = MAX_TEST_LINES if p.startswith("tests/") else MAX_LINES
            with open(p, encoding="utf-8", errors="replace") as f:
                n = sum(1 for _ in f)
            if n > limit:
                bad.append(f"{p}: {n} lines (at most {limit}; split it "
                           "along a seam)")
    return bad


HOST_PROBE_FILE = "vmm/host/host.c"
HOST_MARKERS = re.compile(r'"/sys/module|"kvm_pvm"|"kvm_amd"|"kvm_intel"|'
                          r'MINIVMM_HOST_EMULATES_RING0"|"flags\s*:?"')
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def host_probes():
    bad = []
    for root in ROOTS:
        for p in sources(root):
            if p == HOST_PROBE_FILE or not p.endswith((".c", ".h")):
                continue
            with open(p, encoding="utf-8", errors="replace") as f:
                code = COMMENT.sub("", f.read())
            m = HOST_MARKERS.search(code)
            if m:
                bad.append(f"{p}: looks at the host ({m.group(0)}): ask "
                           f"the profile of {HOST_PROBE_FILE} instead")
    return bad


def front_door():
    bad = []
    with open("README.md", encoding="utf-8") as f:
        n = sum(1 for _ in f)
    if n > README_LINES:
        bad.append(f"README.md: {n} lines (at most {README_LINES}: "
                   "reference material belongs in docs/)")
    top = [f for f in os.listdir("vmm") if os.path.isfile(f"vmm/{f}")]
    if len(top) > VMM_TOP_FILES:
        bad.append(f"vmm/: {len(top)} files at its top (at most "
                   f"{VMM_TOP_FILES}: group the rest in a folder)")
    return bad


def library_violations(build):
    lib = os.path.join(build, "libminivmm.a")
    if not os.path.exists(lib):
        return []
    bad = []
    out = subprocess.run(["nm", "-A", "--defined-only", lib],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2].startswith(TOOL_SYMBOLS):
            bad.append(f"{lib}: {parts[0]} defines {parts[2]} (the bench "
                       "and test runner are not part of the VMM)")
    # Each object's source file, from its debug information (-g).
    info = subprocess.run(["readelf", "--debug-dump=info", lib],
                          capture_output=True, text=True).stdout
    for src in re.findall(r"DW_AT_name\s*:.*?:\s*(\S+\.c)\s*$", info,
                          re.M):
        if src.startswith("tools/"):
            bad.append(f"{lib}: holds an object of {src}")
    return bad


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    deps = graph()
    build = os.environ.get("BUILD", "build")
    if os.path.isdir(build):
        link_edges(build, deps)
    elif "-v" in sys.argv:
        print(f"no {build}/: include graph only")
    problems = []
    for comp in cycles(deps):
        problems.append("circle: " + " <-> ".join(comp))
    problems += device_violations()
    problems += sorted(set(long_files()))
    problems += front_door()
    problems += host_probes()
    problems += library_violations(build)
    for p in problems:
        print(p)
    if "-v" in sys.argv:
        print(f"{len(deps)} modules, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
