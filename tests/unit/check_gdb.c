// SPDX-License-Identifier: MIT
/* The gdb stub's protocol without a VM (vmm/gdb/): framing (checksums,
 * escapes, interrupts, the size limit), the register file and target.xml,
 * memory through a fake page table (breakpoints invisible to reads,
 * writes under a breakpoint), breakpoint and watchpoint slots and the
 * KVM_SET_GUEST_DEBUG state they make, threads, vCont, monitor commands,
 * and the refusals a hostile client gets. */
#include "tests/unit/unit.h"
#include "vmm/gdb/proto.h"

#define RAM	0x10000
#define VA_BASE	0xffff800000000000ull	/* maps to GPA 0 */

static uint8_t ram[RAM];
static struct gdb_kvm_state cpu[2];
static const char *step_refusal;

static int f_get(void *ctx, unsigned int tid, struct gdb_kvm_state *s)
{
	(void)ctx;
	if (tid >= 2)
		return -1;
	*s = cpu[tid];
	return 0;
}

static int f_set(void *ctx, unsigned int tid, const struct gdb_kvm_state *s)
{
	(void)ctx;
	if (tid >= 2)
		return -1;
	cpu[tid] = *s;
	return 0;
}

static int f_translate(void *ctx, unsigned int tid, uint64_t la,
		       uint64_t *gpa)
{
	(void)ctx;
	(void)tid;
	if (la < VA_BASE || la - VA_BASE >= RAM)
		return -1;
	*gpa = la - VA_BASE;
	return 0;
}

static int f_read(void *ctx, uint64_t gpa, void *buf, size_t len)
{
	(void)ctx;
	if (gpa >= RAM || len > RAM - gpa)
		return -1;
	memcpy(buf, ram + gpa, len);
	return 0;
}

static int f_write(void *ctx, uint64_t gpa, const void *buf, size_t len)
{
	(void)ctx;
	if (gpa >= RAM || len > RAM - gpa)
		return -1;
	memcpy(ram + gpa, buf, len);
	return 0;
}

static const char *f_cannot_step(void *ctx, unsigned int tid)
{
	(void)ctx;
	(void)tid;
	return step_refusal;
}

static const struct gdb_target target = {
	.nthreads = 2, .get = f_get, .set = f_set, .translate = f_translate,
	.mem = { f_read, f_write, NULL }, .cannot_step = f_cannot_step,
};
static struct gdb_session s;
static struct gdb_tx tx;

static void setup(void)
{
	for (int i = 0; i < RAM; i++)
		ram[i] = (uint8_t)i;
	memset(cpu, 0, sizeof(cpu));
	cpu[0].regs.rip = VA_BASE + 0x100;
	cpu[0].regs.rax = 0x1122334455667788ull;
	cpu[0].sregs.cs.selector = 0x8;
	cpu[0].sregs.cr0 = 0x80000011;
	cpu[1].regs.rip = VA_BASE + 0x200;
	step_refusal = NULL;
	gdb_session_init(&s, &target);
}

/* The reply to pkt, NUL-ended (escapes left as sent). */
static const char *ask(const char *pkt, enum gdb_action *act)
{
	enum gdb_action a = gdb_handle(&s, pkt, &tx);

	if (act)
		*act = a;
	tx.buf[tx.len] = 0;
	return tx.buf;
}

static enum gdb_rx_event feed(struct gdb_rx *rx, const char *bytes)
{
	enum gdb_rx_event e = GDB_RX_NONE;

	for (const char *p = bytes; *p; p++) {
		e = gdb_rx_byte(rx, (uint8_t)*p);
		if (e != GDB_RX_NONE)
			return e;
	}
	return e;
}

