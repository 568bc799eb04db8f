// SPDX-License-Identifier: MIT
/* `minivmm bench --cases fs`; see fs.h. */
#include "tools/bench/fs.h"
#include "tools/bench/plan.h"
#include "tools/bench/run.h"
#include "vmm/machine/virtiofsd.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FS_DIRS		40
#define FS_FILES	50
#define FS_SMALL	4096
#define FS_BIG_MIB	256
#define FS_MEM_MIB	512
#define FS_TIMEOUT_S	1800.0	/* a safety net: a boot here is minutes */
#define CMD_TIMEOUT_S	600.0
#define MAX_ROUNDS	20
#define NWORK		4

#define QEMU		"qemu-system-x86_64"

static const struct {
	const char *workload;	/* tools/fsbench/init.sh's name */
	const char *row, *note;
} work[NWORK] = {
	{ "stat-tree", "fs_stat_tree",
	  "find + stat of 2000 files of 4 KiB in 40 folders" },
	{ "read-tree", "fs_read_tree", "cat of the same 2000 files" },
	{ "read-256M", "fs_read_256M", "cat of one 256 MiB file" },
	{ "write-32M", "fs_write_32M", "dd of 32 MiB with conv=fsync, rm" },
};

unsigned int bench_fs_steps(const struct bench_run *b)
{
	if (!b->o.linux_kernel)
		return 0;
	return 1 + b->o.peer_qemu + 2 * b->o.linux_repeat;
}

static int write_file(const char *path, const char *buf, size_t len,
		      unsigned int times)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	for (unsigned int i = 0; i < times; i++) {
		if (write(fd, buf, len) != (ssize_t)len) {
			close(fd);
			return -1;
		}
	}
	return close(fd);
}

/* root/small/dD/fF and root/big; 0, or -1 with errno. */
static int make_tree(const char *root)
{
	static char buf[1 << 20];
	char p[PATH_MAX];

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 131 + (i >> 12));
	snprintf(p, sizeof(p), "%s/small", root);
	if (mkdir(root, 0755) < 0 || mkdir(p, 0755) < 0)
		return -1;
	for (int d = 1; d <= FS_DIRS; d++) {
		snprintf(p, sizeof(p), "%s/small/d%d", root, d);
		if (mkdir(p, 0755) < 0)
			return -1;
		for (int f = 1; f <= FS_FILES; f++) {
			snprintf(p, sizeof(p), "%s/small/d%d/f%d", root, d, f);
			if (write_file(p, buf + (d * FS_FILES + f) % 997,
				       FS_SMALL, 1) < 0)
				return -1;
		}
	}
	snprintf(p, sizeof(p), "%s/big", root);
	return write_file(p, buf, sizeof(buf), FS_BIG_MIB);
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void rm_tree(const char *root)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* "@@ time fs WORKLOAD SECONDS" lines of out into ns[w][n[w]++]. */
static void parse_times(const char *out, uint64_t ns[][MAX_ROUNDS],
			size_t *n)
{
	for (const char *l = out; l && (l = strstr(l, "@@ time fs ")); l++) {
		char name[32];
		double s;

		if (sscanf(l, "@@ time fs %31s %lf", name, &s) != 2 || s < 0)
			continue;
		for (int w = 0; w < NWORK; w++)
			if (!strcmp(name, work[w].workload) &&
			    n[w] < MAX_ROUNDS)
				ns[w][n[w]++] = (uint64_t)(s * 1e9);
	}
}

/* The guest's words: the same for both VMMs. */
static void append_words(const struct bench_run *b, char *buf, size_t len)
{
	snprintf(buf, len, "console=ttyS0 quiet panic=-1 minivmm.fs=fs "
		 "minivmm.rounds=%u", b->o.linux_repeat);
}

