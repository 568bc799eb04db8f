// SPDX-License-Identifier: MIT
/*
 * The virtio-pci function: identity and capabilities in config space,
 * BAR 0 decoding into the transport's regions, the config-space side
 * effects (MSI-X enable and mask, INTx disable, where notifications are
 * bound, the PCI configuration access window), and the device thread's
 * entry into the device model.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "devices/virtio/calls.h"
#include "devices/virtio/common.h"
#include "devices/virtio/irq.h"
#include "devices/virtio/pci.h"
#include "firmware/lib/le.h"

#define REGION(off)	((off) & ~(uint64_t)(VIRTIO_REGION_SIZE - 1))
#define SERVE_BUDGET	1024	/* chains per virtio_serve() call */

/* --- BAR 0 ------------------------------------------------------------ */

static void device_cfg(struct virtio_pci *vp, uint64_t off, uint8_t *data,
		       uint32_t len, bool is_write)
{
	unsigned int size = vp->ops->cfg_size;

	if (off >= size)
		return;
	if (len > size - off)
		len = (uint32_t)(size - off);
	if (is_write && vp->ops->cfg_write)
		vp->ops->cfg_write(vp->dev, (unsigned int)off, data, len);
	else if (!is_write && vp->ops->cfg_read)
		vp->ops->cfg_read(vp->dev, (unsigned int)off, data, len);
}

static void kick(struct virtio_pci *vp, uint64_t off)
{
	uint64_t q = off / VIRTIO_NOTIFY_MULT, one = 1;
	ssize_t r;

	if (off % VIRTIO_NOTIFY_MULT || q >= vp->ops->nqueues)
		return;
	atomic_fetch_add(&vp->stats.notify_exits, 1);
	r = write(vp->kick_fd[q], &one, sizeof(one));
	(void)r;
}

static void bar_access(void *opaque, uint64_t off, uint8_t *data,
		       uint32_t len, bool is_write)
{
	struct virtio_pci *vp = opaque;
	uint64_t region = REGION(off), r = off - region;

	if (len > VIRTIO_REGION_SIZE - r)
		len = (uint32_t)(VIRTIO_REGION_SIZE - r);
	switch (region) {
	case VIRTIO_BAR_COMMON:
		if (is_write)
			virtio_common_write(vp, r, data, len);
		else
			virtio_common_read(vp, r, data, len);
		return;
	case VIRTIO_BAR_ISR:
		if (!is_write && r == 0)
			data[0] = virtio_irq_isr_read(vp);
		return;
	case VIRTIO_BAR_DEVICE:
		device_cfg(vp, r, data, len, is_write);
		return;
	case VIRTIO_BAR_NOTIFY:
		if (is_write)
			kick(vp, r);
		return;
	case VIRTIO_BAR_MSIX_TABLE:
	case VIRTIO_BAR_MSIX_PBA:
		virtio_msix_access(vp, region, r, data, len, is_write);
		return;
	}
}

static void bar_read(void *opaque, uint64_t off, uint8_t *data, uint32_t len)
{
	bar_access(opaque, off, data, len, false);
}

static void bar_write(void *opaque, uint64_t off, const uint8_t *data,
		      uint32_t len)
{
	uint8_t buf[8] = { 0 };

	if (len > sizeof(buf))
		len = sizeof(buf);
	memcpy(buf, data, len);
	bar_access(opaque, off, buf, len, true);
}

const struct bus_ops virtio_pci_bar_ops = {
	.read = bar_read,
	.write = bar_write,
};

/* --- config-space side effects ----------------------------------------- */

/* Notifications follow BAR 0: bound to KVM where it decodes now. */
void virtio_pci_rebind(struct virtio_pci *vp)
{
	const struct pci_bar *b = &vp->fn.bars[VIRTIO_BAR];
	uint64_t want = b->mapped ? b->map_addr + VIRTIO_BAR_NOTIFY :
				    VIRTIO_NO_ADDR;
	const struct virtio_host *h = &vp->host;

	if (want == vp->notify_base || !h->notify_bind)
		return;
	for (unsigned int q = 0; q < vp->ops->nqueues; q++)
		if (vp->notify_bound >> q & 1)
			h->notify_bind(h->ctx, vp->kick_fd[q], vp->notify_base +
				       q * VIRTIO_NOTIFY_MULT, false);
	vp->notify_bound = 0;
	vp->notify_base = want;
	if (want == VIRTIO_NO_ADDR)
		return;
	for (unsigned int q = 0; q < vp->ops->nqueues; q++)
		if (h->notify_bind(h->ctx, vp->kick_fd[q],
				   want + q * VIRTIO_NOTIFY_MULT, true) == 0)
			vp->notify_bound |= 1u << q;
}

