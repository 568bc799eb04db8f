// SPDX-License-Identifier: MIT
/* The pure half of the system-call completion: long-mode IDT gates and
 * the IDT limit, segments from STAR and from GDT descriptors, exception
 * frames, telling a SYSCALL landing from a genuine #PF (and from a jump
 * to the entry point with a forged R11), int n, and the handler's first
 * instruction (what may be skipped). */
#include "tests/unit/unit.h"
#include "vmm/pvm/syscall_decode.h"

/* A gate as the guest library and Linux write them. */
static void make_gate(uint8_t raw[16], uint64_t off, uint16_t sel,
		      unsigned int ist, unsigned int type, unsigned int dpl,
		      bool present)
{
	uint64_t lo = (off & 0xffff) | (uint64_t)sel << 16 |
		      (uint64_t)ist << 32 | (uint64_t)type << 40 |
		      (uint64_t)dpl << 45 | (uint64_t)present << 47 |
		      ((off >> 16) & 0xffff) << 48;
	uint64_t hi = off >> 32;

	memcpy(raw, &lo, 8);
	memcpy(raw + 8, &hi, 8);
}

START_TEST(gates)
{
	uint8_t raw[16];
	struct sc_gate g;

	make_gate(raw, 0xffffffff81a00b40ull, 0x10, 3, 0xe, 0, true);
	sc_gate_decode(raw, &g);
	ck_assert_uint_eq(g.offset, 0xffffffff81a00b40ull);
	ck_assert_uint_eq(g.selector, 0x10);
	ck_assert_uint_eq(g.ist, 3);
	ck_assert_uint_eq(g.type, 0xe);
	ck_assert_uint_eq(g.dpl, 0);
	ck_assert(g.present && sc_gate_usable(&g));
	make_gate(raw, 0x102a80, 0x08, 0, 0xf, 3, true);
	sc_gate_decode(raw, &g);
	ck_assert(sc_gate_usable(&g) && g.dpl == 3 && g.type == 0xf);
	/* the handler: only within the limit, only usable gates */
	ck_assert_uint_eq(sc_gate_handler(raw, 14, 14 * 16 + 15), 0x102a80);
	ck_assert_uint_eq(sc_gate_handler(raw, 14, 14 * 16 + 14), 0);
	ck_assert_uint_eq(sc_gate_handler(raw, 0x80, 0xfff), 0x102a80);
	make_gate(raw, 0x102a80, 0x08, 0, 0xf, 3, false);
	ck_assert_uint_eq(sc_gate_handler(raw, 14, 0xfff), 0);
	make_gate(raw, 0x102a80, 0x08, 0, 0xc, 0, true);	/* call gate */
	sc_gate_decode(raw, &g);
	ck_assert(!sc_gate_usable(&g));
	ck_assert_uint_eq(sc_gate_handler(raw, 14, 0xfff), 0);
	ck_assert_uint_eq(sc_idt_error_code(0x80), 0x402);
}
END_TEST

START_TEST(star_segments)
{
	struct kvm_segment cs, ss;

	/* Linux: __KERNEL_CS 0x10, SYSRET base 0x23 */
	sc_star_segments(0x0023001000000000ull, &cs, &ss);
	ck_assert_uint_eq(cs.selector, 0x10);
	ck_assert_uint_eq(ss.selector, 0x18);
	ck_assert(cs.l && !cs.db && cs.s && cs.present && cs.g);
	ck_assert_uint_eq(cs.type, 0xb);
	ck_assert_uint_eq(cs.dpl, 0);
	ck_assert_uint_eq(cs.base, 0);
	ck_assert_uint_eq(cs.limit, 0xffffffff);
	ck_assert(!ss.l && ss.db && ss.s && ss.present);
	ck_assert_uint_eq(ss.type, 0x3);
	ck_assert_uint_eq(ss.dpl, 0);
	/* the CS selector's RPL is dropped, SS is CS + 8 as given */
	sc_star_segments(0x001b000b00000000ull, &cs, &ss);
	ck_assert_uint_eq(cs.selector, 0x08);
	ck_assert_uint_eq(ss.selector, 0x13);
}
END_TEST

