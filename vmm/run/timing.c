// SPDX-License-Identifier: MIT
#include "vmm/run/timing.h"
#include "firmware/lib/abi.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t timing_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* Process start from /proc/self/stat (field 22, clock ticks since boot),
 * so "since process start" includes exec and dynamic linking.  Falls back to
 * now if /proc is unreadable. */
static uint64_t process_start_ns(void)
{
	char buf[1024], *p;
	unsigned long long ticks;
	uint64_t start, boot_ns, age, now;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n;
	int field;

	if (!f)
		return timing_now_ns();
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');	/* comm may contain spaces */
	if (!p)
		return timing_now_ns();
	for (field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1)
		return timing_now_ns();
	/* The start is in CLOCK_BOOTTIME ticks; the age carries over to
	 * CLOCK_MONOTONIC (they differ by suspend time only). */
	start = ticks * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
	boot_ns = clock_ns(CLOCK_BOOTTIME);
	age = boot_ns > start ? boot_ns - start : 0;
	now = timing_now_ns();
	return now > age ? now - age : now;
}

void timing_init(struct timing *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	t->start_ns = process_start_ns();
}

static void add(struct timing *t, int code, const char *what)
{
	uint64_t now = timing_now_ns();

	pthread_mutex_lock(&t->lock);
	if (t->n < TIMING_MAX_EVENTS)
		t->ev[t->n++] = (struct timing_event){
			.ns = now - t->start_ns, .code = code, .what = what,
		};
	else
		t->dropped++;
	pthread_mutex_unlock(&t->lock);
}

void timing_event(struct timing *t, const char *what)
{
	add(t, -1, what);
}

void timing_milestone(struct timing *t, uint8_t code)
{
	add(t, code, timing_milestone_name(code));
}

const char *timing_milestone_name(uint8_t code)
{
	switch (code) {
	case ABI_MS_FW_ENTRY:		return "first guest instruction";
	case ABI_MS_FW_PROTECTED:	return "firmware: protected mode";
	case ABI_MS_FW_LONG:		return "firmware: long mode (C)";
	case ABI_MS_FW_FDT:		return "firmware: machine parsed";
	case ABI_MS_FW_PCI:		return "firmware: PCI assigned";
	case ABI_MS_FW_MTRR:		return "firmware: MTRRs set";
	case ABI_MS_FW_TABLES:		return "firmware: tables built";
	case ABI_MS_FW_HANDOFF:		return "firmware: handoff";
	case ABI_MS_PAYLOAD_ENTRY:	return "payload entry";
	case ABI_MS_PAYLOAD_MAIN:	return "payload main";
	case ABI_MS_INIT_START:		return "init started";
	default:			return "milestone";
	}
}

uint64_t timing_find(struct timing *t, int code)
{
	uint64_t ns = 0;

	pthread_mutex_lock(&t->lock);
	for (int i = 0; i < t->n; i++) {
		if (t->ev[i].code == code) {
			ns = t->ev[i].ns;
			break;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return ns;
}

void timing_print(struct timing *t, FILE *out)
{
	pthread_mutex_lock(&t->lock);
	fprintf(out, "--- minivmm timing (ms since process start) ---\n");
	for (int i = 0; i < t->n; i++) {
		const struct timing_event *e = &t->ev[i];

		if (e->code >= 0)
			fprintf(out, "%10.3f  [0x%02x] %s\n", e->ns / 1e6,
				e->code, e->what);
		else
			fprintf(out, "%10.3f  %s\n", e->ns / 1e6, e->what);
	}
	if (t->dropped)
		fprintf(out, "(%llu later events not recorded)\n",
			(unsigned long long)t->dropped);
	pthread_mutex_unlock(&t->lock);
	fflush(out);
}
