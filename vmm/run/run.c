// SPDX-License-Identifier: MIT
/* The main thread's part of a run: start the vCPUs, then wait in one poll
 * loop for the end (a vCPU's vm_stop), a signal, the timeout, or console
 * input to feed to the guest's console device. */
#include "vmm/run/run.h"
#include "vmm/gdb/gdb.h"
#include "vmm/qmp/qmp.h"
#include "vmm/run/exit_status.h"
#include "vmm/run/report.h"
#include "vmm/boot/elf_syms.h"
#include "vmm/run/sandbox.h"
#include "vmm/snapshot/snapshot.h"
#include "vmm/vcpu.h"
#include "vmm/vm.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* The signals that end a run: the main thread reads them (signalfd). */
static void end_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
}

int vm_block_signals(void)
{
	sigset_t set;

	end_signals(&set);
	/* Blocked so only vCPU threads (which unblock it) take kicks. */
	sigaddset(&set, VCPU_KICK_SIGNAL);
	return pthread_sigmask(SIG_BLOCK, &set, NULL) ? -1 : 0;
}

static int signal_fd(void)
{
	sigset_t set;

	if (vm_block_signals() < 0)
		return -1;
	end_signals(&set);
	return signalfd(-1, &set, SFD_CLOEXEC);
}

static int timeout_ms(uint64_t deadline)
{
	uint64_t now;

	if (!deadline)
		return -1;
	now = timing_now_ns();
	if (now >= deadline)
		return 0;
	return (int)((deadline - now + 999999) / 1000000);
}

/* Bytes read from stdin at once at most (the UART's FIFO is smaller, the
 * virtio console's buffer larger: each device's free space decides). */
#define FEED_MAX	256

static size_t input_space(struct vm *vm)
{
	struct chardev_target *in = console_stdin_target(&vm->console);
	size_t space;

	if (!in)
		return 0;
	space = in->space(in->ctx);
	return space < FEED_MAX ? space : FEED_MAX;
}

static void feed_console(struct vm *vm)
{
	struct chardev_target *to = console_stdin_target(&vm->console);
	uint8_t in[FEED_MAX], out[FEED_MAX];
	size_t space = input_space(vm), n_out;
	ssize_t n;

	if (!space)
		return;
	n = read(vm->console.in_fd, in, space);
	if (n <= 0) {
		vm->console.in_fd = -1;		/* EOF: stop polling it */
		return;
	}
	if (console_filter(&vm->console, in, (size_t)n, out, &n_out) ==
	    CONSOLE_INPUT_QUIT) {
		vm_stop(vm, EXIT_USER_QUIT, "quit (Ctrl-A x)");
		return;
	}
	to->receive(to->ctx, out, n_out);
	if (vm->console.snapshot_key) {
		vm->console.snapshot_key = false;
		snapshot_request(vm, "Ctrl-A s");
	}
}

static void on_signal(struct vm *vm, int sfd)
{
	struct signalfd_siginfo si;

	if (read(sfd, &si, sizeof(si)) != sizeof(si))
		return;
	vm_stop(vm, EXIT_SIGNAL_BASE + (int)si.ssi_signo,
		"stopped by signal %u (%s)", si.ssi_signo,
		strsignal((int)si.ssi_signo));
}

/* --stall-timeout: what shows the guest is getting somewhere (console
 * output, exits minivmm handles), and when it last moved. */
struct stall {
	uint64_t limit_ns, seen, since;
};

static uint64_t progress(struct vm *vm)
{
	uint64_t n;

	pthread_mutex_lock(&vm->console.lock);
	n = vm->console.written;
	pthread_mutex_unlock(&vm->console.lock);
	for (uint32_t i = 0; i <= STATS_MAX_REASONS; i++)
		n += stats_exits(&vm->stats, i);
	return n;
}

/* A poll timeout that wakes in time to look again (ms, -1: none). */
static int stall_check(struct vm *vm, struct stall *st, int tmo)
{
	uint64_t now = timing_now_ns(), p;

	if (!st->limit_ns)
		return tmo;
	p = progress(vm);
	if (p != st->seen) {
		st->seen = p;
		st->since = now;
	} else if (now - st->since >= st->limit_ns) {
		vm_stop(vm, EXIT_STALLED, "guest stalled: no console output "
			"and no exits for %g s (--stall-timeout)",
			vm->cfg->stall_timeout);
		return 0;
	}
	return tmo < 0 || tmo > 500 ? 500 : tmo;
}

