// SPDX-License-Identifier: MIT
/* The benchmark plan: configurations, cases, groups and floor mapping. */
#include "tools/bench/plan.h"
#include "tools/bench/net.h"

#include <stdio.h>
#include <string.h>

#define USER_MSR	"msr=" BENCH_MSR_USER
#define KERNEL_MSR	"msr=" BENCH_MSR_KERNEL

const struct bench_config bench_configs[] = {
	{ "default", { NULL }, "" },
	{ "ecam=ro", { "--ecam", "ro", NULL }, "" },
	{ "ecam=trap", { "--ecam", "trap", NULL }, "" },
	{ "xen-bar-mtrr=wb", { "--xen-bar-mtrr", "wb", NULL }, "" },
	{ "xen-bar-mtrr=uc", { "--xen-bar-mtrr", "uc", NULL }, "" },
	{ "msr=allow", { "--msr", BENCH_MSR_KERNEL " rw allow", NULL },
	  KERNEL_MSR },
	{ "msr=allow+count", { "--msr", BENCH_MSR_PASSTHRU " rw allow,count",
			       NULL }, "msr=" BENCH_MSR_PASSTHRU },
	{ "msr=deny", { "--msr", BENCH_MSR_USER " rw deny", NULL }, USER_MSR },
	{ "msr=ignore", { "--msr", BENCH_MSR_USER " rw ignore", NULL },
	  USER_MSR },
	{ "msr=value", { "--msr", BENCH_MSR_USER " rw value=0x10", NULL },
	  USER_MSR },
	{ "msr=emulate", { "--msr", BENCH_MSR_USER " rw emulate=0x5", NULL },
	  USER_MSR " msr-value=0x5" },
	{ "msr=host", { "--msr", BENCH_MSR_USER " rw host=0x7", NULL },
	  USER_MSR },
	{ "disk", { "--disk", BENCH_DISK_ARG, NULL }, "" },
	{ "net", { "--net", "tap=" BENCH_NET_TAP, NULL }, "" },
};
const size_t bench_nconfigs = sizeof(bench_configs) / sizeof(bench_configs[0]);

#define MSR_CONFIGS { "msr=allow", "msr=allow+count", "msr=deny", \
		      "msr=ignore", "msr=value", "msr=emulate", "msr=host" }
#define ECAM_BOTH { "ecam=ro", "ecam=trap" }
#define BAR_BOTH { "xen-bar-mtrr=wb", "xen-bar-mtrr=uc" }

const struct bench_case bench_cases[] = {
	{ "pci_cf8_read", 0, "pci", { "ecam=ro" } },
	{ "pci_cf8_write", 0, "pci", { "ecam=ro" } },
	{ "pci_ecam_read", 3, "pci", ECAM_BOTH },
	{ "pci_ecam_read", 0, "pci", ECAM_BOTH },
	{ "pci_ecam_read_uc", 3, "pci", { "ecam=ro" } },
	{ "pci_ecam_write", 3, "pci", ECAM_BOTH },
	{ "pci_ecam_write", 0, "pci", ECAM_BOTH },
	{ "port_in", 0, "exits", { "default" } },
	{ "port_out", 0, "exits", { "default" } },
	{ "mmio_read", 0, "exits", { "default" } },
	{ "mmio_read", 3, "exits", { "default" } },
	{ "mmio_write", 0, "exits", { "default" } },
	{ "mmio_write", 3, "exits", { "default" } },
	{ "msr_read", 0, "msr", MSR_CONFIGS },
	{ "msr_write", 0, "msr", MSR_CONFIGS },
	{ "ram_read", 3, "memory", { "default" } },
	{ "ram_read", 0, "memory", { "default" } },
	{ "bar1_read", 3, "memory", BAR_BOTH },
	{ "bar1_write", 3, "memory", BAR_BOTH },
	{ "bar1_copy", 3, "memory", BAR_BOTH },
	{ "ramwb_read", 3, "memory", { "default" } },
	{ "ramwb_write", 3, "memory", { "default" } },
	{ "ramwb_copy", 3, "memory", { "default" } },
	{ "ramuc_read", 3, "memory", { "default" } },
	{ "ramuc_write", 3, "memory", { "default" } },
	{ "ramuc_copy", 3, "memory", { "default" } },
	{ "blk_rand4k_qd1", 3, "blk", { "disk" } },
	{ "blk_rand4k_qd32", 3, "blk", { "disk" } },
	{ "blk_seqrd1m", 3, "blk", { "disk" } },
	{ "blk_seqwr1m", 3, "blk", { "disk" } },
	{ "net_tx_64", 3, "net", { "net" } },
	{ "net_tx_1472", 3, "net", { "net" } },
	{ "net_rx_64", 3, "net", { "net" } },
	{ "net_rx_1472", 3, "net", { "net" } },
	{ "syscall", 3, "syscall", { "default" } },
	{ "int80", 3, "syscall", { "default" } },
};
const size_t bench_ncases = sizeof(bench_cases) / sizeof(bench_cases[0]);

