// SPDX-License-Identifier: MIT
/*
 * virtio_console_hostile: a virtio-console driver that breaks the rules
 * on both queues.  Transmit: buffers outside RAM, across its end,
 * wrapping, loops, readable after writable, an indirect loop.  Receive
 * (with host input waiting: the test types the digits "0123456789" over
 * and over once it sees "console-hostile: type"): buffers outside RAM or
 * across its end, readable-only and zero-length buffers (answered with a
 * used length of 0 and no input lost), indirect tables.  Configuration
 * writes of every width and offset.  Then rounds of random descriptor
 * tables on both queues (writable buffers only in the arena or outside
 * RAM).  Each case checks the documented answer (DEVICE_NEEDS_RESET, or
 * a completion) and that the device works after a reset; the input that
 * good buffers receive must be the typed stream in order (nothing lost or
 * repeated by a reset); canaries around every buffer show the device
 * wrote nowhere else.
 * Command line: seed=N rounds=N noinput (skip what needs input).
 * Ends "virtio-console-hostile: N random rounds, N failure(s)".
 */
#include "lib/guest.h"
#include "lib/virtio.h"

#define QSIZE		64
#define ARENA		(16 * 1024)
#define CANARY		0x5ac5ac5ac5ac5ac5ull
#define WAIT		(2ull * 1000 * 1000 * 1000)
#define INPUT_WAIT	(60ull * 1000 * 1000 * 1000)
#define NEEDS_RESET	VIRTIO_STATUS_NEEDS_RESET
#define F(b)		(1ull << (b))
#define RXQ		VIRTIO_CONSOLE_RXQ
#define TXQ		VIRTIO_CONSOLE_TXQ

static struct {
	uint64_t lo[512];
	uint8_t qmem[2][16 * 1024];
	uint8_t arena[ARENA];
	struct gv_desc itab[16];
	uint64_t hi[512];
} mem __attribute__((aligned(4096)));

static struct gvirtio d;
static uint64_t ram_end, rng_state = 1;
static unsigned int next_digit;		/* of the typed stream */
static bool input;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* --- plumbing ---------------------------------------------------------- */

static bool fresh(void)
{
	uint64_t f = F(VIRTIO_F_VERSION_1) | F(VIRTIO_F_RING_INDIRECT_DESC) |
		     F(VIRTIO_F_RING_EVENT_IDX) |
		     F(VIRTIO_CONSOLE_F_EMERG_WRITE);

	if (!gv_negotiate(&d, f, false) ||
	    gv_queue_setup(&d, RXQ, QSIZE, mem.qmem[0], VIRTIO_MSI_NO_VECTOR) ||
	    gv_queue_setup(&d, TXQ, QSIZE, mem.qmem[1], VIRTIO_MSI_NO_VECTOR))
		return false;
	gv_driver_ok(&d);
	return !(gv_status(&d) & NEEDS_RESET);
}

static bool wait_status(uint8_t bit)
{
	for (uint64_t end = rdtsc() + WAIT; rdtsc() < end;)
		if (gv_status(&d) & bit)
			return true;
	return false;
}

static bool wait_used(struct gvq *q, uint32_t *len, uint64_t cycles)
{
	uint32_t id;

	for (uint64_t end = rdtsc() + cycles; rdtsc() < end;)
		if (gv_poll(q, &id, len))
			return true;
	return false;
}

static void put(struct gvq *q, unsigned int i, uint64_t addr, uint32_t len,
		uint16_t flags, uint16_t next)
{
	q->desc[i] = (struct gv_desc){ addr, len, flags, next };
}

static void post(struct gvq *q, uint16_t head)
{
	gv_publish(q, head);
	gv_kick_always(q);
}

static uint64_t arena(uint64_t off)
{
	return (uintptr_t)mem.arena + off;
}

/* Received bytes must continue the typed digits. */
static bool in_order(const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++, next_digit++)
		if (p[i] != '0' + next_digit % 10)
			return false;
	return true;
}

/* A good transmit, and (with input) a good 4-byte receive. */
static bool works(void)
{
	static const char ok[] = "console-hostile: ok\n";
	struct gvq *t = &d.q[TXQ], *r = &d.q[RXQ];
	struct gv_buf b = { (void *)ok, sizeof(ok) - 1, false };
	uint32_t len;

	if (gv_submit_wait(t, gv_add(t, &b, 1, NULL), WAIT) != 0)
		return false;
	if (!input)
		return true;
	memset(mem.arena, 0, 4);
	put(r, 0, arena(0), 4, VIRTQ_DESC_F_WRITE, 0);
	post(r, 0);
	return wait_used(r, &len, INPUT_WAIT) && len == 4 &&
	       in_order(mem.arena, 4);
}

