/* SPDX-License-Identifier: MIT */
/*
 * QEMU's firmware configuration interface, the legacy I/O form the
 * kvm-unit-tests read (and Linux's qemu_fw_cfg, SeaBIOS-like firmware):
 * a 16-bit write to the selector port (offset 0) picks an item and
 * rewinds it, byte reads from the data port (offset 1) return it
 * in order, zeros past its end and for items minivmm does not have.  No
 * DMA interface, no writable items, no files (the directory is empty).
 *
 * Items: signature "QEMU", id 1 (traditional interface only), RAM size
 * (u64), number of CPUs and maximum CPUs (u16: every vCPU answers INIT
 * and SIPI), the empty file directory.
 */
#ifndef MINIVMM_FW_CFG_H
#define MINIVMM_FW_CFG_H

#include <pthread.h>
#include <stdint.h>

#include "vmm/bus.h"

#define FW_CFG_PORTS_LEN	2

#define FW_CFG_SIGNATURE	0x00
#define FW_CFG_ID		0x01
#define FW_CFG_RAM_SIZE		0x03
#define FW_CFG_NB_CPUS		0x05
#define FW_CFG_MAX_CPUS		0x0f
#define FW_CFG_FILE_DIR		0x19

#define FW_CFG_ITEM_MAX		8	/* bytes of the largest item */

struct fw_cfg {
	pthread_mutex_t lock;		/* vCPUs share the cursor */
	uint16_t selector;
	uint32_t offset;
	uint64_t ram_size;
	uint16_t ncpus;
};

void fw_cfg_init(struct fw_cfg *f, uint64_t ram_size, unsigned int ncpus);
void fw_cfg_destroy(struct fw_cfg *f);

/* For snapshots: the guest-visible cursor.  The items themselves follow
 * from the machine (RAM size, vCPUs), which a restore rebuilds. */
struct fw_cfg_state {
	uint16_t selector;
	uint16_t reserved;		/* 0 */
	uint32_t offset;		/* <= FW_CFG_ITEM_MAX */
};

void fw_cfg_get_state(struct fw_cfg *f, struct fw_cfg_state *s);
/* 0, or -1 (nothing changed) for a state the device cannot be in. */
int fw_cfg_set_state(struct fw_cfg *f, const struct fw_cfg_state *s);

/* Registered for FW_CFG_PORTS_LEN ports (QEMU puts them at 0x510). */
extern const struct bus_ops fw_cfg_ops;

#endif
