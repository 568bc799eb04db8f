// SPDX-License-Identifier: MIT
/*
 * Common configuration registers.  Reads render the structure for the
 * selected queue into a byte image; writes overlay the image and apply
 * each field they touched, in address order, so any access width and
 * alignment has a defined meaning.
 */
#include <string.h>

#include "devices/virtio/calls.h"
#include "devices/virtio/common.h"
#include "devices/virtio/irq.h"
#include "firmware/lib/le.h"

#define IMAGE	VIRTIO_PCI_COMMON_SIZEOF

struct field {
	uint8_t off, size;
	void (*write)(struct virtio_pci *vp, uint64_t v);
};

static struct vq *selected(struct virtio_pci *vp)
{
	if (vp->st.queue_select >= vp->ops->nqueues)
		return NULL;
	return &vp->vq[vp->st.queue_select];
}

static uint8_t status_now(const struct virtio_pci *vp)
{
	return vp->st.status | (atomic_load(&vp->needs_reset) ?
				VIRTIO_STATUS_NEEDS_RESET : 0);
}

static void render(struct virtio_pci *vp, uint8_t *img)
{
	const struct vq *q = selected(vp);
	uint32_t sel = vp->st.dfselect, gsel = vp->st.gfselect;

	memset(img, 0, IMAGE);
	le32_put(img + VIRTIO_PCI_COMMON_DFSELECT, sel);
	if (sel < 2)
		le32_put(img + VIRTIO_PCI_COMMON_DF,
			 (uint32_t)(virtio_offered(vp) >> (32 * sel)));
	le32_put(img + VIRTIO_PCI_COMMON_GFSELECT, gsel);
	if (gsel < 2)
		le32_put(img + VIRTIO_PCI_COMMON_GF,
			 (uint32_t)(vp->st.driver_features >> (32 * gsel)));
	le16_put(img + VIRTIO_PCI_COMMON_MSIX, vp->st.config_vector);
	le16_put(img + VIRTIO_PCI_COMMON_NUMQ, vp->ops->nqueues);
	img[VIRTIO_PCI_COMMON_STATUS] = status_now(vp);
	img[VIRTIO_PCI_COMMON_CFGGENERATION] = vp->st.config_generation;
	le16_put(img + VIRTIO_PCI_COMMON_Q_SELECT, vp->st.queue_select);
	if (!q)
		return;		/* absent queue: size 0, all zero */
	le16_put(img + VIRTIO_PCI_COMMON_Q_SIZE, q->s.size);
	le16_put(img + VIRTIO_PCI_COMMON_Q_MSIX, q->s.msix_vector);
	le16_put(img + VIRTIO_PCI_COMMON_Q_ENABLE, q->s.enabled);
	le16_put(img + VIRTIO_PCI_COMMON_Q_NOFF, vp->st.queue_select);
	le64_put(img + VIRTIO_PCI_COMMON_Q_DESCLO, q->s.desc);
	le64_put(img + VIRTIO_PCI_COMMON_Q_AVAILLO, q->s.avail);
	le64_put(img + VIRTIO_PCI_COMMON_Q_USEDLO, q->s.used);
	le16_put(img + VIRTIO_PCI_COMMON_Q_NDATA, vp->st.queue_select);
}

/* --- reset and misbehaviour -------------------------------------------- */

void virtio_needs_reset(struct virtio_pci *vp)
{
	uint8_t status = __atomic_load_n(&vp->st.status, __ATOMIC_RELAXED);

	if (atomic_exchange(&vp->needs_reset, true))
		return;
	atomic_fetch_add(&vp->stats.needs_reset, 1);
	if (status & VIRTIO_STATUS_DRIVER_OK)
		virtio_irq_config(vp);
}

/* Under vp->lock. */
static void reset_locked(struct virtio_pci *vp)
{
	worker_pause(&vp->worker);
	if (vp->ops->drain)
		vp->ops->drain(vp->dev);
	for (unsigned int q = 0; q < vp->ops->nqueues; q++) {
		atomic_store(&vp->live[q], false);
		vq_reset(&vp->vq[q], vp->ops->queue_max);
		vp->call_sent[q] = -1;	/* reset() takes the rings back */
	}
	vp->st.driver_features = 0;
	vp->st.dfselect = vp->st.gfselect = 0;
	__atomic_store_n(&vp->st.config_vector, VIRTIO_MSI_NO_VECTOR,
			 __ATOMIC_RELAXED);
	vp->st.queue_select = 0;
	__atomic_store_n(&vp->st.status, 0, __ATOMIC_RELAXED);
	atomic_store(&vp->needs_reset, false);
	if (vp->ops->reset)
		vp->ops->reset(vp->dev);
	virtio_irq_reset(vp);
	atomic_fetch_add(&vp->stats.resets, 1);
	worker_resume(&vp->worker);
}

