// SPDX-License-Identifier: MIT
/* The console: the Ctrl-A escape filter, and output buffering to a file,
 * a pipe and a terminal. */
#include "tests/unit/unit.h"
#include "vmm/console/console.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

#define CTRL_A	"\x01"

static struct console con;

static void setup(void)
{
	ck_assert_int_eq(console_open(&con, CONSOLE_NONE, NULL), 0);
}

static enum console_input filter(const char *in, char *out, size_t *n)
{
	return console_filter(&con, (const uint8_t *)in, strlen(in),
			      (uint8_t *)out, n);
}

/* Filters in; expects OK and exactly want (want_len bytes) out. */
static void passes(const char *in, const char *want, size_t want_len)
{
	char out[64];
	size_t n = 99;

	ck_assert_int_eq(filter(in, out, &n), CONSOLE_INPUT_OK);
	ck_assert_uint_eq(n, want_len);
	ck_assert_mem_eq(out, want, want_len);
}

START_TEST(plain_bytes)
{
	passes("hello\r", "hello\r", 6);
	passes("", "", 0);
	passes("\x03\x04\x1b[A", "\x03\x04\x1b[A", 5);	/* ^C ^D, arrows */
}
END_TEST

START_TEST(ctrl_a_x_quits)
{
	char out[64];
	size_t n = 99;

	ck_assert_int_eq(filter(CTRL_A "x", out, &n), CONSOLE_INPUT_QUIT);
	ck_assert_uint_eq(n, 0);
	/* Bytes before the escape are still delivered. */
	ck_assert_int_eq(filter("ab" CTRL_A "xcd", out, &n),
			 CONSOLE_INPUT_QUIT);
	ck_assert_uint_eq(n, 2);
	ck_assert_mem_eq(out, "ab", 2);
	ck_assert_int_eq(filter(CTRL_A "X", out, &n), CONSOLE_INPUT_QUIT);
}
END_TEST

START_TEST(ctrl_a_ctrl_a_sends_one)
{
	passes(CTRL_A CTRL_A, CTRL_A, 1);
	passes("a" CTRL_A CTRL_A "b", "a" CTRL_A "b", 3);
	/* After a doubled Ctrl-A the escape is over: 'x' is just 'x'. */
	passes(CTRL_A CTRL_A "x", CTRL_A "x", 2);
	passes(CTRL_A CTRL_A CTRL_A CTRL_A, CTRL_A CTRL_A, 2);
}
END_TEST

START_TEST(other_escapes_dropped)
{
	passes(CTRL_A "q", "", 0);
	passes("a" CTRL_A "hb", "ab", 2);
	passes(CTRL_A "\r", "", 0);
}
END_TEST

START_TEST(escape_across_reads)
{
	char out[64];
	size_t n;

	passes("ab" CTRL_A, "ab", 2);
	ck_assert_int_eq(filter("x", out, &n), CONSOLE_INPUT_QUIT);
	ck_assert_uint_eq(n, 0);
	passes(CTRL_A, "", 0);
	passes(CTRL_A "z", CTRL_A "z", 2);
	passes(CTRL_A, "", 0);
	passes("c", "", 0);		/* unknown escape, dropped */
	passes("x", "x", 1);		/* escape over */
}
END_TEST

/* ---- output ---- */

static void out(const char *s)
{
	console_write(&con, (const uint8_t *)s, strlen(s));
}

static void out_n(char c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		console_write(&con, (const uint8_t *)&c, 1);
}

/* Whatever can be read from fd without blocking. */
static size_t drain(int fd, char *buf, size_t max)
{
	size_t got = 0;
	ssize_t r;

	while (got < max && (r = read(fd, buf + got, max - got)) > 0)
		got += (size_t)r;
	return got;
}

static off_t file_size(int fd)
{
	struct stat st;

	ck_assert_int_eq(fstat(fd, &st), 0);
	return st.st_size;
}

