// SPDX-License-Identifier: MIT
/* What a device whose queues an outside back end serves (backend_queues,
 * e.g. vhost-user) reads of the transport; see pci.h. */
#include "devices/virtio/pci.h"

int virtio_pci_kick_fd(const struct virtio_pci *vp, unsigned int q)
{
	return q < vp->ops->nqueues ? vp->kick_fd[q] : -1;
}

/* Where q's completions should be signalled now: the vector's own irqfd
 * if it can fire as it is, else the relay. */
static int call_target(struct virtio_pci *vp, unsigned int q)
{
	uint16_t vec = __atomic_load_n(&vp->vq[q].s.msix_vector,
				       __ATOMIC_RELAXED);
	bool direct;

	pthread_mutex_lock(&vp->irq_lock);
	direct = msix_direct(&vp->msix, vec);
	pthread_mutex_unlock(&vp->irq_lock);
	return direct ? vp->msix.fd[vec] : vp->call_fd[q];
}

int virtio_pci_call_fd(struct virtio_pci *vp, unsigned int q)
{
	if (q >= vp->ops->nqueues)
		return -1;
	vp->call_sent[q] = call_target(vp, q);
	return vp->call_sent[q];
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
		fd = call_target(vp, q);
		if (fd != vp->call_sent[q] &&
		    vp->ops->set_call(vp->dev, q, fd) == 0)
			vp->call_sent[q] = fd;
	}
}

const struct vq *virtio_pci_vq(const struct virtio_pci *vp, unsigned int q)
{
	return q < vp->ops->nqueues ? &vp->vq[q] : NULL;
}

uint64_t virtio_pci_driver_features(const struct virtio_pci *vp)
{
	return vp->st.driver_features;
}
