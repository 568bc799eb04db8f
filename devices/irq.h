/* SPDX-License-Identifier: MIT */
/* An interrupt line as devices see it: a level setter and its context.
 * Devices never see KVM; the VMM hands each device its line at creation. */
#ifndef MINIVMM_IRQ_H
#define MINIVMM_IRQ_H

#include <stdint.h>

struct irq_line {
	void (*set)(void *ctx, uint32_t irq, int level);
	void *ctx;
	uint32_t irq;
};

static inline void irq_set(const struct irq_line *l, int level)
{
	if (l->set)
		l->set(l->ctx, l->irq, level);
}

#endif
