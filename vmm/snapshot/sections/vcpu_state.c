// SPDX-License-Identifier: MIT
/* A vCPU's KVM state (vcpu_state.h).  Payload: u32 xsave size, u32 MSR
 * count, the KVM structures as KVM defines them, u64 TSC kHz, the MSRs
 * (u32 index, u32 0, u64 value each), then the XSAVE area. */
#include "vmm/snapshot/sections/vcpu_state.h"
#include "vmm/snapshot/sections/msr_extra.h"
#include "vmm/msr/exit.h"
#include "vmm/snapshot/registry.h"

#include <errno.h>
#include <stdbool.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#define MSR_TSC_DEADLINE	0x6e0u
#define MSR_TSC			0x10u
#define MAX_MSRS		1024u

struct vcpu_snap {
	struct snap_vcpus *all;
	int fd;
	unsigned int id;
};

struct snap_vcpus {
	uint32_t xsave_size;
	uint32_t nmsrs;
	uint32_t msrs[MAX_MSRS];	/* KVM's list, then msr_extra.h's */
	struct vcpu_snap *v;
	unsigned int n;
};

/* A struct kvm_msrs with room for MAX_MSRS entries. */
#define MSR_BUF_SIZE	(sizeof(struct kvm_msrs) + \
			 MAX_MSRS * sizeof(struct kvm_msr_entry))

struct fixed {
	struct kvm_regs regs;
	struct kvm_sregs sregs;
	struct kvm_xcrs xcrs;
	struct kvm_lapic_state lapic;
	struct kvm_vcpu_events events;
	struct kvm_debugregs debugregs;
	struct kvm_mp_state mp;
};

static int get_fixed(int fd, struct fixed *f)
{
	memset(f, 0, sizeof(*f));
	if (ioctl(fd, KVM_GET_REGS, &f->regs) < 0 ||
	    ioctl(fd, KVM_GET_SREGS, &f->sregs) < 0 ||
	    ioctl(fd, KVM_GET_XCRS, &f->xcrs) < 0 ||
	    ioctl(fd, KVM_GET_LAPIC, &f->lapic) < 0 ||
	    ioctl(fd, KVM_GET_VCPU_EVENTS, &f->events) < 0 ||
	    ioctl(fd, KVM_GET_DEBUGREGS, &f->debugregs) < 0 ||
	    ioctl(fd, KVM_GET_MP_STATE, &f->mp) < 0)
		return -1;
	return 0;
}

/* KVM_GET_MSRS stops at the first MSR it cannot read: skip that one and
 * go on, so one unreadable MSR does not hide the rest.  t is scratch. */
static uint32_t get_msrs(const struct snap_vcpus *s, int fd,
			 struct kvm_msrs *out, struct kvm_msrs *t)
{
	uint32_t got = 0, next = 0;

	while (next < s->nmsrs) {
		uint32_t want = s->nmsrs - next;
		int r;

		t->nmsrs = want;
		t->pad = 0;
		for (uint32_t i = 0; i < want; i++)
			t->entries[i] = (struct kvm_msr_entry){
				.index = s->msrs[next + i] };
		r = ioctl(fd, KVM_GET_MSRS, t);
		if (r < 0)
			break;
		memcpy(&out->entries[got], t->entries,
		       (size_t)r * sizeof(t->entries[0]));
		got += (uint32_t)r;
		next += (uint32_t)r + 1;
	}
	return got;
}

static int save(void *ctx, struct snap_buf *out)
{
	struct vcpu_snap *v = ctx;
	const struct snap_vcpus *s = v->all;
	struct kvm_msrs *m = calloc(1, MSR_BUF_SIZE);
	struct kvm_msrs *t = calloc(1, MSR_BUF_SIZE);
	void *xs = calloc(1, s->xsave_size);
	unsigned long req = s->xsave_size > sizeof(struct kvm_xsave) ?
			    KVM_GET_XSAVE2 : KVM_GET_XSAVE;
	struct fixed f;
	uint32_t n;
	int khz, rc = -1;

	if (!m || !t || !xs || get_fixed(v->fd, &f) < 0 ||
	    ioctl(v->fd, req, xs) < 0 ||
	    (khz = ioctl(v->fd, KVM_GET_TSC_KHZ, 0)) < 0) {
		fprintf(stderr, "minivmm: snapshot: vCPU %u state: %s\n",
			v->id, strerror(errno));
		goto out;
	}
	n = get_msrs(s, v->fd, m, t);
	snap_put_u32(out, s->xsave_size);
	snap_put_u32(out, n);
	snap_put(out, &f, sizeof(f));
	snap_put_u64(out, (uint64_t)khz);
	for (uint32_t i = 0; i < n; i++) {
		snap_put_u32(out, m->entries[i].index);
		snap_put_u32(out, 0);
		snap_put_u64(out, m->entries[i].data);
	}
	snap_put(out, xs, s->xsave_size);
	rc = 0;
out:
	free(m);
	free(t);
	free(xs);
	return rc;
}

