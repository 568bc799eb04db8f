// SPDX-License-Identifier: MIT
/* A console device's own host end (vmm/console/chardev.h): a unix socket
 * (mode 0600, one client at a time, output kept for the next one, input
 * only as far as the device has room, a client that leaves mid-write), a
 * pty (raw, no echo), a file, the bounded backlog, and open failures. */
#include "tests/unit/unit.h"
#include "vmm/console/chardev.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

static char dir[64], sock[128];
static struct chardev cd;
static size_t room;			/* the fake device's free space */
static char got[512];
static size_t ngot;

static size_t fake_space(void *ctx)
{
	(void)ctx;
	return room;
}

static size_t fake_receive(void *ctx, const uint8_t *b, size_t n)
{
	(void)ctx;
	ck_assert_uint_le(n, room);
	memcpy(got + ngot, b, n);
	ngot += n;
	room -= n;
	return n;
}

static void setup(void)
{
	strcpy(dir, "/tmp/check_chardev.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sock, sizeof(sock), "%s/s", dir);
	room = 64;
	ngot = 0;
}

static void teardown(void)
{
	unlink(sock);
	rmdir(dir);
}

static void open_unix(void)
{
	struct serial_opt o = { SERIAL_UNIX, sock };

	ck_assert_int_eq(chardev_open(&cd, &o, "serial"), 0);
	cd.in = (struct chardev_target){ fake_space, fake_receive, NULL };
}

/* One round of the main loop's poll for cd. */
static void loop_once(int wait_ms)
{
	struct pollfd p;
	int tmo = wait_ms;

	chardev_poll_add(&cd, &p, &tmo);
	if (tmo > wait_ms)
		tmo = wait_ms;
	if (p.fd >= 0)
		ck_assert_int_ge(poll(&p, 1, tmo), 0);
	chardev_poll_service(&cd, &p);
}

static int connect_client(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, sock);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	loop_once(1000);		/* accepted */
	ck_assert_int_ge(cd.fd, 0);
	return fd;
}

static void write_str(const char *s)
{
	chardev_write(&cd, (const uint8_t *)s, strlen(s));
}

/* Reads exactly n bytes from fd (waiting up to a second each). */
static void read_exactly(int fd, char *buf, size_t n)
{
	size_t at = 0;

	while (at < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		ck_assert_int_eq(poll(&p, 1, 1000), 1);
		r = read(fd, buf + at, n - at);
		ck_assert_int_gt(r, 0);
		at += (size_t)r;
	}
}

