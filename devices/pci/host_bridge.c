// SPDX-License-Identifier: MIT
/*
 * Host bridge at 00:00.0.  It has no registers of its own; it exists so
 * that guests find a host bridge on bus 0 (Linux's conf1 sanity check
 * accepts class 0x0600 there) and so that PCIe-aware guests see a 4 KiB
 * config space on it.
 *
 * ID: 1b36:0008, the ID Red Hat assigned to QEMU's generic PCIe host
 * bridge (QEMU docs/specs/pci-ids.rst): a register-less virtual host
 * bridge, which is what this is.  An Intel host bridge ID would invite
 * chipset quirks in guests; this one matches no driver or quirk.
 *
 * Capabilities: a PCI Express capability (version 2, root complex
 * integrated endpoint, no link) so guests treat the function as PCIe and
 * size its config space at 4 KiB, and a Device Serial Number extended
 * capability at 0x100 (read-only; the bytes "minivmm\0") so extended space
 * holds something a test can recognise through CF8 (AMD ECS) or ECAM.
 */
#include <stdlib.h>

#include "devices/pci/bus.h"

static void host_bridge_release(struct pci_fn *fn)
{
	free(fn);
}

static int add_pcie_cap(struct pci_fn *fn)
{
	const uint32_t devctl_wmask = PCI_EXP_DEVCTL_CERE |
		PCI_EXP_DEVCTL_NFERE | PCI_EXP_DEVCTL_FERE |
		PCI_EXP_DEVCTL_URRE | PCI_EXP_DEVCTL_RELAX_EN |
		PCI_EXP_DEVCTL_PAYLOAD | PCI_EXP_DEVCTL_EXT_TAG |
		PCI_EXP_DEVCTL_NOSNOOP_EN | PCI_EXP_DEVCTL_READRQ;
	/* Reset value from the PCIe spec: relaxed ordering and no-snoop
	 * enabled, 512-byte max read request, 128-byte max payload. */
	const uint32_t devctl = PCI_EXP_DEVCTL_RELAX_EN |
		PCI_EXP_DEVCTL_NOSNOOP_EN | PCI_EXP_DEVCTL_READRQ_512B;
	int off = pci_fn_add_cap(fn, PCI_CAP_ID_EXP, PCI_CAP_EXP_SIZEOF);

	if (off < 0)
		return -1;
	pci_fn_init_reg(fn, (unsigned int)off + PCI_EXP_FLAGS, 2,
			2 | PCI_EXP_TYPE_RC_END << 4, 0, 0);
	/* DEVCAP: 128-byte payload, role-based error reporting (bit 15,
	 * mandatory since PCIe 1.1). */
	pci_fn_init_reg(fn, (unsigned int)off + PCI_EXP_DEVCAP, 4, 0x8000, 0,
			0);
	pci_fn_init_reg(fn, (unsigned int)off + PCI_EXP_DEVCTL, 2, devctl,
			devctl_wmask, 0);
	pci_fn_init_reg(fn, (unsigned int)off + PCI_EXP_DEVSTA, 2, 0, 0,
			PCI_EXP_DEVSTA_CED | PCI_EXP_DEVSTA_NFED |
			PCI_EXP_DEVSTA_FED | PCI_EXP_DEVSTA_URD);
	return 0;
}

static int add_dsn(struct pci_fn *fn)
{
	int off = pci_fn_add_ext_cap(fn, PCI_EXT_CAP_ID_DSN, 1,
				     PCI_EXT_CAP_DSN_SIZEOF);

	if (off < 0)
		return -1;
	pci_fn_init_reg(fn, (unsigned int)off + 4, 4,
			(uint32_t)PCI_HOST_BRIDGE_DSN, 0, 0);
	pci_fn_init_reg(fn, (unsigned int)off + 8, 4,
			(uint32_t)(PCI_HOST_BRIDGE_DSN >> 32), 0, 0);
	return 0;
}

struct pci_fn *pci_host_bridge_create(struct pci_bus *bus)
{
	const struct pci_fn_id id = {
		.vendor = PCI_HOST_BRIDGE_VENDOR,
		.device = PCI_HOST_BRIDGE_DEVICE,
		.subsys_vendor = PCI_HOST_BRIDGE_VENDOR,
		.subsys_id = PCI_HOST_BRIDGE_DEVICE,
		.class_code = PCI_CLASS_BRIDGE_HOST,
	};
	struct pci_fn *fn = calloc(1, sizeof(*fn));
	uint8_t *page = pci_bus_alloc_page(bus);

	if (!fn || !page)
		goto fail;
	if (pci_fn_init(fn, page, &id, "host-bridge") ||
	    add_pcie_cap(fn) || add_dsn(fn))
		goto fail;
	fn->release = host_bridge_release;
	if (pci_bus_add_function(bus, PCI_BDF(0, 0, 0), fn))
		goto fail;
	return fn;
fail:
	pci_bus_free_page(bus, page);
	free(fn);
	return NULL;
}