START_TEST(descriptors)
{
	struct kvm_segment s;

	sc_desc_segment(0x00af9b000000ffffull, 0x08, &s);	/* 64-bit code */
	ck_assert_uint_eq(s.selector, 0x08);
	ck_assert(s.l && !s.db && s.g && s.present && s.s);
	ck_assert_uint_eq(s.type, 0xb);
	ck_assert_uint_eq(s.limit, 0xffffffff);
	ck_assert_uint_eq(s.dpl, 0);
	sc_desc_segment(0x00cff3000000ffffull, 0x1b, &s);	/* user data */
	ck_assert(!s.l && s.db && s.g);
	ck_assert_uint_eq(s.dpl, 3);
	ck_assert_uint_eq(s.type, 0x3);			/* accessed */
	/* byte granular, base in three pieces */
	sc_desc_segment(0x12409a345678abcdull, 0x20, &s);
	ck_assert_uint_eq(s.base, 0x12345678);
	ck_assert_uint_eq(s.limit, 0xabcd);
	ck_assert(!s.g && s.db);
}
END_TEST

static const uint64_t star = 0x0023001000000000ull;
static const struct sc_targets linux_msrs = {
	0xffffffff81a00080ull, 0xffffffff81a001c0ull, 0x47700,
};

/* A landing as this host leaves it: #PF, user fetch (0x15), RIP = CR2 =
 * the target, RFLAGS masked by FMASK, R11 the caller's. */
static struct sc_frame landing(uint64_t target)
{
	return (struct sc_frame){ .err = 0x15, .rip = target, .cs = 0x33,
				  .rflags = 0x10002 | 0x44, .rsp = 0x7ffd1000,
				  .ss = 0x2b };
}

START_TEST(landings)
{
	const struct sc_targets *t = &linux_msrs;
	struct sc_frame f = landing(t->lstar);
	uint64_t r11 = 0x246;

	(void)star;
	ck_assert_int_eq(sc_pf_landing(&f, t->lstar, r11, t), SC_SYSCALL64);
	f.err = 0x1d;			/* the host adds RSVD for unmapped */
	ck_assert_int_eq(sc_pf_landing(&f, t->lstar, r11, t), SC_SYSCALL64);
	f.err = 0x4;			/* not present, no I/D */
	ck_assert_int_eq(sc_pf_landing(&f, t->lstar, r11, t), SC_SYSCALL64);
	f = landing(t->cstar);
	f.cs = 0x23;
	ck_assert_int_eq(sc_pf_landing(&f, t->cstar, r11, t),
			 SC_SYSCALL_COMPAT);
	/* genuine: kernel mode, a write, CR2 elsewhere, another RIP */
	f = landing(t->lstar);
	f.cs = 0x10;
	ck_assert_int_eq(sc_pf_landing(&f, t->lstar, r11, t), SC_GENUINE);
	f = landing(t->lstar);
	f.err = 0x7;
	ck_assert_int_eq(sc_pf_landing(&f, t->lstar, r11, t), SC_GENUINE);
	f = landing(t->lstar);
	f.err = 0x11;			/* no user bit */
	ck_assert_int_eq(sc_pf_landing(&f, t->lstar, r11, t), SC_GENUINE);
	f = landing(t->lstar);
	ck_assert_int_eq(sc_pf_landing(&f, 0x1000, r11, t), SC_GENUINE);
	f = landing(0x401000);
	ck_assert_int_eq(sc_pf_landing(&f, 0x401000, r11, t), SC_GENUINE);
	/* no target set: nothing is a landing */
	f = landing(0);
	ck_assert_int_eq(sc_pf_landing(&f, 0, r11,
		&(struct sc_targets){ 0, 0, 0 }), SC_GENUINE);
}
END_TEST

/* A SYSCALL from ring 0 runs in the host's emulator and lands at what KVM
 * holds: at a trap address that is a supervisor fetch fault from CPL 0,
 * to be completed as well; at the guest's own target it never faults. */