void virtio_common_reset(struct virtio_pci *vp)
{
	pthread_mutex_lock(&vp->lock);
	reset_locked(vp);
	pthread_mutex_unlock(&vp->lock);
}

/* --- status ----------------------------------------------------------------- */

static bool features_ok(const struct virtio_pci *vp)
{
	uint64_t f = vp->st.driver_features;

	return !(f & ~virtio_offered(vp)) && (f >> VIRTIO_F_VERSION_1 & 1);
}

static void go_live(struct virtio_pci *vp)
{
	for (unsigned int q = 0; q < vp->ops->nqueues; q++)
		if (vq_ready(&vp->vq[q]))
			atomic_store_explicit(&vp->live[q], true,
					      memory_order_release);
	if (vp->ops->start && vp->ops->start(vp->dev, vp) < 0) {
		for (unsigned int q = 0; q < vp->ops->nqueues; q++)
			atomic_store(&vp->live[q], false);
		virtio_needs_reset(vp);
		return;
	}
	worker_rescan(&vp->worker);
}

static void w_status(struct virtio_pci *vp, uint64_t v64)
{
	uint8_t v = (uint8_t)v64, old = vp->st.status;

	if (v == 0) {
		reset_locked(vp);
		return;
	}
	if (old & ~v) {			/* drivers never clear bits */
		virtio_needs_reset(vp);
		return;
	}
	if ((v & VIRTIO_STATUS_FEATURES_OK) &&
	    !(old & VIRTIO_STATUS_FEATURES_OK) && !features_ok(vp))
		v &= (uint8_t)~VIRTIO_STATUS_FEATURES_OK;
	if ((v & VIRTIO_STATUS_DRIVER_OK) &&
	    !(v & VIRTIO_STATUS_FEATURES_OK)) {
		v &= (uint8_t)~VIRTIO_STATUS_DRIVER_OK;
		virtio_needs_reset(vp);
	}
	v &= (uint8_t)~VIRTIO_STATUS_NEEDS_RESET;	/* the device's bit */
	__atomic_store_n(&vp->st.status, v, __ATOMIC_RELAXED);
	if (v & VIRTIO_STATUS_FAILED) {
		for (unsigned int q = 0; q < vp->ops->nqueues; q++)
			atomic_store(&vp->live[q], false);
		return;
	}
	if ((v & VIRTIO_STATUS_DRIVER_OK) && !(old & VIRTIO_STATUS_DRIVER_OK))
		go_live(vp);
}

/* --- features and vectors --------------------------------------------------- */

static void w_dfselect(struct virtio_pci *vp, uint64_t v)
{
	vp->st.dfselect = (uint32_t)v;
}

static void w_gfselect(struct virtio_pci *vp, uint64_t v)
{
	vp->st.gfselect = (uint32_t)v;
}

static void w_gf(struct virtio_pci *vp, uint64_t v)
{
	unsigned int sh = 32 * vp->st.gfselect;

	if (vp->st.gfselect >= 2 ||
	    (vp->st.status & VIRTIO_STATUS_FEATURES_OK))
		return;		/* no such bits; or negotiation is over */
	vp->st.driver_features &= ~(0xffffffffull << sh);
	vp->st.driver_features |= (v & 0xffffffffull) << sh;
}

static uint16_t vector(const struct virtio_pci *vp, uint64_t v)
{
	return v < vp->msix.s.nvec ? (uint16_t)v : VIRTIO_MSI_NO_VECTOR;
}

static void w_config_msix(struct virtio_pci *vp, uint64_t v)
{
	__atomic_store_n(&vp->st.config_vector, vector(vp, v),
			 __ATOMIC_RELAXED);
}

/* --- queues -------------------------------------------------------------- */

static void w_qselect(struct virtio_pci *vp, uint64_t v)
{
	vp->st.queue_select = (uint16_t)v;
}

/* The selected queue if its set-up may still change. */
static struct vq *unset(struct virtio_pci *vp)
{
	struct vq *q = selected(vp);

	return q && !q->s.enabled ? q : NULL;
}

static void w_qsize(struct virtio_pci *vp, uint64_t v)
{
	struct vq *q = unset(vp);

	if (q)
		q->s.size = (uint16_t)v;	/* checked at enable */
}

