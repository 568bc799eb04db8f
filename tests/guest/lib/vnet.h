/* SPDX-License-Identifier: MIT */
/*
 * virtio-net for payloads, on top of virtio.h: the receive queue filled
 * with buffers of one size (each its own descriptor, reposted as soon as
 * a frame is taken out), frames sent one at a time (header and frame in
 * two descriptors) and completed by polling, and the smallest IPv4 a
 * test needs: ARP requests and replies, ICMP echo both ways.  Used by the
 * net test and hostile payloads.
 */
#ifndef GUEST_VNET_H
#define GUEST_VNET_H

#include <stdbool.h>
#include <stdint.h>

#include "virtio.h"

#define VNET_QSIZE	64
#define VNET_ARENA	(256u * 1024)	/* receive buffers */
#define VNET_FRAME_MAX	(16u * 1024)	/* frames this library handles */

struct vnet {
	struct gvirtio d;
	uint8_t mac[6], host_mac[6];
	uint8_t ip[4], host_ip[4];
	bool mrg;			/* VIRTIO_NET_F_MRG_RXBUF */
	bool have_host_mac;
	uint32_t buf_len;		/* each receive buffer */
	uint16_t nbufs;
	uint64_t rx_frames, tx_frames, rx_empty;
	uint64_t arp_answered, echo_answered;
};

/* From the command line: ip=A.B.C.D host=A.B.C.D rxbuf=BYTES mrg=0|1.
 * Finds the nth virtio-net, negotiates (want & offered, plus MRG_RXBUF
 * when mrg), sets up both queues (MSI-X vector 1 on receive when
 * rx_vec), posts the buffers, DRIVER_OK.  0 or -1 (why printed). */
int vnet_open(struct vnet *v, const char *cmdline, uint64_t want,
	      bool rx_vec);

/* Send one frame (a zero virtio_net_hdr in front); 0, or -1 if the
 * device did not complete it in time. */
int vnet_send(struct vnet *v, const void *frame, uint32_t len);
/* The next received frame (header stripped) into buf: its length, 0 if
 * none arrived, -1 if one was malformed (a buffer completed empty or a
 * bad num_buffers; counted in rx_empty). */
int vnet_recv(struct vnet *v, uint8_t *buf, uint32_t max);

/* Answer an ARP request for our address or an ICMP echo request to it;
 * learns the host's MAC from ARP.  True if the frame was one of those. */
bool vnet_answer(struct vnet *v, const uint8_t *f, uint32_t len);
/* Build and send: an ARP request for the host, an echo request to it
 * with n payload bytes (byte i = seed + i). */
int vnet_arp_host(struct vnet *v);
/* The same ARP request built into f (60 bytes); returns its length. */
uint32_t vnet_arp_host_frame(struct vnet *v, uint8_t *f);
int vnet_ping_host(struct vnet *v, uint16_t id, uint16_t seq, uint32_t n,
		   uint8_t seed);
/* Is f an echo reply from the host with that id/seq and payload? */
bool vnet_is_pong(const struct vnet *v, const uint8_t *f, uint32_t len,
		  uint16_t id, uint16_t seq, uint32_t n, uint8_t seed);
/* Is f an ARP reply from the host (and then its MAC is learnt)? */
bool vnet_is_arp_reply(struct vnet *v, const uint8_t *f, uint32_t len);

/* Deadline helpers: TSC cycles for s seconds. */
uint64_t vnet_cycles(uint64_t s);

#endif
