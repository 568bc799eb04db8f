// SPDX-License-Identifier: MIT
/*
 * cf8: the PCI address latch at 0xCF8 as the hardware has it, for
 * tests/boot/pci.sh, whether or not the VMM queues its writes without
 * exits (--coalesced-pio).  Every check reads the host bridge 00:00.0,
 * whose ID and class never change.
 *	- reads=N config reads, each a CF8 write and a CFC read, alternating
 *	  two registers (so a stale latch shows); the boot test counts the
 *	  exits they cost from two runs with different N
 *	- a burst of more CF8 writes than KVM's ring holds (byte writes to
 *	  0xCFB, which leave the latch alone, in between): the last one wins
 *	- with cpus=2, the latch is one per machine: vCPU 1 writes CF8 and
 *	  nothing else (no exit), then vCPU 0's CFC read and CF8 read see
 *	  vCPU 1's address; then both vCPUs make reads=N locked CF8/CFC
 *	  reads of their own registers at once, as Linux does
 * Prints "cf8: reads R, 0 failure(s)"; exit status 0 or 1.
 */
#include "lib/ap.h"
#include "lib/guest.h"
#include "lib/pci_access.h"

#define HOST_ID		0x00081b36u	/* 00:00.0 device << 16 | vendor */
#define HOST_CLASS	0x06000000u	/* host bridge, revision 0 */
#define BURST		1000	/* CF8 writes; KVM's ring holds ~170 */
#define SPIN_MAX	(1u << 28)

static uint32_t addr(unsigned int reg)
{
	return PCI_CONF1_ENABLE | (reg & PCI_CONF1_REG_MASK);
}

static uint32_t want(unsigned int reg)
{
	return reg == 0 ? HOST_ID : HOST_CLASS;
}

/* reg 0 or 8 of 00:00.0: one CF8 write and one CFC read. */
static uint32_t cfg_read(unsigned int reg)
{
	outl(PCI_CONF1_ADDR_PORT, addr(reg));
	return inl(PCI_CONF1_DATA_PORT);
}

static uint64_t read_many(uint64_t n, unsigned int first)
{
	uint64_t bad = 0;

	for (uint64_t i = 0; i < n; i++) {
		unsigned int reg = ((i + first) & 1) ? 8 : 0;

		bad += cfg_read(reg) != want(reg);
	}
	return bad;
}

static void burst(void)
{
	for (unsigned int i = 0; i < BURST; i++) {
		outl(PCI_CONF1_ADDR_PORT, addr(i & 0xfc));
		outb(PCI_CONF1_ADDR_PORT + 3, 0x12);
	}
	outl(PCI_CONF1_ADDR_PORT, addr(8));
	check(inl(PCI_CONF1_DATA_PORT) == HOST_CLASS, "after %u CF8 writes "
	      "CFC did not read the last one's register", BURST);
	check(inl(PCI_CONF1_ADDR_PORT) == addr(8), "CF8 reads %#x after a "
	      "burst, expected %#x", inl(PCI_CONF1_ADDR_PORT), addr(8));
}

/* --- two vCPUs -------------------------------------------------------- */

static volatile int step, lock;
static volatile uint64_t ap_bad, ap_done;
static uint64_t n_reads = 100;

static bool wait_step(int s)
{
	for (uint32_t i = 0; i < SPIN_MAX; i++) {
		if (__atomic_load_n(&step, __ATOMIC_ACQUIRE) >= s)
			return true;
		__asm__ volatile("pause");
	}
	return false;
}

static void set_step(int s)
{
	__atomic_store_n(&step, s, __ATOMIC_RELEASE);
}

static void take(void)
{
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		__asm__ volatile("pause");
}

static void give(void)
{
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

static uint64_t locked_reads(uint64_t n, unsigned int reg)
{
	uint64_t bad = 0;

	for (uint64_t i = 0; i < n; i++) {
		take();
		bad += cfg_read(reg) != want(reg);
		give();
	}
	return bad;
}

static void ap_main(void *arg)
{
	(void)arg;
	if (!wait_step(1))
		return;
	outl(PCI_CONF1_ADDR_PORT, addr(8));	/* no exit when queued */
	set_step(2);
	if (!wait_step(3))
		return;
	ap_bad = locked_reads(n_reads, 8);
	__atomic_store_n(&ap_done, 1, __ATOMIC_RELEASE);
}

static void two_cpus(void)
{
	uint64_t bad;

	ap_start(1, ap_main, NULL);
	outl(PCI_CONF1_ADDR_PORT, addr(0));
	set_step(1);
	if (!check(wait_step(2), "vCPU 1 never wrote CF8"))
		return;
	/* One latch: vCPU 1's write is the machine's last. */
	check(inl(PCI_CONF1_DATA_PORT) == HOST_CLASS, "CFC on vCPU 0 did not "
	      "read the register vCPU 1 selected");
	check(inl(PCI_CONF1_ADDR_PORT) == addr(8), "CF8 on vCPU 0 reads %#x, "
	      "vCPU 1 wrote %#x", inl(PCI_CONF1_ADDR_PORT), addr(8));
	set_step(3);
	bad = locked_reads(n_reads, 0);
	for (uint32_t i = 0; i < SPIN_MAX &&
	     !__atomic_load_n(&ap_done, __ATOMIC_ACQUIRE); i++)
		__asm__ volatile("pause");
	check(ap_done, "vCPU 1 never finished its reads");
	check(!bad && !ap_bad, "locked reads from two vCPUs: %llu wrong on "
	      "vCPU 0, %llu on vCPU 1", (unsigned long long)bad,
	      (unsigned long long)ap_bad);
}

int payload_main(const struct hvm_start_info *si)
{
	const char *cl = start_info_cmdline(si);
	uint64_t cpus = 1, bad;

	cmdline_u64(cl, "reads", &n_reads);
	cmdline_u64(cl, "cpus", &cpus);
	bad = read_many(n_reads, 0);
	check(!bad, "%llu of %llu CF8/CFC reads wrong",
	      (unsigned long long)bad, (unsigned long long)n_reads);
	if (cmdline_has(cl, "burst"))
		burst();
	if (cpus > 1)
		two_cpus();
	gprintf("cf8: reads %llu, %u failure(s)\n",
		(unsigned long long)n_reads, check_failures());
	return check_failures() ? 1 : 0;
}