START_TEST(framing)
{
	static struct gdb_rx rx;
	char out[64];
	size_t n;

	gdb_rx_init(&rx);
	ck_assert_int_eq(feed(&rx, "$g#67"), GDB_RX_PACKET);
	ck_assert_str_eq(rx.buf, "g");
	ck_assert_int_eq(feed(&rx, "$g#68"), GDB_RX_BAD_CHECKSUM);
	ck_assert_int_eq(feed(&rx, "$g#zz"), GDB_RX_BAD_CHECKSUM);
	ck_assert_int_eq(feed(&rx, "\x03"), GDB_RX_INTERRUPT);
	ck_assert_int_eq(feed(&rx, "+"), GDB_RX_ACK);
	ck_assert_int_eq(feed(&rx, "-"), GDB_RX_NACK);
	/* noise, then a packet restarted in the middle */
	ck_assert_int_eq(feed(&rx, "xyz$abc$m0,1#fa"), GDB_RX_PACKET);
	ck_assert_str_eq(rx.buf, "m0,1");
	/* "}]" is an escaped '}' (0x7d ^ 0x20 = 0x5d) */
	ck_assert_int_eq(feed(&rx, "$X}]#32"), GDB_RX_PACKET);
	ck_assert_str_eq(rx.buf, "X}");
	/* a NUL inside is refused whole */
	ck_assert_int_eq(feed(&rx, "$a} #81"), GDB_RX_BAD_CHECKSUM);
	gdb_tx_reset(&tx);
	gdb_tx_str(&tx, "a$b#c}d*");
	n = gdb_tx_frame(&tx, out, sizeof(out));
	out[n] = 0;
	ck_assert_str_eq(out, "$a}\x04" "b}\x03" "c}]d}\x0a#ec");
}
END_TEST

START_TEST(too_long)
{
	static struct gdb_rx rx;
	enum gdb_rx_event e = GDB_RX_NONE;

	gdb_rx_init(&rx);
	gdb_rx_byte(&rx, '$');
	for (int i = 0; i < GDB_PACKET_MAX + 100; i++)
		ck_assert_int_eq(gdb_rx_byte(&rx, 'a'), GDB_RX_NONE);
	gdb_rx_byte(&rx, '#');
	gdb_rx_byte(&rx, '0');
	e = gdb_rx_byte(&rx, '0');
	ck_assert_int_eq(e, GDB_RX_TOO_LONG);
	ck_assert_int_eq(feed(&rx, "$g#67"), GDB_RX_PACKET);	/* recovers */
}
END_TEST

START_TEST(registers)
{
	const char *r = ask("g", NULL);
	char want[64];

	ck_assert_uint_eq(strlen(r), 2 * gdb_regs_size());
	ck_assert(!strncmp(r, "8877665544332211", 16));	/* rax */
	snprintf(want, sizeof(want), "%s", ask("p10", NULL));
	ck_assert_str_eq(want, "000100000080ffff");	/* rip, LE */
	ck_assert_str_eq(ask("p12", NULL), "08000000");	/* cs */
	ck_assert_str_eq(ask("p3b", NULL), "1100008000000000");	/* cr0 */
	ck_assert_str_eq(ask("P0=efbeadde00000000", NULL), "OK");
	ck_assert_uint_eq(cpu[0].regs.rax, 0xdeadbeef);
	ck_assert(!strncmp(ask("P3b=0000000000000000", NULL), "E.", 2));
	ck_assert(!strncmp(ask("P12=10000000", NULL), "E.", 2));
	ck_assert(!strncmp(ask("p41", NULL), "E.", 2));	/* 65: none */
	ck_assert(!strncmp(ask("P0=12", NULL), "E.", 2));
	ck_assert(!strncmp(ask("G00", NULL), "E.", 2));
	/* G with the file as read (control registers unchanged) is fine */
	{
		char g[2 * 1024 + 2] = "G";

		strcat(g, ask("g", NULL));
		ck_assert_str_eq(ask(g, NULL), "OK");
	}
	ck_assert_str_eq(ask("Hg2", NULL), "OK");
	ck_assert_str_eq(ask("p10", NULL), "000200000080ffff");
	ck_assert(!strncmp(ask("Hg3", NULL), "E.", 2));
	ck_assert(strstr(gdb_target_xml(), "org.gnu.gdb.i386.core"));
	ck_assert(strstr(gdb_target_xml(), "name=\"efer\""));
}
END_TEST