static void needs_reset(const char *name)
{
	check(wait_status(NEEDS_RESET), "%s: no DEVICE_NEEDS_RESET", name);
	check(fresh() && works(), "%s: not usable after a reset", name);
}

/* --- cases ---------------------------------------------------------------- */

static void bad_tx(const char *name, uint64_t addr, uint32_t len)
{
	struct gvq *q = &d.q[TXQ];

	fresh();
	put(q, 0, arena(0), 4, VIRTQ_DESC_F_NEXT, 1);
	put(q, 1, addr, len, 0, 0);
	post(q, 0);
	needs_reset(name);
}

static void test_transmit(void)
{
	struct gvq *q;

	bad_tx("tx buffer in the PCI hole", 0xf0000000, 16);
	bad_tx("tx buffer across the end of RAM", ram_end - 8, 512);
	bad_tx("tx buffer at 2^64 - 256", ~0xffull, 512);
	bad_tx("4 GiB tx buffer", arena(0), 0xffffffffu);
	fresh();
	q = &d.q[TXQ];
	put(q, 0, arena(0), 1, VIRTQ_DESC_F_NEXT, 1);
	put(q, 1, arena(0), 1, VIRTQ_DESC_F_NEXT, 0);
	post(q, 0);
	needs_reset("tx loop");
	q = &d.q[TXQ];
	put(q, 0, arena(0), 1, VIRTQ_DESC_F_NEXT | VIRTQ_DESC_F_WRITE, 1);
	put(q, 1, arena(8), 1, 0, 0);
	post(q, 0);
	needs_reset("tx readable after writable");
	q = &d.q[TXQ];
	mem.itab[0] = (struct gv_desc){ arena(0), 1, VIRTQ_DESC_F_NEXT, 1 };
	mem.itab[1] = (struct gv_desc){ arena(0), 1, VIRTQ_DESC_F_NEXT, 0 };
	put(q, 0, (uintptr_t)mem.itab, 32, VIRTQ_DESC_F_INDIRECT, 0);
	post(q, 0);
	needs_reset("tx indirect loop");
}

static void bad_rx(const char *name, uint64_t addr, uint32_t len)
{
	struct gvq *q;

	fresh();
	q = &d.q[RXQ];
	put(q, 0, addr, len, VIRTQ_DESC_F_WRITE, 0);
	post(q, 0);
	needs_reset(name);
}

/* A chain the device completes with nothing in it: input stays. */
static void empty_rx(const char *name, uint32_t len, uint16_t flags)
{
	struct gvq *q = &d.q[RXQ];
	uint32_t used = 99;

	put(q, 0, arena(64), len, flags, 0);
	post(q, 0);
	check(wait_used(q, &used, WAIT) && used == 0, "%s: used %u", name,
	      used);
	check(works(), "%s: input lost or device unusable", name);
}

static void test_receive(void)
{
	struct gvq *q;
	uint32_t len = 0;

	bad_rx("rx buffer in the PCI hole", 0xf0000000, 16);
	bad_rx("rx buffer across the end of RAM", ram_end - 8, 512);
	bad_rx("rx buffer in the firmware ROM", 0xfffff000, 16);
	fresh();
	empty_rx("readable-only rx buffer", 16, 0);
	empty_rx("zero-length rx buffer", 0, VIRTQ_DESC_F_WRITE);
	/* Indirect, two writable pieces of 3 and 2 bytes. */
	q = &d.q[RXQ];
	mem.itab[0] = (struct gv_desc){ arena(100), 3,
					VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT,
					1 };
	mem.itab[1] = (struct gv_desc){ arena(200), 2, VIRTQ_DESC_F_WRITE, 0 };
	put(q, 0, (uintptr_t)mem.itab, 32, VIRTQ_DESC_F_INDIRECT, 0);
	post(q, 0);
	check(wait_used(q, &len, WAIT) && len == 5 &&
	      in_order(mem.arena + 100, 3) && in_order(mem.arena + 200, 2),
	      "indirect rx: used %u", len);
	q = &d.q[RXQ];
	put(q, 0, arena(0), 1, VIRTQ_DESC_F_WRITE | VIRTQ_DESC_F_NEXT, 0);
	post(q, 0);
	needs_reset("rx loop");
}

/* Writes anywhere in the configuration: only emerg_wr's low byte is
 * acted on (a '#' per write that covers it), nothing reads back. */
