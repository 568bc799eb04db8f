// SPDX-License-Identifier: MIT
/* The CONFIG section (config.h).  Payload: u32 count, then count pairs
 * of length-prefixed strings, key and value; numbers in decimal. */
#include "vmm/snapshot/config.h"
#include "vmm/snapshot/errmsg.h"
#include "vmm/cli/cpuid_flags.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POLICY_TEXT_MAX	(1u << 20)
#define MAX_ENTRIES	(32 + CLI_MAX_MSR_RULES + CLI_MAX_DISKS)

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = calloc(1, POLICY_TEXT_MAX + 1);
	n = buf ? fread(buf, 1, POLICY_TEXT_MAX + 1, f) : 0;
	fclose(f);
	if (!buf || n > POLICY_TEXT_MAX || memchr(buf, 0, n)) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct enc {
	struct snap_buf body;
	uint32_t n;
};

static void kv(struct enc *e, const char *k, const char *v)
{
	if (!v)
		return;
	snap_put_str(&e->body, k);
	snap_put_str(&e->body, v);
	e->n++;
}

static void kv_u(struct enc *e, const char *k, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	kv(e, k, num);
}

/* As --disk takes it: PATH[,ro][,serial=S][,cache=C]. */
static void kv_disk(struct enc *e, const struct disk_opt *d)
{
	char v[CLI_PATH_MAX + 64];

	snprintf(v, sizeof(v), "%s%s%s%s%s%s", d->path, d->ro ? ",ro" : "",
		 d->has_serial ? ",serial=" : "", d->has_serial ? d->serial :
		 "", d->cache ? ",cache=" : "",
		 d->cache ? cli_disk_cache_names[d->cache] : "");
	kv(e, "disk", v);
}

int snap_config_encode(const struct vmm_config *cfg, struct snap_buf *b,
		       char *err, size_t errlen)
{
	struct enc e = { .n = 0 };
	char *text = NULL;

	if (cfg->msr_policy && !cfg->msr_policy_text &&
	    strncmp(cfg->msr_policy, "preset:", 7)) {
		text = read_text(cfg->msr_policy);
		if (!text)
			return fail(err, errlen, "cannot keep the MSR policy "
				    "file '%s' for snapshots", cfg->msr_policy);
	}
	snap_buf_init(&e.body);
	kv_u(&e, "memory", cfg->mem_size);
	kv_u(&e, "cpus", cfg->cpus);
	kv_u(&e, "ecam", cfg->ecam);
	kv_u(&e, "pci-pio", cfg->pci_pio);
	kv_u(&e, "pci-buses", cfg->pci_buses);
	kv_u(&e, "xen-platform", cfg->xen_platform);
	kv_u(&e, "xen-bar-mtrr", cfg->xen_bar_mtrr);
	kv(&e, "firmware", cfg->firmware);
	kv(&e, "kernel", cfg->kernel);
	kv(&e, "initrd", cfg->initrd);
	kv(&e, "append", cfg->append);
	kv(&e, "msr-policy", cfg->msr_policy);
	kv(&e, "msr-policy-text", text ? text : cfg->msr_policy_text);
	for (int i = 0; i < cfg->n_msr_rules; i++)
		kv(&e, "msr", cfg->msr_rules[i]);
	kv(&e, "msr-default", cfg->msr_default);
	for (unsigned int i = 0; i < cfg->ndisks; i++)
		kv_disk(&e, &cfg->disks[i]);
	kv_u(&e, "rng", cfg->rng);
	kv_u(&e, "console-virtio", cfg->console_virtio);
	kv_u(&e, "com2", cfg->com2);
	kv_u(&e, "exit-style", cfg->exit_qemu);
	kv(&e, "cpuid", cfg->cpuid);
	kv_u(&e, "pci-testdev", cfg->pci_testdev);
	kv_u(&e, "pvpanic", cfg->pvpanic);
	kv_u(&e, "syscall-fix", cfg->syscall_fix);
	for (unsigned int i = 0; i < cfg->nnets; i++) {
		char v[64];

		net_opt_format(&cfg->nets[i], v, sizeof(v));
		kv(&e, "net", v);
	}
	free(text);
	snap_put_u32(b, e.n);
	snap_put(b, e.body.p, e.body.len);
	snap_buf_free(&e.body);
	return b->failed || e.body.failed ? fail(err, errlen, "out of memory")
					  : 0;
}

/* --- decoding ------------------------------------------------------------- */

struct dec {
	struct snap_config *c;
	char *next;		/* free space in c->strings */
	char *err;
	size_t errlen;
};

static int num(struct dec *d, const char *k, const char *v, uint64_t max,
	       uint64_t *out)
{
	char *end;

	if (!*v || *v == '-')
		return fail(d->err, d->errlen, "config: bad %s '%s'", k, v);
	*out = strtoull(v, &end, 10);
	if (*end || *out > max)
		return fail(d->err, d->errlen, "config: bad %s '%s'", k, v);
	return 0;
}