static void msix_flags(struct virtio_pci *vp)
{
	uint32_t f = le16_get(vp->fn.cfg + vp->msix_cap + MSIX_CAP_FLAGS);

	pthread_mutex_lock(&vp->lock);
	pthread_mutex_lock(&vp->irq_lock);
	msix_control(&vp->msix, f & MSIX_FLAGS_ENABLE, f & MSIX_FLAGS_MASKALL);
	pthread_mutex_unlock(&vp->irq_lock);
	virtio_pci_calls_update(vp);
	pthread_mutex_unlock(&vp->lock);
	virtio_irq_intx_update(vp);
}

static bool window_ok(uint8_t bar, uint32_t off, uint32_t len)
{
	if (bar != VIRTIO_BAR || (len != 1 && len != 2 && len != 4))
		return false;
	return !(off % len) && off <= VIRTIO_BAR_SIZE - len;
}

static void cfg_window(struct virtio_pci *vp, unsigned int off,
		       unsigned int len)
{
	uint8_t *cap = vp->fn.cfg + vp->cfg_cap;
	uint8_t *data = cap + VIRTIO_PCI_CFG_DATA;
	uint32_t boff = le32_get(cap + VIRTIO_PCI_CAP_OFFSET);
	uint32_t blen = le32_get(cap + VIRTIO_PCI_CAP_LENGTH);
	unsigned int data_at = vp->cfg_cap + VIRTIO_PCI_CFG_DATA;

	if (off + len <= vp->cfg_cap || off >= data_at + 4u ||
	    !window_ok(cap[VIRTIO_PCI_CAP_BAR], boff, blen))
		return;
	if (off + len > data_at) {
		bar_write(vp, boff, data, blen);
		return;
	}
	memset(data, 0, 4);
	bar_read(vp, boff, data, blen);
}

static void cfg_written(struct pci_fn *fn, unsigned int off, unsigned int len)
{
	struct virtio_pci *vp = fn->opaque;

	virtio_pci_rebind(vp);
	msix_flags(vp);
	cfg_window(vp, off, len);
}

/* --- capabilities --------------------------------------------------------- */

static int vendor_cap(struct virtio_pci *vp, uint8_t type, uint32_t offset,
		      uint32_t length, unsigned int size)
{
	int c = pci_fn_add_cap(&vp->fn, PCI_CAP_ID_VNDR, size);

	if (c < 0)
		return -1;
	pci_fn_init_reg(&vp->fn, c + VIRTIO_PCI_CAP_LEN, 1, size, 0, 0);
	pci_fn_init_reg(&vp->fn, c + VIRTIO_PCI_CAP_CFG_TYPE, 1, type, 0, 0);
	pci_fn_init_reg(&vp->fn, c + VIRTIO_PCI_CAP_BAR, 1, VIRTIO_BAR, 0, 0);
	pci_fn_init_reg(&vp->fn, c + VIRTIO_PCI_CAP_OFFSET, 4, offset, 0, 0);
	pci_fn_init_reg(&vp->fn, c + VIRTIO_PCI_CAP_LENGTH, 4, length, 0, 0);
	return c;
}

