// SPDX-License-Identifier: MIT
#include "msr_try.h"
#include "guest.h"

struct msr_io {
	uint32_t index;
	uint64_t value;
};

static void do_rd(void *arg)
{
	struct msr_io *m = arg;

	m->value = rdmsr(m->index);
}

static void do_wr(void *arg)
{
	struct msr_io *m = arg;

	wrmsr(m->index, m->value);
}

int msr_try_rd(uint32_t index, uint64_t *v)
{
	struct msr_io m = { index, 0 };
	int vec = guest_try(do_rd, &m, NULL);

	*v = m.value;
	return vec;
}

int msr_try_wr(uint32_t index, uint64_t v)
{
	struct msr_io m = { index, v };

	return guest_try(do_wr, &m, NULL);
}
