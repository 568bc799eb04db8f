/* SPDX-License-Identifier: MIT */
/*
 * The pvpanic PCI device (QEMU's pvpanic-pci, 1b36:0011), which Linux's
 * pvpanic-pci driver and any firmware or payload can use to say "I
 * panicked" in one write.  BAR 0 (16 bytes of memory): reading byte 0
 * gives the events the device understands (PANICKED, CRASH_LOADED);
 * writing it reports events.  The VMM's callback hears each report; what
 * to do (end the run) is its business.
 */
#ifndef MINIVMM_PVPANIC_H
#define MINIVMM_PVPANIC_H

#include <stdint.h>

#include "devices/pci/bus.h"

#define PVPANIC_VENDOR		0x1b36
#define PVPANIC_DEVICE		0x0011
#define PVPANIC_PANICKED	0x1	/* the guest panicked */
#define PVPANIC_CRASH_LOADED	0x2	/* ...and a crash kernel takes over */
#define PVPANIC_BAR_SIZE	16

/* events: the bits the guest wrote (only known ones). */
typedef void (*pvpanic_fn)(void *ctx, uint8_t events);

/* The function at bdf (the bus owns it); 0 or -1. */
int pvpanic_create(struct pci_bus *bus, uint32_t bdf, pvpanic_fn report,
		   void *ctx);

#endif