static int add_caps(struct virtio_pci *vp)
{
	int c, m;

	m = pci_fn_add_cap(&vp->fn, PCI_CAP_ID_MSIX, MSIX_CAP_SIZEOF);
	if (m < 0)
		return -1;
	vp->msix_cap = (uint16_t)m;
	pci_fn_init_reg(&vp->fn, m + MSIX_CAP_FLAGS, 2, vp->msix.s.nvec - 1,
			MSIX_FLAGS_ENABLE | MSIX_FLAGS_MASKALL, 0);
	pci_fn_init_reg(&vp->fn, m + MSIX_CAP_TABLE, 4,
			VIRTIO_BAR_MSIX_TABLE | VIRTIO_BAR, 0, 0);
	pci_fn_init_reg(&vp->fn, m + MSIX_CAP_PBA, 4,
			VIRTIO_BAR_MSIX_PBA | VIRTIO_BAR, 0, 0);
	if (vendor_cap(vp, VIRTIO_PCI_CAP_COMMON_CFG, VIRTIO_BAR_COMMON,
		       VIRTIO_REGION_SIZE, VIRTIO_PCI_CAP_SIZEOF) < 0 ||
	    vendor_cap(vp, VIRTIO_PCI_CAP_ISR_CFG, VIRTIO_BAR_ISR,
		       VIRTIO_REGION_SIZE, VIRTIO_PCI_CAP_SIZEOF) < 0)
		return -1;
	c = vendor_cap(vp, VIRTIO_PCI_CAP_NOTIFY_CFG, VIRTIO_BAR_NOTIFY,
		       VIRTIO_REGION_SIZE, VIRTIO_PCI_NOTIFY_CAP_SIZEOF);
	if (c < 0)
		return -1;
	pci_fn_init_reg(&vp->fn, c + VIRTIO_PCI_NOTIFY_MULTIPLIER, 4,
			VIRTIO_NOTIFY_MULT, 0, 0);
	if (vp->ops->cfg_size &&
	    vendor_cap(vp, VIRTIO_PCI_CAP_DEVICE_CFG, VIRTIO_BAR_DEVICE,
		       vp->ops->cfg_size, VIRTIO_PCI_CAP_SIZEOF) < 0)
		return -1;
	c = vendor_cap(vp, VIRTIO_PCI_CAP_PCI_CFG, 0, 0,
		       VIRTIO_PCI_CFG_CAP_SIZEOF);
	if (c < 0)
		return -1;
	vp->cfg_cap = (uint16_t)c;
	pci_fn_init_reg(&vp->fn, c + VIRTIO_PCI_CAP_BAR, 1, 0, 0xff, 0);
	pci_fn_init_reg(&vp->fn, c + VIRTIO_PCI_CAP_OFFSET, 4, 0, ~0u, 0);
	pci_fn_init_reg(&vp->fn, c + VIRTIO_PCI_CAP_LENGTH, 4, 0, ~0u, 0);
	pci_fn_init_reg(&vp->fn, c + VIRTIO_PCI_CFG_DATA, 4, 0, ~0u, 0);
	return 0;
}

/* --- life cycle -------------------------------------------------------- */

static void serve(void *ctx, unsigned int q, uint64_t kicks)
{
	struct virtio_pci *vp = ctx;

	if (q == vp->ops->nqueues && vp->worker.extra_fd >= 0) {
		vp->ops->process(vp->dev, vp, q);
		return;
	}
	if (vp->ops->backend_queues) {
		/* The back end used buffers of q: its call, relayed. */
		if (kicks && virtio_queue_live(vp, q)) {
			atomic_fetch_add(&vp->stats.requests, kicks);
			virtio_irq_queue(vp, q);
		}
		return;
	}
	atomic_fetch_add(&vp->stats.notifies, kicks);
	if (q >= vp->ops->nqueues ||
	    !atomic_load_explicit(&vp->live[q], memory_order_acquire))
		return;
	vp->ops->process(vp->dev, vp, q);
}

static void close_fds(struct virtio_pci *vp)
{
	for (unsigned int q = 0; q < VIRTIO_MAX_QUEUES; q++) {
		if (vp->kick_fd[q] >= 0)
			close(vp->kick_fd[q]);
		if (vp->call_fd[q] >= 0)
			close(vp->call_fd[q]);
		vp->kick_fd[q] = vp->call_fd[q] = -1;
	}
}

static void release(struct pci_fn *fn)
{
	struct virtio_pci *vp = fn->opaque;

	worker_destroy(&vp->worker);
	if (vp->ops->release)
		vp->ops->release(vp->dev);
	msix_destroy(&vp->msix);
	close_fds(vp);
	pthread_mutex_destroy(&vp->used_lock);
	pthread_mutex_destroy(&vp->irq_lock);
	pthread_mutex_destroy(&vp->lock);
	free(vp);
}

static bool ops_ok(const struct virtio_device_ops *o)
{
	uint16_t m = o->queue_max;

	return o->nqueues >= 1 && o->nqueues <= VIRTIO_MAX_QUEUES &&
	       o->nqueues + 1 <= MSIX_MAX_VECTORS && m && !(m & (m - 1)) &&
	       m <= VQ_CHAIN_MAX && o->cfg_size <= VIRTIO_REGION_SIZE &&
	       o->process;
}

