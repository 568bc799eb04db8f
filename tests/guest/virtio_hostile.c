// SPDX-License-Identifier: MIT
/*
 * virtio_hostile: a driver that breaks every rule it can against the
 * first virtio-blk (best with a read-only disk): descriptors outside RAM, wrapping, zero and huge lengths,
 * loops (direct and indirect), bad indices, nested or un-negotiated
 * indirect tables, writable-before-readable, rings outside RAM or
 * misaligned, queue sizes that are not a power of two or too large, kicks
 * for queues never set up and of odd widths, feature bits never offered,
 * status bits cleared, bad MSI-X vectors and table accesses, the PCI
 * configuration window misused, BAR 0 moved under a running queue, then
 * rounds of random descriptor tables.  Each case checks the device's
 * documented answer (DEVICE_NEEDS_RESET, an error status, an ignored
 * access) and that it works again after a reset; canaries around every
 * buffer the device may write show it wrote nowhere else.
 * Command line: seed=N rounds=N.  Ends "virtio-hostile: N failure(s)".
 */
#include "lib/guest.h"
#include "lib/vblk.h"

#define QSIZE		64
#define ARENA		(64 * 1024)
#define CANARY		0x5ac5ac5ac5ac5ac5ull
#define WAIT		(2ull * 1000 * 1000 * 1000)
#define NEEDS_RESET	VIRTIO_STATUS_NEEDS_RESET
#define F(b)		(1ull << (b))
#define STD_FEATURES	(F(VIRTIO_F_VERSION_1) | F(VIRTIO_F_RING_INDIRECT_DESC) | \
			 F(VIRTIO_F_RING_EVENT_IDX))

/* Everything the device may write, with canary pages on both sides. */
static struct {
	uint64_t lo[512];
	uint8_t qmem[16 * 1024];
	uint8_t arena[ARENA];
	struct gv_desc itab[64];
	uint64_t hi[512];
} mem __attribute__((aligned(4096)));

static struct gvirtio d;
static struct gvq *q;
static uint64_t ram_end, rng_state = 1;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* --- plumbing ---------------------------------------------------------- */

static bool setup_features(uint64_t f, uint16_t size)
{
	if (!gv_negotiate(&d, f, false))
		return false;
	if (gv_queue_setup(&d, 0, size, mem.qmem, VIRTIO_MSI_NO_VECTOR) < 0)
		return false;
	q = &d.q[0];
	gv_driver_ok(&d);
	return !(gv_status(&d) & NEEDS_RESET);
}

static bool fresh(void)
{
	return setup_features(STD_FEATURES, QSIZE);
}

static bool wait_status(uint8_t bit)
{
	uint64_t end = rdtsc() + WAIT;

	while (rdtsc() < end)
		if (gv_status(&d) & bit)
			return true;
	return false;
}

static bool wait_used(uint32_t *len)
{
	uint64_t end = rdtsc() + WAIT;
	uint32_t id;

	while (rdtsc() < end)
		if (gv_poll(q, &id, len))
			return true;
	return false;
}

static void put(unsigned int i, uint64_t addr, uint32_t len, uint16_t flags,
		uint16_t next)
{
	q->desc[i] = (struct gv_desc){ addr, len, flags, next };
}

static void post(uint16_t head)
{
	gv_publish(q, head);
	gv_kick_always(q);
}

/* A good read works: the device is usable again. */
static bool works(void)
{
	struct vblk b = { .d = d, .q = q };
	struct vblk_shape s = { .split = 1, .no_interrupt = true };

	return vblk_req(&b, VIRTIO_BLK_T_IN, 0, mem.arena, 512, &s, NULL) ==
	       VIRTIO_BLK_S_OK;
}

/* Expect DEVICE_NEEDS_RESET, then a reset and a working device. */
static void needs_reset(const char *name)
{
	check(wait_status(NEEDS_RESET), "%s: no DEVICE_NEEDS_RESET", name);
	check(fresh() && works(), "%s: not usable after a reset", name);
}