START_TEST(ring0_landing)
{
	struct sc_targets t = { 0xffff800000000000ull, 0, 0x700, true };
	struct sc_frame f = { .err = 0x10, .rip = t.lstar, .cs = 0x8,
			      .rflags = 0x10046, .rsp = 0x1016f00,
			      .ss = 0x10 };

	ck_assert_int_eq(sc_pf_landing(&f, t.lstar, 0x246, &t), SC_SYSCALL64);
	f.err = 0x0;			/* not present, no I/D */
	ck_assert_int_eq(sc_pf_landing(&f, t.lstar, 0x246, &t), SC_SYSCALL64);
	f.err = 0x14;			/* a user fetch cannot be from CPL 0 */
	ck_assert_int_eq(sc_pf_landing(&f, t.lstar, 0x246, &t), SC_GENUINE);
	f.err = 0x12;			/* a write */
	ck_assert_int_eq(sc_pf_landing(&f, t.lstar, 0x246, &t), SC_GENUINE);
	f.err = 0x10;
	f.cs = 0x9;			/* CPL 1 */
	ck_assert_int_eq(sc_pf_landing(&f, t.lstar, 0x246, &t), SC_GENUINE);
	f.cs = 0x8;
	t.lstar_trap = false;		/* KVM holds the guest's own target */
	ck_assert_int_eq(sc_pf_landing(&f, t.lstar, 0x246, &t), SC_GENUINE);
	t.lstar_trap = true;		/* a jump: RFLAGS not masked */
	f.rflags = 0x10246;
	ck_assert_int_eq(sc_pf_landing(&f, t.lstar, 0x246, &t), SC_GENUINE);
}
END_TEST

/* A program that jumps to the entry point itself faults there too: its
 * RFLAGS (IF set in ring 3) are not masked, and its R11 may be forged. */
START_TEST(forged_r11)
{
	const struct sc_targets *t = &linux_msrs;
	struct sc_frame f = landing(t->lstar);

	f.rflags = 0x10246;		/* a jump: IF still set */
	ck_assert_int_eq(sc_pf_landing(&f, t->lstar, 0x3246, t), SC_GENUINE);
	ck_assert_int_eq(sc_pf_landing(&f, t->lstar, 0x246, t), SC_GENUINE);
	f = landing(t->lstar);		/* masked, but R11 disagrees */
	ck_assert_int_eq(sc_pf_landing(&f, t->lstar, 0x247, t), SC_GENUINE);
	/* FMASK 0: RFLAGS must equal R11 (RF aside) */
	f.rflags = 0x10202;
	ck_assert_int_eq(sc_pf_landing(&f, t->lstar, 0x202,
		&(struct sc_targets){ t->lstar, 0, 0 }), SC_SYSCALL64);
	ck_assert_int_eq(sc_pf_landing(&f, t->lstar, 0x3202,
		&(struct sc_targets){ t->lstar, 0, 0 }), SC_GENUINE);
	ck_assert_uint_eq(sc_syscall_rflags(0x10246, 0x47700), 0x46);
	ck_assert_uint_eq(sc_syscall_rflags(0x0, 0), 0x2);
}
END_TEST

START_TEST(frames_and_int)
{
	const uint64_t q[6] = { 0x15, 0x401000, 0x33, 0x246, 0x7ff0, 0x2b };
	struct sc_frame f;

	sc_frame_parse(q, true, &f);
	ck_assert_uint_eq(f.err, 0x15);
	ck_assert_uint_eq(f.rip, 0x401000);
	ck_assert_uint_eq(f.ss, 0x2b);
	sc_frame_parse(q + 1, false, &f);
	ck_assert_uint_eq(f.err, 0);
	ck_assert_uint_eq(f.rip, 0x401000);
	ck_assert_uint_eq(f.rsp, 0x7ff0);
	ck_assert_int_eq(sc_int_vector((const uint8_t[]){ 0xcd, 0x80 }), 0x80);
	ck_assert_int_eq(sc_int_vector((const uint8_t[]){ 0xcd, 0x03 }), 3);
	ck_assert_int_eq(sc_int_vector((const uint8_t[]){ 0x0f, 0x0b }), -1);
	ck_assert_int_eq(sc_int_vector((const uint8_t[]){ 0xcc, 0x80 }), -1);
}
END_TEST

static enum sc_first_insn first(const char *hex, unsigned int *len)
{
	uint8_t buf[16];
	size_t n = 0;
	char *end;

	for (const char *p = hex; *p && n < sizeof(buf); p = end)
		buf[n++] = (uint8_t)strtoul(p, &end, 16);
	return sc_first_insn(buf, n, len);
}

