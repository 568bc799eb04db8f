// SPDX-License-Identifier: MIT
/*
 * Multiboot v1 boot (see multiboot.h).  Boot-info area layout, from
 * ABI_BOOTINFO_BASE:
 *
 *   +0x0000  struct mbi, the module, the memory map (mbi.h)
 *   +0x0800  boot loader name, module string
 *   +0x0840  copy list for handoff.S: u32 dst, src, filesz, memsz per low
 *            segment, ended by memsz 0
 *   +0x1000  command line ("program args": the VMM put the kernel's path
 *            first), up to ABI_BOOTINFO_END
 */
#include <string.h>

#include "firmware/io.h"
#include "firmware/lib/abi.h"
#include "firmware/lib/bios_ivt.h"
#include "firmware/lib/mbi.h"
#include "firmware/multiboot.h"
#include "firmware/print.h"
#include "firmware/tables.h"

#define MB_INFO		(ABI_BOOTINFO_BASE + 0x0)
#define MB_INFO_MAX	0x800
#define MB_LOADER_NAME	(ABI_BOOTINFO_BASE + 0x800)
#define MB_MOD_STRING	(ABI_BOOTINFO_BASE + 0x830)
#define MB_COPIES	(ABI_BOOTINFO_BASE + 0x840)
#define MB_CMDLINE	(ABI_BOOTINFO_BASE + 0x1000)
#define MB_CMDLINE_MAX	(ABI_BOOTINFO_END - MB_CMDLINE)		/* with NUL */
#define MB_MAP_MAX	64
#define ONE_MIB		0x100000ull

_Static_assert(sizeof(struct mbi) + sizeof(struct mbi_module) +
	       MB_MAP_MAX * sizeof(struct mbi_mmap_entry) <= MB_INFO_MAX,
	       "multiboot information overlaps the strings");
_Static_assert(MB_COPIES + (MACHINE_MAX_LOW + 1) * 16 <= MB_CMDLINE,
	       "copy list overlaps the command line");

#define fail(...)	fw_fail(ABI_FW_FAIL_PAYLOAD, __VA_ARGS__)

/* handoff.S */
__attribute__((noreturn)) void multiboot_jump(uint32_t entry, uint32_t mbi,
					      uint32_t copies);