static int boot_minivmm(struct bench_run *b, const char *initrd,
			const char *sock, struct bench_child *c)
{
	char append[256], fs[sizeof(((struct virtiofsd *)0)->sock) + 16];
	char timeout[16], mem[16];
	char *argv[] = { b->exe, "run", "--kernel",
			 (char *)b->o.linux_kernel, "--initrd", (char *)initrd,
			 "-m", mem, "--append", append, "--fs", fs,
			 "--timeout", timeout, NULL };

	append_words(b, append, sizeof(append));
	snprintf(fs, sizeof(fs), "%s,tag=tree", sock);
	snprintf(timeout, sizeof(timeout), "%.0f", FS_TIMEOUT_S);
	snprintf(mem, sizeof(mem), "%uM", FS_MEM_MIB);
	return bench_exec(argv, FS_TIMEOUT_S + 30, c);
}

/* QEMU needs guest RAM it can share with the daemon: a memfd. */
static int boot_qemu(struct bench_run *b, const char *initrd,
		     const char *sock, struct bench_child *c)
{
	char append[256], chardev[sizeof(((struct virtiofsd *)0)->sock) + 32];
	char obj[96], mem[16];
	char *argv[] = { QEMU, "-accel", "kvm", "-M",
			 "q35,memory-backend=mem", "-cpu", b->host.qemu_cpu,
			 "-m", mem, "-object", obj, "-display", "none",
			 "-nodefaults", "-serial", "stdio", "-monitor", "none",
			 "-no-reboot", "-kernel", (char *)b->o.linux_kernel,
			 "-initrd", (char *)initrd, "-append", append,
			 "-chardev", chardev, "-device",
			 "vhost-user-fs-pci,chardev=fs0,tag=tree", NULL };

	append_words(b, append, sizeof(append));
	snprintf(mem, sizeof(mem), "%uM", FS_MEM_MIB);
	snprintf(obj, sizeof(obj), "memory-backend-memfd,id=mem,size=%uM,"
		 "share=on", FS_MEM_MIB);
	snprintf(chardev, sizeof(chardev), "socket,id=fs0,path=%s", sock);
	return bench_exec(argv, FS_TIMEOUT_S + 30, c);
}

static void fail_all(struct bench_run *b, const char *vmm, const char *why)
{
	for (int w = 0; w < NWORK; w++) {
		struct bench_result *x = bench_new_row(b, work[w].row, 0,
						       "virtiofs", vmm, "fs");

		x->status = BENCH_FAILED;
		snprintf(x->note, sizeof(x->note), "%.150s", why);
	}
	b->failed = true;
}

static void skip_qemu(struct bench_run *b, const char *why)
{
	struct bench_result *x = bench_new_row(b, work[0].row, 0, "virtiofs",
					       "qemu", "fs");

	x->status = BENCH_SKIPPED;
	snprintf(x->note, sizeof(x->note), "%.150s", why);
}

/* One boot of vmm ("minivmm" or "qemu") over tree with its own daemon. */
static void fs_boot(struct bench_run *b, const char *vmm, const char *tree,
		    const char *initrd)
{
	static uint64_t ns[NWORK][MAX_ROUNDS];
	struct fs_opt o = { .share = true, .tag = "tree" };
	size_t n[NWORK] = { 0 };
	struct virtiofsd d;
	struct bench_child c;
	char err[FS_PATH_MAX + 200], extra[64] = "virtiofsd cache=auto";
	int r;

	bench_progress(b, "fs", vmm);
	snprintf(o.path, sizeof(o.path), "%s", tree);
	if (virtiofsd_start(&d, &o, err, sizeof(err)) < 0) {
		fail_all(b, vmm, err);
		return;
	}
	r = !strcmp(vmm, "qemu") ? boot_qemu(b, initrd, d.sock, &c) :
				   boot_minivmm(b, initrd, d.sock, &c);
	virtiofsd_stop(&d);
	if (r < 0 || c.status != 0 || !c.out || !strstr(c.out, "@@ done") ||
	    strstr(c.out, "@@ FAIL")) {
		struct bench_result *x = bench_new_row(b, work[0].row, 0,
						       "virtiofs", vmm, "fs");

		bench_fail_row(x, r < 0 ? NULL : &c, "the file-system boot");
		if (r == 0 && c.out && strstr(c.out, "@@ FAIL"))
			snprintf(x->note, sizeof(x->note), "the guest said "
				 "%.80s", strstr(c.out, "@@ FAIL"));
		b->failed = true;
		bench_child_free(&c);
		return;
	}
	parse_times(c.out, ns, n);
	bench_child_free(&c);
	if (!strcmp(vmm, "qemu")) {
		char v[32];

		bench_qemu_version(v, sizeof(v));
		snprintf(extra, sizeof(extra), "virtiofsd cache=auto qemu=%s",
			 v);
	}
	for (int w = 0; w < NWORK; w++) {
		struct bench_result *x = bench_new_row(b, work[w].row, 0,
						       "virtiofs", vmm, "fs");

		if (bench_row_samples(b, x, ns[w], n[w], "no time in the "
				      "guest's output") == 0)
			snprintf(x->extra, sizeof(x->extra), "%s", extra);
		snprintf(x->note, sizeof(x->note), "%s", work[w].note);
	}
}

