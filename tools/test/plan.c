// SPDX-License-Identifier: MIT
#include "tools/test/plan.h"
#include "vmm/cli/cpuid_flags.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_MEMORY	"128M"		/* QEMU's default, the suite's */

static void skip(struct plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->skip[0])
		return;		/* the first reason stands */
	va_start(ap, fmt);
	vsnprintf(p->skip, sizeof(p->skip), fmt, ap);
	va_end(ap);
}

/* A reason minivmm cannot run it; QEMU still may. */
static void vmm_skip(struct plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->vmm_skip[0])
		return;
	va_start(ap, fmt);
	vsnprintf(p->vmm_skip, sizeof(p->vmm_skip), fmt, ap);
	va_end(ap);
}

static void note(struct plan *p, const char *fmt, ...)
{
	size_t n = strlen(p->notes);
	va_list ap;

	if (n + 2 >= sizeof(p->notes))
		return;
	if (n)
		p->notes[n++] = ';', p->notes[n++] = ' ';
	va_start(ap, fmt);
	vsnprintf(p->notes + n, sizeof(p->notes) - n, fmt, ap);
	va_end(ap);
}

static void add_cpuid(struct plan *p, char sign, const char *name)
{
	size_t n = strlen(p->cpuid);

	snprintf(p->cpuid + n, sizeof(p->cpuid) - n, "%s%c%s", n ? "," : "",
		 sign, name);
}

/* -cpu MODEL,prop,...: +flag/-flag minivmm knows go to --cpuid. */
static void map_cpu(struct plan *p, const char *v)
{
	char buf[512], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", v);
	tok = strtok_r(buf, ",", &save);
	if (tok && strcmp(tok, "host"))
		note(p, "-cpu %s: minivmm offers the host's CPUID", tok);
	while ((tok = strtok_r(NULL, ",", &save))) {
		if ((tok[0] == '+' || tok[0] == '-') &&
		    cpuid_feature_find(tok + 1))
			add_cpuid(p, tok[0], tok + 1);
		else
			note(p, "-cpu property %s dropped", tok);
	}
}

static bool builtin_device(const char *v)
{
	static const char *const dev[] = { "pc-testdev", "pci-testdev",
					   "isa-debug-exit" };
	size_t n = strcspn(v, ",");

	for (size_t i = 0; i < sizeof(dev) / sizeof(dev[0]); i++)
		if (n == strlen(dev[i]) && !strncmp(v, dev[i], n))
			return true;
	return false;
}

/* One option with its value (v may be NULL when it has none). */
static void map_option(struct plan *p, const char *o, const char *v)
{
	if (!strcmp(o, "-cpu")) {
		map_cpu(p, v);
	} else if (!strcmp(o, "-m")) {
		snprintf(p->memory, sizeof(p->memory), "%s", v);
	} else if (!strcmp(o, "-append")) {
		/* as on QEMU's command line, the last -append wins */
		snprintf(p->append, sizeof(p->append), "%s", v);
		p->has_append = true;
	} else if (!strcmp(o, "-smp")) {
		snprintf(p->smp, sizeof(p->smp), "%.*s", (int)strcspn(v, ","),
			 v);
	} else if (!strcmp(o, "-device")) {
		if (!builtin_device(v))
			vmm_skip(p, "-device %s: minivmm has no such device", v);
	} else if (!strcmp(o, "-machine") || !strcmp(o, "-M")) {
		if (strcmp(v, "pit=off"))
			vmm_skip(p, "-machine %s: minivmm has one machine (pc-like, "
			     "in-kernel irqchip)", v);
		else
			note(p, "-machine pit=off dropped (it matters to AVIC)");
	} else if (!strcmp(o, "-accel") && strcmp(v, "kvm")) {
		vmm_skip(p, "-accel %s: minivmm is KVM only", v);
	} else if (!strcmp(o, "-global") || !strcmp(o, "-overcommit")) {
		note(p, "%s %s dropped", o, v);
	} else if (strcmp(o, "-accel") && strcmp(o, "-enable-kvm")) {
		vmm_skip(p, "QEMU option %s has no minivmm equivalent", o);
	}
}

