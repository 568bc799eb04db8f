// SPDX-License-Identifier: MIT
/*
 * The stub's thread (gdb.h): accept one debugger at a time, read its
 * bytes, answer its packets, and carry out what they ask (resume, step,
 * detach, kill) over the VM.  vCPUs report their debug exits here
 * through debug_exit (their own thread) and an eventfd.
 *
 * States: RUNNING (no hold on the pause), STOPPED (the stub holds the
 * pause, every vCPU parked), STEPPING (held, one vCPU let run until its
 * single-step exit).  Packets other than Ctrl-C are refused while the
 * guest runs: registers and memory are only read from parked vCPUs.
 */
#include "vmm/gdb/gdb.h"
#include "vmm/gdb/proto.h"
#include "vmm/gdb/target.h"
#include "vmm/run/exit_status.h"
#include "vmm/run/listen.h"
#include "vmm/vm.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

enum gdb_state { GS_RUNNING, GS_STOPPED, GS_STEPPING };

struct gdb_stub {
	struct vm *vm;
	struct listen_addr addr;
	int listen_fd, client_fd, wake_fd;
	pthread_t thread;
	bool started;
	volatile bool quit;

	pthread_mutex_t lock;		/* state, pending, stepping */
	enum gdb_state state;
	bool pending;			/* a vCPU reported a stop */
	struct gdb_stop stop;
	unsigned int stepping;

	struct gdb_target target;
	struct gdb_session sess;
	struct gdb_rx rx;
	struct gdb_tx tx;
	char out[sizeof(((struct gdb_tx *)0)->buf) + 8];
};

static const char *const spec_options[] = { "wait", NULL };
#define OPT_WAIT	1u

/* --- sending --------------------------------------------------------- */

static void send_raw(struct gdb_stub *g, const char *p, size_t n)
{
	while (n && g->client_fd >= 0) {
		ssize_t w = send(g->client_fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pf = { g->client_fd, POLLOUT, 0 };

			if (poll(&pf, 1, 5000) <= 0)
				break;	/* a client that reads nothing */
			continue;
		}
		if (w <= 0)
			break;
		p += w;
		n -= (size_t)w;
	}
}

static void send_tx(struct gdb_stub *g)
{
	size_t n = gdb_tx_frame(&g->tx, g->out, sizeof(g->out));

	send_raw(g, g->out, n);
}

static void send_stop(struct gdb_stub *g, const struct gdb_stop *st)
{
	gdb_stop_reply(&g->sess, st, &g->tx);
	send_tx(g);
}

/* --- the VM side ------------------------------------------------------- */

static void wake(struct gdb_stub *g)
{
	uint64_t one = 1;

	if (write(g->wake_fd, &one, sizeof(one)) < 0)
		perror("minivmm: gdb: eventfd");
}

/* Stops every vCPU for the debugger (attach, Ctrl-C).  Under no lock:
 * only this thread changes RUNNING to something else. */
static int stop_all(struct gdb_stub *g)
{
	pthread_mutex_lock(&g->lock);
	if (g->state == GS_RUNNING) {
		vm_pause_hold(&g->vm->pause);
		g->state = GS_STOPPED;
	}
	pthread_mutex_unlock(&g->lock);
	return vm_pause_wait(&g->vm->pause);
}

static void resume_all(struct gdb_stub *g)
{
	pthread_mutex_lock(&g->lock);
	g->pending = false;
	if (g->state != GS_RUNNING) {
		g->state = GS_RUNNING;
		vm_pause_release(&g->vm->pause);
	}
	pthread_mutex_unlock(&g->lock);
}

/* The guest runs on without the debugger: no breakpoint left. */
static void forget_debugger(struct gdb_stub *g)
{
	gdb_sw_clear(&g->sess.bk);
	gdb_hw_clear(&g->sess.bk);
	gdb_target_debug(g->vm, &g->sess.bk, -1);
}

