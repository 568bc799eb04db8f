// SPDX-License-Identifier: MIT
/* The Xen platform device's wiring (xen_vm.h). */
#include "vmm/machine/xen_vm.h"
#include "devices/xen_platform.h"
#include "vmm/layout.h"
#include "vmm/vm.h"

#include <string.h>

static void xen_log(void *ctx, const char *line)
{
	struct vm *vm = ctx;

	console_flush(&vm->console);
	fprintf(stderr, "minivmm: %s\n", line);
}

struct xen_platform *xen_vm_add(struct vm *vm, struct pci_bus *bus,
				uint32_t bdf)
{
	struct xen_platform_config conf = { xen_log, vm };
	struct xen_platform *xp = xen_platform_create(bus, bdf, &conf);

	if (!xp)
		return NULL;
	if (bus_register(&vm->pio, LAYOUT_XEN_LEGACY_PORT,
			 XEN_PLATFORM_LEGACY_LEN, &xen_platform_legacy_ops,
			 xp, "xen-legacy") < 0)
		return NULL;	/* the bus frees the device */
	return xp;
}

/* --- stats ------------------------------------------------------------- */

void xen_vm_print_stats(struct xen_platform *xp, FILE *out)
{
	struct xen_platform_stats st;

	xen_platform_get_stats(xp, &st);
	fprintf(out, "xen-platform: unplug mask 0x%x (%llu requests), "
		"product %s%u, build %s%u, log lines %llu\n", st.unplug_mask,
		(unsigned long long)st.unplug_writes, st.product_set ? "" : "unset ",
		st.product, st.build_set ? "" : "unset ", st.build,
		(unsigned long long)st.log_lines);
}

void xen_vm_json_stats(struct xen_platform *xp, cJSON *root)
{
	struct xen_platform_stats st;
	cJSON *o;

	xen_platform_get_stats(xp, &st);
	o = cJSON_AddObjectToObject(root, "xen_platform");
	cJSON_AddNumberToObject(o, "unplug_mask", st.unplug_mask);
	cJSON_AddNumberToObject(o, "unplug_requests", (double)st.unplug_writes);
	if (st.product_set)
		cJSON_AddNumberToObject(o, "product", st.product);
	if (st.build_set)
		cJSON_AddNumberToObject(o, "build", st.build);
	cJSON_AddNumberToObject(o, "log_lines", (double)st.log_lines);
}

/* --- snapshots --------------------------------------------------------- */

static int xen_save(void *ctx, struct snap_buf *out)
{
	struct xen_platform_state st;

	xen_platform_get_state(ctx, &st);
	snap_put(out, &st, sizeof(st));
	return 0;
}

static int xen_load(void *ctx, const uint8_t *data, size_t len, char *err,
		    size_t errlen)
{
	struct xen_platform_state st;

	if (len == sizeof(st)) {
		memcpy(&st, data, sizeof(st));
		if (!xen_platform_set_state(ctx, &st))
			return 0;
	}
	snprintf(err, errlen, "Xen platform section is malformed or does not "
		 "fit this machine");
	return -1;
}

/* The protocol state and BAR1's RAM (config space and BAR placement are
 * the PCI function's own section). */
int xen_vm_snap_register(struct vm *vm, struct xen_platform *xp,
			 uint8_t *bar1)
{
	struct snap_state_ops o = { SNAP_SEC_XEN_PLATFORM, 0,
		SNAP_PHASE_DEVICES, xen_save, xen_load, xp };
	struct snap_memory m = { SNAP_SEC_XEN_BAR1, 0, bar1,
				 XEN_PLATFORM_BAR1_SIZE, false };

	if (!bar1 || snap_add_state(&vm->snap_reg, &o) < 0 ||
	    snap_add_memory(&vm->snap_reg, &m) < 0)
		return -1;
	return 0;
}