static bool inside(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a >= b && alen <= blen && a - b <= blen - alen;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

static void check_range(const struct machine *m, const char *what,
			const struct mem_range *r)
{
	if (r->start < ONE_MIB || r->start + r->size < r->start ||
	    !e820_ram_contains(m->ram, m->n_ram, r->start, r->size))
		fail("%s [0x%llx, +0x%llx) is not in RAM above 1 MiB", what,
		     (unsigned long long)r->start,
		     (unsigned long long)r->size);
}

/* A low segment goes to free RAM below 1 MiB (not the IVT, not the boot
 * information) from the staged copy inside the payload range. */
static bool low_ok(const struct machine *m, const struct low_segment *s)
{
	const struct mem_range *p = &m->payload_range;

	return s->filesz <= s->memsz && s->memsz &&
	       inside(s->dst, s->memsz, ABI_LOW_MEM_MIN,
		      ABI_LOW_MEM_END - ABI_LOW_MEM_MIN) &&
	       !overlaps(s->dst, s->memsz, ABI_BOOTINFO_BASE,
			 ABI_BOOTINFO_END - ABI_BOOTINFO_BASE) &&
	       (!s->filesz || inside(s->src, s->filesz, p->start, p->size));
}

static bool entry_ok(const struct machine *m)
{
	uint64_t e = m->payload_entry;

	if (inside(e, 1, m->payload_range.start, m->payload_range.size))
		return true;
	for (unsigned int i = 0; i < m->n_low; i++)
		if (inside(e, 1, m->low[i].dst, m->low[i].memsz))
			return true;
	return false;
}

static void check_payload(const struct machine *m)
{
	const struct mem_range *p = &m->payload_range;

	if (p->size)
		check_range(m, "payload", p);
	for (unsigned int i = 0; i < m->n_low; i++)
		if (!low_ok(m, &m->low[i]))
			fail("low segment %u (0x%llx, +0x%llx) is not in free "
			     "RAM below 1 MiB", i,
			     (unsigned long long)m->low[i].dst,
			     (unsigned long long)m->low[i].memsz);
	if (!entry_ok(m) || m->payload_entry >= 0x100000000ull)
		fail("multiboot entry 0x%llx is outside the payload",
		     (unsigned long long)m->payload_entry);
	if (!m->has_initrd)
		return;
	check_range(m, "initrd", &m->initrd);
	if (overlaps(m->initrd.start, m->initrd.size, p->start, p->size))
		fail("initrd overlaps the payload");
}

static void put_string(uint32_t at, const char *s)
{
	memcpy(phys_ptr(at), s, strlen(s) + 1);
}

static void build_info(const struct machine *m)
{
	struct e820_entry map[MB_MAP_MAX];
	size_t len = strnlen(m->bootargs, MB_CMDLINE_MAX), used;
	struct mbi_config c = {
		.map = map,
		.cmdline = MB_CMDLINE,
		.loader_name = MB_LOADER_NAME,
		.has_module = m->has_initrd,
		.mod_start = m->initrd.start,
		.mod_size = m->initrd.size,
		.mod_string = MB_MOD_STRING,
	};
	int err;

	if (len == MB_CMDLINE_MAX)
		fail("bootargs longer than %u bytes", MB_CMDLINE_MAX - 1);
	memcpy(phys_ptr(MB_CMDLINE), m->bootargs, len + 1);
	put_string(MB_LOADER_NAME, "minivmm " MINIVMM_VERSION);
	put_string(MB_MOD_STRING, "initrd");
	c.n_map = tables_e820(m, map, MB_MAP_MAX);
	err = mbi_build(&c, phys_ptr(MB_INFO), MB_INFO_MAX, MB_INFO, &used);
	if (err)
		fail("multiboot information: error %d", err);
}

static void build_copies(const struct machine *m)
{
	uint32_t *c = phys_ptr(MB_COPIES);

	for (unsigned int i = 0; i < m->n_low; i++, c += 4) {
		c[0] = (uint32_t)m->low[i].dst;
		c[1] = (uint32_t)m->low[i].src;
		c[2] = (uint32_t)m->low[i].filesz;
		c[3] = (uint32_t)m->low[i].memsz;
	}
	c[3] = 0;
}

void multiboot_prepare(const struct machine *m)
{
	check_payload(m);
	build_info(m);
	build_copies(m);
	if (bios_ivt_build(phys_ptr(0), phys_ptr(TABLES_BIOS_STUBS),
			   TABLES_BIOS_STUBS) < 0)
		fail("interrupt stubs at 0x%x", TABLES_BIOS_STUBS);
}

/* The 8259s as a PC BIOS leaves them: ICW1-4 (edge, cascade on IRQ 2,
 * 8086 mode), vectors 0x08 and 0x70, only the timer and the cascade
 * unmasked.  Then PIT channel 0 in mode 2 with count 65536: 18.2 Hz. */
static void legacy_init(void)
{
	static const uint8_t seq[][2] = {
		{ 0x20, 0x11 }, { 0x21, BIOS_PIC_MASTER_BASE }, { 0x21, 0x04 },
		{ 0x21, 0x01 }, { 0xa0, 0x11 }, { 0xa1, BIOS_PIC_SLAVE_BASE },
		{ 0xa1, 0x02 }, { 0xa1, 0x01 }, { 0x21, 0xfa }, { 0xa1, 0xff },
		{ 0x43, 0x34 }, { 0x40, 0x00 }, { 0x40, 0x00 },
	};

	for (unsigned int i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
		outb(seq[i][0], seq[i][1]);
}

void multiboot_enter(const struct machine *m)
{
	legacy_init();
	progress(ABI_MS_FW_HANDOFF);
	multiboot_jump((uint32_t)m->payload_entry, MB_INFO, MB_COPIES);
}