const char *const bench_groups[] = { "pci", "exits", "msr", "memory", "blk",
				     "net", "syscall", "boot", "snapshot", "fs",
				     NULL };

const struct bench_config *bench_config_find(const char *name)
{
	for (size_t i = 0; i < bench_nconfigs; i++)
		if (!strcmp(bench_configs[i].name, name))
			return &bench_configs[i];
	return NULL;
}

const struct bench_case *bench_case_find(const char *name, int ring)
{
	for (size_t i = 0; i < bench_ncases; i++)
		if (!strcmp(bench_cases[i].name, name) &&
		    bench_cases[i].ring == ring)
			return &bench_cases[i];
	return NULL;
}

/* Does word w (length l) select case c?  A group, the name, NAME:RING. */
static bool word_matches(const char *w, size_t l, const struct bench_case *c)
{
	size_t nl = strlen(c->name);

	if (l == 3 && !strncmp(w, "all", 3))
		return true;
	if (strlen(c->group) == l && !strncmp(w, c->group, l))
		return true;
	if (l == nl && !strncmp(w, c->name, nl))
		return true;
	return l == nl + 2 && !strncmp(w, c->name, nl) && w[nl] == ':' &&
	       w[nl + 1] == '0' + c->ring;
}

/* Is word w (length l) the group name (a group the driver runs itself:
 * boot, snapshot, fs), or "all"? */
static bool word_is_group(const char *w, size_t l, const char *group)
{
	return (l == strlen(group) && !strncmp(w, group, l)) ||
	       (l == 3 && !strncmp(w, "all", 3));
}