static void wait_loop(struct vm *vm, int sfd, uint64_t deadline)
{
	struct stall st = { (uint64_t)(vm->cfg->stall_timeout * 1e9), 0,
			    timing_now_ns() };

	while (!vm->stopping) {
		bool input = vm->console.in_fd >= 0 && input_space(vm) > 0;
		struct pollfd fds[4 + CONSOLE_POLL_FDS] = {
			{ .fd = vm->stop_fd, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
			{ .fd = input ? vm->console.in_fd : -1,
			  .events = POLLIN },
			{ .fd = snapshot_poll_fd(vm), .events = POLLIN },
		};
		/* A full FIFO is re-checked every 10 ms. */
		int tmo = timeout_ms(deadline);
		int r;

		if (vm->console.in_fd >= 0 && !input && (tmo < 0 || tmo > 10))
			tmo = 10;
		tmo = stall_check(vm, &st, tmo);
		if (vm->stopping)
			break;
		console_poll_add(&vm->console, &fds[4], &tmo);
		r = poll(fds, 4 + CONSOLE_POLL_FDS, tmo);
		if (r < 0 && errno != EINTR)
			break;
		if (deadline && timing_now_ns() >= deadline) {
			vm_stop(vm, EXIT_TIMEOUT, "timeout after %g s",
				vm->cfg->timeout);
			break;
		}
		if (fds[1].revents & POLLIN)
			on_signal(vm, sfd);
		if (fds[2].revents & (POLLIN | POLLHUP))
			feed_console(vm);
		if (fds[3].revents & POLLIN)
			snapshot_service(vm);
		if (r > 0)
			console_poll_service(&vm->console, &fds[4]);
	}
}

int vm_run(struct vm *vm)
{
	static struct elf_syms syms;
	uint64_t deadline = 0;
	int sfd;

	vcpu_install_kick_handler();
	sfd = signal_fd();
	if (sfd < 0) {
		perror("minivmm: signalfd");
		return EXIT_VMM_ERROR;
	}
	console_enable_input(&vm->console);
	/* Where a stuck guest was, by name (no opens once sandboxed). */
	if (vm->cfg->kernel && elf_syms_load(&syms, vm->cfg->kernel) == 0)
		report_set_symbols(&syms);
	/* Set-up is over: from here on only what the run needs. */
	if (sandbox_install(vm->cfg) < 0) {
		close(sfd);
		console_restore_terminal();
		return EXIT_VMM_ERROR;
	}
	if (vm->cfg->timeout > 0)
		deadline = timing_now_ns() + (uint64_t)(vm->cfg->timeout * 1e9);
	if (gdb_start(vm) < 0)
		vm_stop(vm, EXIT_VMM_ERROR, "cannot start the gdb stub");
	if (qmp_start(vm) < 0)
		vm_stop(vm, EXIT_VMM_ERROR, "cannot start the QMP server");
	timing_event(&vm->timing, "vCPUs started");
	for (unsigned int i = 0; i < vm->ncpus; i++) {
		if (vcpu_start(&vm->vcpus[i]) < 0) {
			vm_stop(vm, EXIT_VMM_ERROR, "cannot start vCPU %u", i);
			break;
		}
	}
	wait_loop(vm, sfd, deadline);
	for (unsigned int i = 0; i < vm->ncpus; i++)
		vcpu_kick(&vm->vcpus[i]);
	snapshot_release(vm);
	for (unsigned int i = 0; i < vm->ncpus; i++)
		vcpu_join(&vm->vcpus[i]);
	gdb_finish(vm);		/* gdb hears the exit status */
	qmp_finish(vm);		/* QMP clients hear SHUTDOWN */
	/* A run cut short (by the timeout, or a signal: an outer time
	 * limit) says where the guest was (a hang, a slow boot). */
	for (unsigned int i = 0; (vm->exit_status == EXIT_TIMEOUT ||
	     vm->exit_status == EXIT_STALLED ||
	     vm->exit_status > EXIT_SIGNAL_BASE) && i < vm->ncpus; i++)
		vcpu_report_where(&vm->vcpus[i], &vm->mem);
	close(sfd);
	report_set_symbols(NULL);
	elf_syms_free(&syms);
	console_flush(&vm->console);
	console_restore_terminal();
	return vm->exit_status;
}
