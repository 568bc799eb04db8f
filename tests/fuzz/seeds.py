#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the committed seed corpus, tests/fuzz/corpus/<target>/.

Each seed is a small, valid-looking input in the target's format (see the
comment at the top of each fuzz_<target>.c), so fuzzing starts from what
firmware, drivers and users really do.  Run from the repository root:
    python3 tests/fuzz/seeds.py
"""
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# --- pci: config bytes, then operations ------------------------------------
HOST, XEN = 0, 1


def conf1(dev, reg, width, val=0, write=False):
    w = {1: 0, 2: 1, 4: 2}[width]
    return struct.pack("<BBHBI", 0, dev, reg, w | (4 if write else 0), val)


def cf8_raw(port_off, width, val, write):
    w = {1: 0, 2: 1, 4: 2}[width]
    return struct.pack("<BBI", 1, w | (4 if write else 0) | port_off << 3, val)


def ecam(dev, reg, length, val=0, write=False):
    return struct.pack("<BBHBQ", 2, dev, reg,
                       (length - 1) | (8 if write else 0), val)


def ecam_ro(dev, reg, width):
    return struct.pack("<BBHB", 3, dev, reg, {1: 0, 2: 1, 4: 2}[width])


def pio(port, width, val=0, write=False):
    w = {1: 0, 2: 1, 4: 2}[width]
    return struct.pack("<BHBI", 4, port, w | (4 if write else 0), val)


def mmio(addr, length, val=0, write=False):
    return struct.pack("<BQBQ", 5, addr, (length - 1) | (8 if write else 0),
                       val)


def place_xen_bar(bar, addr, cmd):
    return struct.pack("<BBBIHB", 6, 1, bar, addr, cmd, 0)


def pci_config(ram=1, ecam_mode=0, pio_off=False, xen_off=False, b=0):
    a = ram | ecam_mode << 2 | (0x20 if pio_off else 0) | \
        (0x40 if xen_off else 0)
    return bytes([a, b])


def firmware_like():
    ops = [conf1(HOST, 0, 4), conf1(XEN, 0, 4), conf1(XEN, 0x0e, 1)]
    for bar in (0x10, 0x14):
        ops += [conf1(XEN, bar, 4, 0xffffffff, True), conf1(XEN, bar, 4)]
    ops += [conf1(XEN, 0x10, 4, 0xc000, True),
            conf1(XEN, 0x14, 4, 0xc0000000, True),
            conf1(XEN, 0x04, 2, 0x3, True),
            pio(0xc000, 1), pio(0xc004, 1, 1, True), pio(0x10, 2),
            pio(0x12, 1, ord("x"), True), pio(0x12, 1, 10, True),
            mmio(0xc0000000, 8, 0x1122334455667788, True),
            mmio(0xc0000000, 4)]
    return b"".join(ops)


def pci_seeds():
    put("pci", "firmware-ro", pci_config() + firmware_like() +
        ecam_ro(XEN, 0, 4) + ecam_ro(HOST, 0x100, 4) + ecam_ro(HOST, 0x40, 2))
    put("pci", "firmware-trap", pci_config(ecam_mode=1) + firmware_like() +
        ecam(HOST, 0x104, 8) + ecam(XEN, 0x10, 8, 0xffffffffffffffff, True))
    put("pci", "ecam-only", pci_config(ecam_mode=0, pio_off=True) +
        ecam(XEN, 0x14, 4, 0xc1000000, True) + ecam(XEN, 4, 2, 2, True) +
        ecam_ro(XEN, 0x14, 4) + ecam(XEN, 0x14, 4, 0xe0000000, True) +
        ecam(XEN, 0x14, 4, 0xfff00000, True))
    put("pci", "bar-moves", pci_config(ram=2) +
        place_xen_bar(1, 0xc2000000, 3) + place_xen_bar(1, 0x00100000, 3) +
        place_xen_bar(0, 0x3f8, 1) + place_xen_bar(0, 0xcf8, 1) +
        place_xen_bar(0, 0xc100, 1) + place_xen_bar(1, 0xffff0000, 2) +
        place_xen_bar(1, 0xc3000000, 0))
    put("pci", "cf8-partial", pci_config(ram=3, ecam_mode=2) +
        cf8_raw(0, 4, 0x80001800, True) + cf8_raw(0, 4, 0, False) +
        cf8_raw(1, 1, 0x55, True) + cf8_raw(4, 2, 0, False) +
        cf8_raw(7, 1, 0, False) + cf8_raw(0, 2, 0x8000, True) +
        conf1(HOST, 0x100, 4) + conf1(HOST, 0xffc, 4))
    put("pci", "no-xen-many-buses", pci_config(ecam_mode=1, xen_off=True,
                                               b=0xf3) +
        ecam(HOST, 0, 4) + struct.pack("<BBHHBQ", 2, 2, 0x0300, 0, 0, 0))


# --- xen_ports: [pre][sel][val32]([off8]) ------------------------------------
def xen_legacy(off, width, val=0, write=False):
    w = {1: 0, 2: 1, 4: 2}[width]
    return struct.pack("<BBI", 0, w | (4 if write else 0) | off << 3, val)


def xen_bar0(off, width, val=0, write=False):
    w = {1: 0, 2: 1, 4: 2}[width]
    return struct.pack("<BBIB", 0, 0x80 | 0x40 | w | (4 if write else 0),
                       val, off)


def xen_seeds():
    log = b"".join(xen_legacy(2, 1, c, True) for c in b"xen log\r\n")
    put("xen_ports", "linux-unplug", xen_legacy(0, 2) + xen_legacy(2, 1) +
        xen_legacy(2, 2, 3, True) + xen_legacy(0, 4, 0x50101, True) +
        xen_legacy(0, 2, 3, True) + xen_legacy(0, 1, 1, True) +
        xen_legacy(0, 1) + log)
    put("xen_ports", "bar0", xen_bar0(0, 1, 1, True) + xen_bar0(0, 1) +
        xen_bar0(4, 1, 1, True) + xen_bar0(8, 1, 2, True) +
        xen_bar0(8, 4, 0x01010101, True) + xen_bar0(0xfe, 4, 0, False))
    put("xen_ports", "long-log", b"".join(
        xen_legacy(2, 1, 0x41 + i % 26, True) for i in range(300)) +
        xen_legacy(2, 1, 0x1b, True) + xen_legacy(15, 4, 0, True))
    put("xen_ports", "config", b"\xff" + struct.pack("<HI", 0x10, 0xffffffff)
        + b"\xff" + struct.pack("<HI", 0x04, 1) + xen_legacy(0, 2))


# --- uart: [pre >= 0x30][sel][val32] or [pre < 0x30][n][bytes] ---------------
def uart_reg(reg, val=0, write=False, width=1):
    w = {1: 0, 2: 1, 4: 2}[width]
    return struct.pack("<BBI", 0x40, w | (4 if write else 0) | reg << 3, val)


def uart_in(data):
    return bytes([0x10, len(data)]) + data


def uart_seeds():
    init = (uart_reg(3, 0x80, True) + uart_reg(0, 1, True) +
            uart_reg(1, 0, True) + uart_reg(3, 3, True) +
            uart_reg(2, 0xc7, True) + uart_reg(4, 0x0b, True) +
            uart_reg(1, 0x03, True))
    put("uart", "linux-init", init + b"".join(
        uart_reg(0, c, True) for c in b"hi\n") + uart_reg(2) + uart_reg(5) +
        uart_reg(6))
    put("uart", "loopback", uart_reg(4, 0x1f, True) + uart_reg(0, 0x5a, True)
        + uart_reg(5) + uart_reg(0) + uart_reg(6) + uart_reg(0, 0, True, 4))
    put("uart", "input", init + uart_in(b"hello") + uart_reg(2) +
        uart_reg(0) + uart_in(b"\x01\x01a\x01x") + uart_in(b"0123456789abcdefg")
        + uart_reg(2, 2, True) + uart_reg(5))
    put("uart", "scratch-wide", uart_reg(7, 0xa5, True) + uart_reg(7) +
        uart_reg(6, 0xffffffff, True, 4) + uart_reg(5, 0, False, 4) +
        uart_reg(9, 1, True, 2))


# --- msr_policy: TEXT \0 ACCESSES (9 bytes each) -----------------------------
def accesses(items):
    return b"".join(struct.pack("<BII", sel, idx, val)
                    for sel, idx, val in items)


def msr_seeds():
    acc = accesses([(0, 0x19a, 0), (1, 0x19a, 5), (0, 0x10, 0),
                    (1, 0x123, 7), (0, 0x123, 0), (0x80, 0, 0),
                    (0x81, 1, 9), (2, 0x4b564d00, 0), (0, 0xffffffff, 0)])
    texts = {
        "simple": "0x19a value=0x10,wgp\nIA32_TSC allow,log\n"
                  "0x123 emulate=4\n0x1b0 r host=0\ndefault deny\n",
        "presets": "preset:xen-strict\n0x40000000-0x400000ff ignore,count\n",
        "relaxed": "preset:therm-compat\npreset:xen-relaxed\n"
                   "default ignore,log\n",
        "ranges": "0x0-0x2fff r deny\n0x3000-0x5fff w ignore\n"
                  "0xc0000000-0xc0001fff rw value=1\n# comment only\n"
                  "EFER-SFMASK allow,count\n",
        "x2apic": "0x800-0x8ff allow\n0x802 r deny\n",
        "errors": "0x10 frob\n0x1-0x0 deny\nIA32_NOPE deny\n"
                  "0x100000000 deny\ndefault value=3\n0x10 r w deny\n",
    }
    for name, text in texts.items():
        put("msr_policy", name, text.encode() + b"\0" + acc)
    src = os.path.join(os.path.dirname(ROOT), "..", "unit", "data",
                       "msr_example.policy")
    if os.path.exists(src):
        with open(src, "rb") as f:
            put("msr_policy", "example-file", f.read() + b"\0" + acc)


# --- loader: [ram][initrd length 16][ELF][initrd] -----------------------------
def pvh_elf(bits=64, entry=0x100000, memsz=0x2000, descsz=8,
            paddr=0x100000):
    code = b"\xf4" * 16                       # hlt
    name = b"Xen\0"
    desc = struct.pack("<Q" if descsz == 8 else "<I", entry)
    note = struct.pack("<III", 4, descsz, 18) + name + desc
    if bits == 64:
        ehsize, phsize = 64, 56
    else:
        ehsize, phsize = 52, 32
    phoff = ehsize
    note_off = phoff + 2 * phsize
    code_off = note_off + len(note)
    ident = b"\x7fELF" + bytes([2 if bits == 64 else 1, 1, 1]) + bytes(9)
    if bits == 64:
        eh = ident + struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, entry, phoff,
                                 0, 0, ehsize, phsize, 2, 0, 0, 0)
        ph_load = struct.pack("<IIQQQQQQ", 1, 5, code_off, paddr, paddr,
                              len(code), memsz, 4096)
        ph_note = struct.pack("<IIQQQQQQ", 4, 4, note_off, 0, 0, len(note),
                              len(note), 4)
    else:
        eh = ident + struct.pack("<HHIIIIIHHHHHH", 2, 3, 1, entry, phoff,
                                 0, 0, ehsize, phsize, 2, 0, 0, 0)
        ph_load = struct.pack("<IIIIIIII", 1, code_off, paddr, paddr,
                              len(code), memsz, 5, 4096)
        ph_note = struct.pack("<IIIIIIII", 4, note_off, 0, 0, len(note),
                              len(note), 4, 4)
    return eh + ph_load + ph_note + note + code


def bzimage(setup_sects=4, ksize=0x800, init_size=0x300000,
            pref=0x1000000, cmdline_size=2047):
    """A bzImage setup header with Linux 6.1's values, scaled down."""
    img = bytearray((setup_sects + 1) * 512 + ksize)
    img[0x1f1] = setup_sects
    struct.pack_into("<I", img, 0x1f4, ksize // 16)
    struct.pack_into("<H", img, 0x1fe, 0xaa55)
    img[0x200:0x202] = b"\xeb\x6a"
    img[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", img, 0x206, 0x020f)
    img[0x211] = 1
    struct.pack_into("<I", img, 0x22c, 0x7fffffff)
    struct.pack_into("<I", img, 0x230, 0x200000)
    img[0x234] = 1
    img[0x235] = 21
    struct.pack_into("<H", img, 0x236, 0x7f)
    struct.pack_into("<I", img, 0x238, cmdline_size)
    struct.pack_into("<Q", img, 0x258, pref)
    struct.pack_into("<I", img, 0x260, init_size)
    for i in range((setup_sects + 1) * 512, len(img)):
        img[i] = (i * 13) & 0xff
    return bytes(img)


def mb_elf(segs, entry, flags=0):
    """An ELF32 multiboot kernel as kvm-unit-tests builds them: ehdr,
    phdrs, the header at 0xb0, then each segment's bytes."""
    phoff, n = 52, len(segs)
    data_off = 0x200
    ident = b"\x7fELF" + bytes([1, 1, 1]) + bytes(9)
    eh = ident + struct.pack("<HHIIIIIHHHHHH", 2, 3, 1, entry, phoff, 0, 0,
                             52, 32, n, 0, 0, 0)
    img = bytearray(eh)
    off = data_off
    for paddr, memsz, filesz in segs:
        img += struct.pack("<IIIIIIII", 1, off, paddr, paddr, filesz, memsz,
                           5, 16)
        off += (filesz + 15) & ~15
    img += bytes(0xb0 - len(img))
    magic = 0x1badb002
    img += struct.pack("<III", magic, flags, (-(magic + flags)) & 0xffffffff)
    img += bytes(data_off - len(img))
    for paddr, memsz, filesz in segs:
        img += bytes((paddr + i) & 0xff for i in range(filesz))
        img += bytes(((filesz + 15) & ~15) - filesz)
    return bytes(img)


def loader_input(elf, initrd=b"", ram=0, rom=False):
    return bytes([ram | (0x80 if rom else 0)]) + \
        struct.pack("<H", len(initrd)) + elf + initrd


def loader_seeds():
    put("loader", "elf64", loader_input(pvh_elf()))
    put("loader", "elf64-initrd", loader_input(pvh_elf(), b"initrd!" * 9,
                                               ram=1))
    put("loader", "elf32-note4", loader_input(pvh_elf(bits=32, descsz=4),
                                              b"x" * 100, ram=3, rom=True))
    put("loader", "entry-outside", loader_input(pvh_elf(entry=0x200000)))
    put("loader", "below-1m", loader_input(pvh_elf(paddr=0x1000,
                                                   entry=0x1000)))
    put("loader", "big-bss", loader_input(pvh_elf(memsz=0x1000000), ram=3))
    put("loader", "bzimage", loader_input(bzimage(), b"rd" * 50,
                                          ram=1 | 0x40 | 4))
    put("loader", "bzimage-long-cmdline",
        loader_input(bzimage(cmdline_size=255), ram=3 | 0x40 | 8))
    put("loader", "pvh-via-payload", loader_input(pvh_elf(), b"i" * 10,
                                                  ram=0x40))
    put("loader", "multiboot-flat", loader_input(
        mb_elf([(0x4000b0, 0x800, 0x800), (0x407000, 0x40000, 0x100)],
               0x4000bc), b"NR_CPUS=1\n", ram=3 | 0x40))
    put("loader", "multiboot-realmode", loader_input(
        mb_elf([(0x8000, 0x600, 0x600), (0xb000, 0x300, 0x100)], 0x8018),
        ram=0x40))
    put("loader", "multiboot-video", loader_input(
        mb_elf([(0x100000, 0x100, 0x100)], 0x100000, flags=4), ram=0x40))
    put("loader", "firmware-only", loader_input(b"\x90" * 4080 +
                                                b"\xeb\xfe" * 8, rom=True))


# --- fdt: [a][cpus][buses][ram32][payload...][append] -------------------------
def fdt_seeds():
    base = struct.pack("<BBBI", 0x04 | 0x08 | 0x20, 0, 0, 120)
    payload = struct.pack("<QQQ", 0x100000, 0x100000, 0x5000)
    put("fdt", "default", base + payload + b"console=ttyS0 quiet\0")
    put("fdt", "highmem-smp", struct.pack("<BBBI", 0x61 | 0x10, 7, 15, 3000)
        + payload + struct.pack("<QQ", 0x7f00000, 0x1000) + b"root=/dev/ram0")
    put("fdt", "long-cmdline", struct.pack("<BBBI", 2, 254, 255, 0) +
        b"x" * 65600)
    put("fdt", "no-append", struct.pack("<BBBI", 1, 0, 0, 0))


# --- virtq: geometry, RAM image, operations (see fuzz_virtq.c) --------------
VQ_BASE, VQ_DESC, VQ_AVAIL, VQ_USED, VQ_QSIZE = 0x10000, 0x0, 0x1000, 0x2000, 16
NEXT, WRITE, INDIRECT = 1, 2, 4


def vq_input(descs, heads, flags=3, extra=b"", ops=b"\0\0\0\0",
             itab=None, cap=2048):
    ram = bytearray(0x4000)
    for i, (addr, length, fl, nxt) in enumerate(descs):
        struct.pack_into("<QIHH", ram, VQ_DESC + 16 * i, VQ_BASE + addr,
                         length, fl, nxt)
    for i, h in enumerate(heads):
        struct.pack_into("<H", ram, VQ_AVAIL + 4 + 2 * i, h)
    struct.pack_into("<H", ram, VQ_AVAIL + 2, len(heads))
    for i, (addr, length, fl, nxt) in enumerate(itab or []):
        struct.pack_into("<QIHH", ram, 0x3800 + 16 * i, VQ_BASE + addr,
                         length, fl, nxt)
    ram[0x3000:0x3000 + len(extra)] = extra
    head = struct.pack("<BBHHHIH", 4, flags, VQ_DESC, VQ_AVAIL, VQ_USED,
                       cap, len(ram))
    return head + bytes(ram) + ops


def blk_hdr(t, sector):
    return struct.pack("<IIQ", t, 0, sector)


def virtq_seeds():
    put("virtq", "read", vq_input(
        [(0x3000, 16, NEXT, 1), (0x3100, 512, NEXT | WRITE, 2),
         (0x3300, 512, NEXT | WRITE, 3), (0x3500, 1, WRITE, 0)], [0],
        extra=blk_hdr(0, 10)))
    put("virtq", "write-split-header", vq_input(
        [(0x3000, 5, NEXT, 1), (0x3005, 11 + 1024, NEXT, 2),
         (0x3600, 1, WRITE, 0)], [0], extra=blk_hdr(1, 2000)))
    put("virtq", "indirect", vq_input(
        [(0x3800, 48, INDIRECT, 0)], [0], extra=blk_hdr(0, 0),
        itab=[(0x3000, 16, NEXT, 1), (0x3100, 1024, NEXT | WRITE, 2),
              (0x3600, 1, WRITE, 0)]))
    put("virtq", "discard", vq_input(
        [(0x3000, 32, NEXT, 1), (0x3600, 1, WRITE, 0)], [0],
        extra=blk_hdr(11, 0) + struct.pack("<QII", 8, 8, 0)))
    put("virtq", "get-id-flush", vq_input(
        [(0x3000, 16, NEXT, 1), (0x3100, 20, NEXT | WRITE, 2),
         (0x3600, 1, WRITE, 0), (0x3010, 16, NEXT, 4), (0x3601, 1, WRITE, 0)],
        [0, 3], extra=blk_hdr(8, 0) + blk_hdr(4, 0)))
    put("virtq", "loop-then-rewrite", vq_input(
        [(0x3000, 16, NEXT, 1), (0x3100, 16, NEXT, 0)], [0],
        ops=b"\0\4" + b"\1" + struct.pack("<HB", 0x10, 2) + b"\0\0\0"))
    put("virtq", "ro-write", vq_input(
        [(0x3000, 16, NEXT, 1), (0x3100, 512, NEXT, 2), (0x3600, 1, WRITE, 0)],
        [0], flags=7, extra=blk_hdr(1, 0)))


# --- net: two queues, RAM image, operations (see fuzz_net.c) -----------------
NET_RX, NET_TX = (0x0, 0x1000, 0x2000), (0x3000, 0x4000, 0x5000)


def net_input(rx, tx, features, flags=5, extra=(), ops=b""):
    """rx/tx: (descs, heads); descs (addr, len, flags, next) in RAM."""
    ram = bytearray(0x8000)
    for (descs, heads), (d, a, _) in ((rx, NET_RX), (tx, NET_TX)):
        for i, (addr, length, fl, nxt) in enumerate(descs):
            struct.pack_into("<QIHH", ram, d + 16 * i, VQ_BASE + addr,
                             length, fl, nxt)
        for i, h in enumerate(heads):
            struct.pack_into("<H", ram, a + 4 + 2 * i, h)
        struct.pack_into("<H", ram, a + 2, len(heads))
    for addr, data in extra:
        ram[addr:addr + len(data)] = data
    head = struct.pack("<BBBQHHHHHHH", 4, 4, flags, features, *NET_RX,
                       *NET_TX, len(ram))
    return head + bytes(ram) + ops


def net_hdr(flags=0, gso=0, hdr_len=0, gso_size=0, start=0, off=0):
    return struct.pack("<BBHHHHH", flags, gso, hdr_len, gso_size, start, off,
                       0)


def net_seeds():
    arp = bytes([0xff] * 6 + [0x52, 0x54, 0, 0x12, 0x34, 0x56, 8, 6]) + \
        bytes(46)
    rx4 = ([(0x6000 + 0x400 * i, 0x400, WRITE, 0) for i in range(4)],
           [0, 1, 2, 3])
    tx1 = ([(0x7000, 12, NEXT, 1), (0x700c, len(arp), 0, 0)], [0])
    csum, tso4, mrg = 1 << 0, 1 << 11, 1 << 15
    put("net", "arp-then-frames", net_input(
        rx4, tx1, mrg, extra=[(0x7000, net_hdr() + arp)],
        ops=b"\0\0" + b"\1" + struct.pack("<H", 1442) + b"\1" +
        struct.pack("<H", 100)))
    put("net", "direct-spill-then-wait", net_input(
        rx4, tx1, mrg, ops=b"\6" + struct.pack("<H", 1442) + b"\6" +
        struct.pack("<H", 3000)))
    put("net", "no-mrg-too-big", net_input(
        rx4, tx1, 0, flags=1, extra=[(0x7000, net_hdr() + arp)],
        ops=b"\1" + struct.pack("<H", 3000) + b"\0\1"))
    put("net", "tso", net_input(
        rx4, ([(0x7000, 12 + 200, 0, 0)], [0]), csum | tso4 | mrg,
        extra=[(0x7000, net_hdr(1, 1, 54, 100, 34, 16) + bytes(200))],
        ops=b"\0\0\5" + struct.pack("<H", 1000) +
        net_hdr(1, 4, 0, 1000, 34, 16)))
    put("net", "split-header-wait", net_input(
        ([(0x6000, 8, WRITE, 0), (0x6100, 16, WRITE, 0)], [0, 1]),
        ([(0x7000, 3, NEXT, 1), (0x7003, 9, NEXT, 2),
          (0x700c, len(arp), 0, 0)], [0]), mrg,
        extra=[(0x7000, net_hdr() + arp)],
        ops=b"\0\0\1" + struct.pack("<H", 600) + b"\3\4\1" +
        struct.pack("<H", 20)))


# --- manifest: unittests.cfg text ---------------------------------------------
def manifest_seeds():
    put("manifest", "suite", b"""[x2apic]
file = apic.flat
smp = 2
qemu_params = -cpu qemu64,+x2apic,+tsc-deadline
arch = x86_64
timeout = 30
groups = apic

[vmexit_cpuid]
file = vmexit.flat
test_args = 'cpuid'
groups = vmexit

[intel_iommu]
file = intel-iommu.flat
arch = x86_64
timeout = 30
smp = 4
qemu_params = -M q35,kernel-irqchip=split -device intel-iommu,intremap=on
check = /sys/module/kvm/parameters/enable_pmu=Y
""")
    put("manifest", "multi-line", b'[a]\nqemu_params = """-m 256 \\\n'
        b'-cpu host\n-smp 2"""\nminivmm_params = --ecam trap\n'
        b'test_args = "a \'b c\' `date`"\n[b]\ngroups = nodefault\n')
# --- xfail: minivmm test's --xfail file (its first line doubles as a
# --filter) -------------------------------------------------------------------
def xfail_seeds():
    put("xfail", "kut", b"""vmexit_*:smptest*:-*ipi*
# kvm-unit-tests on this host
emulator   MMX in ring 0: movd mm0, rax  # comment
\txsave\tvzeroall
pcid-enabled  a name with a dash\r
x2apic times out
""")
    put("xfail", "bad", b"-vmx*:svm*\na one\nfoo/bar two\na three\n")


# --- snapshot: a whole snapshot file (vmm/snapshot/format.h) ------------------
def snap_str(s):
    b = s.encode()
    return struct.pack("<I", len(b)) + b


def snap_file(sections):
    """sections: (type, instance, bytes); types 64..79 are memory."""
    n = len(sections)
    off = 64 + 32 * n
    table, body = b"", b""
    import zlib
    for t, inst, data in sections:
        mem = 64 <= t < 80
        align = 4096 if mem else 8
        pad = (-off) % align
        body += b"\0" * pad
        off += pad
        table += struct.pack("<IIQQII", t, inst, off, len(data),
                             zlib.crc32(data), 1 if mem else 0)
        body += data
        off += len(data)
    head = bytearray(b"MVMSNAP\x1a" + struct.pack("<IIIIQ", 2, 64, n, 0, off))
    head += struct.pack("<I", zlib.crc32(table)) + b"\0" * 24
    head += struct.pack("<I", zlib.crc32(bytes(head)))
    return bytes(head) + table + body


def snapshot_seeds():
    meta = (snap_str("v1 0123abcd") + snap_str("GenuineIntel") +
            struct.pack("<I", 0x806f8) + snap_str("Intel(R) Xeon(R)") +
            struct.pack("<IIII", 1, 4096, 2, 4) + struct.pack("<I", 5))
    kv = [("memory", "268435456"), ("cpus", "2"), ("ecam", "0"),
          ("pci-pio", "1"), ("pci-buses", "1"), ("xen-platform", "1"),
          ("xen-bar-mtrr", "0"), ("kernel", "payload.elf"),
          ("append", "cpus=2"), ("msr", "0x174 allow"),
          ("msr-policy", "rules.txt"),
          ("msr-policy-text", "0x19a value=0x10\ndefault deny\n")]
    config = struct.pack("<I", len(kv)) + b"".join(
        snap_str(k) + snap_str(v) for k, v in kv)
    uart = bytes([1, 3, 0x0b, 0x5a, 0xc1, 12, 0, 1, 1, 0, 2, 0]) + \
        b"ab" + b"\0" * 14
    pm = struct.pack("<HHHHQ", 0, 0, 1, 0, 123456789)
    cfg = bytearray(4096)
    struct.pack_into("<HHHH", cfg, 0, 0x5853, 0x0001, 0x0003, 0)
    struct.pack_into("<II", cfg, 0x10, 0xc101, 0xd0000008)
    bars = struct.pack("<BB6xQQ", 1, 1, 0xc100, 0xc100) + \
        struct.pack("<BB6xQQ", 1, 1, 0xd0000000, 0xd0000000) + \
        b"\0" * 24 * 4
    fn = bytes(cfg) + b"\0" * 8 + bars
    xen = struct.pack("<BBBBHHIIQQQQ", 1, 1, 0, 0, 3, 7, 0, 5, 1, 2, 0, 5) + \
        b"hello" + b"\0" * 251
    cmos = bytearray(128)
    cmos[0x0a], cmos[0x0b], cmos[0x0d], cmos[0x40] = 0x26, 0x12, 0x80, 0x5c
    rtc = bytes([0x40]) + b"\0" * 7 + bytes(cmos) + \
        struct.pack("<qqq", 3600, 0, 1764547200)
    fw_cfg = struct.pack("<HHI", 0, 0, 2)
    pc_testdev = struct.pack("<II", 0xc0ffee11, 1 << 10) + b"\0" * 65536
    pci_testdev = struct.pack("<i6I", 1, 5, 0, 0, 0, 0, 0)
    base = [(1, 0, meta), (2, 0, config), (48, 0, uart), (49, 0, pm),
            (54, 0, rtc), (97, 0, fw_cfg), (98, 0, pc_testdev),
            (98, 1, pci_testdev),
            (51, 0, struct.pack("<I", 0x80001800)), (52, 0x18, fn),
            (50, 0, xen), (53, 0, struct.pack("<I", 0))]
    put("snapshot", "devices", snap_file(base + [(64, 0, b"\x90" * 4096)]))
    put("snapshot", "state-only", snap_file(base))
    put("snapshot", "two-ram", snap_file(base[:2] + [(64, 0, b"\0" * 4096),
                                                    (64, 1, b"\1" * 8192)]))


# --- insn: guest code, decoded at every offset (see fuzz_insn.c) -------------
def insn_seeds():
    emulated = bytes.fromhex(
        "cc" "0f01ca" "0f01cb" "f0480fc74d20" "65f0490fc70e"
        "4a0fc74cc8f0" "480fc70df0ffffff" "f3480fb8c7" "66f30fb84e08"
        "9b" "cd21" "0f01d0" "0f01fd" "660fae33" "660fae3b" "0f38f007"
        "480f38f14608" "0f38f0c0" "660f388218")
    put("insn", "emulated", emulated)
    # The first instructions of Linux's fault handlers and their kin.
    put("insn", "handlers", bytes.fromhex(
        "0f1f00" "0f01ca" "f30f1efa" "662e0f1f840000000000" "6a00"
        "0f1f440000" "4190" "f390" "0f1fc0"))
    put("insn", "prefixes", bytes.fromhex(
        "f3650fb84f03" "66640fae32" "48664c0f388218" "66480fae37"
        "f0f3480fb807" "f3480fc70e" "65" * 10 + "480fc70e"))


# --- gdb: the byte stream a client sends (see fuzz_gdb.c) --------------------
def gdb_pkt(payload):
    return b"$%s#%02x" % (payload, sum(payload) & 0xff)


def gdb_seeds():
    session = b"+".join(gdb_pkt(p) for p in [
        b"qSupported:multiprocess+;swbreak+;hwbreak+", b"vMustReplyEmpty",
        b"QStartNoAckMode", b"Hg0", b"qXfer:features:read:target.xml:0,1000",
        b"?", b"qfThreadInfo", b"qsThreadInfo", b"g", b"p10",
        b"mffff800000000100,40", b"Z0,ffff800000000100,1",
        b"mffff800000000100,4", b"Mffff800000000100,2:9090",
        b"Z2,ffff800000001000,8", b"vCont;s:1", b"vCont;c",
        b"z0,ffff800000000100,1", b"D"])
    put("gdb", "session", session)
    put("gdb", "breakpoints", b"".join(gdb_pkt(p) for p in [
        b"Z0,ffff800000000010,1", b"Z0,ffff800000000011,1",
        b"qRcmd,70687973", b"m0,20", b"M10,4:cccccccc", b"Z1,10,1",
        b"Z3,20,4", b"Z4,40,8", b"Z2,80,2", b"Z2,100,1", b"z3,20,4"]))
    put("gdb", "hostile", b"\x03garbage$g#00" + gdb_pkt(b"x" * 300) +
        b"$m1,}" + gdb_pkt(b"G00") + gdb_pkt(b"P3b=00") +
        gdb_pkt(b"Hg-1") + gdb_pkt(b"qRcmd,7768657265"))


if __name__ == "__main__":
    gdb_seeds()
    virtq_seeds()
    net_seeds()
    pci_seeds()
    xen_seeds()
    uart_seeds()
    msr_seeds()
    loader_seeds()
    fdt_seeds()
    manifest_seeds()
    xfail_seeds()
    snapshot_seeds()
    insn_seeds()
