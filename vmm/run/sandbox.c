// SPDX-License-Identifier: MIT
/*
 * The seccomp filter.  The allow-list was taken from strace -f of runs with
 * every option (SMP, --stats-json, --console FILE, --dump-acpi, --timing,
 * host MSR reads, MSR logging, signals, guest crashes), from the point the
 * vCPUs start to process exit.  Failing calls trap to a SIGSYS handler so
 * the user is told which call was refused, rather than seeing a bare kill.
 */
#include "vmm/run/sandbox.h"
#include "vmm/console/console.h"
#include "vmm/run/exit_status.h"

#include <errno.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

/* Sanitizer runtimes (LeakSanitizer's exit-time scan) need more calls. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZER_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZER_BUILD 1
#endif
#endif
#ifndef SANITIZER_BUILD
#define SANITIZER_BUILD 0
#endif

#define NAMES_MAX	512

/* Syscall names for the SIGSYS message, resolved before the filter is
 * loaded: the handler may not allocate. */
static char *names[NAMES_MAX];

static const int always[] = {
	/* run loop, devices, console, signalfd, eventfd */
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
	SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(pread64),
	SCMP_SYS(futex), SCMP_SYS(restart_syscall),
	SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigprocmask),
	SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(sched_yield),
	SCMP_SYS(getcpu), SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday),
	SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep), SCMP_SYS(getrandom),
	SCMP_SYS(sysinfo),	/* qsort, in the failure report */
	/* memory (malloc, thread stacks; mmap/mprotect below) */
	SCMP_SYS(munmap), SCMP_SYS(madvise), SCMP_SYS(brk), SCMP_SYS(mremap),
	/* vCPU threads */
	SCMP_SYS(set_robust_list), SCMP_SYS(rseq),
	SCMP_SYS(exit), SCMP_SYS(exit_group),
	/* exit path: console file, stdio */
	SCMP_SYS(close), SCMP_SYS(fsync), SCMP_SYS(fdatasync),
	SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(lseek),
};

/* Files created at exit: --stats-json (temp file, rename) and --dump-acpi
 * (directory, one file per table). */
static const int stats_json_calls[] = {
	SCMP_SYS(openat), SCMP_SYS(rename), SCMP_SYS(renameat),
	SCMP_SYS(renameat2), SCMP_SYS(unlink), SCMP_SYS(unlinkat),
};
static const int dump_acpi_calls[] = {
	SCMP_SYS(openat), SCMP_SYS(mkdir), SCMP_SYS(mkdirat),
};
/* virtio-blk's device threads: image I/O, discard and write zeroes. */
static const int disk_calls[] = {
	SCMP_SYS(preadv), SCMP_SYS(pwritev), SCMP_SYS(pwrite64),
	SCMP_SYS(fallocate),
};

/* vhost-user (--fs, --share): requests and replies with descriptors, a
 * look at whether the back end hung up; at exit, ending --share's
 * virtiofsd and removing its socket. */
static const int fs_calls[] = {
	SCMP_SYS(sendmsg), SCMP_SYS(recvmsg), SCMP_SYS(recvfrom),
	SCMP_SYS(kill), SCMP_SYS(wait4), SCMP_SYS(unlink), SCMP_SYS(rmdir),
};

/* Snapshots: the state reads, writing the file, the next temp file. */
static const int snapshot_calls[] = {
	SCMP_SYS(openat), SCMP_SYS(pwrite64), SCMP_SYS(ftruncate),
	SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2),
	SCMP_SYS(unlink), SCMP_SYS(unlinkat),
};
static const unsigned long snapshot_ioctls[] = {
	KVM_GET_XSAVE, KVM_GET_XSAVE2, KVM_GET_XCRS, KVM_GET_LAPIC,
	KVM_GET_DEBUGREGS, KVM_GET_MP_STATE, KVM_GET_TSC_KHZ,
	KVM_GET_IRQCHIP, KVM_GET_PIT2, KVM_GET_CLOCK,
};

/* The gdb stub's, QMP's and socket consoles' sockets: clients come and
 * go while the guest runs; replies go out with MSG_NOSIGNAL (send). */
static const int control_calls[] = {
	SCMP_SYS(accept4), SCMP_SYS(sendto), SCMP_SYS(recvfrom),
	SCMP_SYS(shutdown),
	SCMP_SYS(unlink),	/* a unix socket's file, at the end */
};
/* QMP's x-minivmm-msr-flags: a new MSR filter and exit mask. */
static const unsigned long qmp_ioctls[] = {
	KVM_ENABLE_CAP, KVM_X86_SET_MSR_FILTER,
};
/* gdb: writing the FPU registers, re-injecting the guest's own #BP/#DB. */
static const unsigned long gdb_ioctls[] = { KVM_SET_FPU };
/* virtio-net: the tap's receive offloads follow what each driver accepts
 * (read, readv and writev on the tap are in always). */