static bool takes_value(const char *o)
{
	return strcmp(o, "-enable-kvm") != 0;
}

/* Devices first, so a missing device is the reason given (the suite's
 * premature-failure SKIP names it too). */
static void map_params(struct plan *p)
{
	const struct words *w = &p->params;

	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < w->n; i++) {
			const char *o = w->w[i];
			bool dev = !strcmp(o, "-device");

			if (o[0] != '-') {
				vmm_skip(p, "QEMU parameter '%s' is not an "
					 "option", o);
				return;
			}
			if (takes_value(o) && i + 1 >= w->n) {
				vmm_skip(p, "QEMU option %s without a value",
					 o);
				return;
			}
			if (dev == (pass == 0))
				map_option(p, o, takes_value(o) ?
					   w->w[i + 1] : NULL);
			i += takes_value(o);
		}
	}
}

/* check = path=value ...: each file's first line must equal value. */
static void check_files(struct plan *p, const struct plan_opts *o)
{
	struct words w;
	char err[WORDS_ERR_MAX], buf[256];

	if (words_split(p->t->check, &w, err) < 0) {
		skip(p, "check: %s", err);
		words_free(&w);
		return;
	}
	for (int i = 0; i < w.n && !p->skip[0]; i++) {
		char *eq = strchr(w.w[i], '=');

		if (!eq) {
			skip(p, "check '%s' is not path=value", w.w[i]);
			break;
		}
		*eq = 0;
		if (!o->read_file || o->read_file(w.w[i], buf, sizeof(buf)) < 0 ||
		    strcmp(buf, eq + 1))
			skip(p, "%s not equal to %s", w.w[i], eq + 1);
	}
	words_free(&w);
}

static void decide(struct plan *p, const struct plan_opts *o)
{
	const struct manifest_test *t = p->t;
	char err[WORDS_ERR_MAX];
	struct stat st;

	if (manifest_has_word(t->groups, "nodefault") && !o->named)
		skip(p, "test marked as manual run only");
	if (t->arch[0] && strcmp(t->arch, "x86_64"))
		skip(p, "%s only", t->arch);
	if (t->accel[0] && strcmp(t->accel, "kvm"))
		skip(p, "%s only", t->accel);
	if (t->disabled_if[0])
		skip(p, "disabled_if needs a shell: %s", t->disabled_if);
	if (t->poweroff[0] && strcmp(t->poweroff, "pass"))
		skip(p, "poweroff '%s': expected pass", t->poweroff);
	p->poweroff_pass = !strcmp(t->poweroff, "pass");
	if (t->snapshot[0] && strcmp(t->snapshot, "port"))
		skip(p, "snapshot '%s': expected port", t->snapshot);
	p->snapshot = !strcmp(t->snapshot, "port");
	if (t->check[0])
		check_files(p, o);
	if (!t->file[0])
		skip(p, "no file");
	else if (stat(p->kernel, &st) < 0 || !S_ISREG(st.st_mode))
		skip(p, "Test file '%s' not found", p->kernel);
	if (words_split(t->test_args, &p->args, err) < 0)
		skip(p, "test_args: %s", err);
	words_join(&p->args, 0, p->test_append, sizeof(p->test_append));
	memcpy(p->append, p->test_append, sizeof(p->append));
	p->has_append = p->args.n > 0;
	if (words_split(t->qemu_params, &p->params, err) < 0)
		skip(p, "qemu_params: %s", err);
	if (words_split(t->minivmm_params, &p->extra, err) < 0)
		skip(p, "minivmm_params: %s", err);
	map_params(p);
}

static void push(char **argv, int *n, char *s)
{
	if (*n < PLAN_ARGV_MAX - 1)
		argv[(*n)++] = s;
	argv[*n] = NULL;
}

#define PUSH(argv, n, s)	push(argv, n, (char *)(s))