static int init_fn(struct virtio_pci *vp, uint8_t *page)
{
	const struct pci_fn_id id = {
		.vendor = VIRTIO_PCI_VENDOR,
		.device = (uint16_t)(VIRTIO_PCI_DEVICE_BASE + vp->ops->type),
		.subsys_vendor = VIRTIO_PCI_VENDOR,
		.subsys_id = VIRTIO_PCI_SUBSYS_ID,
		.class_code = vp->ops->class_code,
		.revision = VIRTIO_PCI_REVISION,
		.irq_pin = 1,
	};
	const struct pci_bar_desc bar = {
		.kind = PCI_BAR_MEM64,
		.size = VIRTIO_BAR_SIZE,
		.ops = &virtio_pci_bar_ops,
		.opaque = vp,
		.name = vp->name,
	};

	if (pci_fn_init(&vp->fn, page, &id, vp->name) ||
	    pci_fn_add_bar(&vp->fn, VIRTIO_BAR, &bar) || add_caps(vp))
		return -1;
	vp->fn.opaque = vp;
	vp->fn.written = cfg_written;
	return 0;
}

static int init_state(struct virtio_pci *vp)
{
	vp->worker.ctl_fd = -1;
	for (unsigned int q = 0; q < VIRTIO_MAX_QUEUES; q++)
		vp->kick_fd[q] = vp->call_fd[q] = vp->call_sent[q] = -1;
	vp->notify_base = VIRTIO_NO_ADDR;
	vp->st.config_vector = VIRTIO_MSI_NO_VECTOR;
	pthread_mutex_init(&vp->lock, NULL);
	pthread_mutex_init(&vp->irq_lock, NULL);
	pthread_mutex_init(&vp->used_lock, NULL);
	for (unsigned int q = 0; q < vp->ops->nqueues; q++) {
		vp->vq[q].mem = &vp->host.mem;
		vq_reset(&vp->vq[q], vp->ops->queue_max);
		vp->kick_fd[q] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (vp->kick_fd[q] < 0)
			return -1;
		if (!vp->ops->backend_queues)
			continue;
		vp->call_fd[q] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (vp->call_fd[q] < 0)
			return -1;
	}
	if (msix_init(&vp->msix, vp->ops->nqueues + 1, vp->host.msix_route,
		      vp->host.ctx) < 0)
		return -1;
	/* A back end takes the kicks itself; the thread waits for its
	 * calls instead. */
	return worker_init(&vp->worker, vp->ops->backend_queues ?
			   vp->call_fd : vp->kick_fd, vp->ops->nqueues, serve,
			   vp);
}

struct virtio_pci *virtio_pci_create(struct pci_bus *bus, uint32_t bdf,
				     const struct virtio_device_ops *ops,
				     void *dev, const struct virtio_host *host,
				     const char *name)
{
	struct virtio_pci *vp;
	uint8_t *page;

	if (!ops || !host || !ops_ok(ops))
		return NULL;
	vp = calloc(1, sizeof(*vp));
	page = pci_bus_alloc_page(bus);
	if (!vp || !page)
		goto fail_mem;
	vp->ops = ops;
	vp->dev = dev;
	vp->host = *host;
	vp->name = name;
	if (init_state(vp) < 0 || init_fn(vp, page) < 0 ||
	    pci_bus_add_function(bus, bdf, &vp->fn) < 0)
		goto fail;
	vp->fn.release = release;
	return vp;
fail:
	vp->fn.opaque = vp;
	worker_destroy(&vp->worker);
	msix_destroy(&vp->msix);
	close_fds(vp);
fail_mem:
	pci_bus_free_page(bus, page);
	free(vp);
	return NULL;
}

int virtio_pci_start(struct virtio_pci *vp)
{
	return worker_start(&vp->worker);
}

unsigned int virtio_pci_nvec(const struct virtio_pci *vp)
{
	return vp->msix.s.nvec;
}

int virtio_pci_vector_fd(const struct virtio_pci *vp, unsigned int vec)
{
	return vec < vp->msix.s.nvec ? vp->msix.fd[vec] : -1;
}

struct pci_fn *virtio_pci_fn(struct virtio_pci *vp)
{
	return &vp->fn;
}

void virtio_pci_quiesce(struct virtio_pci *vp)
{
	worker_pause(&vp->worker);
	if (vp->ops->drain)
		vp->ops->drain(vp->dev);
}

void virtio_pci_resume(struct virtio_pci *vp)
{
	worker_resume(&vp->worker);
}

void virtio_pci_poke(struct virtio_pci *vp)
{
	worker_rescan(&vp->worker);
}

void virtio_pci_config_changed(struct virtio_pci *vp)
{
	pthread_mutex_lock(&vp->lock);
	vp->st.config_generation++;
	pthread_mutex_unlock(&vp->lock);
	virtio_irq_config(vp);
}

/* --- serving a queue ------------------------------------------------------ */

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Spin until the driver adds a buffer or ns pass; kicks stay suppressed
 * meanwhile (a stale avail_event, or VIRTQ_USED_F_NO_NOTIFY). */