static const unsigned long net_ioctls[] = { TUNSETOFFLOAD };

#if SANITIZER_BUILD
static const int sanitizer_calls[] = {
	SCMP_SYS(clone), SCMP_SYS(ptrace), SCMP_SYS(wait4), SCMP_SYS(prctl),
	SCMP_SYS(getppid), SCMP_SYS(open), SCMP_SYS(openat),
	SCMP_SYS(getdents), SCMP_SYS(getdents64),
	SCMP_SYS(readlink), SCMP_SYS(sigaltstack),
	SCMP_SYS(sched_getaffinity), SCMP_SYS(pipe2), SCMP_SYS(dup2),
	SCMP_SYS(tgkill), SCMP_SYS(kill),
};
#endif

/* ioctls while running: vCPU loop, IRQs, BAR memslot moves, the failure
 * report, MSR passthrough, instruction completion, terminal restore. */
static const unsigned long ioctls[] = {
	KVM_RUN, KVM_IRQ_LINE, KVM_SET_USER_MEMORY_REGION,
	KVM_GET_REGS, KVM_GET_SREGS, KVM_TRANSLATE,
	KVM_GET_MSRS, KVM_SET_MSRS,
	/* emulate.c: completing instructions the host's emulator rejects */
	KVM_SET_REGS, KVM_SET_SREGS, KVM_GET_VCPU_EVENTS, KVM_SET_VCPU_EVENTS,
	KVM_SIGNAL_MSI,		/* S3: INIT to the other vCPUs */
	KVM_IOEVENTFD,		/* pci-testdev's eventfd tests; virtio kicks */
	KVM_SET_GSI_ROUTING,	/* virtio: MSI-X vector routes */
	KVM_GET_FPU, KVM_GET_XCRS, KVM_GET_CPUID2,
	/* report.c: where each vCPU stands when a run times out */
	KVM_GET_MP_STATE,
	/* pvm/syscall.c: breakpoints on the guest's #PF and #UD handlers */
	KVM_SET_GUEST_DEBUG,
	TCGETS, TCSETS, TCSETSW, TCSETSF,
};

static void put_str(const char *s)
{
	ssize_t r = write(STDERR_FILENO, s, strlen(s));

	(void)r;
}

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	char num[16], *p = num + sizeof(num) - 1;
	unsigned int nr = (unsigned int)si->si_syscall;

	(void)sig;
	(void)uc;
	*p = 0;
	do {
		*--p = (char)('0' + nr % 10);
		nr /= 10;
	} while (nr);
	put_str("minivmm: sandbox: blocked system call ");
	put_str(p);
	if (si->si_syscall >= 0 && si->si_syscall < NAMES_MAX &&
	    names[si->si_syscall]) {
		put_str(" (");
		put_str(names[si->si_syscall]);
		put_str(")");
	}
	put_str("; stopping (--no-sandbox runs without the sandbox)\n");
	console_restore_terminal();
	_exit(EXIT_VMM_ERROR);
}

static int install_handler(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigsys,
				.sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < NAMES_MAX; i++)
		if (!names[i])
			names[i] = seccomp_syscall_resolve_num_arch(
				SCMP_ARCH_NATIVE, i);
	return sigaction(SIGSYS, &sa, NULL);
}

static int allow_list(scmp_filter_ctx ctx, const int *calls, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, calls[i], 0) < 0)
			return -1;
	return 0;
}

#define ALLOW_ALL(ctx, a) allow_list(ctx, a, sizeof(a) / sizeof(a[0]))

static int allow_ioctls(scmp_filter_ctx ctx, const unsigned long *req,
			size_t n)
{
	int rc = 0;

	/* The kernel compares the low 32 bits of an ioctl request. */
	for (size_t i = 0; i < n; i++)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu,
					       req[i]));
	return rc ? -1 : 0;
}

