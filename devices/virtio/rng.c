// SPDX-License-Identifier: MIT
/* virtio-rng: entropy from getrandom() into the driver's buffers. */
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

#include "devices/virtio/rng.h"

struct virtio_rng {
	struct virtio_pci *vp;
	struct vq_chain chain;
};

/* Fill up to n bytes at p; returns how many were filled. */
static uint64_t fill(uint8_t *p, uint64_t n)
{
	uint64_t done = 0;

	while (done < n) {
		ssize_t r = getrandom(p + done, n - done, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		done += (uint64_t)r;
	}
	return done;
}

static uint32_t handle(void *dev, struct vq_chain *c)
{
	struct virtio_rng *r = dev;
	uint64_t total = 0;

	for (unsigned int i = c->n_out; i < c->n_out + c->n_in; i++) {
		uint64_t want = c->iov[i].iov_len, got;

		if (want > VIRTIO_RNG_MAX_REQUEST - total)
			want = VIRTIO_RNG_MAX_REQUEST - total;
		got = fill(c->iov[i].iov_base, want);
		total += got;
		if (got < want || total == VIRTIO_RNG_MAX_REQUEST)
			break;
	}
	atomic_fetch_add(&r->vp->stats.bytes_read, total);
	return (uint32_t)total;
}

static void process(void *dev, struct virtio_pci *vp, unsigned int q)
{
	struct virtio_rng *r = dev;

	virtio_serve(vp, q, &r->chain, handle, r);
}

static void release(void *dev)
{
	free(dev);
}

static const struct virtio_device_ops rng_ops = {
	.name = "virtio-rng",
	.type = VIRTIO_ID_RNG,
	.class_code = PCI_CLASS_OTHERS,
	.nqueues = 1,
	.queue_max = 64,
	.process = process,
	.release = release,
};

struct virtio_rng *virtio_rng_create(struct pci_bus *bus, uint32_t bdf,
				     const struct virtio_host *host,
				     const char *name)
{
	struct virtio_rng *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->vp = virtio_pci_create(bus, bdf, &rng_ops, r, host, name);
	if (!r->vp) {
		free(r);
		return NULL;
	}
	return r;
}

struct virtio_pci *virtio_rng_pci(struct virtio_rng *r)
{
	return r->vp;
}