/* `minivmm run --kernel K [--share /:ro] --cmd true`: process start to
 * exit, per run. */
static void cmd_rows(struct bench_run *b)
{
	static const char *const rows[2] = { "run_cmd_true",
					     "run_cmd_true_root" };
	uint64_t ns[2][MAX_ROUNDS];
	size_t n[2] = { 0, 0 };

	for (unsigned int i = 0; i < b->o.linux_repeat && i < MAX_ROUNDS;
	     i++) {
		for (int root = 0; root < 2; root++) {
			char timeout[16];
			char *argv[] = { b->exe, "run", "--kernel",
					 (char *)b->o.linux_kernel,
					 "--timeout", timeout, "--cmd", "true",
					 root ? "--share" : NULL, "/:ro",
					 NULL };
			struct bench_child c;

			bench_progress(b, "fs", rows[root]);
			snprintf(timeout, sizeof(timeout), "%.0f",
				 CMD_TIMEOUT_S);
			if (bench_exec(argv, CMD_TIMEOUT_S + 30, &c) == 0 &&
			    c.status == 0)
				ns[root][n[root]++] = (uint64_t)(c.wall_ms *
								 1e6);
			bench_child_free(&c);
		}
	}
	for (int root = 0; root < 2; root++) {
		struct bench_result *x = bench_new_row(b, rows[root], 0,
						       "cmd", "minivmm", "fs");

		bench_row_samples(b, x, ns[root], n[root], "`minivmm run "
				  "--cmd true` did not end with status 0");
		snprintf(x->note, sizeof(x->note), "%s", root ?
			 "process start to exit of minivmm run --kernel K "
			 "--share /:ro --cmd true" :
			 "process start to exit of minivmm run --kernel K "
			 "--cmd true");
	}
}

static void initrd_path(const struct bench_run *b, char *buf, size_t len)
{
	const char *slash = strrchr(b->exe, '/');
	int dir = slash ? (int)(slash - b->exe) : 0;

	snprintf(buf, len, "%.*s%sfsbench-initramfs.cpio", dir, b->exe,
		 slash ? "/" : "");
}

void bench_run_fs(struct bench_run *b)
{
	char tree[sizeof(b->tmp) + 8], initrd[PATH_MAX], why[PATH_MAX + 100];

	if (!b->o.linux_kernel)
		return;		/* no fs rows without --linux-kernel */
	initrd_path(b, initrd, sizeof(initrd));
	snprintf(tree, sizeof(tree), "%s/tree", b->tmp);
	if (access(initrd, R_OK) < 0) {
		snprintf(why, sizeof(why), "%s: %s (make builds it)", initrd,
			 strerror(errno));
		fail_all(b, "minivmm", why);
	} else if (make_tree(tree) < 0) {
		snprintf(why, sizeof(why), "the tree in %s: %s", tree,
			 strerror(errno));
		fail_all(b, "minivmm", why);
	} else {
		fs_boot(b, "minivmm", tree, initrd);
		if (b->o.peer_qemu && b->host.user_syscalls_undone)
			skip_qemu(b, "this host's KVM (PVM) leaves guest "
				  "user-mode system calls undone and QEMU has "
				  "no fix: its guest's init would die at its "
				  "first one");
		else if (b->o.peer_qemu && !bench_qemu_ready(why, sizeof(why)))
			skip_qemu(b, why);
		else if (b->o.peer_qemu)
			fs_boot(b, "qemu", tree, initrd);
	}
	rm_tree(tree);
	cmd_rows(b);
}
