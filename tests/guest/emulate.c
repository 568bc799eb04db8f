// SPDX-License-Identifier: MIT
/*
 * emulate: the ring-0 instructions minivmm completes when the host's
 * emulator rejects them (vmm/pvm/emulate.h) must behave as on the CPU: int3
 * traps with RIP after it, cmpxchg16b compares and swaps (and faults when
 * misaligned), popcnt counts with the CPU's flags and operand sizes,
 * fwait passes or raises #MF, clac/stac flip RFLAGS.AC.  Where the CPU
 * runs them itself the same checks pass.  With "ring0-emulated" on the
 * command line (the host emulates ring 0), CPUID must also hide what
 * minivmm hides there: CX16, and KVM's PV_UNHALT, PV_SEND_IPI and
 * PV_SCHED_YIELD (vmm/x86/cpuid.c).
 * Also the second set (vmm/pvm/emulate_sys.h): int n delivers through the
 * IDT with RIP after it (#NP at it through a gate not present), xgetbv is
 * #UD without CR4.OSXSAVE, clwb/clflushopt touch memory for faults only,
 * movbe's register form is #UD, invpcid and rdpru are #UD where CPUID
 * lacks them.  Status 0, or 1 with FAIL lines.
 */
#include "lib/guest.h"

#define RFLAGS_ZF	(1ull << 6)
#define RFLAGS_AC	(1ull << 18)
#define CR0_NE		(1ull << 5)

extern const char int3_after[];

static void do_int3(void *arg)
{
	(void)arg;
	__asm__ volatile("int3\n\t.globl int3_after\nint3_after:\n\tnop");
}

static void test_int3(void)
{
	struct fault f;
	int vec = guest_try(do_int3, NULL, &f);

	check(vec == 3, "int3: vector %d, expected 3 (#BP)", vec);
	check(f.rip == (uint64_t)(uintptr_t)int3_after,
	      "int3: #BP RIP 0x%llx, expected 0x%llx (after the int3)",
	      (unsigned long long)f.rip,
	      (unsigned long long)(uintptr_t)int3_after);
}

static uint64_t pair[4] __attribute__((aligned(16)));

/* Returns ZF; on failure lo and hi get the old value. */
static bool cx16(void *p, uint64_t *lo, uint64_t *hi, uint64_t nlo,
		 uint64_t nhi)
{
	bool zf;

	__asm__ volatile("lock cmpxchg16b %1"
			 : "=@ccz"(zf), "+m"(*(volatile uint64_t (*)[2])p),
			   "+a"(*lo), "+d"(*hi)
			 : "b"(nlo), "c"(nhi) : "memory");
	return zf;
}

static void do_cx16_misaligned(void *arg)
{
	uint64_t lo = 0, hi = 0;

	(void)arg;
	cx16((uint8_t *)pair + 8, &lo, &hi, 1, 2);
}

static void test_cmpxchg16b(void)
{
	uint64_t lo = 1, hi = 2;
	struct fault f;
	int vec;

	pair[0] = 1;
	pair[1] = 2;
	check(cx16(pair, &lo, &hi, 3, 4), "cmpxchg16b: equal, ZF clear");
	check(pair[0] == 3 && pair[1] == 4, "cmpxchg16b: memory %llu %llu, "
	      "expected 3 4", (unsigned long long)pair[0],
	      (unsigned long long)pair[1]);
	lo = 1;
	hi = 2;
	check(!cx16(pair, &lo, &hi, 5, 6), "cmpxchg16b: different, ZF set");
	check(lo == 3 && hi == 4 && pair[0] == 3 && pair[1] == 4,
	      "cmpxchg16b: failed compare: rdx:rax %llu:%llu, memory %llu %llu",
	      (unsigned long long)hi, (unsigned long long)lo,
	      (unsigned long long)pair[0], (unsigned long long)pair[1]);
	vec = guest_try(do_cx16_misaligned, NULL, &f);
	check(vec == 13 && f.error_code == 0,
	      "cmpxchg16b misaligned: vector %d error %llu, expected #GP(0)",
	      vec, (unsigned long long)f.error_code);
}