static uint64_t arena(uint64_t off)
{
	return (uintptr_t)mem.arena + off;
}

/* A 16-byte IN header at arena 0, status byte at arena 16. */
static void header(uint32_t type)
{
	uint32_t h[4] = { type, 0, 0, 0 };

	memcpy(mem.arena, h, sizeof(h));
	mem.arena[16] = 0xff;
}

/* --- descriptors --------------------------------------------------------- */

static void bad_buffer(const char *name, uint64_t addr, uint32_t len)
{
	fresh();
	header(VIRTIO_BLK_T_IN);
	put(0, arena(0), 16, VIRTQ_DESC_F_NEXT, 1);
	put(1, addr, len, VIRTQ_DESC_F_NEXT | VIRTQ_DESC_F_WRITE, 2);
	put(2, arena(16), 1, VIRTQ_DESC_F_WRITE, 0);
	post(0);
	needs_reset(name);
}

static void test_addresses(void)
{
	bad_buffer("buffer in the PCI hole", 0xf0000000, 512);
	bad_buffer("buffer across the end of RAM", ram_end - 8, 512);
	bad_buffer("buffer at 2^64 - 256", ~0xffull, 512);
	bad_buffer("4 GiB buffer", arena(512), 0xffffffffu);
	bad_buffer("buffer in the firmware ROM", 0xfffff000, 512);
}

static void test_lengths(void)
{
	uint32_t len;

	fresh();
	header(VIRTIO_BLK_T_IN);
	put(0, arena(0), 0, VIRTQ_DESC_F_NEXT, 1);	/* empty header */
	put(1, arena(16), 1, VIRTQ_DESC_F_WRITE, 0);
	post(0);
	check(wait_used(&len) && len == 1 && mem.arena[16] == VIRTIO_BLK_S_IOERR,
	      "zero-length header: status %#x", mem.arena[16]);
	check(!(gv_status(&d) & NEEDS_RESET), "zero length: needs reset");
	put(0, arena(0), 0, 0, 0);			/* nothing at all */
	post(0);
	check(wait_used(&len) && len == 0, "empty chain: used len %u", len);
	check(works(), "device unusable after zero lengths");
}

static void test_chains(void)
{
	fresh();
	put(0, arena(0), 16, VIRTQ_DESC_F_NEXT, 1);
	put(1, arena(64), 16, VIRTQ_DESC_F_NEXT, 0);	/* 0 -> 1 -> 0 */
	post(0);
	needs_reset("two-descriptor loop");
	put(5, arena(0), 16, VIRTQ_DESC_F_NEXT, 5);
	post(5);
	needs_reset("self loop");
	put(0, arena(0), 16, VIRTQ_DESC_F_NEXT, 200);
	post(0);
	needs_reset("next index beyond the queue");
	q->avail[2 + q->avail_idx % q->size] = 500;
	q->avail_idx++;
	q->avail[1] = q->avail_idx;
	gv_kick_always(q);
	needs_reset("head index beyond the queue");
	q->avail[1] = (uint16_t)(q->avail_idx + 1000);
	gv_kick_always(q);
	needs_reset("avail index jump");
	header(VIRTIO_BLK_T_IN);
	put(0, arena(16), 1, VIRTQ_DESC_F_NEXT | VIRTQ_DESC_F_WRITE, 1);
	put(1, arena(0), 16, 0, 0);
	post(0);
	needs_reset("readable after writable");
}

static void post_indirect(unsigned int n)
{
	put(0, (uintptr_t)mem.itab, n, VIRTQ_DESC_F_INDIRECT, 0);
	post(0);
}

