// SPDX-License-Identifier: MIT
/*
 * ISR, INTx and MSI-X delivery (virtio 1.2, 4.1.4.5 and 4.1.5.3): the
 * configuration-change bit is always set in ISR; the queue bit only when
 * MSI-X is off, since then the driver's ISR read is how it learns why
 * INTx fired.
 */
#include "devices/virtio/irq.h"
#include "firmware/lib/pci_regs.h"

static bool intx_allowed(const struct virtio_pci *vp)
{
	uint8_t hi = __atomic_load_n(&vp->fn.cfg[PCI_COMMAND + 1],
				     __ATOMIC_RELAXED);

	return !((hi << 8) & PCI_COMMAND_INTX_DISABLE);
}

/* Under irq_lock. */
static void intx_set(struct virtio_pci *vp)
{
	uint8_t level = !msix_enabled(&vp->msix) && vp->st.isr &&
			intx_allowed(vp);

	if (level == vp->st.intx_level)
		return;
	vp->st.intx_level = level;
	if (level)
		atomic_fetch_add(&vp->stats.interrupts, 1);
	irq_set(&vp->host.intx, level);
}

static void send(struct virtio_pci *vp, uint16_t vec, uint8_t isr_bit)
{
	pthread_mutex_lock(&vp->irq_lock);
	if (msix_enabled(&vp->msix)) {
		if (isr_bit == VIRTIO_ISR_CONFIG)
			vp->st.isr |= isr_bit;
		if (vec != VIRTIO_MSI_NO_VECTOR && msix_notify(&vp->msix, vec))
			atomic_fetch_add(&vp->stats.interrupts, 1);
	} else {
		vp->st.isr |= isr_bit;
		intx_set(vp);
	}
	pthread_mutex_unlock(&vp->irq_lock);
}

void virtio_irq_queue(struct virtio_pci *vp, unsigned int q)
{
	uint16_t vec = __atomic_load_n(&vp->vq[q].s.msix_vector,
				       __ATOMIC_RELAXED);

	send(vp, vec, VIRTIO_ISR_QUEUE);
}

void virtio_irq_config(struct virtio_pci *vp)
{
	uint16_t vec = __atomic_load_n(&vp->st.config_vector,
				       __ATOMIC_RELAXED);

	send(vp, vec, VIRTIO_ISR_CONFIG);
}

uint8_t virtio_irq_isr_read(struct virtio_pci *vp)
{
	uint8_t v;

	pthread_mutex_lock(&vp->irq_lock);
	v = vp->st.isr;
	vp->st.isr = 0;
	intx_set(vp);
	pthread_mutex_unlock(&vp->irq_lock);
	return v;
}

void virtio_irq_intx_update(struct virtio_pci *vp)
{
	pthread_mutex_lock(&vp->irq_lock);
	intx_set(vp);
	pthread_mutex_unlock(&vp->irq_lock);
}

void virtio_irq_reset(struct virtio_pci *vp)
{
	pthread_mutex_lock(&vp->irq_lock);
	vp->st.isr = 0;
	vp->msix.s.pba = 0;
	intx_set(vp);
	pthread_mutex_unlock(&vp->irq_lock);
}