/* The on/off options, by key. */
static bool *flag(struct vmm_config *m, const char *k)
{
	static const char *const keys[] = {
		"pci-pio", "xen-platform", "rng", "exit-style", "pci-testdev",
		"console-virtio", "pvpanic", "com2",
	};
	bool *fields[] = {
		&m->pci_pio, &m->xen_platform, &m->rng, &m->exit_qemu,
		&m->pci_testdev, &m->console_virtio, &m->pvpanic, &m->com2,
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(k, keys[i]))
			return fields[i];
	return NULL;
}

static int set_num(struct dec *d, const char *k, const char *v)
{
	struct vmm_config *m = &d->c->m;
	uint64_t x;

	if (!strcmp(k, "memory")) {
		if (num(d, k, v, UINT64_MAX, &x) || x < (16ull << 20) ||
		    x % (2ull << 20))
			return fail(d->err, d->errlen, "config: bad memory");
		m->mem_size = x;
	} else if (!strcmp(k, "cpus")) {
		if (num(d, k, v, 255, &x) || !x)
			return fail(d->err, d->errlen, "config: bad cpus");
		m->cpus = (unsigned int)x;
	} else if (!strcmp(k, "ecam")) {
		if (num(d, k, v, ECAM_OFF, &x))
			return -1;
		m->ecam = (enum ecam_mode)x;
	} else if (flag(m, k)) {
		if (num(d, k, v, 1, &x))
			return -1;
		*flag(m, k) = x;
	} else if (!strcmp(k, "pci-buses")) {
		if (num(d, k, v, 256, &x) || !x)
			return fail(d->err, d->errlen, "config: bad pci-buses");
		m->pci_buses = (unsigned int)x;
	} else if (!strcmp(k, "syscall-fix")) {
		if (num(d, k, v, SYSCALL_FIX_OFF, &x))
			return -1;
		m->syscall_fix = (enum syscall_fix)x;
	} else if (!strcmp(k, "xen-bar-mtrr")) {
		if (num(d, k, v, XEN_BAR_UC, &x))
			return -1;
		m->xen_bar_mtrr = (enum xen_bar_mtrr)x;
	} else {
		return 1;
	}
	return 0;
}

static int set_str(struct dec *d, const char *k, const char *v)
{
	struct vmm_config *m = &d->c->m;
	static const char *const names[] = {
		"firmware", "kernel", "initrd", "append", "msr-policy",
		"msr-policy-text", "msr-default", "cpuid",
	};
	const char **fields[] = {
		&m->firmware, &m->kernel, &m->initrd, &m->append,
		&m->msr_policy, &m->msr_policy_text, &m->msr_default,
		&m->cpuid,
	};

	if (!strcmp(k, "msr")) {
		if (m->n_msr_rules == CLI_MAX_MSR_RULES)
			return fail(d->err, d->errlen, "config: too many msr");
		m->msr_rules[m->n_msr_rules++] = v;
		return 0;
	}
	if (!strcmp(k, "disk")) {
		char why[160];

		if (m->ndisks == CLI_MAX_DISKS)
			return fail(d->err, d->errlen, "config: too many disks");
		if (cli_parse_disk(v, &m->disks[m->ndisks], why,
				   sizeof(why)) < 0)
			return fail(d->err, d->errlen, "config: disk: %s", why);
		m->ndisks++;
		return 0;
	}
	if (!strcmp(k, "net")) {
		char why[160];

		if (m->nnets == NET_OPT_MAX)
			return fail(d->err, d->errlen, "config: too many nets");
		if (net_opt_parse(v, &m->nets[m->nnets], why, sizeof(why)) < 0)
			return fail(d->err, d->errlen, "config: net: %s", why);
		m->nnets++;
		return 0;
	}
	if (!strcmp(k, "cpuid")) {
		struct cpuid_edits ed;
		char why[CPUID_ERR_MAX];

		if (cpuid_flags_parse(v, &ed, why) < 0)
			return fail(d->err, d->errlen, "config: cpuid: %s",
				    why);
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(k, names[i]))
			continue;
		if (*fields[i])
			return fail(d->err, d->errlen, "config: %s twice", k);
		*fields[i] = v;
		return 0;
	}
	return fail(d->err, d->errlen, "config: unknown option '%.40s'", k);
}

/* A string from r, NUL-terminated into d->next. */
static const char *get_str(struct dec *d, struct snap_rd *r)
{
	uint32_t n = snap_get_u32(r);
	const uint8_t *p = snap_get_ptr(r, n);
	char *s = d->next;

	if (!p || memchr(p, 0, n))
		return NULL;
	memcpy(s, p, n);
	s[n] = 0;
	d->next += n + 1;
	return s;
}

