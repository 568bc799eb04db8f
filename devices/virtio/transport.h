/* SPDX-License-Identifier: MIT */
/*
 * The virtio-pci transport's state, shared by its parts: pci.c (the PCI
 * function, capabilities, BAR decoding, notify binding), common.c (the
 * common configuration structure: status, features, queues, reset) and
 * irq.c (ISR, INTx, MSI-X delivery).  Device models use the API in
 * pci.h; this header is the transport's own.
 *
 * BAR 0 is one 64-bit memory BAR holding every region, each in its own
 * page so a VMM may map or trap them separately:
 *   0x0000 common configuration    0x1000 ISR status
 *   0x2000 device configuration    0x3000 notifications (queue q at 4q)
 *   0x4000 MSI-X table             0x5000 MSI-X pending bits
 *
 * State for snapshots is plain data: st (below), each vq[q].s and msix.s,
 * plus the device model's own; take it with the worker parked
 * (virtio_pci_quiesce).
 *
 * Locks, in the order they nest: the PCI bus mutex (config space) ->
 * lock (common configuration, queue set-up, status) -> irq_lock (ISR,
 * INTx level, MSI-X); used_lock (used rings) nests in none.  The worker
 * and a device's I/O threads take only used_lock and irq_lock; a vCPU
 * that parks the worker holds at most lock, so parking never deadlocks.
 */
#ifndef MINIVMM_VIRTIO_TRANSPORT_H
#define MINIVMM_VIRTIO_TRANSPORT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "devices/irq.h"
#include "devices/pci/cfg.h"
#include "devices/virtio/msix.h"
#include "devices/virtio/spec.h"
#include "devices/virtio/virtqueue.h"
#include "devices/virtio/worker.h"

#define VIRTIO_MAX_QUEUES	WORKER_MAX_FDS
#define VIRTIO_BAR		0
#define VIRTIO_BAR_SIZE		0x8000
#define VIRTIO_BAR_COMMON	0x0000
#define VIRTIO_BAR_ISR		0x1000
#define VIRTIO_BAR_DEVICE	0x2000
#define VIRTIO_BAR_NOTIFY	0x3000
#define VIRTIO_BAR_MSIX_TABLE	0x4000
#define VIRTIO_BAR_MSIX_PBA	0x5000
#define VIRTIO_REGION_SIZE	0x1000
#define VIRTIO_NOTIFY_MULT	4
#define VIRTIO_NO_ADDR		UINT64_MAX

struct virtio_pci;

/* What the device model supplies. */
struct virtio_device_ops {
	const char *name;		/* e.g. "virtio-blk" */
	uint16_t type;			/* VIRTIO_ID_* */
	uint32_t class_code;
	unsigned int nqueues;		/* 1..VIRTIO_MAX_QUEUES */
	uint16_t queue_max;		/* power of two, <= VQ_CHAIN_MAX */
	uint64_t features;		/* device-specific bits offered */
	unsigned int cfg_size;		/* device configuration bytes */
	/* After a queue runs dry, keep looking at it up to this long
	 * before re-arming kicks and sleeping: a driver that answers one
	 * request with the next then needs neither a kick nor a wake-up.
	 * Only while polls pay off (pci.c).  0: no polling. */
	uint32_t poll_ns;
	/* Device configuration, off + len <= cfg_size. */
	void (*cfg_read)(void *dev, unsigned int off, uint8_t *data,
			 unsigned int len);
	void (*cfg_write)(void *dev, unsigned int off, const uint8_t *data,
			  unsigned int len);
	/* In the worker: queue q is live and may hold buffers; or, with
	 * q == nqueues, the backend descriptor the device handed to
	 * virtio_pci_watch_fd() is readable (queues may be anything). */
	void (*process)(void *dev, struct virtio_pci *vp, unsigned int q);
	/* Wait until no request taken by process() is still in flight
	 * (one that handle() answered with VIRTIO_ASYNC); called with the
	 * worker parked, before a reset and by virtio_pci_quiesce().  NULL:
	 * the device completes everything in process(). */
	void (*drain)(void *dev);
	/* With the worker parked and drained: the driver reset the device. */
	void (*reset)(void *dev);
	/* With the worker parked: a snapshot's transport state replaced the
	 * function's (features, queues); what the device derived from the
	 * old one is stale.  NULL: it derives nothing. */
	void (*state_loaded)(void *dev);
	/* The function is being destroyed (its thread has stopped). */
	void (*release)(void *dev);
	/* Queues served by an outside back end (vhost-user): the device
	 * thread never touches the rings.  start() hands the rings over
	 * when the driver sets DRIVER_OK (vCPU thread, under the transport
	 * lock; -1: the device is broken, DEVICE_NEEDS_RESET), with the
	 * call eventfd virtio_pci_call_fd gives for each queue; reset()
	 * takes them back.  That eventfd is the queue's MSI-X vector's own
	 * (the back end's signal reaches KVM's irqfd with no trip through
	 * minivmm, as QEMU's vhost does) while the vector can fire as it
	 * is, else the transport's relay, which the device thread turns
	 * into the interrupt with masks and pending bits applied.
	 * set_call() moves a started queue from one to the other when the
	 * driver masks, unmasks or re-assigns its vector (same thread and
	 * lock as start(); -1 leaves the old one). */
	bool backend_queues;
	int (*start)(void *dev, struct virtio_pci *vp);
	int (*set_call)(void *dev, unsigned int q, int fd);
};