static void test_popcnt(void)
{
	uint64_t r, flags, m = 0xf0f0f0f0f0f0f0f0ull;
	uint32_t r32;

	__asm__ volatile("popcnt %2, %0; pushfq; popq %1"
			 : "=&r"(r), "=r"(flags) : "r"(0x8000000000000001ull));
	check(r == 2 && !(flags & RFLAGS_ZF), "popcnt64: %llu flags 0x%llx",
	      (unsigned long long)r, (unsigned long long)flags);
	__asm__ volatile("popcnt %2, %0; pushfq; popq %1"
			 : "=&r"(r), "=r"(flags) : "r"(0ull));
	check(r == 0 && (flags & RFLAGS_ZF), "popcnt64 of 0: %llu flags "
	      "0x%llx", (unsigned long long)r, (unsigned long long)flags);
	/* 32-bit: counts the low half only; the destination is zero-extended. */
	r = ~0ull;
	__asm__ volatile("popcntl %k1, %k0" : "+r"(r) : "r"(0xff000000ffull));
	check(r == 8, "popcnt32: 0x%llx, expected 8", (unsigned long long)r);
	/* 16-bit: the destination's upper bits stay. */
	r = 0x1234567800000000ull;
	__asm__ volatile("popcntw %w1, %w0" : "+r"(r) : "r"(0xffff00ffull));
	check(r == 0x1234567800000008ull, "popcnt16: 0x%llx",
	      (unsigned long long)r);
	/* Memory source. */
	__asm__ volatile("popcntq %1, %0" : "=r"(r) : "m"(m));
	check(r == 32, "popcnt64 from memory: %llu", (unsigned long long)r);
	__asm__ volatile("popcntl %1, %0" : "=r"(r32) : "m"(m));
	check(r32 == 16, "popcnt32 from memory: %u", r32);
}

/* In ring 3 (which runs natively: the host's ring-0 emulator rejects
 * these x87 instructions): 1/0 with divide-by-zero unmasked leaves an
 * exception pending, raised by the next waiting instruction. */
static void x87_divide_by_zero(void *arg)
{
	static uint16_t cw = 0x37b;	/* all masked but divide-by-zero */

	(void)arg;
	__asm__ volatile("fninit; fldcw %0; fldz; fld1; fdivp"
			 : : "m"(cw) : "memory");
}

static void do_fwait_pending(void *arg)
{
	(void)arg;
	run_user(x87_divide_by_zero, NULL);
	__asm__ volatile("fwait" ::: "memory");
}

static void test_fwait(void)
{
	struct fault f;
	int vec;

	uint64_t cr0 = read_cr0();

	__asm__ volatile("fninit; fwait" ::: "memory");
	/* Native #MF reporting (not the legacy FERR# line). */
	write_cr0(cr0 | CR0_NE);
	vec = guest_try(do_fwait_pending, NULL, &f);
	check(vec == 16, "fwait with a pending x87 exception: vector %d, "
	      "expected 16 (#MF)", vec);
	__asm__ volatile("fninit" ::: "memory");
	write_cr0(cr0);
}