static void test_indirect(void)
{
	struct gv_desc *t = mem.itab;

	fresh();
	t[0] = (struct gv_desc){ arena(0), 16, VIRTQ_DESC_F_NEXT, 1 };
	t[1] = (struct gv_desc){ arena(32), 16, VIRTQ_DESC_F_NEXT, 0 };
	post_indirect(2 * 16);
	needs_reset("indirect loop");
	t[0] = (struct gv_desc){ (uintptr_t)t, 32, VIRTQ_DESC_F_INDIRECT, 0 };
	post_indirect(16);
	needs_reset("nested indirect");
	t[0] = (struct gv_desc){ arena(0), 16, 0, 0 };
	post_indirect(24);
	needs_reset("indirect length not a multiple of 16");
	post_indirect(0);
	needs_reset("empty indirect table");
	put(0, (uintptr_t)mem.itab, 16, VIRTQ_DESC_F_INDIRECT |
	    VIRTQ_DESC_F_NEXT, 1);
	post(0);
	needs_reset("indirect with NEXT");
	put(0, 0xf0000000, 16 * 16, VIRTQ_DESC_F_INDIRECT, 0);
	post(0);
	needs_reset("indirect table outside RAM");
	setup_features(F(VIRTIO_F_VERSION_1), QSIZE);
	post_indirect(16);
	check(wait_status(NEEDS_RESET), "indirect not negotiated: accepted");
}

/* --- set-up rules ------------------------------------------------------------- */

static void raw_queue(uint16_t size, uint64_t desc, uint64_t avail,
		      uint64_t used)
{
	uint64_t c = d.common;

	gv_negotiate(&d, STD_FEATURES, false);
	mmio_write16(c + VIRTIO_PCI_COMMON_Q_SELECT, 0);
	mmio_write16(c + VIRTIO_PCI_COMMON_Q_SIZE, size);
	mmio_write64(c + VIRTIO_PCI_COMMON_Q_DESCLO, desc);
	mmio_write64(c + VIRTIO_PCI_COMMON_Q_AVAILLO, avail);
	mmio_write64(c + VIRTIO_PCI_COMMON_Q_USEDLO, used);
	mmio_write16(c + VIRTIO_PCI_COMMON_Q_ENABLE, 1);
}

static void refused_queue(const char *name, uint16_t size, uint64_t desc)
{
	uint64_t b = (uintptr_t)mem.qmem;

	raw_queue(size, desc, b + 8192, b + 12288);
	check(mmio_read16(d.common + VIRTIO_PCI_COMMON_Q_ENABLE) == 0,
	      "%s: queue enabled", name);
	check(gv_status(&d) & NEEDS_RESET, "%s: no DEVICE_NEEDS_RESET", name);
}

static void test_setup(void)
{
	uint64_t c = d.common, b = (uintptr_t)mem.qmem;

	refused_queue("queue size 100", 100, b);
	refused_queue("queue size 1024", 1024, b);
	refused_queue("queue size 0", 0, b);
	refused_queue("descriptors misaligned", 16, b + 8);
	refused_queue("descriptors outside RAM", 16, 0xf0000000);
	refused_queue("descriptors across the end of RAM", 64, ram_end - 512);
	gv_negotiate(&d, STD_FEATURES, false);
	mmio_write16(c + VIRTIO_PCI_COMMON_Q_SELECT, 7);
	check(mmio_read16(c + VIRTIO_PCI_COMMON_Q_SIZE) == 0,
	      "absent queue 7 has a size");
	mmio_write16(c + VIRTIO_PCI_COMMON_Q_ENABLE, 1);
	check(mmio_read16(c + VIRTIO_PCI_COMMON_Q_ENABLE) == 0,
	      "absent queue 7 enabled");
	check(!gv_negotiate(&d, STD_FEATURES | F(VIRTIO_F_RING_PACKED), true),
	      "FEATURES_OK with PACKED, never offered");
	check(!gv_negotiate(&d, STD_FEATURES | F(50), true),
	      "FEATURES_OK with bit 50, never offered");
	check(!gv_negotiate(&d, F(VIRTIO_F_RING_EVENT_IDX), true),
	      "FEATURES_OK without VERSION_1");
	gv_reset(&d);
	gv_set_status(&d, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER |
		      VIRTIO_STATUS_DRIVER_OK);
	check(wait_status(NEEDS_RESET) &&
	      !(gv_status(&d) & VIRTIO_STATUS_DRIVER_OK),
	      "DRIVER_OK without FEATURES_OK: status %#x", gv_status(&d));
	fresh();
	gv_set_status(&d, VIRTIO_STATUS_ACKNOWLEDGE);	/* clears bits */
	needs_reset("status bits cleared");
}