START_TEST(memory_and_breakpoints)
{
	struct kvm_guest_debug dbg;
	enum gdb_action a;

	ck_assert_str_eq(ask("mffff800000000010,4", NULL), "10111213");
	/* across the end of RAM: a short read */
	ck_assert_str_eq(ask("mffff80000000fffe,4", NULL), "feff");
	ck_assert_str_eq(ask("m0,4", NULL), "E14");	/* not mapped */
	ck_assert_str_eq(ask("Z0,ffff800000000020,1", NULL), "OK");
	ck_assert_uint_eq(ram[0x20], 0xcc);
	ck_assert_str_eq(ask("mffff800000000020,2", NULL), "2021");
	ck_assert_str_eq(ask("Mffff800000000020,2:aabb", NULL), "OK");
	ck_assert_uint_eq(ram[0x20], 0xcc);	/* still ours */
	ck_assert_uint_eq(ram[0x21], 0xbb);
	ck_assert_str_eq(ask("mffff800000000020,1", NULL), "aa");
	gdb_bkpts_debug(&s.bk, false, &dbg);
	ck_assert(dbg.control & KVM_GUESTDBG_USE_SW_BP);
	gdb_sw_lift(&s.bk);			/* a snapshot */
	ck_assert_uint_eq(ram[0x20], 0xaa);
	gdb_sw_restore(&s.bk);
	ck_assert_uint_eq(ram[0x20], 0xcc);
	ck_assert_str_eq(ask("z0,ffff800000000020,1", NULL), "OK");
	ck_assert_uint_eq(ram[0x20], 0xaa);
	ck_assert(!strncmp(ask("z0,ffff800000000020,1", NULL), "E.", 2));
	ck_assert(!strncmp(ask("Z0,0,1", NULL), "E.", 2));
	/* physical mode */
	ask("qRcmd,70687973", NULL);
	ck_assert_str_eq(ask("m10,2", NULL), "1011");
	ask("qRcmd,76697274", NULL);
	ck_assert_str_eq(ask("m10,2", NULL), "E14");
	/* debug registers */
	ck_assert_str_eq(ask("Z2,1000,4", NULL), "OK");
	ck_assert_str_eq(ask("Z1,2000,1", NULL), "OK");
	ck_assert(!strncmp(ask("Z2,1001,4", NULL), "E.", 2));	/* align */
	ck_assert(!strncmp(ask("Z2,1000,3", NULL), "E.", 2));	/* length */
	ck_assert_str_eq(ask("Z4,3000,8", NULL), "OK");
	ck_assert_str_eq(ask("Z3,4000,1", NULL), "OK");
	ck_assert(!strncmp(ask("Z4,5000,1", NULL), "E.", 2));	/* full */
	gdb_bkpts_debug(&s.bk, true, &dbg);
	ck_assert(dbg.control & KVM_GUESTDBG_USE_HW_BP);
	ck_assert(dbg.control & KVM_GUESTDBG_SINGLESTEP);
	ck_assert_uint_eq(dbg.arch.debugreg[0], 0x1000);
	/* slot 0: write, 4 bytes: R/W 01, LEN 11; slot 1: execute */
	ck_assert_uint_eq((dbg.arch.debugreg[7] >> 16) & 0xf, 0xd);
	ck_assert_uint_eq((dbg.arch.debugreg[7] >> 20) & 0xf, 0x0);
	ck_assert_uint_eq(dbg.arch.debugreg[7] & 0xff, 0xaa);
	ck_assert_int_eq(gdb_hw_hit(&s.bk, 0x4), 2);
	ck_assert_str_eq(ask("z2,1000,4", NULL), "OK");
	ck_assert_int_eq(gdb_hw_hit(&s.bk, 0x1), -1);
	ck_assert_str_eq(ask("Z5,0,1", &a), "");	/* unsupported type */
}
END_TEST

