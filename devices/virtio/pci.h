/* SPDX-License-Identifier: MIT */
/*
 * The modern virtio-pci transport (virtio 1.2, 4.1), as device models and
 * the VMM use it.  virtio_pci_create() makes the PCI function (vendor
 * 0x1af4, device 0x1040 + type, revision 1, INTA), its capabilities
 * (common, notify with a multiplier of 4, ISR, device configuration, the
 * PCI configuration access window, MSI-X with one vector per queue plus
 * one for configuration changes) and BAR 0 (64-bit, see transport.h), and
 * plugs it into the bus, which owns it from then on.  The device model
 * supplies struct virtio_device_ops; the VMM supplies struct virtio_host
 * and binds each vector's eventfd (virtio_pci_vector_fd) to an interrupt
 * route.  Queue work runs in the device's own thread (worker.h), started
 * by virtio_pci_start().
 *
 * The PCI configuration access capability (VIRTIO_PCI_CAP_PCI_CFG) is
 * served without side effects on reads, because config space may be a
 * read-only mapping: writing any of its bar/offset/length fields performs
 * the BAR read there and latches the result into pci_cfg_data (so an ISR
 * read through the window clears ISR at that moment); writing pci_cfg_data
 * performs the BAR write.
 */
#ifndef MINIVMM_VIRTIO_PCI_H
#define MINIVMM_VIRTIO_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "devices/pci/bus.h"
#include "devices/virtio/transport.h"
#include "vmm/bus.h"

/* BAR 0 handlers; opaque = the struct virtio_pci. */
extern const struct bus_ops virtio_pci_bar_ops;

/* NULL if ops are out of range, bdf is taken, or an eventfd or thread
 * resource could not be made. */
struct virtio_pci *virtio_pci_create(struct pci_bus *bus, uint32_t bdf,
				     const struct virtio_device_ops *ops,
				     void *dev, const struct virtio_host *host,
				     const char *name);
/* Start the device thread (before the vCPUs run).  0 or -1. */
int virtio_pci_start(struct virtio_pci *vp);

unsigned int virtio_pci_nvec(const struct virtio_pci *vp);
int virtio_pci_vector_fd(const struct virtio_pci *vp, unsigned int vec);
struct pci_fn *virtio_pci_fn(struct virtio_pci *vp);

/* Park the device thread and wait for the device's requests in flight
 * (snapshots), and let it go on.  Pairs nest. */
void virtio_pci_quiesce(struct virtio_pci *vp);
void virtio_pci_resume(struct virtio_pci *vp);
/* Bind the queues' notifications where BAR 0 decodes now (done after
 * every config-space write; a restore calls it once BAR 0 is back). */
void virtio_pci_rebind(struct virtio_pci *vp);

/* For device models, in ops->process(): take every available chain of
 * queue q, hand it to handle (which returns the bytes it wrote into the
 * chain's writable buffers), complete it and interrupt the driver as the
 * event index or ring flags ask.  A malformed ring stops the queue and
 * sets DEVICE_NEEDS_RESET.  c is the caller's scratch chain.  handle may
 * instead return VIRTIO_ASYNC: it took what it needs of c and will call
 * virtio_complete() for c->head itself, from any thread (and then
 * ops->drain must wait for it). */
#define VIRTIO_ASYNC	UINT32_MAX
typedef uint32_t (*virtio_handle_fn)(void *dev, struct vq_chain *c);
void virtio_serve(struct virtio_pci *vp, unsigned int q, struct vq_chain *c,
		  virtio_handle_fn handle, void *dev);
/* virtio_serve() for a queue the device fills from its own source (a
 * receive queue): chains are taken only while more(dev) says there is
 * something to give; otherwise they stay in the ring, kicks stay
 * suppressed, and the device calls virtio_pci_poke() when it has data. */
void virtio_serve_while(struct virtio_pci *vp, unsigned int q,
			struct vq_chain *c, virtio_handle_fn handle, void *dev,
			bool (*more)(void *dev));
/* From any thread: the device has work of its own, serve every live
 * queue soon (also once a parked thread resumes). */
void virtio_pci_poke(struct virtio_pci *vp);
/* Complete head of queue q with len bytes written; interrupts as
 * virtio_serve does.  Safe from any thread. */
void virtio_complete(struct virtio_pci *vp, unsigned int q, uint16_t head,
		     uint32_t len);

/* Complete n chains of queue q at once (heads[i] with lens[i] bytes),
 * deciding about one interrupt for the batch.  Safe from any thread. */
void virtio_complete_batch(struct virtio_pci *vp, unsigned int q,
			   const uint16_t *heads, const uint32_t *lens,
			   unsigned int n);
/* The driver broke queue q's ring (vq_pop said VQ_ERROR): stop serving
 * it and tell the driver DEVICE_NEEDS_RESET. */
void virtio_queue_broken(struct virtio_pci *vp, unsigned int q);
/* Queue q is live (the driver set it up and DRIVER_OK is set). */
bool virtio_queue_live(struct virtio_pci *vp, unsigned int q);
/* A backend descriptor the device thread also polls (before
 * virtio_pci_start); ops->process(dev, vp, nqueues) runs when it is
 * readable, while polling it is on (from the device thread). */
void virtio_pci_watch_fd(struct virtio_pci *vp, int fd);
void virtio_pci_watch(struct virtio_pci *vp, bool on);

/* For devices whose queues an outside back end serves (backend_queues):
 * queue q's kick eventfd (bound to the notify address), the call eventfd
 * to hand the back end now (the vector's irqfd or the relay: transport.h;
 * recorded as the back end's), its ring state (host pointers set once
 * enabled), and the features the driver accepted. */
int virtio_pci_kick_fd(const struct virtio_pci *vp, unsigned int q);
int virtio_pci_call_fd(struct virtio_pci *vp, unsigned int q);
const struct vq *virtio_pci_vq(const struct virtio_pci *vp, unsigned int q);
uint64_t virtio_pci_driver_features(const struct virtio_pci *vp);

/* Device configuration changed (config_generation moves, the driver is
 * told). */
void virtio_pci_config_changed(struct virtio_pci *vp);

#endif
