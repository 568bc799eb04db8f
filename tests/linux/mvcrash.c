// SPDX-License-Identifier: MIT
/*
 * mvcrash: the writer of the crash test (tests/boot/linux-crash.sh), in a
 * Linux guest.  Appends fixed-size numbered records to FILE for ever:
 *
 *   mvcrash sync FILE     fsync()s after each record, then prints
 *                         "@@ ack N" on stdout: record N is durable, the
 *                         guest was told so
 *   mvcrash nosync FILE   no fsync; prints "@@ wrote N" every 64 records
 *   mvcrash soak FILE     for the soak: writes records round a 4 MiB
 *                         file (the disk never fills), fdatasync()s every
 *                         256, prints "@@ soak N" every 4096
 *
 * A record is "record %010u" padded with '.' to 63 bytes and a newline,
 * so a torn or missing one shows.  One process, because a fork and exec
 * costs about a second where guest ring 0 is emulated.  Built static.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RECORD	64
#define SOAK_WRAP	(4u << 20)

int main(int argc, char **argv)
{
	char rec[RECORD];
	int sync_each, soak, fd;

	if (argc != 3 || (strcmp(argv[1], "sync") && strcmp(argv[1], "nosync") &&
			  strcmp(argv[1], "soak"))) {
		fprintf(stderr, "usage: mvcrash sync|nosync|soak FILE\n");
		return 2;
	}
	sync_each = !strcmp(argv[1], "sync");
	soak = !strcmp(argv[1], "soak");
	fd = open(argv[2], O_WRONLY | O_CREAT | (soak ? 0 : O_APPEND) |
		  O_CLOEXEC, 0644);
	if (fd < 0) {
		perror("mvcrash: open");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (unsigned int n = 1;; n++) {
		int l = snprintf(rec, sizeof(rec), "record %010u", n);

		memset(rec + l, '.', RECORD - 1 - (size_t)l);
		rec[RECORD - 1] = '\n';
		if (soak) {
			if (pwrite(fd, rec, RECORD, (off_t)((uint64_t)n *
			    RECORD % SOAK_WRAP)) != RECORD ||
			    (n % 256 == 0 && fdatasync(fd))) {
				perror("mvcrash: soak");
				return 1;
			}
			if (n % 4096 == 0)
				printf("@@ soak %u\n", n);
			continue;
		}
		if (write(fd, rec, RECORD) != RECORD) {
			perror("mvcrash: write");
			return 1;
		}
		if (sync_each) {
			if (fsync(fd)) {
				perror("mvcrash: fsync");
				return 1;
			}
			printf("@@ ack %u\n", n);
		} else if (n % 64 == 0) {
			printf("@@ wrote %u\n", n);
		}
	}
}
