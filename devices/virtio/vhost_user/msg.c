// SPDX-License-Identifier: MIT
/* vhost-user message encoding and reply checks; see msg.h. */
#include <string.h>

#include "devices/virtio/vhost_user/msg.h"

size_t vhu_encode(struct vhu_msg *m, uint32_t request, const void *data,
		  uint32_t len, bool need_reply)
{
	if (len > VHU_PAYLOAD_MAX)
		len = VHU_PAYLOAD_MAX;
	memset(&m->hdr, 0, sizeof(m->hdr));
	m->hdr.request = request;
	m->hdr.flags = VHU_VERSION | (need_reply ? VHU_FLAG_NEED_REPLY : 0);
	m->hdr.size = len;
	if (len)
		memcpy(m->p.bytes, data, len);
	return VHU_HDR_SIZE + len;
}

bool vhu_has_reply(uint32_t request)
{
	switch (request) {
	case VHU_GET_FEATURES:
	case VHU_GET_PROTOCOL_FEATURES:
	case VHU_GET_QUEUE_NUM:
	case VHU_GET_VRING_BASE:
		return true;
	}
	return false;
}

uint32_t vhu_reply_size(uint32_t request)
{
	return request == VHU_GET_VRING_BASE ?
	       (uint32_t)sizeof(struct vhu_vring_state) : sizeof(uint64_t);
}

int vhu_parse_reply(const uint8_t *buf, size_t len, uint32_t request,
		    uint64_t *val, const char **why)
{
	struct vhu_hdr h;
	struct vhu_vring_state st;
	uint32_t want = vhu_reply_size(request);

	*val = 0;
	if (len < VHU_HDR_SIZE) {
		*why = "short reply header";
		return -1;
	}
	memcpy(&h, buf, sizeof(h));
	if ((h.flags & VHU_VERSION_MASK) != VHU_VERSION) {
		*why = "reply with an unknown protocol version";
		return -1;
	}
	if (!(h.flags & VHU_FLAG_REPLY)) {
		*why = "message without the reply flag";
		return -1;
	}
	if (h.request != request) {
		*why = "reply to a different request";
		return -1;
	}
	if (h.size != want || len - VHU_HDR_SIZE != want) {
		*why = "reply payload of the wrong size";
		return -1;
	}
	if (request == VHU_GET_VRING_BASE) {
		memcpy(&st, buf + VHU_HDR_SIZE, sizeof(st));
		*val = st.num;
		return 0;
	}
	memcpy(val, buf + VHU_HDR_SIZE, sizeof(*val));
	return 0;
}

const char *vhu_request_name(uint32_t request)
{
	static const char *const names[] = {
		[VHU_GET_FEATURES] = "GET_FEATURES",
		[VHU_SET_FEATURES] = "SET_FEATURES",
		[VHU_SET_OWNER] = "SET_OWNER",
		[VHU_SET_MEM_TABLE] = "SET_MEM_TABLE",
		[VHU_SET_VRING_NUM] = "SET_VRING_NUM",
		[VHU_SET_VRING_ADDR] = "SET_VRING_ADDR",
		[VHU_SET_VRING_BASE] = "SET_VRING_BASE",
		[VHU_GET_VRING_BASE] = "GET_VRING_BASE",
		[VHU_SET_VRING_KICK] = "SET_VRING_KICK",
		[VHU_SET_VRING_CALL] = "SET_VRING_CALL",
		[VHU_GET_PROTOCOL_FEATURES] = "GET_PROTOCOL_FEATURES",
		[VHU_SET_PROTOCOL_FEATURES] = "SET_PROTOCOL_FEATURES",
		[VHU_GET_QUEUE_NUM] = "GET_QUEUE_NUM",
		[VHU_SET_VRING_ENABLE] = "SET_VRING_ENABLE",
	};

	if (request < sizeof(names) / sizeof(names[0]) && names[request])
		return names[request];
	return "request";
}