/* Calls allowed only with some arguments. */
static int add_narrow(scmp_filter_ctx ctx)
{
	int rc = 0;

	/* W^X: nothing in the run maps executable memory. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
			       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
			       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	/* Threads, not processes; clone3's flags are out of reach of a
	 * filter, so it fails with ENOSYS and glibc falls back to clone. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
			       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD,
				       CLONE_THREAD));
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3),
			       0);
	/* glibc installs its own handlers when the first thread starts;
	 * nobody may replace the SIGSYS one. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigaction), 1,
			       SCMP_A0(SCMP_CMP_NE, SIGSYS));
	/* Kicks (pthread_kill) go to our own threads only. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
			       SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
	rc |= allow_ioctls(ctx, ioctls, sizeof(ioctls) / sizeof(ioctls[0]));
	return rc ? -1 : 0;
}

/* A console on a unix socket (--serial, --virtio-console): clients
 * come and go like the gdb stub's; a pty or file needs only read and
 * write. */
static bool socket_console(const struct vmm_config *cfg)
{
	for (unsigned int i = 0; i < cfg->nserial; i++)
		if (cfg->serial[i].kind == SERIAL_UNIX)
			return true;
	return cfg->vconsole_given && cfg->vconsole.kind == SERIAL_UNIX;
}

#define N(a)	(sizeof(a) / sizeof(a[0]))

/* What the options in use need. */
static int add_optional(scmp_filter_ctx ctx, const struct vmm_config *cfg)
{
	bool control = cfg->gdb || cfg->qmp || socket_console(cfg);
	/* QMP's x-minivmm-snapshot writes snapshots too. */
	bool snapshots = cfg->snapshot || cfg->qmp;

	if ((cfg->stats_json && ALLOW_ALL(ctx, stats_json_calls) < 0) ||
	    (cfg->dump_acpi && ALLOW_ALL(ctx, dump_acpi_calls) < 0) ||
	    (cfg->ndisks && ALLOW_ALL(ctx, disk_calls) < 0) ||
	    (cfg->nnets && allow_ioctls(ctx, net_ioctls, 1) < 0) ||
	    (cfg->nfs && ALLOW_ALL(ctx, fs_calls) < 0) ||
	    (control && ALLOW_ALL(ctx, control_calls) < 0) ||
	    (cfg->gdb && allow_ioctls(ctx, gdb_ioctls, 1) < 0) ||
	    (cfg->qmp && allow_ioctls(ctx, qmp_ioctls, N(qmp_ioctls)) < 0) ||
	    (snapshots && (ALLOW_ALL(ctx, snapshot_calls) < 0 ||
			   allow_ioctls(ctx, snapshot_ioctls,
					N(snapshot_ioctls)) < 0)))
		return -1;
	/* glibc's free opens /proc/sys/vm/overcommit_memory the first time
	 * it shrinks a thread arena's heap (virtio-blk's cache=none bounce
	 * buffers do); refused, it keeps the pages.  An open nothing above
	 * allows fails that way instead of stopping the VM. */
	if (!cfg->stats_json && !cfg->dump_acpi && !snapshots &&
	    !SANITIZER_BUILD &&
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat),
			     0) < 0)
		return -1;
	return 0;
}

static scmp_filter_ctx build(const struct vmm_config *cfg)
{
	/* For developers: log (kernel audit log) instead of stopping. */
	const char *log = getenv("MINIVMM_SANDBOX_LOG");
	scmp_filter_ctx ctx = seccomp_init(log && !strcmp(log, "1") ?
					   SCMP_ACT_LOG : SCMP_ACT_TRAP);

	if (!ctx)
		return NULL;
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1) < 0 ||
	    ALLOW_ALL(ctx, always) < 0 || add_narrow(ctx) < 0 ||
	    add_optional(ctx, cfg) < 0) {
		seccomp_release(ctx);
		return NULL;
	}
#if SANITIZER_BUILD
	if (ALLOW_ALL(ctx, sanitizer_calls) < 0) {
		seccomp_release(ctx);
		return NULL;
	}
#endif
	return ctx;
}

/* --- self-test --------------------------------------------------------- */

static void *selftest_thread(void *arg)
{
	long fd;

	(void)arg;
	put_str("minivmm: sandbox self-test: calling socket()\n");
	fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
	if (fd >= 0) {
		put_str("minivmm: sandbox self-test: socket() was allowed\n");
		close((int)fd);
	}
	return NULL;
}

/* A thread created after the filter, like the vCPU threads. */
static void selftest(void)
{
	const char *v = getenv("MINIVMM_SANDBOX_SELFTEST");
	pthread_t t;

	if (!v || strcmp(v, "1"))
		return;
	if (pthread_create(&t, NULL, selftest_thread, NULL) == 0)
		pthread_join(t, NULL);
}

int sandbox_install(const struct vmm_config *cfg)
{
	scmp_filter_ctx ctx;
	int rc;

	if (!cfg->sandbox) {
		selftest();
		return 0;
	}
	if (install_handler() < 0) {
		perror("minivmm: error: sandbox: SIGSYS handler");
		return -1;
	}
	ctx = build(cfg);
	if (!ctx) {
		fprintf(stderr, "minivmm: error: sandbox: cannot build the "
			"seccomp filter\n");
		return -1;
	}
	rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc < 0) {
		fprintf(stderr, "minivmm: error: sandbox: cannot load the "
			"seccomp filter: %s (--no-sandbox runs without it)\n",
			strerror(-rc));
		return -1;
	}
	selftest();
	return 0;
}