/* --- kicks, vectors, windows ---------------------------------------------- */

static void test_kicks(void)
{
	uint64_t n = d.notify;

	gv_reset(&d);
	mmio_write16(n, 0);			/* queue 0 not set up */
	mmio_write16(n + 3 * d.notify_mult, 3);	/* no queue 3 */
	mmio_write32(n + 0x800, 0xffffffffu);	/* past every queue */
	mmio_write8(n + 1, 1);			/* unaligned, narrow */
	check(!(gv_status(&d) & NEEDS_RESET), "stray kicks: needs reset");
	check(fresh() && works(), "device unusable after stray kicks");
	header(VIRTIO_BLK_T_IN);
	put(0, arena(0), 16, VIRTQ_DESC_F_NEXT, 1);
	put(1, arena(16), 1, VIRTQ_DESC_F_WRITE, 0);
	gv_publish(q, 0);
	mmio_write32(q->notify, 0);		/* a 4-byte kick */
	check(wait_used(&(uint32_t){ 0 }), "4-byte kick lost");
	mmio_write64(q->notify, 0);		/* an 8-byte kick: no harm */
	check(works(), "device unusable after wide kicks");
}

static void test_vectors(void)
{
	uint64_t c = d.common, t = d.msix_table;

	mmio_write16(c + VIRTIO_PCI_COMMON_Q_SELECT, 0);
	mmio_write16(c + VIRTIO_PCI_COMMON_Q_MSIX, 100);
	check(mmio_read16(c + VIRTIO_PCI_COMMON_Q_MSIX) == VIRTIO_MSI_NO_VECTOR,
	      "queue vector 100 accepted");
	mmio_write16(c + VIRTIO_PCI_COMMON_MSIX, d.msix_nvec);
	check(mmio_read16(c + VIRTIO_PCI_COMMON_MSIX) == VIRTIO_MSI_NO_VECTOR,
	      "config vector %u accepted", d.msix_nvec);
	mmio_write8(t + 1, 0x55);		/* byte write: undefined, dropped */
	mmio_write32(t + 2, 0x55);		/* misaligned */
	mmio_write32(t + 16ull * d.msix_nvec, 0x55);	/* past the table */
	check(mmio_read32(t) == 0 && mmio_read32(t + 12) == 1,
	      "MSI-X entry 0 changed: %#x %#x", mmio_read32(t),
	      mmio_read32(t + 12));
	check(mmio_read32(t + 16ull * d.msix_nvec) == 0xffffffffu,
	      "read past the MSI-X table");
	mmio_write32(d.device, 0x12345678);	/* read-only configuration */
	check(gv_cfg_read32(&d, 0) != 0x12345678, "capacity written");
	check(mmio_read32(d.device + 0xff0) == 0, "read past device config");
	check(mmio_read32(d.common + 0x100) == 0, "read past common config");
	check(mmio_read64(d.common + VIRTIO_PCI_COMMON_Q_DESCLO) ==
	      (uintptr_t)mem.qmem, "64-bit read of queue_desc");
	/* Nonsense messages (no LAPIC address, vectors 0 and 255): the
	 * device sends them; where they go is the guest's problem (its
	 * interrupts stay off here), not the host's. */
	gv_msix_vector(&d, 0, 0x1234, 0, false);
	gv_msix_vector(&d, 1, ~0ull << 2, 0xffffffffu, false);
	gv_msix_enable(&d, true, false);
	fresh();
	mmio_write16(c + VIRTIO_PCI_COMMON_MSIX, 0);
	mmio_write16(c + VIRTIO_PCI_COMMON_Q_MSIX, 1);
	check(vblk_req(&(struct vblk){ .d = d, .q = q }, VIRTIO_BLK_T_IN, 0,
		       mem.arena, 512, &(struct vblk_shape){ .split = 1 },
		       NULL) == VIRTIO_BLK_S_OK,
	      "device unusable with nonsense MSI-X messages");
	gv_msix_enable(&d, false, false);
	gv_msix_vector(&d, 0, 0, 0, true);
	gv_msix_vector(&d, 1, 0, 0, true);
}

