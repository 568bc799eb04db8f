// SPDX-License-Identifier: MIT
/* virtio-net over a tap; see net.h.  Everything here runs in the device
 * thread except creation, configuration reads and reset (worker parked). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "devices/virtio/net.h"

#define QUEUE_SIZE	NET_QUEUE_MAX
#define RX_BUDGET	256	/* frames per turn before polling again */
#define TX_BATCH	64	/* sent chains per used-ring update */

/* Chains handled but not yet in the used ring: one update, one fence and
 * one interrupt decision per burst instead of per frame.  Always empty
 * between two process() calls (so across a reset or a pause). */
struct net_done {
	unsigned int n;
	uint16_t heads[NET_QUEUE_MAX];
	uint32_t lens[NET_QUEUE_MAX];
};

struct virtio_net {
	struct virtio_pci *vp;
	struct virtio_device_ops ops;	/* features follow the tap */
	struct net_tap tap;
	struct net_port port;
	uint8_t cfg[VIRTIO_NET_CFG_SIZEOF];
	uint64_t features;		/* the driver's, once queues are live */
	bool stale;			/* features not read since a reset */
	bool tap_dead;			/* the tap failed for good */
	uint32_t rx_len;		/* a frame waiting for buffers, or 0 */
	uint8_t *rxbuf;
	const char *_Atomic last_drop;
	struct virtio_net_counters ctr;
	struct net_rx rx;
	struct net_done tx_done, rx_done;
	struct vq_chain tx_chain, rx_first, rx_scratch;
	struct iovec tx_iov[VQ_CHAIN_MAX + 1];
	struct iovec rx_iov[VQ_CHAIN_MAX + 1];
};

static bool negotiated(const struct virtio_net *n, unsigned int bit)
{
	return n->features >> bit & 1;
}

static void dropped(struct virtio_net *n, atomic_uint_least64_t *ctr,
		    const char *why)
{
	atomic_fetch_add(ctr, 1);
	atomic_store(&n->last_drop, why);
}

/* Once per driver generation: what it accepted, and the tap's receive
 * offloads to match. */
static void refresh(struct virtio_net *n, struct virtio_pci *vp)
{
	if (!n->stale)
		return;
	n->stale = false;
	n->features = __atomic_load_n(&vp->st.driver_features,
				      __ATOMIC_ACQUIRE);
	if (n->tap.offloads && net_tap_set_offload(n->tap.fd, n->features))
		dropped(n, &n->ctr.rx_drops, "TUNSETOFFLOAD refused");
}

static void flush(struct virtio_pci *vp, unsigned int q, struct net_done *d)
{
	virtio_complete_batch(vp, q, d->heads, d->lens, d->n);
	d->n = 0;
}

/* --- transmit ------------------------------------------------------------ */

static uint32_t tx_one(void *dev, struct vq_chain *c)
{
	struct virtio_net *n = dev;
	const char *why = net_tx(c, n->features, &n->port, n->tx_iov);

	if (n->tx_done.n == TX_BATCH)
		flush(n->vp, VIRTIO_NET_TXQ, &n->tx_done);
	n->tx_done.heads[n->tx_done.n] = c->head;
	n->tx_done.lens[n->tx_done.n++] = 0;
	if (why) {
		dropped(n, &n->ctr.tx_drops, why);
		return VIRTIO_ASYNC;
	}
	atomic_fetch_add(&n->ctr.tx_packets, 1);
	atomic_fetch_add(&n->ctr.tx_bytes, c->out_len - VIRTIO_NET_HDR_SIZE);
	return VIRTIO_ASYNC;
}

/* --- receive ------------------------------------------------------------- */

/* The tap's header as the driver may see it: nothing it did not accept. */
static const char *rx_fix_header(struct virtio_net *n, uint8_t *hdr)
{
	uint8_t gso = hdr[VIRTIO_NET_HDR_GSO_TYPE] & ~VIRTIO_NET_HDR_GSO_ECN;

	if (!negotiated(n, VIRTIO_NET_F_GUEST_CSUM)) {
		if (hdr[VIRTIO_NET_HDR_FLAGS] & VIRTIO_NET_HDR_F_NEEDS_CSUM)
			return "partial checksum from the tap";
		hdr[VIRTIO_NET_HDR_FLAGS] = 0;
	}
	if ((gso == VIRTIO_NET_HDR_GSO_TCPV4 &&
	     !negotiated(n, VIRTIO_NET_F_GUEST_TSO4)) ||
	    (gso == VIRTIO_NET_HDR_GSO_TCPV6 &&
	     !negotiated(n, VIRTIO_NET_F_GUEST_TSO6)) ||
	    (gso != VIRTIO_NET_HDR_GSO_NONE &&
	     gso != VIRTIO_NET_HDR_GSO_TCPV4 &&
	     gso != VIRTIO_NET_HDR_GSO_TCPV6))
		return "segmentation the driver did not accept";
	return NULL;
}