START_TEST(unix_output_and_mode)
{
	struct stat st;
	char buf[16];
	int fd;

	open_unix();
	ck_assert_int_eq(stat(sock, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	write_str("early ");	/* no client yet: kept */
	fd = connect_client();
	write_str("late");
	read_exactly(fd, buf, 10);
	ck_assert_mem_eq(buf, "early late", 10);
	close(fd);
	chardev_close(&cd);
	ck_assert_int_eq(access(sock, F_OK), -1);	/* removed */
}
END_TEST

START_TEST(unix_input_and_reconnect)
{
	char buf[8];
	int fd;

	open_unix();
	fd = connect_client();
	ck_assert_int_eq(write(fd, "abc", 3), 3);
	loop_once(1000);
	ck_assert_uint_eq(ngot, 3);
	ck_assert_mem_eq(got, "abc", 3);
	/* A second client waits while the first is there. */
	close(fd);
	loop_once(1000);		/* the hang-up */
	ck_assert_int_eq(cd.fd, -1);
	write_str("between");
	fd = connect_client();
	ck_assert_uint_eq(cd.clients, 2);
	read_exactly(fd, buf, 7);
	ck_assert_mem_eq(buf, "between", 7);
	close(fd);
	chardev_close(&cd);
}
END_TEST

/* A client types more than the device holds and leaves at once: all of
 * it arrives as the device makes room, then the client is dropped; the
 * loop does not spin on the hang-up meanwhile. */
START_TEST(unix_input_after_hangup)
{
	char flood[100];
	struct pollfd p;
	int fd, tmo = -1;

	open_unix();
	fd = connect_client();
	for (size_t i = 0; i < sizeof(flood); i++)
		flood[i] = (char)('0' + i % 10);
	ck_assert_int_eq(write(fd, flood, sizeof(flood)), sizeof(flood));
	close(fd);
	room = 16;
	for (int i = 0; i < 50 && cd.fd >= 0; i++) {
		loop_once(100);
		if (room == 0 && cd.fd >= 0) {
			loop_once(100);	/* the hang-up, input still there */
			ck_assert(cd.hup);
			tmo = -1;
			chardev_poll_add(&cd, &p, &tmo);
			ck_assert_int_lt(p.fd, 0);
			ck_assert_int_le(tmo, 10);
			room = 16;	/* the guest read its FIFO */
		}
	}
	ck_assert_uint_eq(ngot, sizeof(flood));
	ck_assert_mem_eq(got, flood, sizeof(flood));
	ck_assert_int_eq(cd.fd, -1);
	chardev_close(&cd);
}
END_TEST

/* A full device: no reading (the socket holds the flood), a short poll
 * timeout to look again; as room comes, only that much is taken. */
START_TEST(unix_input_waits_for_room)
{
	static char flood[4096];
	struct pollfd p;
	int fd, tmo = -1;

	open_unix();
	fd = connect_client();
	memset(flood, 'x', sizeof(flood));
	ck_assert_int_eq(write(fd, flood, sizeof(flood)), sizeof(flood));
	room = 0;
	chardev_poll_add(&cd, &p, &tmo);
	ck_assert(!(p.events & POLLIN));
	ck_assert_int_le(tmo, 10);
	room = 5;
	loop_once(1000);
	ck_assert_uint_eq(ngot, 5);
	ck_assert_uint_eq(room, 0);
	close(fd);
	chardev_close(&cd);
}
END_TEST

/* The client leaves while output goes to it: no SIGPIPE, the write never
 * blocks, the client is dropped and the next one let in. */
START_TEST(unix_client_leaves_mid_write)
{
	static uint8_t big[1 << 20];
	int fd;

	signal(SIGPIPE, SIG_DFL);	/* a SIGPIPE would end the test */
	open_unix();
	fd = connect_client();
	close(fd);
	chardev_write(&cd, big, sizeof(big));
	chardev_write(&cd, big, 100);
	ck_assert_uint_le(cd.len, CHARDEV_BACKLOG);
	loop_once(1000);
	ck_assert_int_eq(cd.fd, -1);
	fd = connect_client();
	close(fd);
	chardev_close(&cd);
}
END_TEST

/* Without a client the newest CHARDEV_BACKLOG bytes stay, in order. */
START_TEST(backlog_bounded)
{
	static uint8_t data[CHARDEV_BACKLOG + 1000];
	static char back[CHARDEV_BACKLOG];
	int fd;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	open_unix();
	chardev_write(&cd, data, 500);
	chardev_write(&cd, data + 500, sizeof(data) - 500);
	ck_assert_uint_eq(cd.len, CHARDEV_BACKLOG);
	ck_assert_uint_eq(cd.dropped, 1000);
	fd = connect_client();
	while (cd.len)
		loop_once(100);
	read_exactly(fd, back, sizeof(back));
	ck_assert_mem_eq(back, data + 1000, sizeof(back));
	close(fd);
	chardev_close(&cd);
}
END_TEST

START_TEST(pty_raw_both_ways)
{
	struct serial_opt o = { SERIAL_PTY, NULL };
	struct capture err;
	char want[160], buf[8];
	int s;

	capture_start(&err, STDERR_FILENO);
	ck_assert_int_eq(chardev_open(&cd, &o, "serial2"), 0);
	capture_end(&err);
	snprintf(want, sizeof(want), "minivmm: serial2: %s\n", cd.path);
	ck_assert_str_eq(err.text, want);
	ck_assert(!strncmp(cd.path, "/dev/pts/", 9));
	cd.in = (struct chardev_target){ fake_space, fake_receive, NULL };
	s = open(cd.path, O_RDWR | O_NOCTTY);
	ck_assert_int_ge(s, 0);
	write_str("out\n");		/* raw: no \r added, no echo */
	read_exactly(s, buf, 4);
	ck_assert_mem_eq(buf, "out\n", 4);
	ck_assert_int_eq(write(s, "\x01x", 2), 2);
	loop_once(1000);
	ck_assert_uint_eq(ngot, 2);
	ck_assert_mem_eq(got, "\x01x", 2);
	close(s);
	chardev_close(&cd);
}
END_TEST

/* Nobody reads the terminal: its buffer fills, the rest waits in the
 * backlog, and the writer never blocks (a blocked write would hang this
 * test until Check's timeout). */
START_TEST(pty_full_never_blocks)
{
	static uint8_t big[256 * 1024];
	struct serial_opt o = { SERIAL_PTY, NULL };
	struct capture err;

	capture_start(&err, STDERR_FILENO);
	ck_assert_int_eq(chardev_open(&cd, &o, "serial"), 0);
	capture_end(&err);
	memset(big, 'y', sizeof(big));
	chardev_write(&cd, big, sizeof(big));
	chardev_write(&cd, big, sizeof(big));
	ck_assert_uint_eq(cd.len, CHARDEV_BACKLOG);
	ck_assert_uint_gt(cd.dropped, 0);
	loop_once(50);			/* POLLOUT never comes: no spin */
	chardev_close(&cd);
}
END_TEST

START_TEST(file_output)
{
	char path[160], buf[16];
	struct serial_opt o = { SERIAL_FILE, path };
	int fd;

	snprintf(path, sizeof(path), "%s/f", dir);
	ck_assert_int_eq(chardev_open(&cd, &o, "serial"), 0);
	write_str("to a file");
	chardev_close(&cd);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 9);
	ck_assert_mem_eq(buf, "to a file", 9);
	close(fd);
	unlink(path);
}
END_TEST

/* A path in use: an error naming it, and the file is left alone. */
START_TEST(unix_path_taken)
{
	struct serial_opt o = { SERIAL_UNIX, sock };
	struct capture err;
	int fd = open(sock, O_CREAT | O_WRONLY, 0600);

	ck_assert_int_ge(fd, 0);
	close(fd);
	capture_start(&err, STDERR_FILENO);
	ck_assert_int_eq(chardev_open(&cd, &o, "virtio-console"), -1);
	capture_end(&err);
	ck_assert_ptr_nonnull(strstr(err.text, "minivmm: error: "
				     "--virtio-console unix:"));
	ck_assert_ptr_nonnull(strstr(err.text, "Address already in use"));
	chardev_close(&cd);
	ck_assert_int_eq(access(sock, F_OK), 0);
}
END_TEST

START_TEST(none_drops)
{
	struct serial_opt o = { SERIAL_NONE, NULL };
	struct pollfd p;
	int tmo = -1;

	ck_assert_int_eq(chardev_open(&cd, &o, "serial"), 0);
	write_str("gone");
	chardev_poll_add(&cd, &p, &tmo);
	ck_assert_int_eq(p.fd, -1);
	ck_assert_int_eq(tmo, -1);
	chardev_close(&cd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chardev");
	TCase *t = tcase_create("ends");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, unix_output_and_mode);
	tcase_add_test(t, unix_input_and_reconnect);
	tcase_add_test(t, unix_input_waits_for_room);
	tcase_add_test(t, unix_input_after_hangup);
	tcase_add_test(t, unix_client_leaves_mid_write);
	tcase_add_test(t, backlog_bounded);
	tcase_add_test(t, pty_raw_both_ways);
	tcase_add_test(t, pty_full_never_blocks);
	tcase_add_test(t, file_output);
	tcase_add_test(t, unix_path_taken);
	tcase_add_test(t, none_drops);
	suite_add_tcase(s, t);
	return unit_run(s);
}