/* What the VMM supplies (devices never see KVM). */
struct virtio_host {
	struct virtio_mem mem;
	/* Deliver guest writes of any width at gpa to eventfd fd (bind),
	 * or stop doing so.  0 on success; on failure the BAR handler sees
	 * those writes and kicks fd itself. */
	int (*notify_bind)(void *ctx, int fd, uint64_t gpa, bool bind);
	/* Point MSI-X vector vec's route at the message (addr, data). */
	msix_route_fn msix_route;
	struct irq_line intx;		/* level-triggered INTx pin */
	void *ctx;
};

/* Per-device counters (atomics: the worker and vCPUs add, --stats
 * reads). */
struct virtio_stats {
	atomic_uint_least64_t notifies;	/* kicks the worker saw */
	atomic_uint_least64_t notify_exits; /* of which through the BAR
					     * handler (a user-space exit) */
	atomic_uint_least64_t interrupts;	/* MSI-X messages + INTx raises */
	atomic_uint_least64_t requests;	/* completed by the device model */
	atomic_uint_least64_t bytes_read;	/* from the backend to the guest */
	atomic_uint_least64_t bytes_written;	/* from the guest */
	atomic_uint_least64_t errors;	/* requests that failed */
	atomic_uint_least64_t resets;
	atomic_uint_least64_t needs_reset;	/* times the driver misbehaved */
};

/* The transport's own plain state. */
struct virtio_pci_state {
	uint64_t driver_features;
	uint32_t dfselect, gfselect;
	uint16_t config_vector;
	uint16_t queue_select;
	uint8_t status;
	uint8_t config_generation;
	uint8_t isr;
	uint8_t intx_level;
};

struct virtio_pci {
	struct pci_fn fn;
	const struct virtio_device_ops *ops;
	void *dev;
	struct virtio_host host;
	const char *name;		/* instance name, e.g. "virtio-blk0" */
	pthread_mutex_t lock;
	pthread_mutex_t irq_lock;
	pthread_mutex_t used_lock;	/* used rings: the worker and
					 * threads completing asynchronously */
	struct virtio_pci_state st;
	struct vq vq[VIRTIO_MAX_QUEUES];
	atomic_bool live[VIRTIO_MAX_QUEUES];	/* worker may serve q */
	atomic_bool needs_reset;
	struct msix msix;
	struct virtio_worker worker;
	int kick_fd[VIRTIO_MAX_QUEUES];
	int call_fd[VIRTIO_MAX_QUEUES];	/* backend_queues: the back end's
					 * "used" signals, relayed */
	int call_sent[VIRTIO_MAX_QUEUES];	/* the call fd the back end
						 * has for q; -1: none */
	uint64_t notify_base;		/* GPA notifications are bound at */
	uint32_t notify_bound;		/* bit q: kick_fd[q] bound there */
	uint16_t msix_cap, cfg_cap;	/* capability offsets */
	uint32_t poll_ok, poll_fail;	/* worker: polls that found work or
					 * timed out, decaying (pci.c) */
	uint32_t poll_skips;		/* worker: polls skipped */
	struct virtio_stats stats;
};

/* Offered features: the device's and the transport's. */
static inline uint64_t virtio_offered(const struct virtio_pci *vp)
{
	return vp->ops->features | 1ull << VIRTIO_F_VERSION_1 |
	       1ull << VIRTIO_F_RING_INDIRECT_DESC |
	       1ull << VIRTIO_F_RING_EVENT_IDX;
}

#endif
