// SPDX-License-Identifier: MIT
/* Snapshot sections of the UARTs and the ACPI PM block (device_snap.h). */
#include "vmm/snapshot/sections/device_snap.h"
#include "devices/uart16550.h"
#include "vmm/snapshot/sections/platform_snap.h"
#include "vmm/machine/virtio_vm.h"
#include "vmm/vm.h"

#include <stdio.h>
#include <string.h>

static int bad(char *err, size_t len, const char *what)
{
	snprintf(err, len, "%s section is malformed", what);
	return -1;
}

static int uart_save(void *ctx, struct snap_buf *out)
{
	struct uart_state st;

	uart_get_state(ctx, &st);
	snap_put(out, &st, sizeof(st));
	return 0;
}

static int uart_load(void *ctx, const uint8_t *data, size_t len, char *err,
		     size_t errlen)
{
	struct uart_state st;

	if (len != sizeof(st))
		return bad(err, errlen, "UART");
	memcpy(&st, data, sizeof(st));
	return uart_set_state(ctx, &st) < 0 ? bad(err, errlen, "UART") : 0;
}

static int pm_save(void *ctx, struct snap_buf *out)
{
	struct acpi_pm_state st;

	acpi_pm_get_state(ctx, &st);
	snap_put(out, &st, sizeof(st));
	return 0;
}

static int pm_load(void *ctx, const uint8_t *data, size_t len, char *err,
		   size_t errlen)
{
	struct acpi_pm_state st;

	if (len != sizeof(st))
		return bad(err, errlen, "ACPI PM");
	memcpy(&st, data, sizeof(st));
	return acpi_pm_set_state(ctx, &st) < 0 ? bad(err, errlen, "ACPI PM")
					       : 0;
}

int device_snap_register(struct vm *vm)
{
	const struct snap_state_ops ops[] = {
		{ SNAP_SEC_UART, 0, SNAP_PHASE_DEVICES, uart_save, uart_load,
		  vm->uart },
		{ SNAP_SEC_ACPI_PM, 0, SNAP_PHASE_DEVICES, pm_save, pm_load,
		  &vm->acpi_pm },
	};

	const struct snap_state_ops com2 = {
		SNAP_SEC_UART, 1, SNAP_PHASE_DEVICES, uart_save, uart_load,
		vm->uart2 };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (snap_add_state(&vm->snap_reg, &ops[i]) < 0)
			return -1;
	if (vm->uart2 && snap_add_state(&vm->snap_reg, &com2) < 0)
		return -1;
	if (platform_snap_register(vm) < 0)
		return -1;
	return virtio_vm_snap_register(vm);
}
