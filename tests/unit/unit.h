/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the Check unit tests: capturing what a function prints
 * on stdout/stderr, temporary files, and the suite runner.  Header-only
 * (static inline) because every check_*.c is its own program.
 */
#ifndef MINIVMM_TESTS_UNIT_H
#define MINIVMM_TESTS_UNIT_H

#include <check.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CAPTURE_MAX	8192

/* Redirects one of our file descriptors (1 or 2) to a temporary file. */
struct capture {
	int fd;
	int saved;
	FILE *tmp;
	char text[CAPTURE_MAX];
};

static inline void capture_start(struct capture *c, int fd)
{
	fflush(stdout);
	fflush(stderr);
	c->fd = fd;
	c->text[0] = '\0';
	c->tmp = tmpfile();
	ck_assert_ptr_nonnull(c->tmp);
	c->saved = dup(fd);
	ck_assert_int_ge(c->saved, 0);
	ck_assert_int_ge(dup2(fileno(c->tmp), fd), 0);
}

/* Restores the descriptor and returns what was written (NUL-terminated). */
static inline const char *capture_end(struct capture *c)
{
	size_t n;

	fflush(stdout);
	fflush(stderr);
	ck_assert_int_ge(dup2(c->saved, c->fd), 0);
	close(c->saved);
	rewind(c->tmp);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->tmp);
	c->text[n] = '\0';
	fclose(c->tmp);
	return c->text;
}

static inline int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Exactly one line, containing must1 and must2 (either may be NULL).  For
 * "bad input gives one clear message" checks. */
static inline void assert_one_line(const char *text, const char *must1,
				   const char *must2)
{
	ck_assert_msg(count_lines(text) == 1,
		      "expected one line of error output, got: \"%s\"", text);
	ck_assert_msg(text[strlen(text) - 1] == '\n',
		      "message not newline-terminated: \"%s\"", text);
	if (must1)
		ck_assert_msg(strstr(text, must1), "\"%s\" lacks \"%s\"",
			      text, must1);
	if (must2)
		ck_assert_msg(strstr(text, must2), "\"%s\" lacks \"%s\"",
			      text, must2);
}

static inline const char *unit_tmpdir(void)
{
	const char *d = getenv("TMPDIR");

	return d && *d ? d : "/tmp";
}

/* Creates a temporary file holding len bytes of data; path receives its
 * name (PATH_MAX bytes).  The caller unlinks it. */
static inline void tmpfile_with(char *path, const void *data, size_t len)
{
	int fd;

	snprintf(path, PATH_MAX, "%s/minivmm-unit-XXXXXX", unit_tmpdir());
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	if (len)
		ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* A sparse temporary file of size bytes (cheap even for gigabytes). */
static inline void tmpfile_sized(char *path, off_t size)
{
	int fd;

	snprintf(path, PATH_MAX, "%s/minivmm-unit-XXXXXX", unit_tmpdir());
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, size), 0);
	close(fd);
}

/* Writes one byte at p in a child process; returns the signal that killed
 * the child, or 0 if the write worked.  For guard pages and read-only maps. */
static inline int poke_in_child(volatile uint8_t *p)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = SIG_DFL };

		/* Die by the signal itself, not by ASan's report of it. */
		sigaction(SIGSEGV, &sa, NULL);
		sigaction(SIGBUS, &sa, NULL);
		*p = 1;
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static inline int unit_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