static uint64_t read_flags(void)
{
	uint64_t f;

	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

static void test_clac_stac(void)
{
	if (!(cpuid(7, 0).ebx & (1u << 20))) {
		gputs("clac/stac: no SMAP in CPUID, skipped\n");
		return;
	}
	__asm__ volatile("stac" ::: "cc");
	check(read_flags() & RFLAGS_AC, "stac: AC clear");
	__asm__ volatile("clac" ::: "cc");
	check(!(read_flags() & RFLAGS_AC), "clac: AC set");
}

static void test_cpuid(void)
{
	struct cpuid_regs base = cpuid(0x40000000, 0);
	uint32_t ecx1 = cpuid(1, 0).ecx, kvm = 0;

	if (base.ebx == 0x4b4d564b && base.eax >= 0x40000001)	/* "KVMK" */
		kvm = cpuid(0x40000001, 0).eax;
	gprintf("emulate: CPUID.1:ECX 0x%x, KVM features 0x%x\n", ecx1, kvm);
	check(!(ecx1 & (1u << 13)), "CPUID shows CX16");
	check(!(kvm & (1u << 7)), "CPUID shows KVM_FEATURE_PV_UNHALT");
	check(!(kvm & (1u << 11)), "CPUID shows KVM_FEATURE_PV_SEND_IPI");
	check(!(kvm & (1u << 13)), "CPUID shows KVM_FEATURE_PV_SCHED_YIELD");
}

extern const char int4_after[];

static void do_int4(void *arg)
{
	(void)arg;
	__asm__ volatile("int $4\n\t.globl int4_after\nint4_after:\n\tnop");
}

extern const char int90_at[];

static void do_int90(void *arg)
{
	(void)arg;
	__asm__ volatile(".globl int90_at\nint90_at:\n\tint $0x90");
}

static void do_xgetbv(void *arg)
{
	uint32_t lo, hi;

	(void)arg;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
}

/* int n from ring 0 is a trap through gate n (here #OF's, which pushes
 * no error code); xgetbv needs CR4.OSXSAVE. */
static void test_int_n_xgetbv(void)
{
	struct fault f;
	int vec = guest_try(do_int4, NULL, &f);

	check(vec == 4, "int $4: vector %d, expected 4", vec);
	check(f.rip == (uint64_t)(uintptr_t)int4_after,
	      "int $4: RIP 0x%llx, expected 0x%llx (after it)",
	      (unsigned long long)f.rip,
	      (unsigned long long)(uintptr_t)int4_after);
	/* Gate 0x90 is not present: #NP(0x90 * 8 + 2) at the int itself. */
	vec = guest_try(do_int90, NULL, &f);
	check(vec == 11 && f.error_code == 0x482 &&
	      f.rip == (uint64_t)(uintptr_t)int90_at,
	      "int $0x90 through a gate not present: vector %d error 0x%llx "
	      "RIP 0x%llx, expected 11 (#NP) 0x482 0x%llx", vec,
	      (unsigned long long)f.error_code, (unsigned long long)f.rip,
	      (unsigned long long)(uintptr_t)int90_at);
	if (read_cr4() & (1ull << 18))
		return;
	vec = guest_try(do_xgetbv, NULL, &f);
	check(vec == 6, "xgetbv without CR4.OSXSAVE: vector %d, expected "
	      "6 (#UD)", vec);
}

static uint64_t line[8] __attribute__((aligned(64)));

static void do_clwb_bad(void *arg)
{
	(void)arg;
	__asm__ volatile(".byte 0x66, 0x0f, 0xae, 0x33" /* clwb (%rbx) */
			 : : "b"(0xffff800000000000ull) : "memory");
}

static void test_cache_ops(void)
{
	struct fault f;
	int vec;

	if (!(cpuid(7, 0).ebx & (1u << 24))) {
		gputs("clwb: not in CPUID, skipped\n");
		return;
	}
	line[0] = 42;
	__asm__ volatile(".byte 0x66, 0x0f, 0xae, 0x33" : : "b"(line)
			 : "memory");
	__asm__ volatile(".byte 0x66, 0x0f, 0xae, 0x3b" : : "b"(line)
			 : "memory");		/* clflushopt (%rbx) */
	check(line[0] == 42, "clwb/clflushopt changed memory");
	vec = guest_try(do_clwb_bad, NULL, &f);
	check(vec == 13 || vec == 14, "clwb of a bad address: vector %d, "
	      "expected #GP or #PF", vec);
}

static void do_movbe_reg(void *arg)
{
	(void)arg;
	__asm__ volatile(".byte 0x0f, 0x38, 0xf0, 0xc0" ::: "rax");
}

/* The register form is #UD whatever CPUID says.  (The memory form is not
 * checked here: on this host KVM's own emulator answers it with #UD,
 * since KVM does not offer MOVBE, though ring 0's CPUID shows it.) */
static void test_movbe(void)
{
	struct fault f;
	int vec = guest_try(do_movbe_reg, NULL, &f);

	check(vec == 6, "movbe with a register source: vector %d, expected "
	      "6 (#UD)", vec);
}

static void do_invpcid(void *arg)
{
	uint64_t desc[2] = { 0, 0 };

	(void)arg;
	__asm__ volatile("invpcid %0, %1" : : "m"(desc), "r"(2ull)
			 : "memory");
}

static void do_rdpru(void *arg)
{
	(void)arg;
	__asm__ volatile(".byte 0x0f, 0x01, 0xfd" : : "c"(0)
			 : "rax", "rdx");
}

/* Without their CPUID bits both are #UD, as on the CPU. */
static void test_ud_without_cpuid(void)
{
	struct fault f;
	int vec;

	if (!(cpuid(7, 0).ebx & (1u << 10))) {
		vec = guest_try(do_invpcid, NULL, &f);
		check(vec == 6, "invpcid without CPUID: vector %d, expected "
		      "6 (#UD)", vec);
	}
	if (cpuid(0x80000000u, 0).eax < 0x80000008u ||
	    !(cpuid(0x80000008u, 0).ebx & (1u << 4))) {
		vec = guest_try(do_rdpru, NULL, &f);
		check(vec == 6, "rdpru without CPUID: vector %d, expected 6 "
		      "(#UD)", vec);
	}
}

int payload_main(const struct hvm_start_info *si)
{
	if (cmdline_has(start_info_cmdline(si), "ring0-emulated"))
		test_cpuid();
	test_int3();
	test_int_n_xgetbv();
	test_cache_ops();
	test_movbe();
	test_ud_without_cpuid();
	test_cmpxchg16b();
	test_popcnt();
	test_fwait();
	test_clac_stac();
	gprintf("emulate: %u failure(s)\n", check_failures());
	return check_failures() ? 1 : 0;
}
