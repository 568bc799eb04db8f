/* SPDX-License-Identifier: MIT */
/*
 * QEMU's pc-testdev, the ISA test device the kvm-unit-tests drive.  Three
 * ranges (where they sit is the VMM's business: QEMU's 0xe0, 0x2000 and
 * 0xff000000, vmm/layout.h):
 *
 *   ports, offset
 *     0-3      a 32-bit scratch register: writes of 1, 2 or 4 bytes
 *              replace those bytes, reads return them
 *     4        a 32-bit write of a guest-physical address makes the host
 *              unmap that page for a moment, so the hypervisor's next
 *              access to it faults it back in (flush_page callback)
 *     8-11     the same scratch register, byte by byte
 *   interrupt ports, offset n
 *              a byte write of v sets ISA interrupt line n (n < 24) to
 *              !!v; wider writes are ignored, as QEMU ignores them
 *   memory     64 KiB of plain memory, but every access exits
 *
 * What the VMM does with lines and page flushes is its business, through
 * the callbacks.
 */
#ifndef MINIVMM_PC_TESTDEV_H
#define MINIVMM_PC_TESTDEV_H

#include <pthread.h>
#include <stdint.h>

#include "vmm/bus.h"

#define PC_TESTDEV_PORTS_LEN	12
#define PC_TESTDEV_IRQ_LINES	24
#define PC_TESTDEV_IOMEM_LEN	0x10000u

struct pc_testdev {
	pthread_mutex_t lock;
	uint32_t scratch;
	uint32_t levels;		/* bit n: line n is high */
	uint8_t iomem[PC_TESTDEV_IOMEM_LEN];
	void (*irq_line)(void *ctx, uint32_t line, int level);
	void (*flush_page)(void *ctx, uint64_t gpa);
	void *ctx;
};

void pc_testdev_init(struct pc_testdev *d,
		     void (*irq_line)(void *ctx, uint32_t line, int level),
		     void (*flush_page)(void *ctx, uint64_t gpa), void *ctx);
void pc_testdev_destroy(struct pc_testdev *d);

/* For snapshots: everything the guest can see or has set. */
struct pc_testdev_state {
	uint32_t scratch;
	uint32_t levels;		/* bits 0..23 */
	uint8_t iomem[PC_TESTDEV_IOMEM_LEN];
};

void pc_testdev_get_state(struct pc_testdev *d, struct pc_testdev_state *s);
/* 0, or -1 (nothing changed) for a state the device cannot be in.  Lines
 * that were high are raised again through irq_line (a restored machine's
 * interrupt controller must see their sources asserted). */
int pc_testdev_set_state(struct pc_testdev *d,
			 const struct pc_testdev_state *s);

/* Each registered with opaque = the device: the ports (PORTS_LEN), the
 * interrupt ports (IRQ_LINES), the memory (IOMEM_LEN). */
extern const struct bus_ops pc_testdev_port_ops;
extern const struct bus_ops pc_testdev_irq_ops;
extern const struct bus_ops pc_testdev_iomem_ops;

#endif