static void w_qmsix(struct virtio_pci *vp, uint64_t v)
{
	struct vq *q = selected(vp);

	if (!q)
		return;
	__atomic_store_n(&q->s.msix_vector, vector(vp, v), __ATOMIC_RELAXED);
	virtio_pci_calls_update(vp);	/* under vp->lock */
}

static void w_qenable(struct virtio_pci *vp, uint64_t v)
{
	struct vq *q = unset(vp);
	uint64_t f = vp->st.driver_features;

	if (!q || v != 1)
		return;		/* 0 is reserved without RING_RESET */
	if (!(vp->st.status & VIRTIO_STATUS_FEATURES_OK)) {
		virtio_needs_reset(vp);
		return;
	}
	q->s.event_idx = f >> VIRTIO_F_RING_EVENT_IDX & 1;
	q->s.indirect = f >> VIRTIO_F_RING_INDIRECT_DESC & 1;
	if (vq_start(q, &vp->host.mem, vp->ops->queue_max) < 0) {
		virtio_needs_reset(vp);
		return;
	}
	q->s.enabled = 1;
	if (vp->st.status & VIRTIO_STATUS_DRIVER_OK) {
		atomic_store_explicit(&vp->live[vp->st.queue_select], true,
				      memory_order_release);
		worker_rescan(&vp->worker);
	}
}

#define ADDR_WRITER(name, field, shift)					\
static void name(struct virtio_pci *vp, uint64_t v)			\
{									\
	struct vq *q = unset(vp);					\
									\
	if (!q)								\
		return;							\
	q->s.field &= ~(0xffffffffull << (shift));			\
	q->s.field |= (v & 0xffffffffull) << (shift);			\
}
ADDR_WRITER(w_desc_lo, desc, 0)
ADDR_WRITER(w_desc_hi, desc, 32)
ADDR_WRITER(w_avail_lo, avail, 0)
ADDR_WRITER(w_avail_hi, avail, 32)
ADDR_WRITER(w_used_lo, used, 0)
ADDR_WRITER(w_used_hi, used, 32)

/* Writable fields in address order; the rest are read-only. */
static const struct field fields[] = {
	{ VIRTIO_PCI_COMMON_DFSELECT, 4, w_dfselect },
	{ VIRTIO_PCI_COMMON_GFSELECT, 4, w_gfselect },
	{ VIRTIO_PCI_COMMON_GF, 4, w_gf },
	{ VIRTIO_PCI_COMMON_MSIX, 2, w_config_msix },
	{ VIRTIO_PCI_COMMON_STATUS, 1, w_status },
	{ VIRTIO_PCI_COMMON_Q_SELECT, 2, w_qselect },
	{ VIRTIO_PCI_COMMON_Q_SIZE, 2, w_qsize },
	{ VIRTIO_PCI_COMMON_Q_MSIX, 2, w_qmsix },
	{ VIRTIO_PCI_COMMON_Q_ENABLE, 2, w_qenable },
	{ VIRTIO_PCI_COMMON_Q_DESCLO, 4, w_desc_lo },
	{ VIRTIO_PCI_COMMON_Q_DESCHI, 4, w_desc_hi },
	{ VIRTIO_PCI_COMMON_Q_AVAILLO, 4, w_avail_lo },
	{ VIRTIO_PCI_COMMON_Q_AVAILHI, 4, w_avail_hi },
	{ VIRTIO_PCI_COMMON_Q_USEDLO, 4, w_used_lo },
	{ VIRTIO_PCI_COMMON_Q_USEDHI, 4, w_used_hi },
};

void virtio_common_read(struct virtio_pci *vp, uint64_t off, uint8_t *data,
			uint32_t len)
{
	uint8_t img[IMAGE];

	memset(data, 0, len);
	if (off >= IMAGE)
		return;
	if (len > IMAGE - off)
		len = (uint32_t)(IMAGE - off);
	pthread_mutex_lock(&vp->lock);
	render(vp, img);
	pthread_mutex_unlock(&vp->lock);
	memcpy(data, img + off, len);
}

void virtio_common_write(struct virtio_pci *vp, uint64_t off,
			 const uint8_t *data, uint32_t len)
{
	uint8_t img[IMAGE];

	if (off >= IMAGE)
		return;
	if (len > IMAGE - off)
		len = (uint32_t)(IMAGE - off);
	pthread_mutex_lock(&vp->lock);
	render(vp, img);
	memcpy(img + off, data, len);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct field *f = &fields[i];

		if (f->off < off + len && off < (uint64_t)f->off + f->size)
			f->write(vp, le_get(img + f->off, f->size));
	}
	pthread_mutex_unlock(&vp->lock);
}