/* One frame from the tap into iov: its length, or -1 if there is none
 * (or the tap is gone: then it is not polled again). */
static ssize_t rx_recv(struct virtio_net *n, struct virtio_pci *vp,
		       const struct iovec *iov, int k)
{
	ssize_t r = n->port.recv(n->port.ctx, iov, k);

	if (r >= 0 || errno == EAGAIN)
		return r;
	/* Gone (the interface was deleted): stop polling it rather than
	 * spin on its error. */
	n->tap_dead = true;
	dropped(n, &n->ctr.rx_drops, "tap read failed");
	virtio_pci_watch(vp, false);
	return -1;
}

static const char *rx_check(struct virtio_net *n, ssize_t r, uint8_t *hdr)
{
	return r < VIRTIO_NET_HDR_SIZE + NET_ETH_HLEN ? "runt from tap" :
	       rx_fix_header(n, hdr);
}

/* Next frame from the tap into rxbuf: true if there is one. */
static bool rx_read(struct virtio_net *n, struct virtio_pci *vp)
{
	const struct iovec iov = { n->rxbuf, NET_RX_BUF };

	for (;;) {
		ssize_t r = rx_recv(n, vp, &iov, 1);
		const char *why;

		if (r < 0)
			return false;
		why = rx_check(n, r, n->rxbuf);
		if (!why) {
			n->rx_len = (uint32_t)r;
			return true;
		}
		dropped(n, &n->ctr.rx_drops, why);
	}
}

enum rx_step {
	RX_NEXT,		/* a frame went (or was dropped): go on */
	RX_IDLE,		/* nothing to read, or the queue broke */
	RX_NOBUF,		/* a frame waits in rxbuf for buffers */
};

/* What became of the frame of rx_len bytes net_rx_place*() placed. */
static enum rx_step rx_result(struct virtio_net *n, struct virtio_pci *vp,
			      enum net_rx_result r)
{
	switch (r) {
	case NET_RX_OK:
		atomic_fetch_add(&n->ctr.rx_packets, 1);
		atomic_fetch_add(&n->ctr.rx_bytes,
				 n->rx_len - VIRTIO_NET_HDR_SIZE);
		break;
	case NET_RX_DROP:
		dropped(n, &n->ctr.rx_drops, "frame larger than the buffers");
		break;
	case NET_RX_WAIT:
		return RX_NOBUF;
	case NET_RX_BROKEN:
		n->rx_len = 0;
		flush(vp, VIRTIO_NET_RXQ, &n->rx_done);
		virtio_queue_broken(vp, VIRTIO_NET_RXQ);
		return RX_IDLE;
	}
	n->rx_len = 0;
	if (n->rx_done.n + n->rx.n > NET_QUEUE_MAX)
		flush(vp, VIRTIO_NET_RXQ, &n->rx_done);
	memcpy(n->rx_done.heads + n->rx_done.n, n->rx.heads,
	       n->rx.n * sizeof(n->rx.heads[0]));
	memcpy(n->rx_done.lens + n->rx_done.n, n->rx.lens,
	       n->rx.n * sizeof(n->rx.lens[0]));
	n->rx_done.n += n->rx.n;
	return RX_NEXT;
}

/* The frame waiting in rxbuf. */
static enum rx_step rx_pending(struct virtio_net *n, struct virtio_pci *vp)
{
	return rx_result(n, vp, net_rx_place(&vp->vq[VIRTIO_NET_RXQ],
		&n->rx_first, &n->rx_scratch, n->rxbuf, n->rx_len,
		negotiated(n, VIRTIO_NET_F_MRG_RXBUF), &n->rx));
}