/* Which debugger event a #DB/#BP exit is; false if not the debugger's. */
static bool classify(struct gdb_stub *g, struct vcpu *v, struct gdb_stop *st)
{
	const struct kvm_debug_exit_arch *d = &v->run->debug.arch;
	int slot;

	*st = (struct gdb_stop){ .tid = v->id, .signal = 5 };
	if (d->exception == 3)
		return gdb_sw_at(&g->sess.bk, d->pc) &&
		       (st->kind = GDB_STOP_SWBREAK, true);
	if (d->exception != 1)
		return false;
	slot = gdb_hw_hit(&g->sess.bk, d->dr6);
	if (slot >= 0) {
		const struct gdb_hw_bp *h = &g->sess.bk.hw[slot];

		st->kind = h->type == GDB_BP_HW ? GDB_STOP_HWBREAK :
			   GDB_STOP_WATCH;
		st->wtype = h->type;
		st->addr = h->addr;
		return true;
	}
	/* DR6.BS: the single step the stub asked for. */
	return g->state == GS_STEPPING && g->stepping == v->id;
}

/* KVM_EXIT_DEBUG, on the vCPU's thread. */
static bool debug_exit(void *ctx, struct vcpu *v)
{
	struct gdb_stub *g = ctx;
	struct gdb_stop st;
	bool mine;

	pthread_mutex_lock(&g->lock);
	mine = classify(g, v, &st);
	if (mine && !g->pending) {
		if (g->state == GS_RUNNING) {
			vm_pause_hold(&g->vm->pause);
			g->state = GS_STOPPED;
		} else if (g->state == GS_STEPPING && g->stepping == v->id) {
			vm_pause_let_run(&g->vm->pause, v->id, false);
			g->state = GS_STOPPED;
		}
		g->stop = st;
		g->pending = true;
		wake(g);
	}
	pthread_mutex_unlock(&g->lock);
	/* A second vCPU at a breakpoint meanwhile parks at the int3 and
	 * meets it again when resumed; one not ours goes to the guest. */
	if (!mine)
		gdb_target_reinject(g->vm, v->id, v->run->debug.arch.exception);
	return true;
}

/* --- one client ---------------------------------------------------------- */

static void do_action(struct gdb_stub *g, enum gdb_action a)
{
	switch (a) {
	case GDB_ACT_REPLY:
		send_tx(g);
		return;
	case GDB_ACT_CONTINUE:
		gdb_target_debug(g->vm, &g->sess.bk, -1);
		resume_all(g);
		return;
	case GDB_ACT_STEP:
		gdb_target_debug(g->vm, &g->sess.bk, (int)g->sess.action_tid);
		pthread_mutex_lock(&g->lock);
		g->pending = false;
		g->stepping = g->sess.action_tid;
		g->state = GS_STEPPING;
		vm_pause_let_run(&g->vm->pause, g->stepping, true);
		pthread_mutex_unlock(&g->lock);
		return;
	case GDB_ACT_DETACH:
		send_tx(g);
		forget_debugger(g);
		resume_all(g);
		close(g->client_fd);
		g->client_fd = -1;
		fprintf(stderr, "minivmm: gdb: detached; the guest runs on\n");
		return;
	case GDB_ACT_KILL:
		if (g->tx.len)
			send_tx(g);
		vm_stop(g->vm, EXIT_USER_QUIT, "killed by gdb");
		return;
	}
}

static void on_packet(struct gdb_stub *g)
{
	bool running;

	if (!g->sess.no_ack)
		send_raw(g, "+", 1);
	pthread_mutex_lock(&g->lock);
	running = g->state != GS_STOPPED || g->pending;
	pthread_mutex_unlock(&g->lock);
	if (running) {
		gdb_error(&g->tx, "the guest is running (interrupt it first)");
		send_tx(g);
		return;
	}
	do_action(g, gdb_handle(&g->sess, g->rx.buf, &g->tx));
}

