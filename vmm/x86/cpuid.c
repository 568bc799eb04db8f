// SPDX-License-Identifier: MIT
/* The one place where the guest's CPUID is decided: KVM's supported set
 * (KVM_GET_SUPPORTED_CPUID) with these adjustments:
 *   - leaf 0x1: EBX[31:24] = initial APIC id (the vCPU index), EBX[23:16]
 *     = logical processors per package; ECX[31] "hypervisor present".
 *   - leaves 0xb and 0x1f: EDX = x2APIC id (the vCPU index).
 *   - leaf 0x40000010 (the VMware/KVM "timing" leaf): EAX = TSC kHz from
 *     KVM_GET_TSC_KHZ, and 0x40000000.EAX raised to cover it, so guests
 *     (benchmarks) can turn cycles into time without calibrating.
 *   - the host's quirks (host/host.h: on PVM hosts pvm/cpuid_hide.h clears
 *     what emulated ring 0 cannot use; nothing on hardware).
 *   - --cpuid +name/-name edits (cpuid_flags.h) last: hiding always
 *     works, showing only what KVM supports (else a warning), as QEMU
 *     does with -cpu host,+flag.
 * Everything else is passed as KVM reports it. */
#include "vmm/x86/cpuid.h"
#include "vmm/cli/cpuid_flags.h"
#include "vmm/host/host.h"
#include "vmm/vcpu.h"

#include <errno.h>
#include <stdbool.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#define MAX_ENTRIES	256

#define LEAF_HV_BASE	0x40000000u
#define LEAF_HV_TIMING	0x40000010u

static void adjust(struct kvm_cpuid_entry2 *e, unsigned int id,
		   unsigned int ncpus)
{
	switch (e->function) {
	case LEAF_HV_BASE:
		if (e->eax < LEAF_HV_TIMING)
			e->eax = LEAF_HV_TIMING;
		break;
	case 1:
		e->ebx = (e->ebx & 0x0000ffffu) | (id << 24) |
			 ((ncpus & 0xffu) << 16);
		e->ecx |= 1u << 31;
		break;
	case 0xb:
	case 0x1f:
		e->edx = id;
		break;
	}
}

static void add_timing_leaf(struct kvm_cpuid2 *c, int vcpu_fd)
{
	int khz = ioctl(vcpu_fd, KVM_GET_TSC_KHZ, 0);
	bool have_base = false;

	if (khz <= 0)
		return;
	for (uint32_t i = 0; i < c->nent; i++) {
		have_base |= c->entries[i].function == LEAF_HV_BASE;
		if (c->entries[i].function == LEAF_HV_TIMING) {
			c->entries[i].eax = (uint32_t)khz;
			return;
		}
	}
	if (!have_base || c->nent >= MAX_ENTRIES)
		return;
	c->entries[c->nent++] = (struct kvm_cpuid_entry2){
		.function = LEAF_HV_TIMING, .eax = (uint32_t)khz,
	};
}

static uint32_t *reg_of(struct kvm_cpuid_entry2 *e, enum cpuid_reg r)
{
	return r == CPUID_EAX ? &e->eax : r == CPUID_EBX ? &e->ebx :
	       r == CPUID_ECX ? &e->ecx : &e->edx;
}

static struct kvm_cpuid_entry2 *find(struct kvm_cpuid2 *c, uint32_t leaf,
				     uint32_t subleaf)
{
	for (uint32_t i = 0; i < c->nent; i++)
		if (c->entries[i].function == leaf &&
		    c->entries[i].index == subleaf)
			return &c->entries[i];
	return NULL;
}

/* The --cpuid edits; warnings (once, for vCPU 0) about features KVM
 * cannot give.  +name shows what KVM offers (kvm: its table before
 * adjust()) even where minivmm hides it by default, so a hidden bit can
 * be tried on purpose (e.g. +kvm-pv-unhalt on a PVM host). */
static void apply_edits(struct kvm_cpuid2 *c, const struct kvm_cpuid2 *kvm,
			const char *flags, unsigned int id)
{
	struct cpuid_edits ed;
	char err[CPUID_ERR_MAX];

	if (cpuid_flags_parse(flags, &ed, err) < 0)
		return;		/* cli.c refused it already */
	for (int i = 0; i < ed.n; i++) {
		const struct cpuid_feature *f = ed.e[i].f;
		struct kvm_cpuid_entry2 *e = find(c, f->leaf, f->subleaf);
		uint32_t *r = e ? reg_of(e, f->reg) : NULL;

		if (!ed.e[i].set) {
			if (r)
				*r &= ~(1u << f->bit);
		} else if (r && cpuid_table_has(kvm, f->leaf, f->subleaf,
						f->reg, f->bit)) {
			*r |= 1u << f->bit;
		} else {
			if (id == 0)
				fprintf(stderr, "minivmm: warning: --cpuid "
					"+%s: KVM cannot offer it here; left "
					"off\n", f->name);
		}
	}
}

/* KVM's supported table, adjusted for vCPU id of ncpus and for the host,
 * and edited by flags (warnings when warn_id is 0); setup: a vCPU's own
 * (the host's quirks count it).  NULL if KVM will not tell. */
static struct kvm_cpuid2 *build(struct host *h, int kvm_fd, unsigned int id,
				unsigned int ncpus, const char *flags,
				unsigned int warn_id, bool setup)
{
	size_t sz = sizeof(struct kvm_cpuid2) +
		    MAX_ENTRIES * sizeof(struct kvm_cpuid_entry2);
	struct kvm_cpuid2 *c = calloc(1, sz), *kvm = malloc(sz);

	if (!c || !kvm)
		goto fail;
	c->nent = MAX_ENTRIES;
	if (ioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, c) < 0)
		goto fail;
	memcpy(kvm, c, sz);
	for (uint32_t i = 0; i < c->nent; i++)
		adjust(&c->entries[i], id, ncpus);
	host_cpuid(h, c, setup);
	apply_edits(c, kvm, flags, warn_id);
	free(kvm);
	return c;
fail:
	free(c);
	free(kvm);
	return NULL;
}

struct kvm_cpuid2 *cpuid_guest_table(struct host *h, int kvm_fd,
				     const char *flags)
{
	/* quiet: cpuid_setup warns */
	return build(h, kvm_fd, 0, 1, flags, 1, false);
}

bool cpuid_table_has(const struct kvm_cpuid2 *c, uint32_t leaf,
		     uint32_t subleaf, int reg, unsigned int bit)
{
	for (uint32_t i = 0; i < c->nent; i++) {
		const struct kvm_cpuid_entry2 *e = &c->entries[i];
		const uint32_t r[4] = { e->eax, e->ebx, e->ecx, e->edx };

		if (e->function == leaf && e->index == subleaf)
			return reg >= 0 && reg < 4 && (r[reg] >> bit & 1);
	}
	return false;
}

int cpuid_setup(struct host *h, int kvm_fd, unsigned int ncpus,
		const char *flags, struct vcpu *v)
{
	struct kvm_cpuid2 *c = build(h, kvm_fd, v->id, ncpus, flags, v->id,
				     true);
	int ret = -1;

	if (c) {
		add_timing_leaf(c, v->fd);
		ret = ioctl(v->fd, KVM_SET_CPUID2, c);
	}
	if (ret < 0)
		fprintf(stderr, "minivmm: error: setting CPUID: %s\n",
			strerror(errno));
	free(c);
	return ret;
}
