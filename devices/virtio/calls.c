// SPDX-License-Identifier: MIT
/* Where a back end signals its queues' completions; see calls.h. */
#include "devices/virtio/calls.h"

/* Where q's completions should be signalled now: the vector's own irqfd
 * if it can fire as it is, else the relay. */
int virtio_call_target(struct virtio_pci *vp, unsigned int q)
{
	uint16_t vec = __atomic_load_n(&vp->vq[q].s.msix_vector,
				       __ATOMIC_RELAXED);
	bool direct;

	pthread_mutex_lock(&vp->irq_lock);
	direct = msix_direct(&vp->msix, vec);
	pthread_mutex_unlock(&vp->irq_lock);
	return direct ? vp->msix.fd[vec] : vp->call_fd[q];
}

void virtio_pci_calls_update(struct virtio_pci *vp)
{
	if (!vp->ops->backend_queues || !vp->ops->set_call)
		return;
	pthread_mutex_lock(&vp->irq_lock);
	msix_direct_clear(&vp->msix);
	pthread_mutex_unlock(&vp->irq_lock);
	for (unsigned int q = 0; q < vp->ops->nqueues; q++) {
		int fd;

		if (vp->call_sent[q] < 0)
			continue;
		fd = virtio_call_target(vp, q);
		if (fd != vp->call_sent[q] &&
		    vp->ops->set_call(vp->dev, q, fd) == 0)
			vp->call_sent[q] = fd;
	}
}

/* A back end's call eventfds follow the table's masks (transport.h):
 * the write and the move happen under the transport lock together. */
void virtio_msix_access(struct virtio_pci *vp, uint64_t region, uint64_t r,
			uint8_t *data, uint32_t len, bool is_write)
{
	bool calls = is_write && region == VIRTIO_BAR_MSIX_TABLE &&
		     vp->ops->backend_queues;

	if (calls)
		pthread_mutex_lock(&vp->lock);
	pthread_mutex_lock(&vp->irq_lock);
	if (region == VIRTIO_BAR_MSIX_PBA && !is_write)
		msix_pba_read(&vp->msix, r, data, len);
	else if (region == VIRTIO_BAR_MSIX_TABLE && is_write)
		msix_table_write(&vp->msix, r, data, len);
	else if (region == VIRTIO_BAR_MSIX_TABLE)
		msix_table_read(&vp->msix, r, data, len);
	pthread_mutex_unlock(&vp->irq_lock);
	if (calls) {
		virtio_pci_calls_update(vp);
		pthread_mutex_unlock(&vp->lock);
	}
}