START_TEST(first_insns)
{
	static const struct {
		const char *hex;
		enum sc_first_insn k;
		unsigned int len;
	} t[] = {
		{ "90", SC_SKIP, 1 },
		{ "66 90", SC_SKIP, 2 },
		{ "48 90", SC_SKIP, 2 },
		{ "41 90", SC_STEP, 0 },		/* xchg r8d, eax */
		{ "0f 1f 00", SC_SKIP, 3 },		/* Linux's ASM_CLAC */
		{ "0f 1f 40 00", SC_SKIP, 4 },
		{ "0f 1f 44 00 00", SC_SKIP, 5 },
		{ "66 0f 1f 44 00 00", SC_SKIP, 6 },
		{ "0f 1f 80 00 00 00 00", SC_SKIP, 7 },
		{ "0f 1f 84 00 00 00 00 00", SC_SKIP, 8 },
		{ "66 2e 0f 1f 84 00 00 00 00 00", SC_SKIP, 10 },
		{ "0f 1f 05 00 00 00 00", SC_SKIP, 7 },	/* rip-relative */
		{ "0f 1f 04 25 00 00 00 00", SC_SKIP, 8 }, /* SIB, no base */
		{ "f3 0f 1e fa", SC_SKIP, 4 },		/* endbr64 */
		{ "0f 01 ca", SC_SKIP_CLAC, 3 },
		{ "0f 01 cb", SC_SKIP_STAC, 3 },
		{ "0f 1f 48 00", SC_STEP, 0 },		/* 0f 1f /1: not a nop */
		{ "6a 00", SC_STEP, 0 },		/* push $0 */
		{ "f3 90", SC_STEP, 0 },		/* pause: stepped */
		{ "0f 1f", SC_STEP, 0 },		/* truncated */
		{ "0f 1f 84 00 00", SC_STEP, 0 },
		{ "f3 0f 1e", SC_STEP, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		unsigned int len = 99;

		ck_assert_msg(first(t[i].hex, &len) == t[i].k, "%s", t[i].hex);
		if (t[i].k != SC_STEP)
			ck_assert_msg(len == t[i].len, "%s: length %u", t[i].hex,
				      len);
	}
}
END_TEST

static unsigned int push(const char *hex, int *reg, uint64_t *imm)
{
	uint8_t buf[16];
	size_t n = 0;
	char *end;

	for (const char *p = hex; *p && n < sizeof(buf); p = end)
		buf[n++] = (uint8_t)strtoul(p, &end, 16);
	return sc_push_insn(buf, n, reg, imm);
}

START_TEST(push_insns)
{
	static const struct {
		const char *hex;
		unsigned int len;
		int reg;
		uint64_t imm;
	} t[] = {
		{ "6a 00", 2, -1, 0 },			/* the test library's */
		{ "6a 0e", 2, -1, 14 },
		{ "6a ff", 2, -1, ~0ull },		/* sign-extended */
		{ "68 00 00 00 80", 5, -1, 0xffffffff80000000ull },
		{ "68 78 56 34 12", 5, -1, 0x12345678 },
		{ "50", 1, 0, 0 },			/* rax */
		{ "54", 1, 4, 0 },			/* rsp */
		{ "57", 1, 7, 0 },			/* rdi */
		{ "41 50", 2, 8, 0 },			/* r8 */
		{ "41 57", 2, 15, 0 },			/* r15 */
		{ "48 53", 2, 3, 0 },			/* REX.W: still rbx */
		{ "6a", 0, -1, 0 },			/* truncated */
		{ "68 00 00 00", 0, -1, 0 },
		{ "41", 0, -1, 0 },
		{ "66 50", 0, -1, 0 },			/* 16-bit push: stepped */
		{ "41 90", 0, -1, 0 },
		{ "58", 0, -1, 0 },			/* pop */
		{ "ff 35 00 00 00 00", 0, -1, 0 },	/* push m64: stepped */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int reg = 99;
		uint64_t imm = 99;
		unsigned int len = push(t[i].hex, &reg, &imm);

		ck_assert_msg(len == t[i].len, "%s: length %u", t[i].hex, len);
		if (!len)
			continue;
		ck_assert_msg(reg == t[i].reg, "%s: reg %d", t[i].hex, reg);
		if (reg < 0)
			ck_assert_msg(imm == t[i].imm, "%s: imm %llx", t[i].hex,
				      (unsigned long long)imm);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("syscall_decode");
	TCase *t = tcase_create("core");

	tcase_add_test(t, gates);
	tcase_add_test(t, star_segments);
	tcase_add_test(t, descriptors);
	tcase_add_test(t, landings);
	tcase_add_test(t, ring0_landing);
	tcase_add_test(t, forged_r11);
	tcase_add_test(t, frames_and_int);
	tcase_add_test(t, first_insns);
	tcase_add_test(t, push_insns);
	suite_add_tcase(s, t);
	return unit_run(s);
}
