// SPDX-License-Identifier: MIT
/*
 * mvcrash: the writer of the crash test (tests/boot/linux-crash.sh), in a
 * Linux guest.  Appends fixed-size numbered records to FILE for ever:
 *
 *   mvcrash sync FILE     fsync()s after each record, then prints
 *                         "@@ ack N" on stdout: record N is durable, the
 *                         guest was told so
 *   mvcrash nosync FILE   no fsync; prints "@@ wrote N" every 64 records
 *   mvcrash soak FILE [HOST]
 *                         for the soak: writes records round a 4 MiB
 *                         file (the disk never fills), fdatasync()s every
 *                         256, prints "@@ soak N" every 4096; with HOST
 *                         (IPv4) also sends every 1024th record as a UDP
 *                         datagram to HOST:5001 (the network part of the
 *                         traffic) and prints "@@ net M R X" (datagrams
 *                         sent, refused; frames eth0 received) with each
 *                         datagram
 *
 * A record is "record %010u" padded with '.' to 63 bytes and a newline,
 * so a torn or missing one shows.  One process, because a fork and exec
 * costs about a second where guest ring 0 is emulated.  Built static.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RECORD	64
#define SOAK_WRAP	(4u << 20)
#define SOAK_PORT	5001
#define RX_PACKETS	"/sys/class/net/eth0/statistics/rx_packets"

/* A UDP socket towards host:SOAK_PORT into *to; -1 if host is no IPv4. */
static int udp_to(const char *host, struct sockaddr_in *to)
{
	memset(to, 0, sizeof(*to));
	to->sin_family = AF_INET;
	to->sin_port = htons(SOAK_PORT);
	if (inet_pton(AF_INET, host, &to->sin_addr) != 1)
		return -1;
	return socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

/* The count of frames eth0 received (the host's ARP and ICMP): -1 if
 * unknown. */
static long long rx_packets(int fd)
{
	char buf[32];
	ssize_t r = fd < 0 ? -1 : pread(fd, buf, sizeof(buf) - 1, 0);

	if (r <= 0)
		return -1;
	buf[r] = 0;
	return strtoll(buf, NULL, 10);
}

int main(int argc, char **argv)
{
	char rec[RECORD];
	int sync_each, soak, fd, net = -1, rx = -1;
	struct sockaddr_in to;
	unsigned int sent = 0, refused = 0;

	if (argc < 3 || (strcmp(argv[1], "sync") && strcmp(argv[1], "nosync") &&
			 strcmp(argv[1], "soak")) ||
	    argc > 3 + !strcmp(argv[1], "soak")) {
		fprintf(stderr, "usage: mvcrash sync|nosync FILE, "
			"mvcrash soak FILE [HOST]\n");
		return 2;
	}
	sync_each = !strcmp(argv[1], "sync");
	soak = !strcmp(argv[1], "soak");
	if (argc == 4 && (net = udp_to(argv[3], &to)) < 0) {
		perror("mvcrash: soak: udp");
		return 1;
	}
	if (net >= 0)
		rx = open(RX_PACKETS, O_RDONLY | O_CLOEXEC);
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
			/* Only those handed on are counted as sent; a full
			 * socket buffer (completions not yet reclaimed)
			 * refuses one.  A full queue or a missing neighbour
			 * drops one silently. */
			if (net >= 0 && n % 1024 == 0) {
				if (sendto(net, rec, RECORD, 0,
					   (struct sockaddr *)&to,
					   sizeof(to)) == RECORD)
					sent++;
				else
					refused++;
				/* With each datagram: a slow guest (PVM: four
				 * a minute) still prints several. */
				printf("@@ net %u %u %lld\n", sent, refused,
				       rx_packets(rx));
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
