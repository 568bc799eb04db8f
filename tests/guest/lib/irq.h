/* SPDX-License-Identifier: MIT */
/*
 * External interrupts for payloads: an IDT that extends the library's
 * exception vectors with counting handlers for vectors IRQ_VEC_FIRST..
 * IRQ_VEC_LAST (each sends the LAPIC its EOI), the local APIC enabled in
 * xAPIC mode, IOAPIC redirection entries, MSI messages for the boot CPU,
 * and waiting for an interrupt with a TSC deadline.  Interrupts stay off
 * except inside irq_wait().  Ring 0.
 */
#ifndef GUEST_IRQ_H
#define GUEST_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#define IRQ_VEC_FIRST		0x30
#define IRQ_VEC_LAST		0x4f
#define IRQ_NVEC		(IRQ_VEC_LAST - IRQ_VEC_FIRST + 1)

#define LAPIC_BASE		0xfee00000ull
#define IOAPIC_BASE		0xfec00000ull

/* Install the IDT and enable the local APIC.  Idempotent. */
void irq_init(void);
/* Interrupts taken on vector v since irq_init(). */
uint64_t irq_count(unsigned int v);
/* The handler of v first reads the byte at addr (0: none), e.g. a
 * virtio ISR so a level-triggered line drops; irq_last_ack() is what the
 * last such read returned. */
void irq_set_ack(unsigned int v, uint64_t addr);
uint8_t irq_last_ack(unsigned int v);
/* Interrupts on v whose acknowledge read was non-zero: the device's.
 * The rest are spurious for the device, as an OS would count them. */
uint64_t irq_claims(unsigned int v);
/* IOAPIC pin gsi -> vector v on APIC 0; level/active-low as PCI INTx
 * wants, or edge/active-high; masked when mask. */
void ioapic_route(unsigned int gsi, unsigned int v, bool level,
		  bool active_low, bool mask);
/* The MSI address and data that deliver vector v to APIC 0 (fixed,
 * edge). */
static inline uint64_t msi_addr(void)
{
	return LAPIC_BASE;
}

static inline uint32_t msi_data(unsigned int v)
{
	return v & 0xff;
}

/* Enable interrupts until irq_count(v) reaches want or the TSC passes
 * the deadline (cycles from now); returns irq_count(v). */
uint64_t irq_wait(unsigned int v, uint64_t want, uint64_t cycles);

#endif
