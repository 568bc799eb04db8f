// SPDX-License-Identifier: MIT
#include "tools/bench/linux.h"
#include "tools/bench/stats.h"

#include <stdio.h>
#include <string.h>

#define LINUX_TIMEOUT_S	900.0	/* a safety net: a boot here is ~1 min */
#define MAX_BOOTS	20

static const struct {
	const char *row;
	const char *timing;	/* the --timing event (console_marks.c) */
	const char *note;
} marks[] = {
	{ "linux_kernel_entry", "firmware: handoff",
	  "process start to the kernel's entry (firmware handoff)" },
	{ "linux_banner", "console: kernel banner (Linux version)",
	  "process start to the kernel's first console line" },
	{ "linux_run_init", "console: Run /init",
	  "process start to \"Run /init as init process\"" },
	{ "linux_init_line", "console: init's first line",
	  "process start to the init's first line (user space)" },
	{ "linux_verdict", "console: init's verdict",
	  "process start to the init's verdict (user-space checks done)" },
};

#define NMARKS	(sizeof(marks) / sizeof(marks[0]))

unsigned int bench_linux_steps(const struct bench_run *b)
{
	return b->o.linux_kernel ? b->o.linux_repeat : 0;
}

/* One boot; its milestones (ns) into ns[i][*n] when it passed. */
static void boot_once(struct bench_run *b, uint64_t ns[][MAX_BOOTS],
		      size_t *n)
{
	char append[1024], timeout[16];
	char *argv[] = { b->exe, "run", "--kernel", (char *)b->o.linux_kernel,
			 "--initrd", (char *)b->o.linux_initrd, "-m", "128M",
			 "--timing", "--timeout", timeout, "--append", append,
			 NULL };
	double ms[NMARKS];
	struct bench_child ch;

	snprintf(timeout, sizeof(timeout), "%.0f", LINUX_TIMEOUT_S);
	snprintf(append, sizeof(append), "console=ttyS0 earlycon=uart8250,io,"
		 "0x3f8 minivmm.init=check minivmm.cpus=1 %s",
		 b->o.linux_append ? b->o.linux_append : "");
	bench_progress(b, "boot", "linux");
	if (bench_exec(argv, LINUX_TIMEOUT_S + 30, &ch) < 0 ||
	    ch.status != 0) {
		bench_fail_row(bench_new_row(b, "linux_boot", 0, "linux-c1",
					     "minivmm", "boot"), &ch,
			       "Linux boot (init's verdict)");
		b->failed = true;
		bench_child_free(&ch);
		return;
	}
	for (size_t i = 0; i < NMARKS; i++) {
		ms[i] = bench_timing_ms(ch.err, marks[i].timing);
		if (ms[i] < 0 || (i && ms[i] < ms[i - 1])) {
			bench_child_free(&ch);
			return;		/* the row says so if no boot had it */
		}
	}
	for (size_t i = 0; i < NMARKS; i++)
		ns[i][*n] = (uint64_t)(ms[i] * 1e6);
	(*n)++;
	bench_child_free(&ch);
}

void bench_run_linux(struct bench_run *b)
{
	static uint64_t ns[NMARKS][MAX_BOOTS];
	size_t n = 0;

	if (!b->o.linux_kernel)
		return;		/* no Linux rows without --linux-kernel */
	for (unsigned int i = 0; i < b->o.linux_repeat && i < MAX_BOOTS; i++)
		boot_once(b, ns, &n);
	for (size_t i = 0; i < NMARKS; i++)
		bench_boot_row(b, marks[i].row, "linux-c1", ns[i], n,
			       marks[i].note);
}