static void test_window(void)
{
	unsigned int c = d.cfg_cap;

	if (!c) {
		check(false, "no PCI configuration window");
		return;
	}
	gv_pci_write(&d, c + VIRTIO_PCI_CFG_DATA, 0, 4);
	gv_pci_write(&d, c + VIRTIO_PCI_CAP_BAR, 5, 1);		/* no BAR 5 */
	gv_pci_write(&d, c + VIRTIO_PCI_CAP_LENGTH, 1, 4);
	gv_pci_write(&d, c + VIRTIO_PCI_CAP_OFFSET, VIRTIO_PCI_COMMON_STATUS, 4);
	check(gv_pci_read(&d, c + VIRTIO_PCI_CFG_DATA, 4) == 0,
	      "window through BAR 5 returned data");
	gv_pci_write(&d, c + VIRTIO_PCI_CAP_LENGTH, 3, 4);	/* bad length */
	gv_pci_write(&d, c + VIRTIO_PCI_CAP_BAR, 0, 1);
	gv_pci_write(&d, c + VIRTIO_PCI_CAP_OFFSET, 0x7fff, 4);
	gv_pci_write(&d, c + VIRTIO_PCI_CAP_LENGTH, 4, 4);	/* past the BAR */
	gv_pci_write(&d, c + VIRTIO_PCI_CAP_OFFSET, VIRTIO_PCI_COMMON_NUMQ, 4);
	gv_pci_write(&d, c + VIRTIO_PCI_CAP_LENGTH, 2, 4);
	check(gv_pci_read(&d, c + VIRTIO_PCI_CFG_DATA, 2) == 1,
	      "num_queues through the window: %u",
	      gv_pci_read(&d, c + VIRTIO_PCI_CFG_DATA, 2));
}

/* BAR 0 moves while a queue runs: kicks must follow it. */
static void test_bar_move(void)
{
	uint64_t old = d.bar[0], to = old + 0x100000;
	uint32_t cmd = gv_pci_read(&d, PCI_COMMAND, 2);

	gv_pci_write(&d, PCI_COMMAND, cmd & ~PCI_COMMAND_MEMORY, 2);
	gv_pci_write(&d, PCI_BASE_ADDRESS_0, (uint32_t)to | 4, 4);
	gv_pci_write(&d, PCI_COMMAND, cmd, 2);
	d.common += to - old;
	d.notify += to - old;
	d.isr += to - old;
	d.device += to - old;
	d.msix_table += to - old;
	q->notify += to - old;
	check(gv_status(&d) & VIRTIO_STATUS_DRIVER_OK, "status lost on move");
	check(works(), "no completion after BAR 0 moved");
	gv_pci_write(&d, PCI_COMMAND, cmd & ~PCI_COMMAND_MEMORY, 2);
	gv_pci_write(&d, PCI_BASE_ADDRESS_0, (uint32_t)old | 4, 4);
	gv_pci_write(&d, PCI_COMMAND, cmd, 2);
	gv_find(VIRTIO_ID_BLOCK, 0, &d);
	check(fresh() && works(), "no completion after BAR 0 moved back");
}

/* --- random tables ------------------------------------------------------------- */

static uint64_t rnd_addr(uint32_t *len)
{
	static const uint32_t lens[] = { 0, 1, 15, 16, 17, 512, 4096, 65536,
					 0xffffffffu };
	uint32_t l = lens[rnd() % 9];

	*len = l;
	switch (rnd() % 8) {
	case 0:
		return rnd();
	case 1:
		return ram_end - (rnd() & 0xfff);
	case 2:
		*len = l % sizeof(mem.itab);
		return (uintptr_t)mem.itab;
	default:
		*len = l % (ARENA / 2);
		return arena(rnd() % (ARENA / 2));
	}
}

