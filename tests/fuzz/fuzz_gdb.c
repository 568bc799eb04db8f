// SPDX-License-Identifier: MIT
/*
 * The gdb stub's packet parser and command handler (vmm/gdb/): the input
 * is the byte stream a client sends, fed to the framing parser as the
 * stub feeds it; every complete packet is answered by gdb_handle over a
 * fake target (64 KiB of RAM mapped at a high linear address, two vCPUs),
 * as if the guest were stopped.
 *
 * Checked:
 *   - memory is touched only inside RAM (the fake's callbacks), and a
 *     reply always frames within its buffer;
 *   - breakpoints are invisible: what the debugger reads (all of RAM,
 *     physical) is exactly what RAM holds once every breakpoint is
 *     removed;
 *   - the breakpoint table never exceeds its size, and the parser never
 *     hands over a packet longer than GDB_PACKET_MAX.
 */
#include "tests/fuzz/fuzz_util.h"
#include "vmm/gdb/proto.h"

#define RAM	0x10000
#define VA_BASE	0xffff800000000000ull

static uint8_t ram[RAM];
/* RAM's bytes at the start of every input, computed once: an
 * instrumented 64 KiB loop per input was most of the target's time. */
static uint8_t pristine[RAM];
static struct gdb_kvm_state cpu[2];

static int f_get(void *ctx, unsigned int tid, struct gdb_kvm_state *s)
{
	(void)ctx;
	FZ_CHECK(tid < 2, "get on thread %u", tid);
	*s = cpu[tid];
	return 0;
}

static int f_set(void *ctx, unsigned int tid, const struct gdb_kvm_state *s)
{
	(void)ctx;
	FZ_CHECK(tid < 2, "set on thread %u", tid);
	cpu[tid] = *s;
	return 0;
}

static int f_translate(void *ctx, unsigned int tid, uint64_t la,
		       uint64_t *gpa)
{
	(void)ctx;
	FZ_CHECK(tid < 2, "translate on thread %u", tid);
	if (la < VA_BASE || la - VA_BASE >= RAM)
		return -1;
	*gpa = la - VA_BASE;
	return 0;
}

static bool in_ram(uint64_t gpa, size_t len)
{
	return gpa < RAM && len <= RAM - gpa;
}

static int f_read(void *ctx, uint64_t gpa, void *buf, size_t len)
{
	(void)ctx;
	if (!in_ram(gpa, len))
		return -1;
	memcpy(buf, ram + gpa, len);
	return 0;
}

static int f_write(void *ctx, uint64_t gpa, const void *buf, size_t len)
{
	(void)ctx;
	if (!in_ram(gpa, len))
		return -1;
	memcpy(ram + gpa, buf, len);
	return 0;
}

static const char *f_cannot_step(void *ctx, unsigned int tid)
{
	(void)ctx;
	return tid == 1 ? "thread 2 is in ring 3" : NULL;
}

static const struct gdb_target target = {
	.nthreads = 2, .get = f_get, .set = f_set, .translate = f_translate,
	.mem = { f_read, f_write, NULL }, .cannot_step = f_cannot_step,
};

static struct gdb_session s;
static struct gdb_rx rx;
static struct gdb_tx tx;
static char out[sizeof(tx.buf) + 8];
static uint8_t view[RAM];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	for (int i = 0; i < RAM; i++)
		pristine[i] = (uint8_t)(i * 7);
	return 0;
}

static void answer(void)
{
	size_t n;

	FZ_CHECK(rx.len <= GDB_PACKET_MAX, "packet of %zu bytes", rx.len);
	gdb_handle(&s, rx.buf, &tx);
	n = gdb_tx_frame(&tx, out, sizeof(out));
	FZ_CHECK(n <= sizeof(out), "frame of %zu bytes", n);
	FZ_CHECK(s.bk.nsw <= GDB_SW_MAX, "%u breakpoints", s.bk.nsw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	memcpy(ram, pristine, RAM);
	memset(cpu, 0, sizeof(cpu));
	cpu[0].regs.rip = VA_BASE + 0x100;
	gdb_session_init(&s, &target);
	gdb_rx_init(&rx);
	for (size_t i = 0; i < size; i++)
		if (gdb_rx_byte(&rx, data[i]) == GDB_RX_PACKET)
			answer();
	s.phys = true;
	FZ_CHECK(gdb_read_mem(&s, 0, view, RAM) == RAM, "RAM unreadable");
	gdb_sw_clear(&s.bk);
	FZ_CHECK(!memcmp(view, ram, RAM), "a breakpoint showed through "
		 "a read, or stayed behind");
	return 0;
}
