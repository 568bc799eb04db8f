// SPDX-License-Identifier: MIT
/* Interrupt routing: KVM's GSI table, irqfds, level lines (gsi.h). */
#include "vmm/machine/gsi.h"
#include "vmm/layout.h"
#include "vmm/kvm.h"

#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

/* Default routes: GSIs on the PICs have two, the rest one. */
#define N_DEFAULT	(LAYOUT_PIC_IRQS * 2 + \
			 (LAYOUT_IOAPIC_PINS - LAYOUT_PIC_IRQS))

void gsi_init(struct gsi *g, struct kvm *kvm)
{
	*g = (struct gsi){ .kvm = kvm };
	pthread_mutex_init(&g->lock, NULL);
}

void gsi_destroy(struct gsi *g)
{
	free(g->msi);
	free(g->msi_used);
	free(g->table);
	pthread_mutex_destroy(&g->lock);
	*g = (struct gsi){ 0 };
}

int gsi_alloc_msi(struct gsi *g, unsigned int n)
{
	struct kvm_irq_routing_entry *msi;
	struct kvm_irq_routing *table;
	unsigned int first, total;
	bool *used;
	int ret = -1;

	pthread_mutex_lock(&g->lock);
	first = g->nmsi;
	total = first + n;
	msi = realloc(g->msi, (total + 1) * sizeof(*msi));
	if (msi)
		g->msi = msi;
	used = realloc(g->msi_used, (total + 1) * sizeof(*used));
	if (used)
		g->msi_used = used;
	table = realloc(g->table, sizeof(*table) +
			(N_DEFAULT + total) * sizeof(table->entries[0]));
	if (table)
		g->table = table;
	if (msi && used && table) {
		memset(used + first, 0, n * sizeof(*used));
		g->nmsi = total;
		ret = (int)(LAYOUT_GSI_MSI_FIRST + first);
	}
	pthread_mutex_unlock(&g->lock);
	return ret;
}

/* KVM's own default: GSI 0-15 to both PICs and the IOAPIC, 16-23 to the
 * IOAPIC.  Every table we push carries these. */
static unsigned int default_routes(struct kvm_irq_routing_entry *e)
{
	unsigned int n = 0;

	for (unsigned int gsi = 0; gsi < LAYOUT_IOAPIC_PINS; gsi++) {
		e[n++] = (struct kvm_irq_routing_entry){
			.gsi = gsi, .type = KVM_IRQ_ROUTING_IRQCHIP,
			.u.irqchip = { KVM_IRQCHIP_IOAPIC, gsi },
		};
		if (gsi >= LAYOUT_PIC_IRQS)
			continue;
		e[n++] = (struct kvm_irq_routing_entry){
			.gsi = gsi, .type = KVM_IRQ_ROUTING_IRQCHIP,
			.u.irqchip = { gsi < 8 ? KVM_IRQCHIP_PIC_MASTER :
				       KVM_IRQCHIP_PIC_SLAVE, gsi % 8 },
		};
	}
	return n;
}

/* Under g->lock. */
static int push_routes(struct gsi *g)
{
	struct kvm_irq_routing *t = g->table;
	unsigned int n = default_routes(t->entries);

	for (unsigned int i = 0; i < g->nmsi; i++)
		if (g->msi_used[i])
			t->entries[n++] = g->msi[i];
	t->nr = n;
	t->flags = 0;
	g->route_updates++;
	return ioctl(g->kvm->vm_fd, KVM_SET_GSI_ROUTING, t);
}

int gsi_route_msi(struct gsi *g, uint32_t gsi, uint64_t addr, uint32_t data)
{
	unsigned int i = gsi - LAYOUT_GSI_MSI_FIRST;
	int ret = -1;

	pthread_mutex_lock(&g->lock);
	if (gsi >= LAYOUT_GSI_MSI_FIRST && i < g->nmsi) {
		g->msi[i] = (struct kvm_irq_routing_entry){
			.gsi = gsi, .type = KVM_IRQ_ROUTING_MSI,
			.u.msi = { .address_lo = (uint32_t)addr,
				   .address_hi = (uint32_t)(addr >> 32),
				   .data = data },
		};
		g->msi_used[i] = true;
		ret = push_routes(g);
		if (ret < 0)
			g->route_failures++;
	}
	pthread_mutex_unlock(&g->lock);
	return ret < 0 ? -1 : 0;
}

int gsi_bind_irqfd(struct gsi *g, int fd, uint32_t gsi)
{
	struct kvm_irqfd irqfd = { .fd = (uint32_t)fd, .gsi = gsi };

	return ioctl(g->kvm->vm_fd, KVM_IRQFD, &irqfd) < 0 ? -1 : 0;
}

void gsi_set_level(void *ctx, uint32_t gsi, int level)
{
	struct gsi *g = ctx;

	kvm_irq_line(g->kvm, gsi, level);
}

struct irq_line gsi_line(struct gsi *g, uint32_t gsi)
{
	return (struct irq_line){ gsi_set_level, g, gsi };
}

uint32_t gsi_pci_intx(unsigned int slot, unsigned int pin)
{
	return ABI_PCI_INTX_GSI(slot, pin);
}