struct round {
	unsigned int n;
	uint16_t heads[4];
};

/* In ring 3, where the loops run natively: a random arena prefix (the
 * request headers), descriptor table and indirect table. */
static void random_tables(void *arg)
{
	struct round *r = arg;
	uint32_t len;

	for (unsigned int i = 0; i < 1024; i += 8)
		*(uint64_t *)(mem.arena + i) = rnd() % 3 ? 0 : rnd();
	for (unsigned int i = 0; i < QSIZE; i++) {
		uint64_t a = rnd_addr(&len);

		put(i, a, len, (uint16_t)(rnd() & 7), (uint16_t)(rnd() % 72));
	}
	for (unsigned int i = 0; i < 64; i++) {
		uint64_t a = rnd_addr(&len);

		mem.itab[i] = (struct gv_desc){ a, len, (uint16_t)(rnd() & 7),
						(uint16_t)(rnd() % 70) };
	}
	r->n = 1 + rnd() % 4;
	for (unsigned int i = 0; i < r->n; i++)
		r->heads[i] = (uint16_t)(rnd() % 70);
}

static void random_round(void)
{
	struct round r;

	run_user(random_tables, &r);
	for (unsigned int i = 0; i < r.n; i++)
		gv_publish(q, r.heads[i]);
	gv_kick_always(q);
	/* Until the device gave up on the ring or completed the chains. */
	for (uint64_t end = rdtsc() + WAIT; rdtsc() < end;) {
		if (gv_status(&d) & NEEDS_RESET)
			break;
		if (*(volatile uint16_t *)(q->used + 2) == q->avail_idx)
			break;
	}
	if (gv_status(&d) & NEEDS_RESET)
		fresh();
	else
		q->last_used = q->avail_idx;
}

static bool canaries_intact(void)
{
	for (unsigned int i = 0; i < 512; i++) {
		if (mem.lo[i] == CANARY && mem.hi[i] == CANARY)
			continue;
		gprintf("canary %u: lo %#llx hi %#llx\n", i,
			(unsigned long long)mem.lo[i],
			(unsigned long long)mem.hi[i]);
		return false;
	}
	return true;
}

static void find_ram_end(const struct hvm_start_info *si)
{
	uint32_t n;
	const struct hvm_memmap_table_entry *e = start_info_memmap(si, &n);

	for (uint32_t i = 0; i < n; i++)
		if (e[i].type == HVM_MEMMAP_RAM && e[i].addr < 0x100000000ull &&
		    e[i].addr + e[i].size > ram_end)
			ram_end = e[i].addr + e[i].size;
}

int payload_main(const struct hvm_start_info *si)
{
	const char *cl = start_info_cmdline(si);
	uint64_t rounds = 200;

	cmdline_u64(cl, "seed", &rng_state);
	rng_state |= 1;
	cmdline_u64(cl, "rounds", &rounds);
	find_ram_end(si);
	for (unsigned int i = 0; i < 512; i++)
		mem.lo[i] = mem.hi[i] = CANARY;
	if (gv_find(VIRTIO_ID_BLOCK, 0, &d) < 0 || !fresh() || !works()) {
		gprintf("virtio-hostile: no usable virtio-blk\n");
		return 1;
	}
	test_addresses();
	test_lengths();
	test_chains();
	test_indirect();
	test_setup();
	test_kicks();
	test_vectors();
	test_window();
	fresh();
	test_bar_move();
	for (uint64_t i = 0; i < rounds; i++)
		random_round();
	check(fresh() && works(), "device unusable after random rounds");
	check(canaries_intact(), "the device wrote outside its buffers");
	gprintf("virtio-hostile: %llu random rounds, %u failure(s)\n",
		(unsigned long long)rounds, check_failures());
	return check_failures() ? 1 : 0;
}
