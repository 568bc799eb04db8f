// SPDX-License-Identifier: MIT
/*
 * vhost-user replies as a hostile back end sends them: the fuzzer's bytes
 * are what the back end writes on the socket, read through the front
 * end's real path (devices/virtio/vhost_user/conn.c: framing, descriptor
 * dropping, devices/virtio/vhost_user/msg.c: the checks) after a request
 * goes out; the same bytes are also checked with vhu_parse_reply() alone.
 *
 * Input: u8 request selector (one of the requests minivmm sends), u8 flags
 * (1: REPLY_ACK in use), then the back end's bytes (up to 4 KiB; the
 * socket then reads EOF, so no request waits for its timeout).
 *
 * Checked: a request that succeeded read exactly one well-formed reply of
 * its own size (the parser agrees on the value); a failed one left the
 * connection dead with a reason, and later requests fail at once.
 */
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "devices/virtio/vhost_user/conn.h"
#include "devices/virtio/vhost_user/msg.h"
#include "tests/fuzz/fuzz_util.h"

static const uint32_t requests[] = {
	VHU_GET_FEATURES, VHU_SET_FEATURES, VHU_SET_OWNER, VHU_SET_MEM_TABLE,
	VHU_SET_VRING_NUM, VHU_SET_VRING_ADDR, VHU_SET_VRING_BASE,
	VHU_GET_VRING_BASE, VHU_SET_VRING_KICK, VHU_SET_VRING_CALL,
	VHU_GET_PROTOCOL_FEATURES, VHU_SET_PROTOCOL_FEATURES,
	VHU_GET_QUEUE_NUM, VHU_SET_VRING_ENABLE,
};
#define NREQ	(sizeof(requests) / sizeof(requests[0]))

static void check_parser(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < NREQ; i++) {
		const char *why = NULL;
		uint64_t v;
		int r = vhu_parse_reply(p, n, requests[i], &v, &why);

		FZ_CHECK(r == 0 ? n == VHU_HDR_SIZE +
			 vhu_reply_size(requests[i]) : why != NULL,
			 "parse result and length disagree");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	uint32_t req = requests[fz_u8(&f) % NREQ];
	bool ack = fz_u8(&f) & 1;
	size_t n;
	const uint8_t *stream = fz_bytes(&f, 4096, &n);
	struct vhu_conn c;
	uint8_t payload[16] = { 0 };
	uint64_t val = 0, pv = 0;
	const char *why;
	int sv[2], rc;
	bool has = vhu_has_reply(req);

	check_parser(stream, n);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 0;
	if (n && write(sv[1], stream, n) != (ssize_t)n)
		abort();
	shutdown(sv[1], SHUT_WR);
	memset(&c, 0, sizeof(c));
	pthread_mutex_init(&c.lock, NULL);
	c.fd = sv[0];
	c.timeout_ms = VHU_REPLY_TIMEOUT_MS;
	c.protocol = ack ? 1ull << VHU_PROTOCOL_F_REPLY_ACK : 0;
	rc = vhu_conn_request(&c, req, payload, has ? 0 : 8, NULL, 0, &val);
	if (rc == 0 && (has || ack)) {
		size_t one = VHU_HDR_SIZE + vhu_reply_size(req);

		FZ_CHECK(n >= one, "a reply accepted from too few bytes");
		FZ_CHECK(vhu_parse_reply(stream, one, req, &pv, &why) == 0 &&
			 (!has || pv == val), "conn and parser disagree");
		FZ_CHECK(!ack || has || pv == 0, "a failed ack accepted");
	} else if (rc < 0) {
		FZ_CHECK(c.dead || c.err[0], "a failure without a reason");
		if (c.dead)
			FZ_CHECK(vhu_conn_request(&c, req, payload, 8, NULL, 0,
						  NULL) < 0,
				 "a dead connection took a request");
	}
	vhu_conn_close(&c);
	close(sv[1]);
	return 0;
}