START_TEST(file_line_buffered)
{
	char path[PATH_MAX], buf[64];
	int fd;

	tmpfile_with(path, "old contents", 12);
	ck_assert_int_eq(console_open(&con, CONSOLE_FILE, path), 0);
	fd = open(path, O_RDONLY);
	unlink(path);		/* nothing left behind if an assert fails */
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(file_size(fd), 0);	/* truncated */
	out("boot");
	ck_assert_int_eq(file_size(fd), 0);	/* no newline yet */
	out("ing\nrest");
	ck_assert_int_eq(file_size(fd), 8);
	console_close(&con);
	ck_assert_int_eq(file_size(fd), 12);	/* flushed at close */
	ck_assert_int_eq(pread(fd, buf, sizeof(buf), 0), 12);
	ck_assert_mem_eq(buf, "booting\nrest", 12);
	close(fd);
}
END_TEST

START_TEST(pipe_line_buffered)
{
	static char big[2 * CONSOLE_BUF];
	char fdpath[64];
	int p[2];

	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	ck_assert_int_eq(fcntl(p[1], F_SETFL, 0), 0);	/* writer blocks */
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", p[1]);
	ck_assert_int_eq(console_open(&con, CONSOLE_FILE, fdpath), 0);
	out("abc");
	ck_assert_uint_eq(drain(p[0], big, sizeof(big)), 0);
	out("\n");
	ck_assert_uint_eq(drain(p[0], big, sizeof(big)), 4);
	ck_assert_mem_eq(big, "abc\n", 4);
	/* A line longer than the buffer is written as the buffer fills. */
	out_n('z', CONSOLE_BUF + 10);
	ck_assert_uint_eq(drain(p[0], big, sizeof(big)), CONSOLE_BUF);
	console_flush(&con);
	ck_assert_uint_eq(drain(p[0], big, sizeof(big)), 10);
	ck_assert_mem_eq(big, "zzzzzzzzzz", 10);
	/* A burst of short lines all arrive, in order. */
	out("1\n2\n3\n");
	ck_assert_uint_eq(drain(p[0], big, sizeof(big)), 6);
	ck_assert_mem_eq(big, "1\n2\n3\n", 6);
	console_close(&con);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(none_discards)
{
	char big[16];
	int p[2], saved;

	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	/* Even with stdout redirected, "none" writes nothing anywhere. */
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	ck_assert_int_ge(dup2(p[1], STDOUT_FILENO), 0);
	ck_assert_int_eq(console_open(&con, CONSOLE_NONE, NULL), 0);
	out("lost\n");
	console_flush(&con);
	console_close(&con);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	ck_assert_uint_eq(drain(p[0], big, sizeof(big)), 0);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(stdio_to_pipe)
{
	char buf[16];
	int p[2], saved;

	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	ck_assert_int_ge(dup2(p[1], STDOUT_FILENO), 0);
	ck_assert_int_eq(console_open(&con, CONSOLE_STDIO, NULL), 0);
	ck_assert(!con.out_is_tty);
	out("$ ");
	ck_assert_uint_eq(drain(p[0], buf, sizeof(buf)), 0);
	out("ok\n");
	ck_assert_uint_eq(drain(p[0], buf, sizeof(buf)), 5);
	ck_assert_mem_eq(buf, "$ ok\n", 5);
	console_close(&con);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* On a terminal a prompt without a newline must show at once. */
START_TEST(stdio_to_tty_unbuffered)
{
	struct pollfd pfd;
	char buf[16];
	int master, slave, saved;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	ck_assert_int_ge(master, 0);
	ck_assert_int_eq(grantpt(master), 0);
	ck_assert_int_eq(unlockpt(master), 0);
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	ck_assert_int_ge(slave, 0);
	fcntl(master, F_SETFL, O_NONBLOCK);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	ck_assert_int_ge(dup2(slave, STDOUT_FILENO), 0);
	ck_assert_int_eq(console_open(&con, CONSOLE_STDIO, NULL), 0);
	ck_assert(con.out_is_tty);
	out("# ");
	/* The pty hands data on asynchronously: wait for it (generously;
	 * buffered output would never arrive). */
	pfd = (struct pollfd){ .fd = master, .events = POLLIN };
	ck_assert_int_eq(poll(&pfd, 1, 5000), 1);
	ck_assert_uint_eq(drain(master, buf, sizeof(buf)), 2);
	ck_assert_mem_eq(buf, "# ", 2);
	console_close(&con);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(slave);
	close(master);
}
END_TEST

START_TEST(open_fails_cleanly)
{
	struct capture cap;

	capture_start(&cap, STDERR_FILENO);
	ck_assert_int_eq(console_open(&con, CONSOLE_FILE,
				      "/nonexistent/dir/guest.log"), -1);
	capture_end(&cap);
	assert_one_line(cap.text, "--console", "/nonexistent/dir/guest.log");
	out("nothing\n");	/* a failed console is still safe to use */
	console_close(&con);
}
END_TEST

static char watched[64];
static size_t nwatched;

static void watch(void *ctx, const uint8_t *buf, size_t n)
{
	(void)ctx;
	for (size_t i = 0; i < n && nwatched < sizeof(watched); i++)
		watched[nwatched++] = (char)buf[i];
}

/* The UART and virtio-console each have their own line: a line from one
 * never lands inside a line of the other; the watcher sees both, in the
 * order written. */
START_TEST(sources_keep_lines)
{
	char path[PATH_MAX], buf[64];
	int fd;

	tmpfile_with(path, "", 0);
	ck_assert_int_eq(console_open(&con, CONSOLE_FILE, path), 0);
	fd = open(path, O_RDONLY);
	unlink(path);
	ck_assert_int_ge(fd, 0);
	nwatched = 0;
	con.watch = watch;
	out("uart ");
	console_write_virtio(&con, (const uint8_t *)"hvc0 line\nhv", 12);
	out("line\n");
	console_write_virtio(&con, (const uint8_t *)"c0\n", 3);
	console_close(&con);
	ck_assert_int_eq(pread(fd, buf, sizeof(buf), 0), 25);
	ck_assert_mem_eq(buf, "hvc0 line\nuart line\nhvc0\n", 25);
	ck_assert_uint_eq(nwatched, 25);
	ck_assert_mem_eq(watched, "uart hvc0 line\nhvline\nc0\n", 25);
	close(fd);
}
END_TEST

static size_t fake_space(void *ctx)
{
	return *(size_t *)ctx;
}

static size_t fake_receive(void *ctx, const uint8_t *b, size_t n)
{
	(void)b;
	*(size_t *)ctx -= n;
	return n;
}

START_TEST(input_target)
{
	size_t room = 10;

	struct chardev_target *in = &con.input[CONSOLE_SRC_UART];

	ck_assert_ptr_null(in->space);
	console_set_input(&con, CONSOLE_SRC_UART, (struct chardev_target){
		fake_space, fake_receive, &room });
	ck_assert_uint_eq(in->space(in->ctx), 10);
	ck_assert_uint_eq(in->receive(in->ctx, (const uint8_t *)"abc", 3), 3);
	ck_assert_uint_eq(room, 7);
}
END_TEST

/* Which device stdin feeds, given the host ends (console_attach). */
static enum console_src stdin_of(struct vmm_config *cfg, bool *reads)
{
	struct capture err;
	enum console_src src;

	ck_assert_int_eq(console_open(&con, CONSOLE_NONE, NULL), 0);
	con.in_fd = 0;		/* as if stdin were a terminal */
	capture_start(&err, STDERR_FILENO);	/* a pty says its path */
	ck_assert_int_eq(console_attach(&con, cfg), 0);
	capture_end(&err);
	src = con.stdin_src;
	*reads = con.in_fd >= 0;
	console_close(&con);
	return src;
}

START_TEST(stdin_routing)
{
	struct vmm_config cfg;
	bool reads;

	cli_defaults(&cfg);
	ck_assert_int_eq(stdin_of(&cfg, &reads), CONSOLE_SRC_UART);
	ck_assert(reads);
	cfg.console_virtio = cfg.stdin_virtio = true;	/* --console-device */
	ck_assert_int_eq(stdin_of(&cfg, &reads), CONSOLE_SRC_VIRTIO);
	cfg.stdin_virtio = false;	/* --virtio-console stdio only */
	cfg.vconsole_given = true;
	ck_assert_int_eq(stdin_of(&cfg, &reads), CONSOLE_SRC_UART);
	cfg.serial[0] = (struct serial_opt){ SERIAL_PTY, NULL };
	cfg.nserial = 1;	/* COM1 on a pty: the next one on stdio */
	ck_assert_int_eq(stdin_of(&cfg, &reads), CONSOLE_SRC_VIRTIO);
	ck_assert(reads);
	cfg.vconsole = (struct serial_opt){ SERIAL_NONE, NULL };
	cfg.com2 = true;	/* COM2 stdio (the default of a restore) */
	ck_assert_int_eq(stdin_of(&cfg, &reads), CONSOLE_SRC_COM2);
	cfg.com2 = false;	/* nothing on stdio: stdin left alone */
	stdin_of(&cfg, &reads);
	ck_assert(!reads);
}
END_TEST

static size_t seen_bytes;

static void count_seen(void *ctx, const uint8_t *buf, size_t n)
{
	(void)ctx;
	(void)buf;
	seen_bytes += n;
}

/* COM1 on a file of its own, COM2 on the shared console: each output
 * where it belongs, both seen by the watcher and counted. */
START_TEST(own_output_routed)
{
	char shared[] = "/tmp/check_console_sh.XXXXXX";
	char own[] = "/tmp/check_console_own.XXXXXX";
	int fs = mkstemp(shared), fo = mkstemp(own);
	struct vmm_config cfg;
	char buf[64];
	ssize_t n;

	ck_assert_int_ge(fs, 0);
	ck_assert_int_ge(fo, 0);
	cli_defaults(&cfg);
	cfg.serial[0] = (struct serial_opt){ SERIAL_FILE, own };
	cfg.nserial = 2;
	cfg.com2 = true;
	ck_assert_int_eq(console_open(&con, CONSOLE_FILE, shared), 0);
	ck_assert_int_eq(console_attach(&con, &cfg), 0);
	con.watch = count_seen;
	seen_bytes = 0;
	console_write(&con, (const uint8_t *)"com1\n", 5);
	console_write_com2(&con, (const uint8_t *)"com2\n", 5);
	ck_assert_uint_eq(seen_bytes, 10);
	ck_assert_uint_eq(con.written, 10);
	console_close(&con);
	n = read(fo, buf, sizeof(buf));
	ck_assert_int_eq(n, 5);
	ck_assert_mem_eq(buf, "com1\n", 5);
	n = read(fs, buf, sizeof(buf));
	ck_assert_int_eq(n, 5);
	ck_assert_mem_eq(buf, "com2\n", 5);
	close(fs);
	close(fo);
	unlink(shared);
	unlink(own);
}
END_TEST

static Suite *console_suite(void)
{
	Suite *s = suite_create("console");
	TCase *tc = tcase_create("filter");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, plain_bytes);
	tcase_add_test(tc, ctrl_a_x_quits);
	tcase_add_test(tc, ctrl_a_ctrl_a_sends_one);
	tcase_add_test(tc, other_escapes_dropped);
	tcase_add_test(tc, escape_across_reads);
	suite_add_tcase(s, tc);

	tc = tcase_create("output");
	tcase_add_test(tc, file_line_buffered);
	tcase_add_test(tc, pipe_line_buffered);
	tcase_add_test(tc, none_discards);
	tcase_add_test(tc, stdio_to_pipe);
	tcase_add_test(tc, stdio_to_tty_unbuffered);
	tcase_add_test(tc, open_fails_cleanly);
	tcase_add_test(tc, sources_keep_lines);
	suite_add_tcase(s, tc);

	tc = tcase_create("input");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, input_target);
	suite_add_tcase(s, tc);

	tc = tcase_create("host ends");
	tcase_add_test(tc, stdin_routing);
	tcase_add_test(tc, own_output_routed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(console_suite());
}
