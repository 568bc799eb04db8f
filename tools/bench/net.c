// SPDX-License-Identifier: MIT
/* The virtio-net cases' host side; see net.h. */
#include "tools/bench/net.h"
#include "tools/bench/pin.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH		64
#define MAX_DGRAM	1472

static const uint8_t host_mac[6] = { 0x02, 0x4d, 0x56, 0x00, 0x00, 0x01 };
static const uint8_t guest_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

static struct {
	pthread_t thread;
	bool running;
	atomic_bool stop;
	bool sink;
	size_t size;
	uint64_t count;
} peer;

bool bench_is_net(const char *name)
{
	return !strncmp(name, "net_", 4);
}

static int fail(char *why, size_t len, const char *what)
{
	snprintf(why, len, "%s: %s", what, strerror(errno));
	return -1;
}

static void ifr_for(struct ifreq *ifr, const char *name)
{
	memset(ifr, 0, sizeof(*ifr));
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", name);
}

static int set_addr(int s, unsigned long req, const char *ip)
{
	struct ifreq ifr;
	struct sockaddr_in a = { .sin_family = AF_INET };

	ifr_for(&ifr, BENCH_NET_TAP);
	inet_pton(AF_INET, ip, &a.sin_addr);
	memcpy(&ifr.ifr_addr, &a, sizeof(a));
	return ioctl(s, req, &ifr);
}

static int up(int s, const char *name)
{
	struct ifreq ifr;

	ifr_for(&ifr, name);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		return -1;
	ifr.ifr_flags |= IFF_UP;
	return ioctl(s, SIOCSIFFLAGS, &ifr);
}

/* The tap stays (TUNSETPERSIST) after its descriptor closes, so each VMM
 * attaches to it in turn; the namespace takes it along at exit. */
static int make_tap(char *why, size_t len)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return fail(why, len, "/dev/net/tun");
	ifr_for(&ifr, BENCH_NET_TAP);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0 || ioctl(fd, TUNSETPERSIST, 1) < 0) {
		fail(why, len, "TUNSETIFF");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int configure(int s)
{
	struct ifreq ifr;
	struct arpreq arp;
	struct sockaddr_in *a = (struct sockaddr_in *)&arp.arp_pa;

	ifr_for(&ifr, BENCH_NET_TAP);
	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(ifr.ifr_hwaddr.sa_data, host_mac, 6);
	if (ioctl(s, SIOCSIFHWADDR, &ifr) < 0 ||
	    set_addr(s, SIOCSIFADDR, BENCH_NET_HOST_IP) < 0 ||
	    set_addr(s, SIOCSIFNETMASK, "255.255.255.0") < 0 ||
	    up(s, BENCH_NET_TAP) < 0 || up(s, "lo") < 0)
		return -1;
	memset(&arp, 0, sizeof(arp));
	a->sin_family = AF_INET;
	inet_pton(AF_INET, BENCH_NET_GUEST_IP, &a->sin_addr);
	arp.arp_ha.sa_family = ARPHRD_ETHER;
	memcpy(arp.arp_ha.sa_data, guest_mac, 6);
	arp.arp_flags = ATF_PERM | ATF_COM;
	snprintf(arp.arp_dev, sizeof(arp.arp_dev), "%s", BENCH_NET_TAP);
	return ioctl(s, SIOCSARP, &arp);
}

int bench_net_prepare(char *why, size_t len)
{
	static int done;
	static char saved[160];
	int s;

	if (done) {
		snprintf(why, len, "%s", saved);
		return done > 0 ? 0 : -1;
	}
	done = -1;
	if (unshare(CLONE_NEWNET) < 0)
		fail(saved, sizeof(saved), "a network namespace (needs root)");
	else if (make_tap(saved, sizeof(saved)) == 0) {
		s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s < 0 || configure(s) < 0)
			fail(saved, sizeof(saved), "configuring the tap");
		else
			done = 1;
		if (s >= 0)
			close(s);
	}
	snprintf(why, len, "%s", saved);
	return done > 0 ? 0 : -1;
}

static int udp_socket(uint16_t bind_port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(bind_port) };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), big = 8 << 20;

	if (s < 0)
		return -1;
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	inet_pton(AF_INET, bind_port == BENCH_NET_SINK_PORT ?
		  BENCH_NET_HOST_IP : "0.0.0.0", &a.sin_addr);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(s);
		return -1;
	}
	return s;
}

static void sink(int s)
{
	static uint8_t buf[BATCH][MAX_DGRAM + 64];
	struct mmsghdr m[BATCH];
	struct iovec v[BATCH];

	for (int i = 0; i < BATCH; i++) {
		v[i] = (struct iovec){ buf[i], sizeof(buf[i]) };
		m[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &v[i],
						      .msg_iovlen = 1 } };
	}
	while (!atomic_load(&peer.stop)) {
		struct pollfd p = { s, POLLIN, 0 };
		int n;

		if (poll(&p, 1, 50) <= 0)
			continue;
		n = recvmmsg(s, m, BATCH, MSG_DONTWAIT, NULL);
		if (n > 0)
			peer.count += (uint64_t)n;
	}
}

/* As fast as the host goes; the tap's queue drops what the guest does
 * not take in time, as a real link would. */
static void sender(int s)
{
	static uint8_t buf[MAX_DGRAM];
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(BENCH_NET_GUEST_PORT) };
	struct mmsghdr m[BATCH];
	struct iovec v = { buf, peer.size };

	inet_pton(AF_INET, BENCH_NET_GUEST_IP, &to.sin_addr);
	for (int i = 0; i < BATCH; i++)
		m[i] = (struct mmsghdr){ .msg_hdr = { .msg_name = &to,
			.msg_namelen = sizeof(to), .msg_iov = &v,
			.msg_iovlen = 1 } };
	while (!atomic_load(&peer.stop)) {
		int n = sendmmsg(s, m, BATCH, 0);

		if (n > 0)
			peer.count += (uint64_t)n;
		else if (errno == ENOBUFS || errno == EAGAIN)
			sched_yield();
	}
}

static void *run_peer(void *arg)
{
	int s = udp_socket(peer.sink ? BENCH_NET_SINK_PORT : 0);

	(void)arg;
	bench_pin_traffic();
	if (s < 0)
		return NULL;
	if (peer.sink)
		sink(s);
	else
		sender(s);
	close(s);
	return NULL;
}

int bench_net_start(const char *name)
{
	const char *size = strrchr(name, '_');

	peer.sink = !strncmp(name, "net_tx_", 7);
	peer.size = size ? strtoul(size + 1, NULL, 10) : 64;
	if (peer.size < 18 || peer.size > MAX_DGRAM)
		peer.size = 64;
	peer.count = 0;
	atomic_store(&peer.stop, false);
	if (pthread_create(&peer.thread, NULL, run_peer, NULL))
		return -1;
	peer.running = true;
	return 0;
}

uint64_t bench_net_stop(void)
{
	if (!peer.running)
		return 0;
	atomic_store(&peer.stop, true);
	pthread_join(peer.thread, NULL);
	peer.running = false;
	return peer.count;
}