int snap_config_decode(const uint8_t *data, size_t len,
		       struct snap_config *out, char *err, size_t errlen)
{
	struct dec d = { out, NULL, err, errlen };
	struct snap_rd r;
	uint32_t n;

	memset(out, 0, sizeof(*out));
	cli_defaults(&out->m);
	out->strings = malloc(len + 1);	/* strings + NULs fit in len */
	if (!out->strings)
		return fail(err, errlen, "out of memory");
	d.next = out->strings;
	snap_rd_init(&r, data, len);
	n = snap_get_u32(&r);
	if (n > MAX_ENTRIES)
		goto bad;
	for (uint32_t i = 0; i < n; i++) {
		const char *k = get_str(&d, &r), *v = k ? get_str(&d, &r) : NULL;
		int rc;

		if (!v)
			goto bad;
		rc = set_num(&d, k, v);
		if (rc == 1)
			rc = set_str(&d, k, v);
		if (rc)
			goto fail;
	}
	if (snap_rd_done(&r))
		return 0;
bad:
	fail(err, errlen, "config section is malformed");
fail:
	snap_config_free(out);
	return -1;
}

void snap_config_free(struct snap_config *c)
{
	free(c->strings);
	c->strings = NULL;
}

/* --- merging with the command line ---------------------------------------- */

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool same_msr(const struct vmm_config *a, const struct vmm_config *b)
{
	if (!same_str(a->msr_policy, b->msr_policy) ||
	    !same_str(a->msr_default, b->msr_default) ||
	    a->n_msr_rules != b->n_msr_rules)
		return false;
	for (int i = 0; i < a->n_msr_rules; i++)
		if (strcmp(a->msr_rules[i], b->msr_rules[i]))
			return false;
	return true;
}

static const char *conflict(const struct vmm_config *u,
			    const struct vmm_config *s)
{
	uint32_t g = u->given;

	if ((g & GIVEN_MEMORY) && u->mem_size != s->mem_size)
		return "--memory";
	if ((g & GIVEN_CPUS) && u->cpus != s->cpus)
		return "--cpus";
	if ((g & GIVEN_ECAM) && u->ecam != s->ecam)
		return "--ecam";
	if ((g & GIVEN_PCI_PIO) && u->pci_pio != s->pci_pio)
		return "--pci-pio";
	if ((g & GIVEN_PCI_BUSES) && u->pci_buses != s->pci_buses)
		return "--pci-buses";
	if ((g & GIVEN_XEN_PLATFORM) && u->xen_platform != s->xen_platform)
		return "--xen-platform";
	if ((g & GIVEN_XEN_BAR_MTRR) && u->xen_bar_mtrr != s->xen_bar_mtrr)
		return "--xen-bar-mtrr";
	if ((g & (GIVEN_MSR_POLICY | GIVEN_MSR | GIVEN_MSR_DEFAULT)) &&
	    !same_msr(u, s))
		return "the MSR policy options";
	if ((g & GIVEN_EXIT_STYLE) && u->exit_qemu != s->exit_qemu)
		return "--exit-style";
	/* As spelled: the guest has seen CPUID; an equivalent list in
	 * another order is refused too rather than interpreted. */
	if ((g & GIVEN_CPUID) && !same_str(u->cpuid, s->cpuid))
		return "--cpuid";
	if ((g & GIVEN_PCI_TESTDEV) && u->pci_testdev != s->pci_testdev)
		return "--pci-testdev";
	if ((g & GIVEN_PVPANIC) && u->pvpanic != s->pvpanic)
		return "--pvpanic";
	/* auto and on act alike on every host (on where ring 0 is
	 * emulated, off elsewhere); off is off. */
	if ((g & GIVEN_SYSCALL_FIX) && (u->syscall_fix == SYSCALL_FIX_OFF) !=
				       (s->syscall_fix == SYSCALL_FIX_OFF))
		return "--syscall-fix";
	return NULL;
}

/* --disk at a restore may point a disk at another file (a copy of the
 * image as it was at the snapshot), not change what the guest sees: the
 * cache mode may change between writeback and none, not to or from
 * unsafe (which takes VIRTIO_BLK_F_FLUSH away). */
static bool same_disks(const struct vmm_config *u, const struct vmm_config *s)
{
	if (u->ndisks != s->ndisks)
		return false;
	for (unsigned int i = 0; i < u->ndisks; i++) {
		const struct disk_opt *a = &u->disks[i], *b = &s->disks[i];

		if (a->ro != b->ro || a->has_serial != b->has_serial ||
		    strcmp(a->serial, b->serial) ||
		    (a->cache == DISK_CACHE_UNSAFE) !=
		    (b->cache == DISK_CACHE_UNSAFE))
			return false;
	}
	return true;
}

