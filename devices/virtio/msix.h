/* SPDX-License-Identifier: MIT */
/*
 * MSI-X for one PCI function (PCI Local Bus 3.0, 6.8.2): the vector table
 * and pending-bit array as plain data (struct msix_state, what a snapshot
 * saves), their register accesses, and delivery.  Each vector has an
 * eventfd the VMM binds to an interrupt route (KVM irqfd); delivering a
 * vector is one write to it.  The model never sees KVM: it asks the VMM
 * to (re)program a vector's route through a callback, lazily, before the
 * first delivery after the guest changed the message.
 *
 * Masking: a vector fires only while MSI-X is enabled, the function is
 * not masked and its entry is not masked; otherwise its pending bit is
 * set, and the pending message goes out when all three allow it again.
 *
 * Locking is the owner's: every call must hold the transport's interrupt
 * lock (vCPU threads for registers, the device worker for delivery).
 */
#ifndef MINIVMM_VIRTIO_MSIX_H
#define MINIVMM_VIRTIO_MSIX_H

#include <stdbool.h>
#include <stdint.h>

#define MSIX_MAX_VECTORS	64
#define MSIX_ENTRY_SIZE		16
#define MSIX_CTRL_MASKBIT	1u	/* vector control: masked */
/* Message control bits (capability offset 2). */
#define MSIX_FLAGS_QSIZE	0x07ffu
#define MSIX_FLAGS_MASKALL	0x4000u
#define MSIX_FLAGS_ENABLE	0x8000u
#define MSIX_CAP_SIZEOF		12
#define MSIX_CAP_FLAGS		2	/* le16 */
#define MSIX_CAP_TABLE		4	/* le32: offset | BIR */
#define MSIX_CAP_PBA		8	/* le32: offset | BIR */

struct msix_entry {
	uint32_t addr_lo, addr_hi, data, ctrl;
};

struct msix_state {
	struct msix_entry table[MSIX_MAX_VECTORS];
	uint64_t pba;			/* bit v: vector v pending */
	uint16_t nvec;
	uint8_t enabled;		/* message control, as last written */
	uint8_t func_masked;
};

/* (Re)program the route of vector vec to the message (addr, data). */
typedef void (*msix_route_fn)(void *ctx, unsigned int vec, uint64_t addr,
			      uint32_t data);

struct msix {
	struct msix_state s;
	int fd[MSIX_MAX_VECTORS];	/* eventfds, owned */
	uint64_t routed_addr[MSIX_MAX_VECTORS];
	uint32_t routed_data[MSIX_MAX_VECTORS];
	uint64_t route_valid;		/* bit v: route matches the entry */
	uint64_t direct;		/* bit v: someone else writes fd[v]
					 * (msix_direct): routed eagerly */
	msix_route_fn route;
	void *ctx;
	uint64_t fired;			/* messages sent */
};

/* nvec vectors, all masked; 0, or -1 if nvec is out of range or an
 * eventfd could not be made. */
int msix_init(struct msix *m, unsigned int nvec, msix_route_fn route,
	      void *ctx);
void msix_destroy(struct msix *m);

/* Table and PBA registers: aligned 4- and 8-byte accesses (PCI allows
 * no others; anything else reads all-ones and writes are dropped). */
void msix_table_read(struct msix *m, uint64_t off, uint8_t *data,
		     uint32_t len);
void msix_table_write(struct msix *m, uint64_t off, const uint8_t *data,
		      uint32_t len);
void msix_pba_read(struct msix *m, uint64_t off, uint8_t *data,
		   uint32_t len);
uint64_t msix_table_bytes(const struct msix *m);

/* Message control as the guest wrote it (enable, function mask). */
void msix_control(struct msix *m, bool enabled, bool func_masked);

/* Can vector vec fire as things are (enabled, function and entry
 * unmasked)?  If so its route is programmed now and kept current on
 * every later message change, and the caller may hand fd[vec] to
 * another writer (a vhost-user back end's call eventfd): the masks are
 * then the caller's to watch.  msix_direct_clear forgets every such
 * vector before the caller counts them again. */
bool msix_direct(struct msix *m, unsigned int vec);
void msix_direct_clear(struct msix *m);

static inline bool msix_enabled(const struct msix *m)
{
	return m->s.enabled;
}

/* Deliver vec, or mark it pending.  True if a message went out. */
bool msix_notify(struct msix *m, unsigned int vec);

#endif
