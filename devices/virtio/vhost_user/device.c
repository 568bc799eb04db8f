// SPDX-License-Identifier: MIT
/* A virtio device served by a vhost-user back end; see device.h. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devices/virtio/vhost_user/conn.h"
#include "devices/virtio/vhost_user/device.h"

/* Feature bits up to here are the device type's own (virtio 1.2, 6). */
#define DEVICE_BITS	((1ull << 24) - 1)

struct vhu_dev {
	struct virtio_device_ops ops;	/* per instance: the features */
	struct vhu_dev_conf conf;
	struct vhu_conn conn;
	struct virtio_pci *vp;
	const char *name;
	uint32_t started;		/* bit q: the back end has ring q */
	atomic_bool told;		/* conf.gone was called */
};

static void gone(struct vhu_dev *d)
{
	if (atomic_exchange(&d->told, true))
		return;
	d->conf.gone(d->conf.ctx, d->conn.err);
}

static void cfg_read(void *dev, unsigned int off, uint8_t *data,
		     unsigned int len)
{
	struct vhu_dev *d = dev;

	memcpy(data, d->conf.config + off, len);
}

static int start_ring(struct vhu_dev *d, unsigned int q, const struct vq *vq)
{
	struct vhu_conn *c = &d->conn;
	struct vhu_vring_addr a = {
		.index = q,
		.desc = (uint64_t)(uintptr_t)vq->desc_p,
		.used = (uint64_t)(uintptr_t)vq->used_p,
		.avail = (uint64_t)(uintptr_t)vq->avail_p,
	};
	int kick = virtio_pci_kick_fd(d->vp, q);
	int call = virtio_pci_call_fd(d->vp, q);

	if (vhu_conn_state(c, VHU_SET_VRING_NUM, q, vq->s.size, NULL) < 0 ||
	    vhu_conn_request(c, VHU_SET_VRING_ADDR, &a, sizeof(a), NULL, 0,
			     NULL) < 0 ||
	    vhu_conn_state(c, VHU_SET_VRING_BASE, q, vq->s.last_avail,
			   NULL) < 0 ||
	    vhu_conn_u64(c, VHU_SET_VRING_CALL, q, &call) < 0 ||
	    vhu_conn_u64(c, VHU_SET_VRING_KICK, q, &kick) < 0)
		return -1;
	d->started |= 1u << q;
	if (c->features >> VHU_F_PROTOCOL_FEATURES & 1)
		return vhu_conn_state(c, VHU_SET_VRING_ENABLE, q, 1, NULL);
	return 0;
}

/* DRIVER_OK: the accepted features, then every ring the driver set up. */
static int start(void *dev, struct virtio_pci *vp)
{
	struct vhu_dev *d = dev;
	uint64_t f = virtio_pci_driver_features(vp);

	if (d->conn.features >> VHU_F_PROTOCOL_FEATURES & 1)
		f |= 1ull << VHU_F_PROTOCOL_FEATURES;
	if (vhu_conn_u64(&d->conn, VHU_SET_FEATURES, f, NULL) < 0)
		goto fail;
	for (unsigned int q = 0; q < d->conf.nqueues; q++) {
		const struct vq *vq = virtio_pci_vq(vp, q);

		if (vq_ready(vq) && start_ring(d, q, vq) < 0)
			goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "minivmm: error: %s: %s\n", d->name, d->conn.err);
	gone(d);
	return -1;
}

/* The driver reset the device: stop every ring the back end has. */
static void reset(void *dev)
{
	struct vhu_dev *d = dev;
	bool proto = d->conn.features >> VHU_F_PROTOCOL_FEATURES & 1;

	for (unsigned int q = 0; q < d->conf.nqueues; q++) {
		if (!(d->started >> q & 1))
			continue;
		d->started &= ~(1u << q);
		if ((proto && vhu_conn_state(&d->conn, VHU_SET_VRING_ENABLE,
					     q, 0, NULL) < 0) ||
		    vhu_conn_state(&d->conn, VHU_GET_VRING_BASE, q, 0,
				   NULL) < 0) {
			gone(d);
			return;
		}
	}
}

/* The transport moves q's completions to fd (the vector's irqfd or its
 * relay, transport.h). */
