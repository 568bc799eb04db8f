// SPDX-License-Identifier: MIT
/* Snapshot sections of the platform devices (platform_snap.h). */
#include "vmm/snapshot/sections/platform_snap.h"
#include "vmm/machine/platform.h"
#include "vmm/vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(char *err, size_t len, const char *what)
{
	snprintf(err, len, "%s section is malformed", what);
	return -1;
}

static int rtc_save(void *ctx, struct snap_buf *out)
{
	struct rtc_state st;

	rtc_get_state(ctx, &st);
	snap_put(out, &st, sizeof(st));
	return 0;
}

static int rtc_load(void *ctx, const uint8_t *data, size_t len, char *err,
		    size_t errlen)
{
	struct rtc_state st;

	if (len != sizeof(st))
		return bad(err, errlen, "RTC");
	memcpy(&st, data, sizeof(st));
	return rtc_set_state(ctx, &st) < 0 ? bad(err, errlen, "RTC") : 0;
}

static int fw_cfg_save(void *ctx, struct snap_buf *out)
{
	struct fw_cfg_state st;

	fw_cfg_get_state(ctx, &st);
	snap_put(out, &st, sizeof(st));
	return 0;
}

static int fw_cfg_load(void *ctx, const uint8_t *data, size_t len,
		       char *err, size_t errlen)
{
	struct fw_cfg_state st;

	if (len != sizeof(st))
		return bad(err, errlen, "fw_cfg");
	memcpy(&st, data, sizeof(st));
	return fw_cfg_set_state(ctx, &st) < 0 ? bad(err, errlen, "fw_cfg") : 0;
}

/* The state holds the device's 64 KiB of memory: on the heap. */
static int testdev_save(void *ctx, struct snap_buf *out)
{
	struct pc_testdev_state *st = malloc(sizeof(*st));

	if (!st) {
		fprintf(stderr, "minivmm: error: snapshot: out of memory\n");
		return -1;
	}
	pc_testdev_get_state(ctx, st);
	snap_put(out, st, sizeof(*st));
	free(st);
	return 0;
}

static int testdev_load(void *ctx, const uint8_t *data, size_t len,
			char *err, size_t errlen)
{
	struct pc_testdev_state *st;
	int rc;

	if (len != sizeof(*st))
		return bad(err, errlen, "pc-testdev");
	st = malloc(sizeof(*st));
	if (!st)
		return bad(err, errlen, "pc-testdev");
	memcpy(st, data, sizeof(*st));
	rc = pc_testdev_set_state(ctx, st);
	free(st);
	return rc < 0 ? bad(err, errlen, "pc-testdev") : 0;
}

/* The timer thread raises IRQ 8 on its own: it stops while the vCPUs are
 * parked and the irqchip is read, so the saved interrupt controller and
 * the saved register C agree. */
static int timer_quiesce(void *ctx)
{
	platform_pause_timer(ctx, true);
	return 0;
}

static void timer_resume(void *ctx)
{
	platform_pause_timer(ctx, false);
}

int platform_snap_register(struct vm *vm)
{
	struct platform *p = vm->platform;
	const struct snap_state_ops ops[] = {
		{ SNAP_SEC_RTC, 0, SNAP_PHASE_DEVICES, rtc_save, rtc_load,
		  &p->rtc },
		{ SNAP_SEC_FW_CFG, 0, SNAP_PHASE_DEVICES, fw_cfg_save,
		  fw_cfg_load, &p->fw_cfg },
		{ SNAP_SEC_TESTDEV, SNAP_TESTDEV_PC, SNAP_PHASE_DEVICES,
		  testdev_save, testdev_load, &p->testdev },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (snap_add_state(&vm->snap_reg, &ops[i]) < 0)
			return -1;
	return snap_add_quiesce(&vm->snap_reg, (struct snap_quiesce){
		timer_quiesce, timer_resume, p });
}