/* --net at a restore may name another tap; the guest-visible rest (MAC,
 * offloads) must be the snapshot's. */
static bool same_nets(const struct vmm_config *u, const struct vmm_config *s)
{
	if (u->nnets != s->nnets)
		return false;
	for (unsigned int i = 0; i < u->nnets; i++) {
		const struct net_opt *a = &u->nets[i], *b = &s->nets[i];

		if (a->has_mac != b->has_mac || a->no_offload != b->no_offload ||
		    (a->has_mac && memcmp(a->mac, b->mac, 6)))
			return false;
	}
	return true;
}

static void disks_of(const struct vmm_config *s, char *out, size_t len)
{
	size_t at = 0;

	out[0] = 0;
	for (unsigned int i = 0; i < s->ndisks && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%s%s%s%s%s%s",
				       i ? "; " : "", s->disks[i].path,
				       s->disks[i].ro ? ",ro" : "",
				       s->disks[i].has_serial ? ",serial=" : "",
				       s->disks[i].serial,
				       s->disks[i].cache == DISK_CACHE_UNSAFE ?
				       ",cache=unsafe" : "");
}

int snap_config_merge(struct vmm_config *cfg, const struct snap_config *c,
		      char *err, size_t errlen)
{
	const struct vmm_config *s = &c->m;
	const char *opt = conflict(cfg, s);
	char list[120];

	if (opt)
		return fail(err, errlen, "%s conflicts with the snapshot's "
			    "machine (%llu MiB, %u vCPUs; restore without it)",
			    opt, (unsigned long long)(s->mem_size >> 20),
			    s->cpus);
	if ((cfg->given & GIVEN_DISK) && !same_disks(cfg, s)) {
		disks_of(s, list, sizeof(list));
		return fail(err, errlen, "--disk conflicts with the snapshot's "
			    "%u disk(s) (%s): give as many, with the same ro, "
			    "serial and cache=unsafe or not, or none", s->ndisks,
			    s->ndisks ? list : "none");
	}
	if ((cfg->given & GIVEN_NET) && !same_nets(cfg, s))
		return fail(err, errlen, "--net conflicts with the snapshot's "
			    "%u network device(s): give as many, with the same "
			    "mac= and offload=, or none", s->nnets);
	if ((cfg->given & GIVEN_RNG) && !s->rng)
		return fail(err, errlen, "--rng conflicts with the snapshot's "
			    "machine (it has no virtio-rng; restore without "
			    "it)");
	if ((cfg->given & GIVEN_CONSOLE_DEVICE) &&
	    cfg->console_virtio != s->console_virtio)
		return fail(err, errlen, "--console-device conflicts with the "
			    "snapshot's machine (its console device is %s; "
			    "restore without it)",
			    s->console_virtio ? "virtio" : "uart");
	if ((cfg->given & GIVEN_VIRTIO_CONSOLE) && !s->console_virtio)
		return fail(err, errlen, "--virtio-console conflicts with the "
			    "snapshot's machine (it has no virtio-console; "
			    "restore without it)");
	if ((cfg->given & GIVEN_SERIAL2) && !s->com2)
		return fail(err, errlen, "--serial (a second one: COM2) "
			    "conflicts with the snapshot's machine (it has no "
			    "COM2; give one --serial at most)");
	if (!(cfg->given & GIVEN_DISK)) {
		cfg->ndisks = s->ndisks;
		memcpy(cfg->disks, s->disks, sizeof(cfg->disks));
	}
	if (!(cfg->given & GIVEN_NET)) {
		cfg->nnets = s->nnets;
		memcpy(cfg->nets, s->nets, sizeof(cfg->nets));
	}
	cfg->rng = s->rng;
	cfg->console_virtio = s->console_virtio;
	cfg->com2 = s->com2;
	cfg->mem_size = s->mem_size;
	cfg->cpus = s->cpus;
	cfg->ecam = s->ecam;
	cfg->pci_pio = s->pci_pio;
	cfg->pci_buses = s->pci_buses;
	cfg->xen_platform = s->xen_platform;
	cfg->xen_bar_mtrr = s->xen_bar_mtrr;
	cfg->firmware = s->firmware;
	cfg->kernel = s->kernel;
	cfg->initrd = s->initrd;
	cfg->append = s->append;
	cfg->exit_qemu = s->exit_qemu;
	cfg->cpuid = s->cpuid;
	cfg->pci_testdev = s->pci_testdev;
	cfg->syscall_fix = s->syscall_fix;
	cfg->msr_policy = s->msr_policy;
	cfg->msr_policy_text = s->msr_policy_text;
	cfg->msr_default = s->msr_default;
	cfg->n_msr_rules = s->n_msr_rules;
	memcpy(cfg->msr_rules, s->msr_rules, sizeof(cfg->msr_rules));
	return 0;
}
