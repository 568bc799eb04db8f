// SPDX-License-Identifier: MIT
/* The tap backend; see net_tap.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "devices/virtio/net_tap.h"

#define TUN_DEV		"/dev/net/tun"
#define ALL_OFFLOADS	(TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6)

static int fail(char *err, size_t errlen, const char *what, int e,
		const char *hint)
{
	snprintf(err, errlen, "%s: %s%s", what, strerror(e), hint);
	return -1;
}

/* A tap we made is down; up it comes so frames flow at once (an
 * attached one is left as its owner configured it). */
static void bring_up(const char *name)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, strnlen(name, IFNAMSIZ - 1));
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
}

static int configure(struct net_tap *t, char *err, size_t errlen)
{
	int hdr = VIRTIO_NET_HDR_SIZE;

	if (ioctl(t->fd, TUNSETVNETHDRSZ, &hdr) < 0)
		return fail(err, errlen, "TUNSETVNETHDRSZ", errno, "");
	t->offloads = ioctl(t->fd, TUNSETOFFLOAD, ALL_OFFLOADS) == 0;
	/* Nothing the guest has not accepted yet. */
	if (ioctl(t->fd, TUNSETOFFLOAD, 0) < 0)
		t->offloads = false;
	return 0;
}

int net_tap_open(const char *name, struct net_tap *t, char *err,
		 size_t errlen)
{
	struct ifreq ifr;
	unsigned int features = 0;

	memset(t, 0, sizeof(*t));
	memset(&ifr, 0, sizeof(ifr));
	t->fd = open(TUN_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0)
		return fail(err, errlen, TUN_DEV, errno, errno == ENOENT ?
			    " (no tun driver: modprobe tun)" : errno == EACCES ?
			    " (needs read-write access to " TUN_DEV ")" : "");
	if (ioctl(t->fd, TUNGETFEATURES, &features) == 0 &&
	    !(features & IFF_VNET_HDR)) {
		close(t->fd);
		return fail(err, errlen, TUN_DEV, EOPNOTSUPP,
			    " (no IFF_VNET_HDR)");
	}
	t->created = !name || !if_nametoindex(name);
	if (name)
		memcpy(ifr.ifr_name, name, strnlen(name, IFNAMSIZ - 1));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(t->fd, TUNSETIFF, &ifr) < 0) {
		int e = errno;

		close(t->fd);
		return fail(err, errlen, "TUNSETIFF", e, e == EPERM ?
			    " (needs CAP_NET_ADMIN, or a tap made for this "
			    "user: ip tuntap add NAME mode tap user USER)" :
			    e == EBUSY ? " (another process holds the tap)" :
			    e == EINVAL ? " (not a single-queue tap device)" :
			    "");
	}
	memcpy(t->name, ifr.ifr_name, IFNAMSIZ - 1);
	if (configure(t, err, errlen) < 0) {
		close(t->fd);
		return -1;
	}
	if (t->created)
		bring_up(t->name);
	return 0;
}

void net_tap_close(struct net_tap *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

int net_tap_set_offload(int fd, uint64_t f)
{
	unsigned int o = 0;

	if (f >> VIRTIO_NET_F_GUEST_CSUM & 1) {
		o |= TUN_F_CSUM;
		if (f >> VIRTIO_NET_F_GUEST_TSO4 & 1)
			o |= TUN_F_TSO4;
		if (f >> VIRTIO_NET_F_GUEST_TSO6 & 1)
			o |= TUN_F_TSO6;
	}
	return ioctl(fd, TUNSETOFFLOAD, o);
}

static ssize_t tap_send(void *ctx, const struct iovec *iov, int n)
{
	struct net_tap *t = ctx;
	ssize_t r;

	do
		r = writev(t->fd, iov, n);
	while (r < 0 && errno == EINTR);
	return r;
}

static ssize_t tap_recv(void *ctx, const struct iovec *iov, int n)
{
	struct net_tap *t = ctx;
	ssize_t r;

	do
		r = readv(t->fd, iov, n);
	while (r < 0 && errno == EINTR);
	return r;
}

const struct net_port net_tap_port = { tap_send, tap_recv, NULL };
