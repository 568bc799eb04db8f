/* SPDX-License-Identifier: MIT */
/*
 * vhost-user messages (QEMU's docs/interop/vhost-user.rst, the front-end
 * side): the wire layout of the requests minivmm sends, their encoding,
 * and the checked parsing of a back end's reply.  Pure data: no sockets
 * (conn.h does the I/O), so the parser can be fuzzed on raw bytes.
 *
 * A message is a 12-byte header (request, flags, payload size, all
 * little-endian host order as the protocol says: native) followed by the
 * payload.  A reply must carry the version, the reply bit, the request it
 * answers and exactly the payload size that request's reply has.
 */
#ifndef MINIVMM_VHOST_USER_MSG_H
#define MINIVMM_VHOST_USER_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum vhu_request {
	VHU_GET_FEATURES = 1,
	VHU_SET_FEATURES = 2,
	VHU_SET_OWNER = 3,
	VHU_SET_MEM_TABLE = 5,
	VHU_SET_VRING_NUM = 8,
	VHU_SET_VRING_ADDR = 9,
	VHU_SET_VRING_BASE = 10,
	VHU_GET_VRING_BASE = 11,
	VHU_SET_VRING_KICK = 12,
	VHU_SET_VRING_CALL = 13,
	VHU_GET_PROTOCOL_FEATURES = 15,
	VHU_SET_PROTOCOL_FEATURES = 16,
	VHU_GET_QUEUE_NUM = 17,
	VHU_SET_VRING_ENABLE = 18,
};

#define VHU_VERSION		0x1u
#define VHU_VERSION_MASK	0x3u
#define VHU_FLAG_REPLY		0x4u
#define VHU_FLAG_NEED_REPLY	0x8u
#define VHU_HDR_SIZE		12u

/* Feature bit: the back end speaks protocol features (and then rings
 * start disabled until SET_VRING_ENABLE). */
#define VHU_F_PROTOCOL_FEATURES	30
/* Protocol features minivmm uses. */
#define VHU_PROTOCOL_F_MQ	0
#define VHU_PROTOCOL_F_REPLY_ACK 3

#define VHU_MAX_REGIONS		8
#define VHU_VRING_NOFD		0x100u	/* kick/call index: no fd sent */

struct vhu_hdr {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
} __attribute__((packed));

struct vhu_vring_state {
	uint32_t index;
	uint32_t num;
} __attribute__((packed));

struct vhu_vring_addr {
	uint32_t index;
	uint32_t flags;
	uint64_t desc;			/* front-end virtual addresses */
	uint64_t used;
	uint64_t avail;
	uint64_t log;
} __attribute__((packed));

struct vhu_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uaddr;			/* where the front end maps it */
	uint64_t mmap_offset;		/* into the region's fd */
} __attribute__((packed));

struct vhu_mem_table {
	uint32_t nregions;
	uint32_t padding;
	struct vhu_region regions[VHU_MAX_REGIONS];
} __attribute__((packed));

/* The largest payload either side sends. */
#define VHU_PAYLOAD_MAX		sizeof(struct vhu_mem_table)

struct vhu_msg {
	struct vhu_hdr hdr;
	union {
		uint64_t u64;
		struct vhu_vring_state state;
		struct vhu_vring_addr addr;
		struct vhu_mem_table mem;
		uint8_t bytes[VHU_PAYLOAD_MAX];
	} p;
} __attribute__((packed));

/* A request with payload len bytes at data (may be NULL when len is 0);
 * need_reply asks for a REPLY_ACK.  Returns the bytes to send. */
size_t vhu_encode(struct vhu_msg *m, uint32_t request, const void *data,
		  uint32_t len, bool need_reply);

/* Does request get a reply payload of its own (GET_*), as opposed to an
 * acknowledgement only when asked? */
bool vhu_has_reply(uint32_t request);

/* The payload size request's reply must have (u64 or a vring state). */
uint32_t vhu_reply_size(uint32_t request);

/* Check a whole reply (header and payload, len bytes at buf) to request:
 * 0 and the value in *val (a u64; GET_VRING_BASE: the state's num), or -1
 * with a static reason in *why. */
int vhu_parse_reply(const uint8_t *buf, size_t len, uint32_t request,
		    uint64_t *val, const char **why);

/* The request's name for messages ("SET_MEM_TABLE"), or "request". */
const char *vhu_request_name(uint32_t request);

#endif
