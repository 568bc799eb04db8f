// SPDX-License-Identifier: MIT
/* External interrupts for payloads; see irq.h. */
#include "guest.h"
#include "irq.h"

#define STUB_SIZE	64
#define LAPIC_SVR	0xf0
#define LAPIC_TPR	0x80
#define SVR_ENABLE	0x100
#define SPURIOUS_VEC	0xff
#define IOREGSEL	0x00
#define IOWIN		0x10
#define REDIR_LEVEL	(1u << 15)
#define REDIR_LOW	(1u << 13)
#define REDIR_MASK	(1u << 16)

struct gate {
	uint64_t lo, hi;
};

struct __attribute__((packed)) idt_ptr {
	uint16_t limit;
	uint64_t base;
};

extern const char irq_stubs[];
volatile uint64_t irq_counts[IRQ_NVEC];
volatile uint64_t irq_ack[IRQ_NVEC];	/* byte register read first */
volatile uint64_t irq_acked[IRQ_NVEC];	/* what it read last */
volatile uint64_t irq_claimed[IRQ_NVEC];	/* reads that were non-zero */

static struct gate idt[256] __attribute__((aligned(16)));
static bool ready;

static struct gate gate(uint64_t h)
{
	return (struct gate){
		.lo = (h & 0xffff) | (uint64_t)GUEST_KERNEL_CS << 16 |
		      0x8eull << 40 | (h >> 16 & 0xffff) << 48,
		.hi = h >> 32,
	};
}

/* The library's exception gates, then ours. */
void irq_init(void)
{
	struct idt_ptr old, mine = { sizeof(idt) - 1, (uintptr_t)idt };

	if (ready)
		return;
	__asm__ volatile("sidt %0" : "=m"(old));
	memcpy(idt, (const void *)(uintptr_t)old.base, old.limit + 1u);
	for (unsigned int v = 0; v < IRQ_NVEC; v++)
		idt[IRQ_VEC_FIRST + v] = gate((uintptr_t)irq_stubs +
					       v * STUB_SIZE);
	__asm__ volatile("lidt %0" : : "m"(mine) : "memory");
	mmio_write32(LAPIC_BASE + LAPIC_TPR, 0);
	mmio_write32(LAPIC_BASE + LAPIC_SVR, SVR_ENABLE | SPURIOUS_VEC);
	ready = true;
}

uint64_t irq_count(unsigned int v)
{
	if (v < IRQ_VEC_FIRST || v > IRQ_VEC_LAST)
		return 0;
	return irq_counts[v - IRQ_VEC_FIRST];
}

void irq_set_ack(unsigned int v, uint64_t addr)
{
	if (v >= IRQ_VEC_FIRST && v <= IRQ_VEC_LAST)
		irq_ack[v - IRQ_VEC_FIRST] = addr;
}

uint64_t irq_claims(unsigned int v)
{
	if (v < IRQ_VEC_FIRST || v > IRQ_VEC_LAST)
		return 0;
	return irq_claimed[v - IRQ_VEC_FIRST];
}

uint8_t irq_last_ack(unsigned int v)
{
	if (v < IRQ_VEC_FIRST || v > IRQ_VEC_LAST)
		return 0;
	return (uint8_t)irq_acked[v - IRQ_VEC_FIRST];
}

void ioapic_route(unsigned int gsi, unsigned int v, bool level,
		  bool active_low, bool mask)
{
	uint32_t lo = v | (level ? REDIR_LEVEL : 0) |
		      (active_low ? REDIR_LOW : 0) | (mask ? REDIR_MASK : 0);

	mmio_write32(IOAPIC_BASE + IOREGSEL, 0x10 + 2 * gsi + 1);
	mmio_write32(IOAPIC_BASE + IOWIN, 0);		/* APIC 0 */
	mmio_write32(IOAPIC_BASE + IOREGSEL, 0x10 + 2 * gsi);
	mmio_write32(IOAPIC_BASE + IOWIN, lo);
}

uint64_t irq_wait(unsigned int v, uint64_t want, uint64_t cycles)
{
	uint64_t end = rdtsc() + cycles;

	__asm__ volatile("sti" ::: "memory");
	while (irq_count(v) < want && rdtsc() < end)
		__asm__ volatile("pause" ::: "memory");
	__asm__ volatile("cli" ::: "memory");
	return irq_count(v);
}
