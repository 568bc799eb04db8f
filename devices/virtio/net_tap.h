/* SPDX-License-Identifier: MIT */
/*
 * virtio-net's tap backend: opens /dev/net/tun and creates a tap (a
 * name chosen by the kernel, brought up) or attaches to a named one
 * (created if absent), always IFF_TAP | IFF_NO_PI | IFF_VNET_HDR with a
 * 12-byte header (the VERSION_1 virtio_net_hdr, so frames pass through
 * unchanged); finds out whether the tap takes receive offloads
 * (TUNSETOFFLOAD) and sets them to what the driver accepted.  Needs
 * CAP_NET_ADMIN, or a persistent tap owned by the user.  Owns the file
 * descriptor.
 */
#ifndef MINIVMM_VIRTIO_NET_TAP_H
#define MINIVMM_VIRTIO_NET_TAP_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devices/virtio/net_core.h"

struct net_tap {
	int fd;
	char name[IFNAMSIZ];
	bool created;			/* by us: it goes when fd closes */
	bool offloads;			/* TUNSETOFFLOAD takes CSUM + TSO4/6 */
};

/* name NULL: a new tap.  0, or -1 with one line's worth in err (what
 * failed and, for permissions, what is needed). */
int net_tap_open(const char *name, struct net_tap *t, char *err,
		 size_t errlen);
void net_tap_close(struct net_tap *t);

/* Receive offloads matching the driver's VIRTIO_NET_F_GUEST_* bits (the
 * tap then hands over partial checksums and large segments only if the
 * guest takes them).  0 or -1. */
int net_tap_set_offload(int fd, uint64_t guest_features);

/* A struct net_port over the tap: ctx is the struct net_tap. */
extern const struct net_port net_tap_port;

#endif