static void vmm_argv(struct plan *p, const struct plan_opts *o)
{
	char **a = p->vmm_argv;
	int n = 0;

	PUSH(a, &n, o->vmm);
	PUSH(a, &n, "run");
	PUSH(a, &n, "--kernel");
	PUSH(a, &n, p->kernel);
	PUSH(a, &n, "--cpus");
	PUSH(a, &n, p->smp);
	PUSH(a, &n, "--memory");
	PUSH(a, &n, p->memory);
	PUSH(a, &n, "--exit-style");
	PUSH(a, &n, "qemu");
	PUSH(a, &n, "--pci-testdev");	/* the suite's x86/run adds it */
	PUSH(a, &n, "on");
	PUSH(a, &n, "--timeout");
	PUSH(a, &n, p->timeout_s);
	if (o->env_file) {
		PUSH(a, &n, "--initrd");
		PUSH(a, &n, o->env_file);
	}
	if (p->has_append) {
		PUSH(a, &n, "--append");
		PUSH(a, &n, p->append);
	}
	if (p->cpuid[0]) {
		PUSH(a, &n, "--cpuid");
		PUSH(a, &n, p->cpuid);
	}
	for (int i = 0; i < p->extra.n; i++)
		PUSH(a, &n, p->extra.w[i]);
}

/* As x86/run builds it, with -smp and -append after -kernel. */
static void qemu_argv(struct plan *p, const struct plan_opts *o)
{
	static const char *const fixed[] = {
		"--no-reboot", "-nodefaults", "-global",
		"kvm-pit.lost_tick_policy=discard", "-device", "pc-testdev",
		"-device", "isa-debug-exit,iobase=0xf4,iosize=0x4", "-display",
		"none", "-serial", "stdio", "-device", "pci-testdev",
		"-machine", "accel=kvm", "-kernel",
	};
	char **a = p->qemu_argv;
	int n = 0;

	PUSH(a, &n, o->qemu);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		PUSH(a, &n, fixed[i]);
	PUSH(a, &n, p->kernel);
	PUSH(a, &n, "-smp");
	PUSH(a, &n, p->qemu_smp);
	if (p->args.n) {
		PUSH(a, &n, "-append");
		PUSH(a, &n, p->test_append);
	}
	for (int i = 0; i < p->params.n; i++)
		PUSH(a, &n, p->params.w[i]);
	if (o->env_file) {
		PUSH(a, &n, "-initrd");
		PUSH(a, &n, o->env_file);
	}
	for (int i = 0; i < p->qextra.n; i++)
		PUSH(a, &n, p->qextra.w[i]);
}

void plan_make(const struct manifest_test *t, const struct plan_opts *o,
	       struct plan *p)
{
	char err[WORDS_ERR_MAX];

	memset(p, 0, sizeof(*p));
	p->t = t;
	p->timeout = o->timeout > 0 ? o->timeout :
		     t->timeout > 0 ? t->timeout : MANIFEST_DEFAULT_TIMEOUT;
	snprintf(p->kernel, sizeof(p->kernel), "%s/%s",
		 o->kernel_dir ? o->kernel_dir : ".", t->file);
	snprintf(p->smp, sizeof(p->smp), "%u", t->smp);
	snprintf(p->memory, sizeof(p->memory), "%s", DEFAULT_MEMORY);
	decide(p, o);
	snprintf(p->qemu_smp, sizeof(p->qemu_smp), "%u", t->smp);
	snprintf(p->timeout_s, sizeof(p->timeout_s), "%g", p->timeout);
	if (p->skip[0])
		return;
	if (!p->vmm_skip[0])
		vmm_argv(p, o);
	if (o->qemu && words_split(o->qemu_extra ? o->qemu_extra : "",
				   &p->qextra, err) == 0)
		qemu_argv(p, o);
}

void plan_free(struct plan *p)
{
	words_free(&p->args);
	words_free(&p->params);
	words_free(&p->extra);
	words_free(&p->qextra);
}
