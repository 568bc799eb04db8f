// SPDX-License-Identifier: MIT
/*
 * minivmm test's input on hostile text: the unittests.cfg parser, the
 * shell-word splitter on every value, and what each entry means for a run
 * (plan_make).  Checked: a failed parse leaves an empty manifest and a
 * one-line message; a parsed one has valid, unique names, smp in 1..255,
 * non-negative timeouts and every value terminated; a plan is either a
 * SKIP with a reason or argument vectors that end in NULL and never hold
 * NULL before it.
 */
#include "tests/fuzz/fuzz_util.h"
#include "tools/test/manifest.h"
#include "tools/test/plan.h"
#include "tools/test/words.h"

static int no_file(const char *path, char *buf, unsigned long size)
{
	(void)path;
	if (size)
		buf[0] = 0;
	return -1;
}

static void check_argv(char *const *argv)
{
	int i = 0;

	for (; i < PLAN_ARGV_MAX && argv[i]; i++)
		FZ_CHECK(strlen(argv[i]) < 65536, "argument %d too long", i);
	FZ_CHECK(i < PLAN_ARGV_MAX, "argv not terminated");
}

static void check_test(const struct manifest *m, int i)
{
	const struct manifest_test *t = &m->t[i];
	struct plan_opts o = { .kernel_dir = "/nonexistent", .vmm = "/mv",
			       .qemu = (i & 1) ? "/q" : NULL,
			       .qemu_extra = "-cpu host", .env_file = "/env",
			       .named = i & 2, .read_file = no_file };
	struct plan *p = malloc(sizeof(*p));
	struct words w;
	char err[WORDS_ERR_MAX];

	FZ_CHECK(t->name[0] && strlen(t->name) < MANIFEST_NAME_MAX &&
		 manifest_find(m, t->name) == i, "bad or duplicate name");
	FZ_CHECK(t->smp >= 1 && t->smp <= MANIFEST_SMP_MAX, "smp %u", t->smp);
	FZ_CHECK(t->timeout >= 0, "timeout %g", t->timeout);
	FZ_CHECK(t->file && t->test_args && t->qemu_params && t->groups,
		 "a value left NULL");
	if (words_split(t->qemu_params, &w, err) < 0)
		FZ_CHECK(memchr(err, 0, sizeof(err)) && err[0], "no reason");
	words_free(&w);
	FZ_CHECK(p, "malloc");
	plan_make(t, &o, p);
	FZ_CHECK(memchr(p->skip, 0, sizeof(p->skip)) &&
		 memchr(p->notes, 0, sizeof(p->notes)), "unterminated text");
	/* the kernel never exists here: every entry is a SKIP */
	FZ_CHECK(p->skip[0] && !p->vmm_argv[0], "ran without a kernel");
	check_argv(p->vmm_argv);
	check_argv(p->qemu_argv);
	plan_free(p);
	free(p);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest m;
	char err[MANIFEST_ERR_MAX];

	if (manifest_parse((const char *)data, size, "fuzz.cfg", &m, err) < 0) {
		FZ_CHECK(!m.n && !m.t, "failed parse kept tests");
		FZ_CHECK(memchr(err, 0, sizeof(err)) && err[0] &&
			 !strchr(err, '\n'), "bad message");
		return 0;
	}
	for (int i = 0; i < m.n && i < 64; i++)
		check_test(&m, i);
	manifest_free(&m);
	return 0;
}