/* --- restore -------------------------------------------------------------- */

struct loaded {
	struct fixed f;
	uint64_t khz;
	uint32_t nmsrs;
	const uint8_t *msrs;
	const uint8_t *xsave;
};

static int parse(const struct snap_vcpus *s, const uint8_t *data,
		 size_t len, struct loaded *l)
{
	struct snap_rd r;
	uint32_t xsize;

	snap_rd_init(&r, data, len);
	xsize = snap_get_u32(&r);
	l->nmsrs = snap_get_u32(&r);
	snap_get(&r, &l->f, sizeof(l->f));
	l->khz = snap_get_u64(&r);
	if (xsize != s->xsave_size || l->nmsrs > MAX_MSRS)
		return -1;
	l->msrs = snap_get_ptr(&r, (size_t)l->nmsrs * 16);
	l->xsave = snap_get_ptr(&r, xsize);
	return snap_rd_done(&r) ? 0 : -1;
}

/* Sets the MSRs, all but (deadline false) or only (true) TSC deadline. */
static int set_msrs(int fd, const struct loaded *l, struct kvm_msrs *m,
		    bool deadline, uint32_t *bad)
{
	uint32_t n = 0;
	int r;

	for (uint32_t i = 0; i < l->nmsrs; i++) {
		uint32_t index;
		uint64_t value;

		memcpy(&index, l->msrs + 16 * i, 4);
		memcpy(&value, l->msrs + 16 * i + 8, 8);
		if ((index == MSR_TSC_DEADLINE) != deadline)
			continue;
		m->entries[n++] = (struct kvm_msr_entry){ .index = index,
							  .data = value };
	}
	m->nmsrs = n;
	m->pad = 0;
	if (!n)
		return 0;
	r = ioctl(fd, KVM_SET_MSRS, m);
	if (r == (int)n)
		return 0;
	*bad = r >= 0 && (uint32_t)r < n ? m->entries[r].index : 0;
	return -1;
}

static bool saved_msr(const struct loaded *l, uint32_t want, uint64_t *value)
{
	for (uint32_t i = 0; i < l->nmsrs; i++) {
		uint32_t index;

		memcpy(&index, l->msrs + 16 * i, 4);
		if (index == want) {
			memcpy(value, l->msrs + 16 * i + 8, 8);
			return true;
		}
	}
	return false;
}

/* KVM takes a host write of IA32_TSC within a second's worth of cycles
 * of what it expects for this VM (0 at vCPU creation, plus the time
 * since) for an attempt to synchronise vCPUs, and on a host with a
 * stable TSC keeps its own offset: the saved value is dropped and the
 * guest's TSC goes back (seen under kvm_amd).  So the TSC is read back,
 * and if it is behind, the vCPU's TSC offset (KVM_VCPU_TSC_OFFSET,
 * Linux 5.16) is moved by the difference. */
static int fix_tsc(int fd, const struct loaded *l, char *err, size_t errlen)
{
	uint64_t want, now, offset;
	int rc;
	struct kvm_device_attr a = {
		.group = KVM_VCPU_TSC_CTRL, .attr = KVM_VCPU_TSC_OFFSET,
		.addr = (uint64_t)(uintptr_t)&offset,
	};

	if (!saved_msr(l, MSR_TSC, &want))
		return 0;
	rc = msr_kvm_vcpu_access(fd, MSR_READ, MSR_TSC, &now);
	if (rc < 0) {
		snprintf(err, errlen, "cannot read the TSC back: %s",
			 strerror(-rc));
		return -1;
	}
	if (now >= want)
		return 0;
	if (ioctl(fd, KVM_GET_DEVICE_ATTR, &a) < 0)
		goto fail;
	offset += want - now;
	if (ioctl(fd, KVM_SET_DEVICE_ATTR, &a) < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "KVM kept its own TSC (0x%llx, not 0x%llx) and "
		 "cannot set the TSC offset: %s",
		 (unsigned long long)now, (unsigned long long)want,
		 strerror(errno));
	return -1;
}

