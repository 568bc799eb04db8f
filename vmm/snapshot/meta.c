// SPDX-License-Identifier: MIT
/* The META section (meta.h). */
#include "vmm/snapshot/meta.h"
#include "vmm/snapshot/errmsg.h"
#include "vmm/host/host.h"

#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* What restoring calls, beyond what every run needs (kvm.c). */
static const uint32_t needed_caps[] = {
	KVM_CAP_XSAVE, KVM_CAP_XCRS, KVM_CAP_DEBUGREGS, KVM_CAP_VCPU_EVENTS,
	KVM_CAP_ADJUST_CLOCK, KVM_CAP_MP_STATE, KVM_CAP_PIT_STATE2,
	KVM_CAP_IRQCHIP, KVM_CAP_READONLY_MEM, KVM_CAP_GET_TSC_KHZ,
};

struct note_hunt {
	char *hex;
	size_t len;
};

/* The main program's NT_GNU_BUILD_ID, as hex. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct note_hunt *h = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr +
						     ph->p_vaddr);
		const uint8_t *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const void *)p;
			const uint8_t *desc = p + sizeof(*n) +
					      ((n->n_namesz + 3) & ~3u);

			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(p + sizeof(*n), "GNU", 4)) {
				for (uint32_t k = 0; k < n->n_descsz &&
				     2 * k + 3 < h->len; k++)
					sprintf(h->hex + 2 * k, "%02x", desc[k]);
				return 1;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 1;	/* the first object is the program itself */
}

static void cpu_ident(struct snap_meta *m)
{
	unsigned int a, b, c, d;

	__cpuid(0, a, b, c, d);
	memcpy(m->vendor, &b, 4);
	memcpy(m->vendor + 4, &d, 4);
	memcpy(m->vendor + 8, &c, 4);
	m->vendor[12] = 0;
	__cpuid(1, a, b, c, d);
	m->signature = a;
	memset(m->brand, 0, sizeof(m->brand));
	__cpuid(0x80000000, a, b, c, d);
	if (a < 0x80000004)
		return;
	for (unsigned int i = 0; i < 3; i++) {
		unsigned int r[4];

		__cpuid(0x80000002 + i, r[0], r[1], r[2], r[3]);
		memcpy(m->brand + 16 * i, r, 16);
	}
}

int snap_meta_here(struct snap_meta *m, const struct host *host, int kvm_fd,
		   char *err, size_t len)
{
	char id[96] = "none";
	struct note_hunt h = { id, sizeof(id) };
	int fd = kvm_fd >= 0 ? kvm_fd : open("/dev/kvm", O_RDWR | O_CLOEXEC);
	int x;

	memset(m, 0, sizeof(*m));
	if (fd < 0)
		return fail(err, len, "cannot open /dev/kvm: %s",
			    strerror(errno));
	dl_iterate_phdr(find_build_id, &h);
	snprintf(m->build, sizeof(m->build), "%.30s %s", MINIVMM_VERSION, id);
	cpu_ident(m);
	m->ring0_emulated = host->ring0_emulated;
	x = ioctl(fd, KVM_CHECK_EXTENSION, KVM_CAP_XSAVE2);
	m->xsave_size = x > (int)sizeof(struct kvm_xsave) ?
			(uint32_t)x : sizeof(struct kvm_xsave);
	for (size_t i = 0; i < sizeof(needed_caps) / sizeof(needed_caps[0]);
	     i++)
		if (ioctl(fd, KVM_CHECK_EXTENSION, needed_caps[i]) > 0)
			m->caps[m->ncaps++] = needed_caps[i];
	if (fd != kvm_fd)
		close(fd);
	if (m->ncaps != sizeof(needed_caps) / sizeof(needed_caps[0]))
		return fail(err, len, "this KVM lacks a capability snapshots "
			    "need (XSAVE, XCRS, DEBUGREGS, VCPU_EVENTS, "
			    "ADJUST_CLOCK, MP_STATE, PIT_STATE2)");
	return 0;
}

void snap_meta_encode(const struct snap_meta *m, struct snap_buf *b)
{
	snap_put_str(b, m->build);
	snap_put_str(b, m->vendor);
	snap_put_u32(b, m->signature);
	snap_put_str(b, m->brand);
	snap_put_u32(b, m->ring0_emulated);
	snap_put_u32(b, m->xsave_size);
	snap_put_u32(b, m->ncaps);
	for (uint32_t i = 0; i < m->ncaps; i++)
		snap_put_u32(b, m->caps[i]);
}

static bool get_str(struct snap_rd *r, char *out, size_t size)
{
	uint32_t n = snap_get_u32(r);
	const uint8_t *p = snap_get_ptr(r, n);

	if (!p || n >= size || memchr(p, 0, n))
		return false;
	memcpy(out, p, n);
	out[n] = 0;
	return true;
}

int snap_meta_decode(const uint8_t *data, size_t len, struct snap_meta *m,
		     char *err, size_t errlen)
{
	struct snap_rd r;

	memset(m, 0, sizeof(*m));
	snap_rd_init(&r, data, len);
	if (!get_str(&r, m->build, sizeof(m->build)) ||
	    !get_str(&r, m->vendor, sizeof(m->vendor)))
		goto bad;
	m->signature = snap_get_u32(&r);
	if (!get_str(&r, m->brand, sizeof(m->brand)))
		goto bad;
	m->ring0_emulated = snap_get_u32(&r);
	m->xsave_size = snap_get_u32(&r);
	m->ncaps = snap_get_u32(&r);
	if (m->ncaps > SNAP_META_MAX_CAPS)
		goto bad;
	for (uint32_t i = 0; i < m->ncaps; i++)
		m->caps[i] = snap_get_u32(&r);
	if (snap_rd_done(&r))
		return 0;
bad:
	return fail(err, errlen, "meta section is malformed");
}

static bool has_cap(const struct snap_meta *m, uint32_t cap)
{
	for (uint32_t i = 0; i < m->ncaps; i++)
		if (m->caps[i] == cap)
			return true;
	return false;
}

int snap_meta_compatible(const struct snap_meta *f,
			 const struct snap_meta *h, char *err, size_t errlen)
{
	if (strcmp(f->build, h->build))
		return fail(err, errlen, "made by another minivmm build "
			    "(%.60s; this is %.60s)", f->build, h->build);
	if (strcmp(f->vendor, h->vendor) || f->signature != h->signature ||
	    strcmp(f->brand, h->brand))
		return fail(err, errlen, "made on another CPU (%s family/"
			    "model 0x%x, '%s')", f->vendor, f->signature,
			    f->brand);
	if (f->ring0_emulated != h->ring0_emulated)
		return fail(err, errlen, "made on a host whose KVM %s guest "
			    "ring 0", f->ring0_emulated ? "emulates" :
			    "does not emulate");
	if (f->xsave_size != h->xsave_size)
		return fail(err, errlen, "XSAVE area of %u bytes, this host "
			    "has %u", f->xsave_size, h->xsave_size);
	for (uint32_t i = 0; i < f->ncaps; i++)
		if (!has_cap(h, f->caps[i]))
			return fail(err, errlen, "this host's KVM lacks "
				    "capability %u", f->caps[i]);
	return 0;
}
