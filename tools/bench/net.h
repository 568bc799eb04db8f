/* SPDX-License-Identifier: MIT */
/*
 * The virtio-net cases' host side: a private network namespace for the
 * whole bench (unshare), a persistent tap in it (BENCH_NET_TAP, host
 * address 10.0.2.1/24 and a fixed MAC, a static neighbour entry for the
 * guest's 10.0.2.15 at 52:54:00:12:34:56, the default MAC of minivmm and
 * QEMU alike), and the traffic's other end while a case runs: a UDP sink
 * for guest->host cases, a UDP sender at full speed for host->guest ones.
 * minivmm and QEMU (the peer) attach to the same tap one after the other.
 */
#ifndef MINIVMM_BENCH_NET_H
#define MINIVMM_BENCH_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_NET_TAP		"mvbench0"
/* The addresses the payload (tests/guest/bench/net.c) uses too. */
#define BENCH_NET_HOST_IP	"10.0.2.1"
#define BENCH_NET_GUEST_IP	"10.0.2.15"
#define BENCH_NET_SINK_PORT	5001	/* guest -> host */
#define BENCH_NET_GUEST_PORT	5002	/* host -> guest */

/* Is name a virtio-net case (group net)? */
bool bench_is_net(const char *name);

/* Namespace and tap, once: 0, or -1 with why (not root, no tun...). */
int bench_net_prepare(char *why, size_t len);
/* The other end for case name (net_tx_*: sink; net_rx_SIZE: sender of
 * SIZE-byte datagrams), in a thread; stop joins it and returns the
 * datagrams the sink received or the sender sent. */
int bench_net_start(const char *name);
uint64_t bench_net_stop(void);

#endif