static int set_call(void *dev, unsigned int q, int fd)
{
	struct vhu_dev *d = dev;

	if (!(d->started >> q & 1))
		return -1;
	if (vhu_conn_u64(&d->conn, VHU_SET_VRING_CALL, q, &fd) < 0) {
		gone(d);
		return -1;
	}
	return 0;
}

/* The socket is readable or hung up: the back end left. */
static void process(void *dev, struct virtio_pci *vp, unsigned int q)
{
	struct vhu_dev *d = dev;

	if (q != d->conf.nqueues || !vhu_conn_gone(&d->conn))
		return;
	virtio_pci_watch(vp, false);
	gone(d);
}

static void release(void *dev)
{
	struct vhu_dev *d = dev;

	vhu_conn_close(&d->conn);
	free(d);
}

/* What the transport always offers, the back end must do. */
static int check_features(struct vhu_dev *d, char *err, size_t errlen)
{
	static const struct { int bit; const char *name; } need[] = {
		{ VIRTIO_F_VERSION_1, "VERSION_1" },
		{ VIRTIO_F_RING_INDIRECT_DESC, "RING_INDIRECT_DESC" },
		{ VIRTIO_F_RING_EVENT_IDX, "RING_EVENT_IDX" },
	};

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (d->conn.features >> need[i].bit & 1)
			continue;
		snprintf(err, errlen, "the back end lacks virtio feature %s",
			 need[i].name);
		return -1;
	}
	return 0;
}

static int negotiate(struct vhu_dev *d, char *err, size_t errlen)
{
	struct vhu_conn *c = &d->conn;
	struct vhu_mem_table t = { .nregions = d->conf.nregions };
	uint64_t n;

	if (vhu_conn_open(c, d->conf.socket) < 0 ||
	    check_features(d, err, errlen) < 0)
		goto fail;
	if ((c->protocol >> VHU_PROTOCOL_F_MQ & 1) &&
	    (vhu_conn_request(c, VHU_GET_QUEUE_NUM, NULL, 0, NULL, 0,
			      &n) < 0 || n < d->conf.nqueues)) {
		if (!c->dead)
			snprintf(c->err, sizeof(c->err), "the back end serves "
				 "%llu queues, %u needed",
				 (unsigned long long)n, d->conf.nqueues);
		goto fail;
	}
	memcpy(t.regions, d->conf.regions,
	       d->conf.nregions * sizeof(t.regions[0]));
	if (vhu_conn_request(c, VHU_SET_MEM_TABLE, &t,
			     (uint32_t)(8 + t.nregions * sizeof(t.regions[0])),
			     d->conf.region_fds, d->conf.nregions, NULL) < 0)
		goto fail;
	return 0;
fail:
	if (!*err)
		snprintf(err, errlen, "%s", c->err);
	return -1;
}

static const struct virtio_device_ops template = {
	.process = process,
	.reset = reset,
	.release = release,
	.cfg_read = cfg_read,
	.backend_queues = true,
	.start = start,
	.set_call = set_call,
};

struct vhu_dev *vhu_dev_create(struct pci_bus *bus, uint32_t bdf,
			       const struct vhu_dev_conf *conf,
			       const struct virtio_host *host,
			       const char *name, char *err, size_t errlen)
{
	struct vhu_dev *d = calloc(1, sizeof(*d));

	*err = 0;
	if (!d || conf->cfg_size > VHU_DEV_CFG_MAX ||
	    conf->nregions > VHU_MAX_REGIONS) {
		snprintf(err, errlen, "bad device configuration");
		free(d);
		return NULL;
	}
	d->conf = *conf;
	d->name = name;
	if (negotiate(d, err, errlen) < 0)
		goto fail;
	d->ops = template;
	d->ops.name = name;
	d->ops.type = conf->type;
	d->ops.class_code = conf->class_code;
	d->ops.nqueues = conf->nqueues;
	d->ops.queue_max = conf->queue_max;
	d->ops.cfg_size = conf->cfg_size;
	d->ops.features = d->conn.features & DEVICE_BITS;
	d->vp = virtio_pci_create(bus, bdf, &d->ops, d, host, name);
	if (!d->vp) {
		snprintf(err, errlen, "cannot create the PCI function");
		goto fail;
	}
	virtio_pci_watch_fd(d->vp, d->conn.fd);
	return d;
fail:
	vhu_conn_close(&d->conn);
	free(d);
	return NULL;
}

struct virtio_pci *vhu_dev_pci(struct vhu_dev *d)
{
	return d->vp;
}