static int apply(int fd, struct loaded *l, struct kvm_msrs *m, char *err,
		 size_t errlen)
{
	unsigned long xreq = KVM_SET_XSAVE;
	uint32_t bad = 0;
	int khz = ioctl(fd, KVM_GET_TSC_KHZ, 0);

	if (khz < 0 || ((uint64_t)khz != l->khz &&
			ioctl(fd, KVM_SET_TSC_KHZ, l->khz) < 0)) {
		snprintf(err, errlen, "the guest's TSC ran at %llu kHz, this "
			 "host's at %d kHz, and KVM cannot scale it",
			 (unsigned long long)l->khz, khz);
		return -1;
	}
	l->f.events.flags |= KVM_VCPUEVENT_VALID_NMI_PENDING |
			     KVM_VCPUEVENT_VALID_SIPI_VECTOR;
	if (ioctl(fd, KVM_SET_REGS, &l->f.regs) < 0 ||
	    ioctl(fd, xreq, l->xsave) < 0 ||
	    ioctl(fd, KVM_SET_XCRS, &l->f.xcrs) < 0 ||
	    ioctl(fd, KVM_SET_SREGS, &l->f.sregs) < 0)
		goto sys;
	if (set_msrs(fd, l, m, false, &bad) < 0)
		goto msr;
	if (fix_tsc(fd, l, err, errlen) < 0)
		return -1;
	if (ioctl(fd, KVM_SET_MP_STATE, &l->f.mp) < 0 ||
	    ioctl(fd, KVM_SET_LAPIC, &l->f.lapic) < 0)
		goto sys;
	if (set_msrs(fd, l, m, true, &bad) < 0)
		goto msr;
	if (ioctl(fd, KVM_SET_VCPU_EVENTS, &l->f.events) < 0 ||
	    ioctl(fd, KVM_SET_DEBUGREGS, &l->f.debugregs) < 0)
		goto sys;
	return 0;
msr:
	snprintf(err, errlen, "KVM refused MSR 0x%x", bad);
	return -1;
sys:
	snprintf(err, errlen, "KVM refused the vCPU state: %s",
		 strerror(errno));
	return -1;
}

static int load(void *ctx, const uint8_t *data, size_t len, char *err,
		size_t errlen)
{
	struct vcpu_snap *v = ctx;
	struct kvm_msrs *m = calloc(1, MSR_BUF_SIZE);
	struct loaded l;
	int rc = -1;

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (parse(v->all, data, len, &l) < 0)
		snprintf(err, errlen, "vCPU %u: section is malformed", v->id);
	else if (apply(v->fd, &l, m, err, errlen) == 0)
		rc = 0;
	free(m);
	return rc;
}

/* --- registration --------------------------------------------------------- */

static int msr_list(struct snap_vcpus *s, int sys_fd)
{
	struct kvm_msr_list *l = calloc(1, sizeof(*l) + MAX_MSRS * 4);
	int rc = -1;

	if (!l)
		return -1;
	l->nmsrs = MAX_MSRS;
	if (ioctl(sys_fd, KVM_GET_MSR_INDEX_LIST, l) == 0 &&
	    l->nmsrs <= MAX_MSRS) {
		s->nmsrs = l->nmsrs;
		memcpy(s->msrs, l->indices, l->nmsrs * 4);
		rc = 0;
	}
	free(l);
	return rc;
}

struct snap_vcpus *snap_vcpus_register(struct snap_registry *r, int sys_fd,
				       const int *fds, unsigned int n,
				       uint32_t xsave_size)
{
	struct snap_vcpus *s = calloc(1, sizeof(*s));

	if (!s || !(s->v = calloc(n, sizeof(*s->v))) || msr_list(s, sys_fd)) {
		fprintf(stderr, "minivmm: error: snapshot: KVM's MSR list: "
			"%s\n", strerror(errno));
		snap_vcpus_free(s);
		return NULL;
	}
	/* Every vCPU has the same CPUID and so the same MTRR/MCE counts. */
	if (n)
		snap_msr_extra(fds[0], s->msrs, &s->nmsrs, MAX_MSRS);
	s->n = n;
	s->xsave_size = xsave_size;
	for (unsigned int i = 0; i < n; i++) {
		struct snap_state_ops o = {
			.type = SNAP_SEC_VCPU, .instance = i,
			.phase = SNAP_PHASE_VCPU, .save = save, .load = load,
			.ctx = &s->v[i],
		};

		s->v[i] = (struct vcpu_snap){ s, fds[i], i };
		if (snap_add_state(r, &o) < 0) {
			snap_vcpus_free(s);
			return NULL;
		}
	}
	return s;
}

void snap_vcpus_free(struct snap_vcpus *s)
{
	if (!s)
		return;
	free(s->v);
	free(s);
}