static void on_interrupt(struct gdb_stub *g)
{
	bool running;

	pthread_mutex_lock(&g->lock);
	running = g->state == GS_RUNNING;
	pthread_mutex_unlock(&g->lock);
	if (!running)
		return;		/* already stopping, or a step is on */
	if (stop_all(g) < 0)
		return;		/* the run is ending */
	send_stop(g, &(struct gdb_stop){ .tid = g->sess.c_tid, .signal = 2 });
}

static void on_bytes(struct gdb_stub *g, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n && g->client_fd >= 0; i++) {
		switch (gdb_rx_byte(&g->rx, b[i])) {
		case GDB_RX_PACKET:
			on_packet(g);
			break;
		case GDB_RX_BAD_CHECKSUM:
			if (!g->sess.no_ack)
				send_raw(g, "-", 1);
			break;
		case GDB_RX_TOO_LONG:
			if (!g->sess.no_ack)
				send_raw(g, "+", 1);
			gdb_error(&g->tx, "packet too long");
			send_tx(g);
			break;
		case GDB_RX_INTERRUPT:
			on_interrupt(g);
			break;
		default:
			break;
		}
	}
}

/* A vCPU stopped (breakpoint, watchpoint, step): once all are parked,
 * gdb hears it. */
static void on_wake(struct gdb_stub *g)
{
	struct gdb_stop st;
	uint64_t v;
	bool pending;

	if (read(g->wake_fd, &v, sizeof(v)) < 0)
		return;
	pthread_mutex_lock(&g->lock);
	pending = g->pending && g->state == GS_STOPPED;
	st = g->stop;
	pthread_mutex_unlock(&g->lock);
	if (!pending || vm_pause_wait(&g->vm->pause) < 0)
		return;
	pthread_mutex_lock(&g->lock);
	g->pending = false;
	pthread_mutex_unlock(&g->lock);
	if (g->client_fd >= 0)
		send_stop(g, &st);
}

static void attach(struct gdb_stub *g, int fd)
{
	g->client_fd = fd;
	gdb_rx_init(&g->rx);
	gdb_session_init(&g->sess, &g->target);
	fprintf(stderr, "minivmm: gdb: debugger attached; the guest stops\n");
	stop_all(g);
}

/* The client went away without D: as a detach. */
static void hang_up(struct gdb_stub *g)
{
	close(g->client_fd);
	g->client_fd = -1;
	if (g->vm->stopping)
		return;
	pthread_mutex_lock(&g->lock);
	while (g->state == GS_STEPPING) {	/* let the step end first */
		pthread_mutex_unlock(&g->lock);
		usleep(1000);
		if (g->vm->stopping)
			return;
		pthread_mutex_lock(&g->lock);
	}
	pthread_mutex_unlock(&g->lock);
	vm_pause_wait(&g->vm->pause);
	forget_debugger(g);
	resume_all(g);
	fprintf(stderr, "minivmm: gdb: debugger gone; the guest runs on\n");
}

static void on_client(struct gdb_stub *g)
{
	uint8_t buf[4096];
	ssize_t n = read(g->client_fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		hang_up(g);
		return;
	}
	on_bytes(g, buf, (size_t)n);
}

static void on_listen(struct gdb_stub *g)
{
	int fd = accept4(g->listen_fd, NULL, NULL, SOCK_CLOEXEC |
			 SOCK_NONBLOCK);

	if (fd < 0)
		return;
	if (g->client_fd >= 0) {	/* one debugger at a time */
		static const char busy[] = "$E.another debugger is "
					   "attached#00";
		send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL);
		close(fd);
		return;
	}
	attach(g, fd);
}

