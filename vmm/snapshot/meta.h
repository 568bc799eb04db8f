/* SPDX-License-Identifier: MIT */
/*
 * The META section: what a snapshot needs of the program and the host
 * that restore it.  The minivmm build (version and the executable's GNU
 * build id: state layouts may change with any build), the host CPU
 * (vendor, family/model/stepping signature, brand string: the guest saw
 * this CPU's CPUID and XSAVE layout), the kind of KVM (ring 0 emulated or
 * not), the XSAVE area size and the KVM capabilities restoring needs.
 */
#ifndef MINIVMM_SNAPSHOT_META_H
#define MINIVMM_SNAPSHOT_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/snapshot/format.h"

#define SNAP_META_MAX_CAPS	32

struct snap_meta {
	char build[128];		/* "VERSION build-id-hex" */
	char vendor[13];
	uint32_t signature;		/* CPUID.1:EAX */
	char brand[49];
	uint32_t ring0_emulated;
	uint32_t xsave_size;
	uint32_t ncaps;
	uint32_t caps[SNAP_META_MAX_CAPS];
};

struct host;

/* This program and host (h: the profile, host/host.h); kvm_fd is /dev/kvm
 * (capabilities), or -1 to open it here.  0, or -1 with err. */
int snap_meta_here(struct snap_meta *m, const struct host *h, int kvm_fd,
		   char *err, size_t len);
void snap_meta_encode(const struct snap_meta *m, struct snap_buf *b);
int snap_meta_decode(const uint8_t *data, size_t len, struct snap_meta *m,
		     char *err, size_t errlen);
/* -1 with err naming the first difference that forbids restoring a
 * snapshot made under file on here. */
int snap_meta_compatible(const struct snap_meta *file,
			 const struct snap_meta *here, char *err,
			 size_t errlen);

#endif
