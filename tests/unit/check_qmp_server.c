// SPDX-License-Identifier: MIT
/* The QMP server (vmm/qmp/server.c, vm_target.c) over a VM without KVM
 * or vCPUs: a unix socket of mode 0600, the greeting, negotiation,
 * stop/cont with their events and query-status, the power button (PM1
 * status and the SCI line), events from another thread, clients at
 * once (one stuck on half a line), garbage, a 10 MB message, a client
 * gone mid-command, quit, and SHUTDOWN at the end with the socket file
 * removed. */
#include "tests/unit/unit.h"
#include "firmware/lib/acpi_build.h"
#include "vmm/qmp/qmp.h"
#include "vmm/run/exit_status.h"
#include "vmm/vm.h"

#include <cjson/cJSON.h>
#include <linux/kvm.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

static struct vmm_config cfg;
static struct vm *vm;
static char dir[64], path[128], spec[140];
static int sci_level = -1;

static void fake_sci(void *ctx, uint32_t irq, int level)
{
	(void)ctx;
	ck_assert_uint_eq(irq, 9);
	sci_level = level;
}

static void setup(void)
{
	int usage;

	snprintf(dir, sizeof(dir), "/tmp/check_qmp.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/qmp.sock", dir);
	snprintf(spec, sizeof(spec), "unix:%s", path);
	memset(&cfg, 0, sizeof(cfg));
	cfg.qmp = spec;
	vm = calloc(1, sizeof(*vm));
	vm->cfg = &cfg;
	vm->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pthread_mutex_init(&vm->stop_lock, NULL);
	ck_assert_int_eq(vm_pause_init(&vm->pause, NULL, 0, &vm->stopping), 0);
	acpi_pm_init(&vm->acpi_pm, timing_now_ns, NULL, NULL);
	acpi_pm_set_sci(&vm->acpi_pm, (struct irq_line){ fake_sci, NULL, 9 });
	stats_init(&vm->stats);
	vm->console.out_fd = -1;
	ck_assert_int_eq(qmp_setup(vm, &usage), 0);
	ck_assert_int_eq(qmp_start(vm), 0);
}

static void teardown(void)
{
	qmp_finish(vm);
	vm_pause_destroy(&vm->pause);
	close(vm->stop_fd);
	free(vm);
	rmdir(dir);
}

static int dial(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, path);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void say(int fd, const char *text)
{
	ck_assert_int_eq(send(fd, text, strlen(text), MSG_NOSIGNAL),
			 (ssize_t)strlen(text));
}

/* One line from fd (5 s at most), or "" on timeout or close. */
static char *hear(int fd, char *buf, size_t len)
{
	size_t n = 0;

	while (n + 1 < len) {
		struct pollfd pf = { fd, POLLIN, 0 };

		if (poll(&pf, 1, 5000) <= 0 || read(fd, buf + n, 1) != 1)
			break;
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = 0;
	return buf;
}

#define HAS(s, sub)	do {						\
	const char *has_ = (s);						\
									\
	ck_assert_msg(strstr(has_, (sub)), "'%s' lacks '%s'", has_, (sub)); \
} while (0)

/* Connected, greeted and negotiated. */
static int client(void)
{
	char b[512];
	int fd = dial();

	HAS(hear(fd, b, sizeof(b)), "{\"QMP\":{\"version\":");
	say(fd, "{\"execute\":\"qmp_capabilities\"}\n");
	ck_assert_str_eq(hear(fd, b, sizeof(b)), "{\"return\":{}}\n");
	return fd;
}

START_TEST(socket_mode_and_negotiation)
{
	struct stat st;
	char b[512];
	int fd;

	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	fd = dial();
	HAS(hear(fd, b, sizeof(b)), "\"capabilities\":[]");
	say(fd, "{\"execute\":\"stop\"}\n");
	HAS(hear(fd, b, sizeof(b)), "\"CommandNotFound\"");
	ck_assert_uint_eq(vm_pause_holds(&vm->pause), 0);
	close(fd);
}
END_TEST

START_TEST(stop_cont_status_events)
{
	char b[512];
	int fd = client(), other = client();

	say(fd, "{\"execute\":\"stop\",\"id\":1}\n");
	HAS(hear(fd, b, sizeof(b)), "{\"event\":\"STOP\",\"timestamp\":");
	ck_assert_str_eq(hear(fd, b, sizeof(b)), "{\"return\":{},\"id\":1}\n");
	HAS(hear(other, b, sizeof(b)), "{\"event\":\"STOP\"");
	ck_assert_uint_eq(vm_pause_holds(&vm->pause), 1);
	say(fd, "{\"execute\":\"query-status\"}");	/* no newline */
	HAS(hear(fd, b, sizeof(b)), "\"status\":\"paused\"");
	say(fd, "{\"execute\":\"cont\"}\n");
	HAS(hear(fd, b, sizeof(b)), "{\"event\":\"RESUME\"");
	ck_assert_str_eq(hear(fd, b, sizeof(b)), "{\"return\":{}}\n");
	ck_assert_uint_eq(vm_pause_holds(&vm->pause), 0);
	say(fd, "{\"execute\":\"query-status\"}\n");
	HAS(hear(fd, b, sizeof(b)), "\"status\":\"running\"");
	close(fd);
	close(other);
}
END_TEST