/* The next frame straight into the first receive chain, with rxbuf
 * behind it for what does not fit there: one copy less.  A chain a frame
 * cannot start in, or none, goes the way through rxbuf, where
 * net_rx_place() decides. */
static enum rx_step rx_direct(struct virtio_net *n, struct virtio_pci *vp)
{
	struct vq *vq = &vp->vq[VIRTIO_NET_RXQ];
	struct vq_chain *c = &n->rx_first;
	enum vq_pop_result p = vq_pop(vq, c);
	uint8_t hdr[VIRTIO_NET_HDR_SIZE];
	enum net_rx_result res;
	const char *why;
	uint32_t cap;
	ssize_t r;
	int k;

	if (p == VQ_ERROR)
		return rx_result(n, vp, NET_RX_BROKEN);
	if (p == VQ_EMPTY || c->in_len < VIRTIO_NET_HDR_SIZE ||
	    c->n_in >= IOV_MAX) {
		if (p == VQ_CHAIN)
			vq_unpop(vq, 1);
		return rx_read(n, vp) ? rx_pending(n, vp) : RX_IDLE;
	}
	cap = c->in_len < NET_RX_BUF ? (uint32_t)c->in_len : NET_RX_BUF;
	memcpy(n->rx_iov, c->iov + c->n_out, c->n_in * sizeof(c->iov[0]));
	k = (int)c->n_in;
	if (cap < NET_RX_BUF)
		n->rx_iov[k++] = (struct iovec){ n->rxbuf + cap,
						 NET_RX_BUF - cap };
	r = rx_recv(n, vp, n->rx_iov, k);
	if (r < 0) {
		vq_unpop(vq, 1);
		return RX_IDLE;
	}
	vq_copy_written(c, 0, hdr, sizeof(hdr));
	why = rx_check(n, r, hdr);
	if (why) {
		vq_unpop(vq, 1);	/* written, but still the device's */
		dropped(n, &n->ctr.rx_drops, why);
		return RX_NEXT;
	}
	vq_copy_to(c, 0, hdr, sizeof(hdr));
	n->rx_len = (uint32_t)r;
	res = net_rx_place_rest(vq, c, &n->rx_scratch, n->rxbuf, n->rx_len,
				negotiated(n, VIRTIO_NET_F_MRG_RXBUF), &n->rx);
	/* Too few buffers: the whole frame to rxbuf, to wait there. */
	if (res == NET_RX_WAIT)
		vq_copy_written(c, 0, n->rxbuf, cap < n->rx_len ? cap :
				n->rx_len);
	return rx_result(n, vp, res);
}

static void rx_burst(struct virtio_net *n, struct virtio_pci *vp)
{
	struct vq *vq = &vp->vq[VIRTIO_NET_RXQ];

	if (!virtio_queue_live(vp, VIRTIO_NET_RXQ) || n->tap_dead) {
		virtio_pci_watch(vp, false);
		return;
	}
	for (unsigned int i = 0; i < RX_BUDGET; i++) {
		enum rx_step s = n->rx_len ? rx_pending(n, vp) :
				 rx_direct(n, vp);

		if (s == RX_NEXT)
			continue;
		if (s == RX_IDLE || !virtio_queue_live(vp, VIRTIO_NET_RXQ))
			return;
		/* Out of buffers: leave the tap alone until the driver
		 * adds some (its kick brings us back); what it has used
		 * so far it gets first. */
		flush(vp, VIRTIO_NET_RXQ, &n->rx_done);
		atomic_fetch_add(&n->ctr.rx_waits, 1);
		virtio_pci_watch(vp, false);
		if (!vq_notify_enable(vq))
			return;
		virtio_pci_watch(vp, true);
	}
}

static void rx(struct virtio_net *n, struct virtio_pci *vp)
{
	rx_burst(n, vp);
	flush(vp, VIRTIO_NET_RXQ, &n->rx_done);
}

/* --- the device ---------------------------------------------------------- */

static void process(void *dev, struct virtio_pci *vp, unsigned int q)
{
	struct virtio_net *n = dev;

	refresh(n, vp);
	if (q == VIRTIO_NET_TXQ) {
		virtio_serve(vp, q, &n->tx_chain, tx_one, n);
		flush(vp, VIRTIO_NET_TXQ, &n->tx_done);
		return;
	}
	/* A receive kick means buffers: the tap is worth reading again. */
	if (q == VIRTIO_NET_RXQ && !n->tap_dead)
		virtio_pci_watch(vp, true);
	rx(n, vp);
}