static void test_config(void)
{
	uint64_t c = d.device;

	mmio_write32(c + VIRTIO_CONSOLE_CFG_COLS, 0xffffffff);
	mmio_write32(c + VIRTIO_CONSOLE_CFG_MAX_NR_PORTS, 77);
	mmio_write8(c + VIRTIO_CONSOLE_CFG_EMERG_WR + 1, '!');
	mmio_write16(c + VIRTIO_CONSOLE_CFG_EMERG_WR + 2, '!');
	mmio_write8(c + VIRTIO_CONSOLE_CFG_EMERG_WR, '#');
	mmio_write16(c + VIRTIO_CONSOLE_CFG_EMERG_WR, '#');
	mmio_write64(c + VIRTIO_CONSOLE_CFG_MAX_NR_PORTS, 0x2300000000ull);
	mmio_write8(c + VIRTIO_CONSOLE_CFG_EMERG_WR, '\n');
	mmio_write32(c + VIRTIO_CONSOLE_CFG_SIZEOF, '!');
	mmio_write32(c + 0xffc, '!');
	check(gv_cfg_read32(&d, VIRTIO_CONSOLE_CFG_COLS) == 0 &&
	      gv_cfg_read32(&d, VIRTIO_CONSOLE_CFG_MAX_NR_PORTS) == 1 &&
	      gv_cfg_read32(&d, VIRTIO_CONSOLE_CFG_EMERG_WR) == 0,
	      "configuration changed by writes");
	check(works(), "device unusable after configuration writes");
}

/* --- random rounds ---------------------------------------------------------- */

/* Buffers in the arena (dots: what transmit chains print) or outside
 * RAM; the device must write nowhere else. */
static uint64_t rnd_addr(uint32_t *len)
{
	uint32_t l = (uint32_t)(rnd() % 300);

	*len = l;
	switch (rnd() % 8) {
	case 0:
		return rnd() | 1ull << 40;
	case 1:
		*len = 0x1000;
		return ram_end - (rnd() & 0xfff);
	case 2:
		return 0xf0000000;
	default:
		return arena(rnd() % (ARENA / 2));
	}
}

static void random_tables(void *arg)
{
	struct gvq *q = arg;
	uint32_t len;

	for (unsigned int i = 0; i < QSIZE; i++) {
		uint64_t a = rnd_addr(&len);

		put(q, i, a, len, (uint16_t)(rnd() & 7), (uint16_t)(rnd() % 72));
	}
	for (unsigned int i = 0; i < 16; i++) {
		uint64_t a = rnd_addr(&len);

		mem.itab[i] = (struct gv_desc){ a, len, (uint16_t)(rnd() & 7),
						(uint16_t)(rnd() % 20) };
	}
	/* An indirect table's entries are never indirect. */
	if (rnd() % 2)
		for (unsigned int i = 0; i < 16; i++)
			mem.itab[i].flags &= (uint16_t)~VIRTQ_DESC_F_INDIRECT;
}

static void random_round(void)
{
	struct gvq *q = &d.q[rnd() % 2];
	unsigned int n = 1 + rnd() % 4;

	memset(mem.arena, '.', ARENA);
	run_user(random_tables, q);
	for (unsigned int i = 0; i < n; i++)
		gv_publish(q, (uint16_t)(rnd() % 70));
	gv_kick_always(q);
	for (uint64_t end = rdtsc() + WAIT / 4; rdtsc() < end;) {
		if (gv_status(&d) & NEEDS_RESET)
			break;
		if (*(volatile uint16_t *)(q->used + 2) == q->avail_idx)
			break;
	}
	/* Receive chains wait for input: start over either way. */
	check(fresh(), "set-up refused after a random round");
}

static bool canaries_intact(void)
{
	for (unsigned int i = 0; i < 512; i++)
		if (mem.lo[i] != CANARY || mem.hi[i] != CANARY)
			return false;
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
	uint64_t rounds = 100;

	cmdline_u64(cl, "seed", &rng_state);
	rng_state |= 1;
	cmdline_u64(cl, "rounds", &rounds);
	input = !cmdline_has(cl, "noinput");
	find_ram_end(si);
	for (unsigned int i = 0; i < 512; i++)
		mem.lo[i] = mem.hi[i] = CANARY;
	if (input)
		gprintf("console-hostile: type\n");
	if (gv_find(VIRTIO_ID_CONSOLE, 0, &d) < 0 || !fresh() || !works()) {
		gprintf("virtio-console-hostile: no usable virtio-console\n");
		return 1;
	}
	test_transmit();
	if (input)
		test_receive();
	test_config();
	for (uint64_t i = 0; i < rounds; i++)
		random_round();
	memset(mem.arena, 0, ARENA);
	check(fresh(), "device unusable after random rounds");
	input = false;		/* random rounds took an unknown part */
	check(works(), "device unusable after random rounds");
	check(canaries_intact(), "the device wrote outside its buffers");
	gprintf("virtio-console-hostile: %llu random rounds, %u failure(s)\n",
		(unsigned long long)rounds, check_failures());
	return check_failures() ? 1 : 0;
}