START_TEST(power_button_raises_sci)
{
	char b[512];
	int fd = client();
	uint8_t en[2] = { 0, 1 };	/* PWRBTN_EN, bit 8 */
	uint8_t sts[2] = { 0, 1 };

	say(fd, "{\"execute\":\"system_powerdown\"}\n");
	HAS(hear(fd, b, sizeof(b)), "{\"event\":\"POWERDOWN\"");
	hear(fd, b, sizeof(b));
	ck_assert(vm->acpi_pm.sts & ACPI_PM1_PWRBTN_STS);
	ck_assert_int_ne(sci_level, 1);		/* not enabled yet */
	acpi_pm_ops.write(&vm->acpi_pm, ACPI_PM_REG_EN, en, 2);
	ck_assert_int_eq(sci_level, 1);
	acpi_pm_ops.write(&vm->acpi_pm, ACPI_PM_REG_STS, sts, 2);
	ck_assert_int_eq(sci_level, 0);		/* write-1-to-clear */
	close(fd);
}
END_TEST

START_TEST(events_from_other_threads)
{
	char b[512];
	int fd = client(), raw = dial();

	hear(raw, b, sizeof(b));			/* greeting */
	vm_event(vm, "GUEST_PANICKED", "{\"action\": \"poweroff\"}");
	HAS(hear(fd, b, sizeof(b)), "{\"event\":\"GUEST_PANICKED\",\"data\":"
	    "{\"action\":\"poweroff\"},\"timestamp\":{\"seconds\":");
	/* Not negotiated: no events. */
	say(raw, "{\"execute\":\"query-version\"}\n");
	HAS(hear(raw, b, sizeof(b)), "CommandNotFound");
	close(fd);
	close(raw);
}
END_TEST

START_TEST(hostile_clients)
{
	static char big[10 << 20];
	char b[512];
	int stuck = client(), fd = client(), gone;

	say(stuck, "{\"execute\": \"query-st");	/* and then nothing */
	say(fd, "garbage\n");
	HAS(hear(fd, b, sizeof(b)), "{\"error\":{\"class\":\"GenericError\","
	    "\"desc\":\"JSON parse error\"}}");
	memset(big, ' ', sizeof(big));
	memcpy(big, "{\"execute\": \"stop\", \"arguments\": {\"x\": \"", 40);
	memset(big + 40, 'A', sizeof(big) - 43);
	memcpy(big + sizeof(big) - 3, "\"}}", 3);
	for (size_t off = 0; off < sizeof(big);) {
		ssize_t n = send(fd, big + off, sizeof(big) - off,
				 MSG_NOSIGNAL);

		ck_assert_int_gt(n, 0);
		off += (size_t)n;
	}
	HAS(hear(fd, b, sizeof(b)), "too long");
	ck_assert_uint_eq(vm_pause_holds(&vm->pause), 0);
	gone = client();
	say(gone, "{\"execute\": \"stop\", \"argu");
	close(gone);
	say(fd, "{\"execute\":\"query-status\"}\n");
	HAS(hear(fd, b, sizeof(b)), "\"status\":\"running\"");
	say(fd, "{\"execute\":\"inject-nmi\"}\n");
	ck_assert_str_eq(hear(fd, b, sizeof(b)), "{\"return\":{}}\n");
	say(fd, "{\"execute\":\"x-minivmm-snapshot\",\"arguments\":"
	    "{\"file\":\"/nonexistent/x\"}}\n");
	HAS(hear(fd, b, sizeof(b)), "\"GenericError\"");
	stats_count_exit(&vm->stats, 0, KVM_EXIT_IO);
	say(fd, "{\"execute\":\"x-minivmm-query-stats\"}\n");
	HAS(hear(fd, b, sizeof(b)), "\"exits\":{\"io\":1}");
	HAS(b, "\"exit_status\":null");
	ck_assert(!vm->stopping);
	close(stuck);
	close(fd);
}
END_TEST

START_TEST(many_clients_then_refused)
{
	int fds[9];
	char b[512];

	for (int i = 0; i < 8; i++)
		fds[i] = client();
	fds[8] = dial();
	HAS(hear(fds[8], b, sizeof(b)), "too many QMP clients");
	close(fds[0]);
	close(fds[8]);
	usleep(300000);		/* the server sees the slot free */
	fds[0] = client();
	for (int i = 0; i < 8; i++)
		close(fds[i]);
}
END_TEST

START_TEST(quit_then_shutdown)
{
	char b[512];
	int fd = client();
	struct stat st;

	say(fd, "{\"execute\":\"quit\"}\n");
	ck_assert_str_eq(hear(fd, b, sizeof(b)), "{\"return\":{}}\n");
	ck_assert(vm->stopping);
	ck_assert_int_eq(vm->exit_status, EXIT_USER_QUIT);
	qmp_finish(vm);
	HAS(hear(fd, b, sizeof(b)), "{\"event\":\"SHUTDOWN\",\"data\":"
	    "{\"guest\":false,\"reason\":\"host-qmp-quit\","
	    "\"x-minivmm-exit-status\":7}");
	ck_assert_str_eq(hear(fd, b, sizeof(b)), "");	/* closed */
	ck_assert_int_ne(stat(path, &st), 0);
	close(fd);
}
END_TEST

static Suite *qmp_server_suite(void)
{
	Suite *s = suite_create("qmp_server");
	TCase *tc = tcase_create("server");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, socket_mode_and_negotiation);
	tcase_add_test(tc, stop_cont_status_events);
	tcase_add_test(tc, power_button_raises_sci);
	tcase_add_test(tc, events_from_other_threads);
	tcase_add_test(tc, hostile_clients);
	tcase_add_test(tc, many_clients_then_refused);
	tcase_add_test(tc, quit_then_shutdown);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(qmp_server_suite());
}
