// SPDX-License-Identifier: MIT
/*
 * hello: the smoke-test payload.  Checks the PVH start_info (magic, memory
 * map, command line; "expect-ram=N" demands N-1..N MiB of RAM in the map),
 * that exceptions are captured (ud2 -> #UD, bad wrmsr -> #GP, a ring-3
 * fault through run_user), that ring 3 runs, and times a ring-3 loop.
 * Exit status 0 on success, 1 if any check failed.
 */
#include "lib/guest.h"

#define MIB		(1024ull * 1024)
#define MAX_MEMMAP	128	/* sanity bound on the entry count */
#define USER_MAGIC	0x5a17c0deu
#define LOOP_ITERS	1000000u
#define MSR_EFER	0xc0000080u

static volatile uint32_t user_value;

static const char *memmap_type(uint32_t type)
{
	switch (type) {
	case HVM_MEMMAP_RAM:		return "ram";
	case HVM_MEMMAP_RESERVED:	return "reserved";
	case HVM_MEMMAP_ACPI:		return "acpi";
	case HVM_MEMMAP_NVS:		return "nvs";
	case HVM_MEMMAP_UNUSABLE:	return "unusable";
	default:			return "other";
	}
}

/* Prints the memory map and returns its RAM total in bytes. */
static uint64_t show_memmap(const struct hvm_start_info *si)
{
	uint32_t n;
	const struct hvm_memmap_table_entry *e = start_info_memmap(si, &n);
	uint64_t ram = 0;

	check(e && n > 0, "no memory map (version %u)", si->version);
	check(n <= MAX_MEMMAP, "memory map has %u entries", n);
	if (!e || n > MAX_MEMMAP)
		return 0;
	/* Only 0-4 GiB is mapped for sure: don't fault on a bad pointer. */
	if (!check(si->memmap_paddr + n * sizeof(*e) <= 4 * 1024 * MIB,
		   "memory map at %#llx is above 4 GiB",
		   (unsigned long long)si->memmap_paddr))
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		gprintf("  memmap %016llx-%016llx %s\n",
			(unsigned long long)e[i].addr,
			(unsigned long long)(e[i].addr + e[i].size - 1),
			memmap_type(e[i].type));
		if (e[i].type == HVM_MEMMAP_RAM)
			ram += e[i].size;
	}
	return ram;
}

static void check_ram(const char *cmdline, uint64_t ram)
{
	uint64_t want;

	gprintf("RAM in map: %llu KiB\n", (unsigned long long)(ram / 1024));
	if (!cmdline_u64(cmdline, "expect-ram", &want))
		return;
	check(want >= 1 && ram >= (want - 1) * MIB && ram <= want * MIB,
	      "expect-ram=%llu but the map holds %llu KiB of RAM",
	      (unsigned long long)want, (unsigned long long)(ram / 1024));
}

static void do_ud2(void *arg)
{
	(void)arg;
	__asm__ volatile("ud2");
}

/* EFER with reserved bit 1 set: #GP on every implementation, and from
 * KVM itself, which intercepts EFER writes on SVM, VMX and PVM alike.
 * (A non-canonical FS base, the first choice, reaches the CPU directly
 * under SVM, and QEMU's software CPU does not check it.) */
static void do_bad_wrmsr(void *arg)
{
	(void)arg;
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | 1ull << 1);
}

static void user_store(void *arg)
{
	user_value = USER_MAGIC ^ (uint32_t)(uintptr_t)arg;
}

/* Ring 3 reading a non-canonical address: #GP raised at CPL 3. */
static void user_fault(void *arg)
{
	(void)arg;
	(void)mmio_read32(0x8000000000000000ull);
}

static void user_fault_wrapped(void *arg)
{
	run_user(user_fault, arg);
}

static void user_loop(void *arg)
{
	uint64_t *delta = arg;
	uint64_t t0 = tsc_begin();

	for (uint32_t i = 0; i < LOOP_ITERS; i++)
		__asm__ volatile("" : : "r"(i));
	*delta = tsc_end() - t0;
}

static void user_outb(void *arg)
{
	(void)arg;
	outb(0x80, 0);
}

static void user_outb_wrapped(void *arg)
{
	run_user(user_outb, arg);
}

static void check_exceptions(void)
{
	struct fault f;
	int v;

	v = guest_try(do_ud2, NULL, &f);
	check(v == 6, "ud2 gave vector %d, want 6", v);
	v = guest_try(do_bad_wrmsr, NULL, &f);
	check(v == 13, "bad wrmsr gave vector %d, want 13", v);
	gprintf("guest_try: ud2 -> %d, bad wrmsr -> %d (error %#llx)\n",
		guest_try(do_ud2, NULL, NULL), v,
		(unsigned long long)f.error_code);
}

static void check_user(void)
{
	struct fault f;
	uint64_t delta = 0;
	uint32_t khz;
	const char *src;
	int v;

	run_user(user_store, (void *)(uintptr_t)0x1234);
	check(user_value == (USER_MAGIC ^ 0x1234),
	      "ring-3 store gave %#x", user_value);

	v = guest_try(user_fault_wrapped, NULL, &f);
	check(v == 13 && (f.cs & 3) == 3,
	      "ring-3 fault gave vector %d at CPL %llu, want 13 at CPL 3",
	      v, (unsigned long long)(f.cs & 3));

	v = guest_try(user_outb_wrapped, NULL, &f);
	gprintf("ring-3 port I/O with IOPL 3: %s\n",
		v < 0 ? "works" : "faults (host quirk)");

	run_user(user_loop, &delta);
	check(delta > 0, "TSC did not advance over the ring-3 loop");
	khz = tsc_khz(&src);
	gprintf("ring-3 loop: %u iterations in %llu TSC cycles\n",
		LOOP_ITERS, (unsigned long long)delta);
	gprintf("TSC: %u kHz (%s)\n", khz, src);
	if (khz)
		gprintf("ring-3 loop: %llu us\n",
			(unsigned long long)(delta * 1000 / khz));
}

int payload_main(const struct hvm_start_info *si)
{
	const char *cmdline;

	gputs("hello from payload\n");
	if (!check(start_info_valid(si), "bad start_info at %p (magic %#x)",
		   (const void *)si, si ? si->magic : 0))
		return 1;
	cmdline = start_info_cmdline(si);
	gprintf("start_info %p version %u flags %#x modules %u rsdp %#llx\n",
		(const void *)si, si->version, si->flags, si->nr_modules,
		(unsigned long long)si->rsdp_paddr);
	gputs("cmdline: \"");
	gputs(cmdline);	/* gputs: any length */
	gputs("\"\n");
	check_ram(cmdline, show_memmap(si));
	check_exceptions();
	check_user();
	if (check_failures()) {
		gprintf("hello: %u check(s) failed\n", check_failures());
		return 1;
	}
	gputs("hello: all checks passed\n");
	return 0;
}
