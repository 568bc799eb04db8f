// SPDX-License-Identifier: MIT
#include "tools/test/infra.h"
#include "vmm/kvm.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MSG_MAX		512

extern char **environ;

static char component[64];
static char message[MSG_MAX];

int infra_error(const char *comp, const char *fmt, ...)
{
	char buf[MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "minivmm: test: %s\n", buf);
	if (!message[0]) {
		snprintf(component, sizeof(component), "minivmm-test/%s", comp);
		snprintf(message, sizeof(message), "%s", buf);
	}
	return -1;
}

void infra_write(int status)
{
	const char *path = getenv("TEST_INFRASTRUCTURE_FAILURE_FILE");
	FILE *f;

	if (status < TEST_STATUS_USAGE || !path || !*path)
		return;
	if (!message[0]) {
		snprintf(component, sizeof(component), "minivmm-test");
		snprintf(message, sizeof(message), "exited with status %d "
			 "(see its output)", status);
	}
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "minivmm: test: cannot write "
			"TEST_INFRASTRUCTURE_FAILURE_FILE '%s': %s\n", path,
			strerror(errno));
		return;
	}
	fprintf(f, "%s\n%s\n", component, message);
	fclose(f);
}

/* The last line of what fd (a temporary file) holds, into buf. */
static void last_line(FILE *f, char *buf, size_t size)
{
	char line[MSG_MAX];

	buf[0] = 0;
	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (line[0] != '\n') {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, size, "%s", line);
		}
}

int infra_check_kvm(void)
{
	FILE *tmp = tmpfile();
	char why[MSG_MAX];
	struct kvm kvm;
	int saved, r;

	/* kvm_open says what is missing on stderr: keep that line */
	fflush(stderr);
	saved = tmp ? dup(2) : -1;
	if (saved < 0 || dup2(fileno(tmp), 2) < 0) {
		if (tmp)
			fclose(tmp);
		if (saved >= 0)
			close(saved);
		r = kvm_open(&kvm);
		snprintf(why, sizeof(why), "see the line above");
	} else {
		r = kvm_open(&kvm);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		last_line(tmp, why, sizeof(why));
		fclose(tmp);
	}
	if (r == 0) {
		kvm_close(&kvm);
		return 0;
	}
	return infra_error("kvm", "this host cannot run VMs: %s", why);
}

int infra_check_vmm(const char *vmm)
{
	char *const argv[] = { (char *)vmm, "--version", NULL };
	posix_spawn_file_actions_t fa;
	int status = 0, rc;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	rc = posix_spawn(&pid, vmm, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return infra_error("vmm", "cannot start minivmm '%s': %s", vmm,
				   strerror(rc));
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return infra_error("vmm", "minivmm '%s' does not start: `%s "
			   "--version` %s %d", vmm, vmm, WIFEXITED(status) ?
			   "exited with status" : "was killed by signal",
			   WIFEXITED(status) ? WEXITSTATUS(status) :
			   WTERMSIG(status));
}