/* Calls fn for each word of list; stops at the first that returns true. */
static bool any_word(const char *list, bool (*fn)(const char *, size_t,
						  const void *),
		     const void *arg)
{
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		if (fn(p, l, arg))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

static bool case_word(const char *w, size_t l, const void *c)
{
	return word_matches(w, l, c);
}

static bool group_word(const char *w, size_t l, const void *group)
{
	return word_is_group(w, l, group);
}

bool bench_case_selected(const char *list, const struct bench_case *c)
{
	return !list || any_word(list, case_word, c);
}

bool bench_boot_selected(const char *list)
{
	return !list || any_word(list, group_word, "boot");
}

bool bench_snapshot_selected(const char *list)
{
	return !list || any_word(list, group_word, "snapshot");
}

bool bench_fs_selected(const char *list)
{
	return !list || any_word(list, group_word, "fs");
}

int bench_cases_check(const char *list, char *err, size_t len)
{
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t l = end ? (size_t)(end - p) : strlen(p);
		bool known = word_is_group(p, l, "boot") ||
			     word_is_group(p, l, "snapshot") ||
			     word_is_group(p, l, "fs");

		for (size_t i = 0; i < bench_ncases && !known; i++)
			known = word_matches(p, l, &bench_cases[i]);
		if (!known) {
			snprintf(err, len, "--cases: unknown case or group "
				 "'%.*s' (groups: pci exits msr memory blk "
				 "net syscall boot snapshot fs)",
				 (int)(l > 60 ? 60 : l), p);
			return -1;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

bool bench_is_blk(const char *name)
{
	return !strncmp(name, "blk_", 4);
}

static bool is(const char *a, const char *b)
{
	return !strcmp(a, b);
}

/* Payload cases whose floor does not depend on the configuration. */
static const struct {
	const char *name;
	int ring;
	const char *floor;
} direct[] = {
	{ "port_in", 0, "port_in:0" },
	{ "port_out", 0, "port_out:0" },
	{ "mmio_read", 0, "mmio_read:0" },
	{ "mmio_read", 3, "mmio_read:3" },
	{ "mmio_write", 0, "mmio_write:0" },
	{ "mmio_write", 3, "mmio_write:3" },
	{ "ram_read", 0, "ram_read:0" },
	{ "ram_read", 3, "ram_read:3" },
	/* The address write is queued (coalesced PIO) in both. */
	{ "pci_cf8_read", 0, "port_pair_rd_q:0" },
	{ "pci_cf8_write", 0, "port_pair_wr_q:0" },
	/* A completed system call against the exit it costs at least. */
	{ "syscall", 3, "mmio_read:3" },
	{ "int80", 3, "mmio_read:3" },
};

static const char *floor_case(const char *name, int ring, const char *config,
			      bool ecam_trapped, char *buf, size_t len)
{
	bool r3 = ring == 3;
	const char *msr = "_user:0";

	for (size_t i = 0; i < sizeof(direct) / sizeof(direct[0]); i++)
		if (is(name, direct[i].name) && ring == direct[i].ring)
			return direct[i].floor;
	/* The host's own pread/pwrite loop (hostio.c). */
	if (bench_is_blk(name)) {
		snprintf(buf, len, "%s:%d", name, ring);
		return buf;
	}
	/* Trapped ECAM exits like any unbacked MMIO; the read-only window
	 * reads like a KVM_MEM_READONLY slot and writes through it. */
	if (is(name, "pci_ecam_read") || is(name, "pci_ecam_read_uc"))
		return ecam_trapped ? (r3 ? "mmio_read:3" : "mmio_read:0") :
		       (r3 ? "romem_read:3" : "romem_read:0");
	if (is(name, "pci_ecam_write"))
		return ecam_trapped ? (r3 ? "mmio_write:3" : "mmio_write:0") :
		       (r3 ? "romem_write:3" : "romem_write:0");
	if (r3 || (!is(name, "msr_read") && !is(name, "msr_write")))
		return NULL;
	/* Plain allow stays in KVM; allow,count exits and goes through
	 * KVM_GET/SET_MSRS; deny exits and injects #GP; the rest exit and
	 * are answered in user space. */
	if (is(config, "msr=allow"))
		msr = "_kernel:0";
	else if (is(config, "msr=allow+count"))
		msr = "_passthru:0";
	else if (is(config, "msr=deny"))
		msr = "_gp:0";
	snprintf(buf, len, "%s%s", name, msr);
	return buf;
}

bool bench_floor_for(const char *name, int ring, const char *config,
		     bool ecam_trapped, char *buf, size_t len)
{
	const char *f = floor_case(name, ring, config, ecam_trapped, buf, len);

	if (f && f != buf)
		snprintf(buf, len, "%s", f);
	return f != NULL;
}

const char *bench_floor_group(const char *name)
{
	if (!strncmp(name, "msr_", 4))
		return "msr";
	/* CF8/CFC and read-only ECAM compare with these. */
	if (!strncmp(name, "port_pair", 9) || !strncmp(name, "romem_", 6))
		return "pci";
	if (!strncmp(name, "ram_", 4))
		return "memory";
	return "exits";
}