static void *stub_thread(void *arg)
{
	struct gdb_stub *g = arg;

	while (!g->quit && !g->vm->stopping) {
		struct pollfd fds[4] = {
			{ .fd = g->listen_fd, .events = POLLIN },
			{ .fd = g->client_fd, .events = POLLIN },
			{ .fd = g->wake_fd, .events = POLLIN },
			{ .fd = g->vm->stop_fd, .events = POLLIN },
		};

		if (poll(fds, 4, 100) < 0 && errno != EINTR)
			break;
		if (fds[2].revents & POLLIN)
			on_wake(g);
		if (fds[1].revents & (POLLIN | POLLHUP | POLLERR))
			on_client(g);
		if (fds[0].revents & POLLIN)
			on_listen(g);
	}
	return NULL;
}

/* --- set-up and end -------------------------------------------------------- */

static int snap_lift(void *ctx)
{
	struct gdb_stub *g = ctx;

	gdb_sw_lift(&g->sess.bk);	/* the file gets the guest's bytes */
	return 0;
}

static void snap_restore(void *ctx)
{
	struct gdb_stub *g = ctx;

	gdb_sw_restore(&g->sess.bk);
}

int gdb_setup(struct vm *vm, int *usage)
{
	struct gdb_stub *g;
	char err[256], where[300];

	*usage = 0;
	if (!vm->cfg->gdb)
		return 0;
	*usage = 1;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -1;
	vm->gdb = g;
	g->vm = vm;
	g->client_fd = g->listen_fd = -1;
	g->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pthread_mutex_init(&g->lock, NULL);
	if (listen_parse(vm->cfg->gdb, spec_options, &g->addr, err,
			 sizeof(err)) < 0) {
		fprintf(stderr, "minivmm: error: --gdb %s: %s\n", vm->cfg->gdb,
			err);
		return -1;
	}
	if (vm->exits.debug.fn) {
		fprintf(stderr, "minivmm: error: --gdb: this host's syscall "
			"fix uses the guest debug registers (pvm/syscall.c); "
			"run with --syscall-fix off to debug (guest user mode "
			"then cannot make system calls)\n");
		return -1;
	}
	*usage = 0;
	g->listen_fd = listen_open(&g->addr, err, sizeof(err));
	if (g->listen_fd < 0 || g->wake_fd < 0) {
		fprintf(stderr, "minivmm: error: --gdb: %s\n", err);
		return -1;
	}
	gdb_target_init(&g->target, vm);
	gdb_session_init(&g->sess, &g->target);
	vm->exits.debug = (struct vcpu_hook){ debug_exit, g };
	snap_add_quiesce(&vm->snap_reg, (struct snap_quiesce){
		snap_lift, snap_restore, g });
	listen_describe(&g->addr, where, sizeof(where));
	if (g->addr.opts & OPT_WAIT) {
		vm_pause_hold(&vm->pause);	/* before the first instruction */
		g->state = GS_STOPPED;
		fprintf(stderr, "minivmm: gdb: waiting for a debugger on %s\n",
			where);
	} else {
		fprintf(stderr, "minivmm: gdb: listening on %s\n", where);
	}
	return 0;
}

int gdb_start(struct vm *vm)
{
	struct gdb_stub *g = vm->gdb;

	if (!g)
		return 0;
	if (pthread_create(&g->thread, NULL, stub_thread, g))
		return -1;
	g->started = true;
	return 0;
}

void gdb_finish(struct vm *vm)
{
	struct gdb_stub *g = vm->gdb;

	if (!g)
		return;
	g->quit = true;
	if (g->started)
		pthread_join(g->thread, NULL);
	if (g->client_fd >= 0) {
		/* gdb prints "[Inferior 1 (process 1) exited with code N]" */
		gdb_tx_reset(&g->tx);
		gdb_tx_fmt(&g->tx, "W%02x", vm->exit_status & 0xff);
		send_tx(g);
		close(g->client_fd);
	}
	listen_close(&g->addr, g->listen_fd);
	if (g->wake_fd >= 0)
		close(g->wake_fd);
	pthread_mutex_destroy(&g->lock);
	free(g);
	vm->gdb = NULL;
}