START_TEST(run_control)
{
	enum gdb_action a;
	struct gdb_stop st = { .tid = 1, .signal = 5,
			       .kind = GDB_STOP_WATCH, .wtype = GDB_WP_WRITE,
			       .addr = 0x1000 };

	ck_assert_str_eq(ask("?", NULL), "T05thread:1;");
	ck_assert_str_eq(ask("qfThreadInfo", NULL), "m1,2");
	ck_assert_str_eq(ask("qsThreadInfo", NULL), "l");
	ck_assert_str_eq(ask("T2", NULL), "OK");
	ck_assert(!strncmp(ask("T3", NULL), "E.", 2));
	ck_assert_str_eq(ask("vCont?", NULL), "vCont;c;C;s;S");
	ask("vCont;c", &a);
	ck_assert_int_eq(a, GDB_ACT_CONTINUE);
	ask("vCont;s:2;c", &a);
	ck_assert_int_eq(a, GDB_ACT_STEP);
	ck_assert_uint_eq(s.action_tid, 1);
	ask("vCont;c:3", &a);
	ck_assert_int_eq(a, GDB_ACT_REPLY);
	ck_assert(!strncmp(tx.buf, "E.", 2));
	ask("s", &a);
	ck_assert_int_eq(a, GDB_ACT_STEP);
	ck_assert_uint_eq(s.action_tid, 0);
	step_refusal = "ring 3 here";
	ck_assert_str_eq(ask("vCont;s:1", &a), "E.ring 3 here");
	ck_assert_int_eq(a, GDB_ACT_REPLY);
	ask("c", &a);
	ck_assert_int_eq(a, GDB_ACT_CONTINUE);
	ask("cffff800000000300", &a);
	ck_assert_uint_eq(cpu[0].regs.rip, VA_BASE + 0x300);
	ask("D", &a);
	ck_assert_int_eq(a, GDB_ACT_DETACH);
	ask("k", &a);
	ck_assert_int_eq(a, GDB_ACT_KILL);
	gdb_stop_reply(&s, &st, &tx);
	tx.buf[tx.len] = 0;
	ck_assert_str_eq(tx.buf, "T05thread:2;watch:1000;");
	ck_assert_str_eq(ask("qC", NULL), "QC2");
}
END_TEST

START_TEST(queries)
{
	const char *r;

	r = ask("qSupported:multiprocess+;swbreak+", NULL);
	ck_assert(strstr(r, "PacketSize=4000"));
	ck_assert(strstr(r, "qXfer:features:read+"));
	r = ask("qXfer:features:read:target.xml:0,a", NULL);
	ck_assert_str_eq(r, "m<?xml vers");
	r = ask("qXfer:features:read:target.xml:fffff,10", NULL);
	ck_assert_str_eq(r, "l");
	ck_assert(!strncmp(ask("qXfer:features:read:x.xml:0,10", NULL),
			   "E.", 2));
	ck_assert_str_eq(ask("qThreadExtraInfo,2", NULL),
			 "764350552031");	/* "vCPU 1" */
	ck_assert_str_eq(ask("QStartNoAckMode", NULL), "OK");
	ck_assert(s.no_ack);
	ck_assert_str_eq(ask("vMustReplyEmpty", NULL), "");
	ck_assert_str_eq(ask("qAttached", NULL), "1");
	ck_assert(!strncmp(ask("qRcmd,zz", NULL), "E.", 2));
	ck_assert_str_eq(ask("!", NULL), "");
}
END_TEST

static Suite *gdb_suite(void)
{
	Suite *su = suite_create("gdb");
	TCase *tc = tcase_create("protocol");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, framing);
	tcase_add_test(tc, too_long);
	tcase_add_test(tc, registers);
	tcase_add_test(tc, memory_and_breakpoints);
	tcase_add_test(tc, run_control);
	tcase_add_test(tc, queries);
	suite_add_tcase(su, tc);
	return su;
}

int main(void)
{
	return unit_run(gdb_suite());
}
