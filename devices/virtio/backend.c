// SPDX-License-Identifier: MIT
/* What a device whose queues an outside back end serves (backend_queues,
 * e.g. vhost-user) reads of the transport; see pci.h. */
#include "devices/virtio/calls.h"
#include "devices/virtio/pci.h"

int virtio_pci_kick_fd(const struct virtio_pci *vp, unsigned int q)
{
	return q < vp->ops->nqueues ? vp->kick_fd[q] : -1;
}

int virtio_pci_call_fd(struct virtio_pci *vp, unsigned int q)
{
	if (q >= vp->ops->nqueues)
		return -1;
	vp->call_sent[q] = virtio_call_target(vp, q);
	return vp->call_sent[q];
}

const struct vq *virtio_pci_vq(const struct virtio_pci *vp, unsigned int q)
{
	return q < vp->ops->nqueues ? &vp->vq[q] : NULL;
}

uint64_t virtio_pci_driver_features(const struct virtio_pci *vp)
{
	return vp->st.driver_features;
}
