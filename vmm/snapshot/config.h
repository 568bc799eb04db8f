/* SPDX-License-Identifier: MIT */
/*
 * The CONFIG section: the machine options a snapshot was made with
 * (memory, vCPUs, PCI, Xen device, MSR policy with its file's text, the
 * virtio disks and rng, and for the record the firmware, payload and
 * command line), and how they combine with the options given to
 * --restore: run options (console, timeout, stats, sandbox, snapshots)
 * are free; a machine option given again must agree with the snapshot's
 * value, else the restore is refused.  --disk may name other image files
 * (a copy), with the same count, ro flags and serials.
 */
#ifndef MINIVMM_SNAPSHOT_CONFIG_H
#define MINIVMM_SNAPSHOT_CONFIG_H

#include <stddef.h>

#include "vmm/cli/cli.h"
#include "vmm/snapshot/format.h"

struct snap_config {
	struct vmm_config m;	/* machine fields only; strings below */
	char *strings;		/* every string of m, in one allocation */
};

/* Encodes cfg's machine options; reads the MSR policy file if there is
 * one (so call it before the sandbox).  0, or -1 with err. */
int snap_config_encode(const struct vmm_config *cfg, struct snap_buf *b,
		       char *err, size_t errlen);
/* Decodes a CONFIG section (any input: 0 or -1 with err). */
int snap_config_decode(const uint8_t *data, size_t len,
		       struct snap_config *out, char *err, size_t errlen);
void snap_config_free(struct snap_config *c);
/* Copies the snapshot's machine options into cfg (which holds the run
 * options of this command line).  -1 with err if an option given on the
 * command line (cfg->given) disagrees.  cfg then points into c: keep c
 * alive as long as cfg. */
int snap_config_merge(struct vmm_config *cfg, const struct snap_config *c,
		      char *err, size_t errlen);

#endif