static void cfg_read(void *dev, unsigned int off, uint8_t *data,
		     unsigned int len)
{
	struct virtio_net *n = dev;

	memcpy(data, n->cfg + off, len);
}

static void reset(void *dev)
{
	struct virtio_net *n = dev;

	n->stale = true;
	n->rx_len = 0;
}

/* A restore: the driver's features came back with the snapshot; read
 * them (and set the tap's offloads to match) before the next frame, or
 * the guest's checksum-offloaded frames are refused as not negotiated.
 * And read the tap again: a frame that came before the receive queue was
 * live turned the watch off, and the restored driver, its buffers long
 * posted, sends no kick to turn it back on. */
static void state_loaded(void *dev)
{
	struct virtio_net *n = dev;

	n->stale = true;
	if (!n->tap_dead)
		virtio_pci_watch(n->vp, true);
}

static void release(void *dev)
{
	struct virtio_net *n = dev;

	net_tap_close(&n->tap);
	free(n->rxbuf);
	free(n);
}

static uint64_t offered(const struct virtio_net_conf *conf)
{
	uint64_t f = 1ull << VIRTIO_NET_F_MAC | 1ull << VIRTIO_NET_F_STATUS |
		     1ull << VIRTIO_NET_F_MRG_RXBUF;

	if (!conf->offloads)
		return f;
	/* Any tap with a virtio header takes partial checksums and large
	 * segments from us; handing them to the guest needs TUNSETOFFLOAD. */
	f |= 1ull << VIRTIO_NET_F_CSUM | 1ull << VIRTIO_NET_F_HOST_TSO4 |
	     1ull << VIRTIO_NET_F_HOST_TSO6;
	if (conf->tap.offloads)
		f |= 1ull << VIRTIO_NET_F_GUEST_CSUM |
		     1ull << VIRTIO_NET_F_GUEST_TSO4 |
		     1ull << VIRTIO_NET_F_GUEST_TSO6;
	return f;
}

static void init(struct virtio_net *n, const struct virtio_net_conf *conf)
{
	n->tap = conf->tap;
	n->port = net_tap_port;
	n->port.ctx = &n->tap;
	n->stale = true;
	memcpy(n->cfg + VIRTIO_NET_CFG_MAC, conf->mac, 6);
	n->cfg[VIRTIO_NET_CFG_STATUS] = VIRTIO_NET_S_LINK_UP;
	n->cfg[VIRTIO_NET_CFG_MAX_PAIRS] = 1;
	n->ops = (struct virtio_device_ops){
		.name = "virtio-net",
		.type = VIRTIO_ID_NET,
		.class_code = 0x020000,		/* network, Ethernet */
		.nqueues = 2,
		.queue_max = QUEUE_SIZE,
		.features = offered(conf),
		.cfg_size = VIRTIO_NET_CFG_SIZEOF,
		.cfg_read = cfg_read,
		.process = process,
		.reset = reset,
		.state_loaded = state_loaded,
		.release = release,
	};
}

struct virtio_net *virtio_net_create(struct pci_bus *bus, uint32_t bdf,
				     const struct virtio_net_conf *conf,
				     const struct virtio_host *host,
				     const char *name)
{
	struct virtio_net *n = calloc(1, sizeof(*n));
	struct net_tap tap = conf->tap;

	if (!n || !(n->rxbuf = malloc(NET_RX_BUF)))
		goto fail;
	init(n, conf);
	n->vp = virtio_pci_create(bus, bdf, &n->ops, n, host, name);
	if (!n->vp)
		goto fail;
	virtio_pci_watch_fd(n->vp, n->tap.fd);
	return n;
fail:
	if (n)
		free(n->rxbuf);
	free(n);
	net_tap_close(&tap);
	return NULL;
}

struct virtio_pci *virtio_net_pci(struct virtio_net *n)
{
	return n->vp;
}

const struct virtio_net_counters *virtio_net_counters(
	const struct virtio_net *n)
{
	return &n->ctr;
}

const char *virtio_net_ifname(const struct virtio_net *n)
{
	return n->tap.name;
}

const char *virtio_net_last_drop(const struct virtio_net *n)
{
	return atomic_load(&n->last_drop);
}
