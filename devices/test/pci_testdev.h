/* SPDX-License-Identifier: MIT */
/*
 * QEMU's pci-testdev (1b36:0005), which kvm-unit-tests' vmexit uses to
 * time MMIO and port-I/O exits with and without ioeventfd.  BAR0: 4 KiB
 * memory; BAR1: 256 I/O ports.  Each BAR starts with a header
 *
 *	u8 test; u8 width; u8 pad[2]; u32 offset; u32 data; u32 count;
 *	char name[];
 *
 * A write of N to `test` selects test N of that BAR (0 no-eventfd, 1
 * wildcard-eventfd, 2 datamatch-eventfd; anything else none, and the
 * header then reads 0).  The selected test counts the guest's writes of
 * `width` (1) bytes at `offset` (BAR size / 2 + the test's number: 0x800..
 * 0x802 in memory, 0x83..0x85 in I/O), of value `data` (0xfa) when it
 * matches data.  The eventfd tests ask the VMM (ioeventfd callback) to have
 * KVM swallow those writes instead, so they never exit and never count;
 * reading the header drains the eventfd, as QEMU does.
 */
#ifndef MINIVMM_PCI_TESTDEV_H
#define MINIVMM_PCI_TESTDEV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "devices/pci/bus.h"
#include "vmm/bus.h"

#define PCI_TESTDEV_VENDOR	0x1b36
#define PCI_TESTDEV_DEVICE	0x0005
#define PCI_TESTDEV_CLASS	0xff0000	/* unclassified */
#define PCI_TESTDEV_MEM_SIZE	0x1000
#define PCI_TESTDEV_IO_SIZE	0x100
#define PCI_TESTDEV_TESTS	3		/* per BAR */
#define PCI_TESTDEV_DATA	0xfa		/* what datamatch wants */
#define PCI_TESTDEV_NOMATCH	0xce		/* data of the wildcard test */

/* Where an eventfd test's writes go, for the VMM to (un)register with
 * KVM: the guest-physical (memory BAR) or port (I/O BAR) address, len 1,
 * datamatch with data, or any value. */
struct pci_testdev_ioeventfd {
	bool pio;
	uint64_t addr;
	uint32_t len;
	bool datamatch;
	uint64_t data;
	int fd;			/* an eventfd the device owns */
};

struct pci_testdev_ops {
	/* assign true: start swallowing such writes; false: stop.  0 or -1. */
	int (*ioeventfd)(void *ctx, const struct pci_testdev_ioeventfd *e,
			 bool assign);
	void *ctx;
};

struct pci_testdev;

/* Creates the function at bdf on bus (the bus owns and frees it).  NULL on
 * failure. */
struct pci_testdev *pci_testdev_create(struct pci_bus *bus, uint32_t bdf,
				       const struct pci_testdev_ops *ops);
/* BAR bar (0 memory, 1 I/O) now decodes at addr, or nowhere: an active
 * eventfd test follows it.  The function calls this itself on every BAR
 * move (pci_fn.bar_moved); public for tests. */
void pci_testdev_bar_moved(struct pci_testdev *d, int bar, bool mapped,
			   uint64_t addr);

/* For snapshots: the selected test and every test's count.  The rest of
 * each header is fixed; BAR placement is the PCI function's own section,
 * which must be loaded first (the selected eventfd test is armed again
 * where its BAR decodes). */
struct pci_testdev_state {
	int32_t current;		/* -1: none; else 0..5 */
	uint32_t count[2 * PCI_TESTDEV_TESTS];
};

void pci_testdev_get_state(struct pci_testdev *d, struct pci_testdev_state *s);
/* 0, or -1 (nothing changed) for a state the device cannot be in. */
int pci_testdev_set_state(struct pci_testdev *d,
			  const struct pci_testdev_state *s);

#endif
