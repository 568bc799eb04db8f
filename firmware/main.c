// SPDX-License-Identifier: MIT
/*
 * minivmm firmware: the table of contents.  entry.S brings the boot CPU
 * from reset to long mode and calls fw_main(); each phase below is a short
 * straight run that either succeeds or ends the VM with a reason
 * (fw_fail).  Phases still to come are listed where they will go.
 */
#include "firmware/fw.h"
#include "firmware/io.h"
#include "firmware/lib/abi.h"
#include "firmware/machine.h"
#include "firmware/pvh.h"

#ifndef MINIVMM_VERSION
#define MINIVMM_VERSION "unknown"
#endif

__attribute__((noreturn)) void fw_main(void);

static void banner(const struct machine *m)
{
	fw_printf("machine: %llu MiB RAM, %u CPU(s)\n",
		  (unsigned long long)(m->ram_total >> 20), m->n_cpus);
}

__attribute__((noreturn)) static void boot_payload(const struct machine *m)
{
	switch (m->payload) {
	case PAYLOAD_NONE:
		fw_exit(0);
	case PAYLOAD_PVH:
		pvh_boot(m);
	case PAYLOAD_BZIMAGE:
		fw_fail(ABI_FW_FAIL_PAYLOAD,
			"bzImage payloads are not supported yet");
	}
	fw_fail(ABI_FW_FAIL_INTERNAL, "payload kind %d", (int)m->payload);
}

void fw_main(void)
{
	struct machine m;

	progress(ABI_MS_FW_LONG);
	fw_printf("minivmm firmware %s\n", MINIVMM_VERSION);

	machine_read(&m, phys_ptr(ABI_FDT_ADDR));
	banner(&m);
	progress(ABI_MS_FW_FDT);

	/* To come, each with its milestone:
	 *   PCI enumeration and BAR assignment	ABI_MS_FW_PCI
	 *   SMP bring-up, MTRRs on all CPUs		ABI_MS_FW_MTRR
	 *   ACPI and SMBIOS tables			ABI_MS_FW_TABLES
	 */

	boot_payload(&m);
}
