// SPDX-License-Identifier: MIT
/*
 * mvsnap: minivmm's snapshot control page (docs/snapshot.md) from a Linux
 * guest's user space, for the Linux snapshot test's init.  One process
 * does what would otherwise take several busybox devmem runs (each
 * process costs seconds where guest ring 0 is emulated), and it reads the
 * ENV mailbox, which read(2) of /dev/mem cannot (it serves RAM only):
 *
 *   mvsnap ready   asks for a snapshot (REQUEST), then prints
 *                  "@@ snapshot generation G status S" on stderr at once
 *                  (in a restored copy this is the guest's first word)
 *                  and the ENV lines on stdout
 *   mvsnap env     the same without asking
 *
 * Exit status 0, or 1 (one line on stderr) if /dev/mem cannot be mapped
 * or the page is not minivmm's.  Built static (no libraries in the
 * initramfs).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CTL_BASE	0xfe000000ul
#define CTL_SIZE	4096u
#define R_MAGIC		0x000
#define R_GENERATION	0x008
#define R_STATUS	0x00c
#define R_REQUEST	0x010
#define R_ENV_LEN	0x014
#define R_ENV		0x100
#define ENV_MAX		3840u
#define MAGIC		0x4e53564du	/* "MVSN" */
#define REQUEST		0x50414e53u	/* "SNAP" */

static uint32_t rd(volatile uint8_t *p, unsigned int off)
{
	return *(volatile uint32_t *)(p + off);
}

int main(int argc, char **argv)
{
	volatile uint8_t *p;
	uint32_t n;
	char env[ENV_MAX];
	int fd;

	if (argc != 2 || (strcmp(argv[1], "ready") && strcmp(argv[1], "env"))) {
		fprintf(stderr, "usage: mvsnap ready|env\n");
		return 1;
	}
	fd = open("/dev/mem", O_RDWR | O_SYNC);
	p = fd < 0 ? MAP_FAILED : mmap(NULL, CTL_SIZE, PROT_READ | PROT_WRITE,
				       MAP_SHARED, fd, CTL_BASE);
	if (p == MAP_FAILED) {
		perror("mvsnap: /dev/mem at 0xfe000000");
		return 1;
	}
	if (rd(p, R_MAGIC) != MAGIC) {
		fprintf(stderr, "mvsnap: no minivmm control page\n");
		return 1;
	}
	if (!strcmp(argv[1], "ready"))
		*(volatile uint32_t *)(p + R_REQUEST) = REQUEST;
	fprintf(stderr, "@@ snapshot generation %u status %u\n",
		rd(p, R_GENERATION), rd(p, R_STATUS));
	n = rd(p, R_ENV_LEN);
	if (n > ENV_MAX)
		n = ENV_MAX;
	for (uint32_t i = 0; i < n; i++)	/* byte reads: the page exits
						 * on nothing, any width works */
		env[i] = (char)p[R_ENV + i];
	fwrite(env, 1, n, stdout);
	return 0;
}
