// SPDX-License-Identifier: MIT
/*
 * bzImage boot.  Boot-info area layout, from ABI_BOOTINFO_BASE:
 *
 *   +0x0000  boot_params (the "zero page", 4 KiB)
 *   +0x1000  command line, up to ABI_BOOTINFO_END
 *
 * The setup header comes from the VMM in the device tree
 * (ABI_PROP_SETUP_HEADER); the memory map is the one every payload gets
 * (tables_e820), the RSDP the one tables_build made.
 */
#include <libfdt.h>
#include <stddef.h>
#include <string.h>

#include "firmware/io.h"
#include "firmware/lib/abi.h"
#include "firmware/lib/boot_params.h"
#include "firmware/linuxboot.h"
#include "firmware/print.h"
#include "firmware/tables.h"

#define LINUX_BOOT_PARAMS	(ABI_BOOTINFO_BASE + 0x0)
#define LINUX_CMDLINE		(ABI_BOOTINFO_BASE + 0x1000)
#define LINUX_CMDLINE_MAX	(ABI_BOOTINFO_END - LINUX_CMDLINE)
#define LINUX_ENTRY64		0x200

_Static_assert(LINUX_BOOT_PARAMS + BOOT_PARAMS_SIZE <= LINUX_CMDLINE,
	       "boot_params overlaps the command line");

#define fail(...)	fw_fail(ABI_FW_FAIL_PAYLOAD, __VA_ARGS__)

/* linux_jump.S */
__attribute__((noreturn)) void linux_jump64(uint64_t entry,
					    uint64_t boot_params);

static void check_range(const struct machine *m, const char *what,
			const struct mem_range *r)
{
	if (r->start < ABI_PAYLOAD_MIN || r->start + r->size < r->start ||
	    !e820_ram_contains(m->ram, m->n_ram, r->start, r->size))
		fail("%s [0x%llx, +0x%llx) is not in RAM above 1 MiB", what,
		     (unsigned long long)r->start,
		     (unsigned long long)r->size);
}

/* The kernel [load, load + init_size) must be RAM below 4 GiB (our
 * identity map), entered at load + 0x200; the initrd must not overlap. */
static void check_payload(const struct machine *m)
{
	const struct mem_range *p = &m->payload_range;

	check_range(m, "kernel", p);
	if (p->start + p->size > 0x100000000ull)
		fail("kernel [0x%llx, +0x%llx) is not below 4 GiB",
		     (unsigned long long)p->start,
		     (unsigned long long)p->size);
	if (m->payload_entry != p->start + LINUX_ENTRY64)
		fail("bzImage entry 0x%llx is not load address + 0x200",
		     (unsigned long long)m->payload_entry);
	if (!m->has_initrd)
		return;
	check_range(m, "initrd", &m->initrd);
	if (m->initrd.start < p->start + p->size &&
	    p->start < m->initrd.start + m->initrd.size)
		fail("initrd overlaps the kernel");
}

/* The setup header bytes from /chosen (the machine reader skips it). */
static const uint8_t *setup_header(int *len)
{
	const void *fdt = phys_ptr(ABI_FDT_ADDR);
	int node = fdt_path_offset(fdt, "/chosen");
	const uint8_t *h;

	if (node < 0)
		fail("no /chosen node: %s", fdt_strerror(node));
	h = fdt_getprop(fdt, node, ABI_PROP_SETUP_HEADER, len);
	if (!h)
		fail("bzImage payload without %s", ABI_PROP_SETUP_HEADER);
	return h;
}

void linux_prepare(const struct machine *m, uint64_t rsdp)
{
	struct e820_entry map[BP_E820_MAX];
	struct boot_params_in in = { .rsdp = rsdp };
	size_t len = strnlen(m->bootargs, LINUX_CMDLINE_MAX);
	int hlen, err;

	check_payload(m);
	in.setup_header = setup_header(&hlen);
	in.setup_header_len = (size_t)hlen;
	if (len == LINUX_CMDLINE_MAX)
		fail("bootargs longer than %u bytes", LINUX_CMDLINE_MAX - 1);
	memcpy(phys_ptr(LINUX_CMDLINE), m->bootargs, len + 1);
	in.cmdline_addr = LINUX_CMDLINE;
	in.cmdline_len = len;
	if (m->has_initrd) {
		in.initrd_addr = m->initrd.start;
		in.initrd_size = m->initrd.size;
	}
	in.e820 = map;
	in.n_e820 = tables_e820(m, map, BP_E820_MAX);
	err = boot_params_build(phys_ptr(LINUX_BOOT_PARAMS), &in);
	if (err == -BP_ECMDLINE)
		fail("command line of %zu bytes is longer than the kernel's "
		     "cmdline_size %u", len,
		     boot_params_cmdline_size(in.setup_header, (size_t)hlen));
	if (err)
		fail("bad setup header (%d bytes): error %d", hlen, err);
}

void linux_enter(const struct machine *m)
{
	progress(ABI_MS_FW_HANDOFF);
	linux_jump64(m->payload_entry, LINUX_BOOT_PARAMS);
}