static bool poll_more(struct vq *vq, uint32_t ns)
{
	uint64_t end = now_ns() + ns;

	do {
		for (int i = 0; i < 64; i++) {
			if (vq_pending(vq))
				return true;
			__builtin_ia32_pause();
		}
	} while (now_ns() < end);
	return false;
}

/* Poll only while polling pays.  On a host short of cores the spinning
 * thread can keep the very vCPU it waits for off the CPU: then every poll
 * times out and the kick comes right after the thread gives up, so a
 * window that grows on quick kicks (QEMU's rule) would keep spinning in
 * vain.  Instead: count polls that found work against polls that timed
 * out (halving both every 64 polls), stop polling while timeouts lead,
 * and try again once every 64 wake-ups. */
static bool want_poll(struct virtio_pci *vp)
{
	if (!vp->ops->poll_ns)
		return false;
	return vp->poll_fail <= vp->poll_ok + 4 || !(++vp->poll_skips & 63);
}

static bool poll_once(struct virtio_pci *vp, struct vq *vq)
{
	bool found = poll_more(vq, vp->ops->poll_ns);

	if (found)
		vp->poll_ok++;
	else
		vp->poll_fail++;
	if (vp->poll_ok + vp->poll_fail >= 64) {
		vp->poll_ok /= 2;
		vp->poll_fail /= 2;
	}
	return found;
}

void virtio_complete(struct virtio_pci *vp, unsigned int q, uint16_t head,
		     uint32_t len)
{
	struct vq *vq = &vp->vq[q];
	bool irq;

	pthread_mutex_lock(&vp->used_lock);
	vq_push(vq, head, len);
	irq = vq_need_interrupt(vq);
	pthread_mutex_unlock(&vp->used_lock);
	atomic_fetch_add(&vp->stats.requests, 1);
	if (irq)
		virtio_irq_queue(vp, q);
}

void virtio_complete_batch(struct virtio_pci *vp, unsigned int q,
			   const uint16_t *heads, const uint32_t *lens,
			   unsigned int n)
{
	struct vq *vq = &vp->vq[q];
	bool irq;

	if (!n)
		return;
	pthread_mutex_lock(&vp->used_lock);
	for (unsigned int i = 0; i < n; i++)
		vq_push(vq, heads[i], lens[i]);
	irq = vq_need_interrupt(vq);
	pthread_mutex_unlock(&vp->used_lock);
	atomic_fetch_add(&vp->stats.requests, n);
	if (irq)
		virtio_irq_queue(vp, q);
}

void virtio_queue_broken(struct virtio_pci *vp, unsigned int q)
{
	atomic_store(&vp->live[q], false);
	virtio_needs_reset(vp);
}

bool virtio_queue_live(struct virtio_pci *vp, unsigned int q)
{
	return q < vp->ops->nqueues &&
	       atomic_load_explicit(&vp->live[q], memory_order_acquire);
}

void virtio_pci_watch_fd(struct virtio_pci *vp, int fd)
{
	worker_watch(&vp->worker, fd);
}

void virtio_pci_watch(struct virtio_pci *vp, bool on)
{
	worker_watch_on(&vp->worker, on);
}

void virtio_serve(struct virtio_pci *vp, unsigned int q, struct vq_chain *c,
		  virtio_handle_fn handle, void *dev)
{
	virtio_serve_while(vp, q, c, handle, dev, NULL);
}

void virtio_serve_while(struct virtio_pci *vp, unsigned int q,
			struct vq_chain *c, virtio_handle_fn handle, void *dev,
			bool (*more)(void *dev))
{
	struct vq *vq = &vp->vq[q];
	unsigned int budget = SERVE_BUDGET;
	enum vq_pop_result r;

	do {
		vq_notify_disable(vq);
		do {
			/* Nothing to give: the buffers stay in the ring and
			 * kicks stay off; virtio_pci_poke() comes back. */
			if (more && !more(dev))
				return;
			while ((r = vq_pop(vq, c)) == VQ_CHAIN) {
				uint32_t len = handle(dev, c);

				if (len != VIRTIO_ASYNC)
					virtio_complete(vp, q, c->head, len);
				if (more && !more(dev))
					return;
				if (--budget)
					continue;
				/* A driver that never stops adding must not
				 * keep the thread from its other queues or
				 * from parking: come back after a look round. */
				worker_rescan(&vp->worker);
				return;
			}
			if (r == VQ_ERROR) {
				virtio_queue_broken(vp, q);
				return;
			}
		} while (want_poll(vp) && poll_once(vp, vq));
	} while (vq_notify_enable(vq));
}
