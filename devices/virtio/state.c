// SPDX-License-Identifier: MIT
/* A virtio-pci function's snapshot state; see state.h. */
#include <string.h>

#include "devices/virtio/irq.h"
#include "devices/virtio/pci.h"
#include "devices/virtio/state.h"

_Static_assert(VIRTIO_MAX_QUEUES <= 32, "notify_bound is 32 bits");

static unsigned int cfg_bytes(const struct virtio_pci *vp)
{
	return vp->ops->cfg_size < VIRTIO_SNAP_CFG_MAX ? vp->ops->cfg_size :
							 VIRTIO_SNAP_CFG_MAX;
}

static void device_view(struct virtio_pci *vp, struct virtio_pci_snap *s)
{
	s->type = vp->ops->type;
	s->nqueues = vp->ops->nqueues;
	s->offered = virtio_offered(vp);
	s->cfg_size = vp->ops->cfg_size;
	if (vp->ops->cfg_read && cfg_bytes(vp))
		vp->ops->cfg_read(vp->dev, 0, s->cfg, cfg_bytes(vp));
}

void virtio_pci_get_state(struct virtio_pci *vp, struct virtio_pci_snap *s)
{
	memset(s, 0, sizeof(*s));
	device_view(vp, s);
	pthread_mutex_lock(&vp->lock);
	s->st = vp->st;
	s->needs_reset = atomic_load(&vp->needs_reset);
	for (unsigned int q = 0; q < vp->ops->nqueues; q++)
		s->vq[q] = vp->vq[q].s;
	pthread_mutex_lock(&vp->irq_lock);
	s->st.isr = vp->st.isr;
	s->st.intx_level = vp->st.intx_level;
	s->msix = vp->msix.s;
	pthread_mutex_unlock(&vp->irq_lock);
	pthread_mutex_unlock(&vp->lock);
}

static bool vector_ok(const struct virtio_pci *vp, uint16_t v)
{
	return v == VIRTIO_MSI_NO_VECTOR || v < vp->msix.s.nvec;
}

static bool queue_ok(const struct virtio_pci *vp, const struct vq_state *q)
{
	if (!vector_ok(vp, q->msix_vector) || q->enabled > 1 ||
	    q->event_idx > 1 || q->indirect > 1 || q->broken > 1)
		return false;
	/* An enabled queue passed vq_start() once: it must again. */
	return !q->enabled || q->broken ||
	       (q->size && !(q->size & (q->size - 1)) &&
		q->size <= vp->ops->queue_max);
}

static const char *state_bad(struct virtio_pci *vp,
			     const struct virtio_pci_snap *s)
{
	struct virtio_pci_snap here;

	memset(&here, 0, sizeof(here));
	device_view(vp, &here);
	if (s->type != here.type || s->nqueues != here.nqueues)
		return "a different virtio device";
	if (s->offered != here.offered)
		return "the device offers other features (read-only flag?)";
	if (s->cfg_size != here.cfg_size || memcmp(s->cfg, here.cfg,
						   sizeof(s->cfg)))
		return "the device configuration differs (image size?)";
	if (s->msix.nvec != vp->msix.s.nvec || s->needs_reset > 1 ||
	    s->msix.enabled > 1 || s->msix.func_masked > 1 ||
	    s->st.intx_level > 1 || !vector_ok(vp, s->st.config_vector) ||
	    (s->msix.nvec < 64 && s->msix.pba >> s->msix.nvec) ||
	    s->reserved[0] || s->reserved[1] || s->reserved[2])
		return "malformed transport state";
	for (unsigned int q = 0; q < VIRTIO_MAX_QUEUES; q++) {
		const struct vq_state *z = &s->vq[q];

		if (q >= s->nqueues ? z->enabled || z->size : !queue_ok(vp, z))
			return "malformed queue state";
	}
	return NULL;
}

/* With the worker parked. */
static void apply(struct virtio_pci *vp, const struct virtio_pci_snap *s)
{
	bool driver_ok = (s->st.status & VIRTIO_STATUS_DRIVER_OK) &&
			 !(s->st.status & VIRTIO_STATUS_FAILED);

	pthread_mutex_lock(&vp->lock);
	vp->st = s->st;
	atomic_store(&vp->needs_reset, s->needs_reset);
	for (unsigned int q = 0; q < vp->ops->nqueues; q++) {
		struct vq *vq = &vp->vq[q];

		vq->s = s->vq[q];
		vq->desc_p = vq->avail_p = vq->used_p = NULL;
		if (vq->s.enabled && !vq->s.broken)
			vq_start(vq, &vp->host.mem, vp->ops->queue_max);
		atomic_store(&vp->live[q], driver_ok && vq_ready(vq));
	}
	pthread_mutex_lock(&vp->irq_lock);
	vp->msix.s = s->msix;
	vp->msix.route_valid = 0;	/* routes are made again on use */
	pthread_mutex_unlock(&vp->irq_lock);
	pthread_mutex_unlock(&vp->lock);
}

int virtio_pci_set_state(struct virtio_pci *vp,
			 const struct virtio_pci_snap *s, const char **why)
{
	uint8_t level;

	*why = state_bad(vp, s);
	if (*why)
		return -1;
	virtio_pci_quiesce(vp);
	apply(vp, s);
	virtio_pci_rebind(vp);
	/* The line as it was: the irqchip's state came back, but not what
	 * this source drives into it. */
	pthread_mutex_lock(&vp->irq_lock);
	level = vp->st.intx_level;
	pthread_mutex_unlock(&vp->irq_lock);
	irq_set(&vp->host.intx, level);
	if (vp->ops->state_loaded)
		vp->ops->state_loaded(vp->dev);
	virtio_pci_resume(vp);
	worker_rescan(&vp->worker);
	return 0;
}
