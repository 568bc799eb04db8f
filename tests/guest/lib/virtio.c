// SPDX-License-Identifier: MIT
/* The payloads' virtio driver; see virtio.h. */
#include "guest.h"
#include "pci_access.h"
#include "virtio.h"

#define MSIX_FLAGS	2
#define MSIX_TABLE	4
#define MSIX_ENABLE	0x8000u
#define MSIX_MASKALL	0x4000u

static void mb(void)
{
	__asm__ volatile("mfence" ::: "memory");
}

uint32_t gv_pci_read(const struct gvirtio *d, unsigned int reg,
		     unsigned int len)
{
	return pci_cf8_read(d->bdf, reg, len);
}

void gv_pci_write(const struct gvirtio *d, unsigned int reg, uint32_t v,
		  unsigned int len)
{
	pci_cf8_write(d->bdf, reg, v, len);
}

/* --- discovery ------------------------------------------------------------ */

static void read_bars(struct gvirtio *d)
{
	for (int i = 0; i < 6; i++) {
		uint32_t lo = gv_pci_read(d, PCI_BASE_ADDRESS_0 + 4 * i, 4);

		d->bar[i] = 0;
		d->bar64[i] = false;
		if (lo & PCI_BASE_ADDRESS_SPACE_IO)
			continue;
		d->bar[i] = lo & PCI_BASE_ADDRESS_MEM_MASK;
		if ((lo & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
		    PCI_BASE_ADDRESS_MEM_TYPE_64 && i < 5) {
			d->bar64[i] = true;
			d->bar[i] |= (uint64_t)gv_pci_read(d, PCI_BASE_ADDRESS_0 +
							   4 * (i + 1), 4) << 32;
			i++;
		}
	}
}

static void vendor_cap(struct gvirtio *d, unsigned int c)
{
	uint8_t type = (uint8_t)gv_pci_read(d, c + VIRTIO_PCI_CAP_CFG_TYPE, 1);
	uint8_t bar = (uint8_t)gv_pci_read(d, c + VIRTIO_PCI_CAP_BAR, 1);
	uint32_t off = gv_pci_read(d, c + VIRTIO_PCI_CAP_OFFSET, 4);
	uint32_t len = gv_pci_read(d, c + VIRTIO_PCI_CAP_LENGTH, 4);
	uint64_t a = bar < 6 ? d->bar[bar] + off : 0;

	switch (type) {
	case VIRTIO_PCI_CAP_COMMON_CFG:
		if (!d->common)
			d->common = a;
		break;
	case VIRTIO_PCI_CAP_NOTIFY_CFG:
		if (!d->notify) {
			d->notify = a;
			d->notify_mult = gv_pci_read(d, c +
					VIRTIO_PCI_NOTIFY_MULTIPLIER, 4);
		}
		break;
	case VIRTIO_PCI_CAP_ISR_CFG:
		if (!d->isr)
			d->isr = a;
		break;
	case VIRTIO_PCI_CAP_DEVICE_CFG:
		if (!d->device) {
			d->device = a;
			d->device_len = len;
		}
		break;
	case VIRTIO_PCI_CAP_PCI_CFG:
		if (!d->cfg_cap)
			d->cfg_cap = (uint16_t)c;
		break;
	}
}

static void read_caps(struct gvirtio *d)
{
	unsigned int c = gv_pci_read(d, PCI_CAPABILITY_LIST, 1) & 0xfc;

	for (int n = 0; c && n < 48; n++) {
		uint8_t id = (uint8_t)gv_pci_read(d, c, 1);

		if (id == PCI_CAP_ID_VNDR)
			vendor_cap(d, c);
		if (id == PCI_CAP_ID_MSIX) {
			uint32_t t = gv_pci_read(d, c + MSIX_TABLE, 4);

			d->msix_cap = (uint16_t)c;
			d->msix_nvec = (uint16_t)((gv_pci_read(d, c +
						MSIX_FLAGS, 2) & 0x7ff) + 1);
			d->msix_table = (t & 7) < 6 ? d->bar[t & 7] +
					(t & ~7u) : 0;
		}
		c = gv_pci_read(d, c + 1, 1) & 0xfc;
	}
}

int gv_find(unsigned int type, unsigned int nth, struct gvirtio *d)
{
	uint32_t want = VIRTIO_PCI_VENDOR |
			(uint32_t)(VIRTIO_PCI_DEVICE_BASE + type) << 16;

	memset(d, 0, sizeof(*d));
	for (unsigned int dev = 0; dev < 32; dev++) {
		d->bdf = PCI_BDF(0, dev, 0);
		if (gv_pci_read(d, PCI_VENDOR_ID, 4) != want || nth--)
			continue;
		d->device_id = (uint16_t)(want >> 16);
		d->irq_line = (uint8_t)gv_pci_read(d, PCI_INTERRUPT_LINE, 1);
		d->irq_pin = (uint8_t)gv_pci_read(d, PCI_INTERRUPT_PIN, 1);
		read_bars(d);
		read_caps(d);
		if (!d->common || !d->notify || !d->isr) {
			gprintf("virtio %02x: capabilities missing\n", dev);
			return -1;
		}
		/* Bus mastering: the device reads our rings. */
		gv_pci_write(d, PCI_COMMAND, gv_pci_read(d, PCI_COMMAND, 2) |
			     PCI_COMMAND_MASTER | PCI_COMMAND_MEMORY, 2);
		return 0;
	}
	return -1;
}

/* --- status and features --------------------------------------------------- */

uint8_t gv_status(const struct gvirtio *d)
{
	return mmio_read8(d->common + VIRTIO_PCI_COMMON_STATUS);
}

void gv_set_status(const struct gvirtio *d, uint8_t s)
{
	mmio_write8(d->common + VIRTIO_PCI_COMMON_STATUS, s);
}

uint64_t gv_device_features(const struct gvirtio *d)
{
	uint64_t f;

	mmio_write32(d->common + VIRTIO_PCI_COMMON_DFSELECT, 0);
	f = mmio_read32(d->common + VIRTIO_PCI_COMMON_DF);
	mmio_write32(d->common + VIRTIO_PCI_COMMON_DFSELECT, 1);
	return f | (uint64_t)mmio_read32(d->common + VIRTIO_PCI_COMMON_DF) << 32;
}

void gv_reset(struct gvirtio *d)
{
	gv_set_status(d, 0);
	for (int i = 0; i < 1000000 && gv_status(d) != 0; i++)
		__asm__ volatile("pause");
	for (int i = 0; i < GV_MAX_QUEUES; i++)
		d->q[i] = (struct gvq){ 0 };
}

bool gv_negotiate(struct gvirtio *d, uint64_t want, bool exact)
{
	uint64_t f;

	gv_reset(d);
	gv_set_status(d, VIRTIO_STATUS_ACKNOWLEDGE);
	gv_set_status(d, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	f = exact ? want : want & gv_device_features(d);
	mmio_write32(d->common + VIRTIO_PCI_COMMON_GFSELECT, 0);
	mmio_write32(d->common + VIRTIO_PCI_COMMON_GF, (uint32_t)f);
	mmio_write32(d->common + VIRTIO_PCI_COMMON_GFSELECT, 1);
	mmio_write32(d->common + VIRTIO_PCI_COMMON_GF, (uint32_t)(f >> 32));
	gv_set_status(d, gv_status(d) | VIRTIO_STATUS_FEATURES_OK);
	d->features = f;
	return gv_status(d) & VIRTIO_STATUS_FEATURES_OK;
}

void gv_driver_ok(struct gvirtio *d)
{
	gv_set_status(d, gv_status(d) | VIRTIO_STATUS_DRIVER_OK);
}

/* --- queues ---------------------------------------------------------------- */

static uint64_t used_offset(uint16_t size)
{
	return (VIRTQ_DESC_BYTES(size) + VIRTQ_AVAIL_BYTES(size) + 3) & ~3ull;
}

uint64_t gv_queue_bytes(uint16_t size)
{
	return used_offset(size) + VIRTQ_USED_BYTES(size);
}

static void write64(uint64_t a, uint64_t v)
{
	mmio_write32(a, (uint32_t)v);
	mmio_write32(a + 4, (uint32_t)(v >> 32));
}

int gv_queue_setup(struct gvirtio *d, unsigned int q, uint16_t size,
		   void *mem, uint16_t msix_vector)
{
	uint64_t c = d->common, base = (uintptr_t)mem;
	struct gvq *vq = &d->q[q];
	uint16_t noff;

	if (q >= GV_MAX_QUEUES)
		return -1;
	mmio_write16(c + VIRTIO_PCI_COMMON_Q_SELECT, (uint16_t)q);
	if (!mmio_read16(c + VIRTIO_PCI_COMMON_Q_SIZE))
		return -1;
	memset(mem, 0, gv_queue_bytes(size));
	*vq = (struct gvq){
		.index = (uint16_t)q, .size = size, .desc = mem,
		.avail = (volatile uint16_t *)(base + VIRTQ_DESC_BYTES(size)),
		.used = (volatile uint8_t *)(base + used_offset(size)),
		.event_idx = d->features >> VIRTIO_F_RING_EVENT_IDX & 1,
	};
	mmio_write16(c + VIRTIO_PCI_COMMON_Q_SIZE, size);
	mmio_write16(c + VIRTIO_PCI_COMMON_Q_MSIX, msix_vector);
	write64(c + VIRTIO_PCI_COMMON_Q_DESCLO, base);
	write64(c + VIRTIO_PCI_COMMON_Q_AVAILLO, (uintptr_t)vq->avail);
	write64(c + VIRTIO_PCI_COMMON_Q_USEDLO, (uintptr_t)vq->used);
	noff = mmio_read16(c + VIRTIO_PCI_COMMON_Q_NOFF);
	vq->notify = d->notify + (uint64_t)noff * d->notify_mult;
	mmio_write16(c + VIRTIO_PCI_COMMON_Q_ENABLE, 1);
	return mmio_read16(c + VIRTIO_PCI_COMMON_Q_ENABLE) == 1 ? 0 : -1;
}

uint16_t gv_add(struct gvq *q, const struct gv_buf *b, unsigned int n,
		struct gv_desc *itab)
{
	uint16_t head = q->next_desc % q->size;
	struct gv_desc *t = itab ? itab : q->desc;

	for (unsigned int i = 0; i < n; i++) {
		uint16_t at = itab ? (uint16_t)i : (uint16_t)((head + i) %
							       q->size);
		uint16_t next = itab ? (uint16_t)(i + 1) :
				       (uint16_t)((head + i + 1) % q->size);

		t[at] = (struct gv_desc){
			.addr = (uintptr_t)b[i].p, .len = b[i].len,
			.flags = (uint16_t)((b[i].write ? VIRTQ_DESC_F_WRITE : 0) |
					    (i + 1 < n ? VIRTQ_DESC_F_NEXT : 0)),
			.next = i + 1 < n ? next : 0,
		};
	}
	if (itab) {
		q->desc[head] = (struct gv_desc){
			.addr = (uintptr_t)itab, .len = n * 16,
			.flags = VIRTQ_DESC_F_INDIRECT,
		};
		q->next_desc++;
	} else {
		q->next_desc = (uint16_t)(q->next_desc + n);
	}
	return head;
}

void gv_publish(struct gvq *q, uint16_t head)
{
	q->avail[2 + q->avail_idx % q->size] = head;
	mb();
	q->avail_idx++;
	q->avail[1] = q->avail_idx;
}

void gv_kick_always(struct gvq *q)
{
	mb();
	mmio_write16(q->notify, q->index);
	q->kicks++;
}

bool gv_kick(struct gvq *q, uint16_t old)
{
	uint16_t ev;

	mb();
	if (q->event_idx) {
		ev = *(volatile uint16_t *)(q->used + 4 + 8u * q->size);
		if ((uint16_t)(q->avail_idx - ev - 1) >=
		    (uint16_t)(q->avail_idx - old))
			return false;
	} else if (*(volatile uint16_t *)q->used & VIRTQ_USED_F_NO_NOTIFY) {
		return false;
	}
	gv_kick_always(q);
	return true;
}

bool gv_poll(struct gvq *q, uint32_t *id, uint32_t *len)
{
	volatile uint8_t *e;

	if (*(volatile uint16_t *)(q->used + 2) == q->last_used)
		return false;
	mb();
	e = q->used + 4 + 8u * (q->last_used % q->size);
	*id = *(volatile uint32_t *)e;
	*len = *(volatile uint32_t *)(e + 4);
	q->last_used++;
	return true;
}

int64_t gv_submit_wait(struct gvq *q, uint16_t head, uint64_t cycles)
{
	uint16_t old = q->avail_idx;
	uint64_t end = rdtsc() + cycles;
	uint32_t id, len;

	gv_publish(q, head);
	gv_kick(q, old);
	while (rdtsc() < end) {
		if (gv_poll(q, &id, &len))
			return id == head ? (int64_t)len : -2;
		__asm__ volatile("pause");
	}
	return -1;
}

void gv_no_interrupts(struct gvq *q)
{
	if (q->event_idx)
		q->avail[2 + q->size] = (uint16_t)(q->last_used - 1);
	else
		q->avail[0] = VIRTQ_AVAIL_F_NO_INTERRUPT;
}

void gv_want_interrupt(struct gvq *q)
{
	if (q->event_idx)
		q->avail[2 + q->size] = q->last_used;
	else
		q->avail[0] = 0;
	mb();
}

/* --- MSI-X and device configuration ---------------------------------------- */

void gv_msix_vector(struct gvirtio *d, unsigned int vec, uint64_t addr,
		    uint32_t data, bool masked)
{
	uint64_t e = d->msix_table + 16ull * vec;

	mmio_write32(e + 12, 1);
	mmio_write32(e, (uint32_t)addr);
	mmio_write32(e + 4, (uint32_t)(addr >> 32));
	mmio_write32(e + 8, data);
	mmio_write32(e + 12, masked ? 1 : 0);
}

void gv_msix_enable(struct gvirtio *d, bool enable, bool func_mask)
{
	uint32_t f = gv_pci_read(d, d->msix_cap + MSIX_FLAGS, 2);

	f &= ~(MSIX_ENABLE | MSIX_MASKALL);
	f |= (enable ? MSIX_ENABLE : 0) | (func_mask ? MSIX_MASKALL : 0);
	gv_pci_write(d, d->msix_cap + MSIX_FLAGS, f, 2);
}

uint32_t gv_cfg_read32(const struct gvirtio *d, unsigned int off)
{
	return mmio_read32(d->device + off);
}

uint64_t gv_cfg_read64(const struct gvirtio *d, unsigned int off)
{
	return gv_cfg_read32(d, off) |
	       (uint64_t)gv_cfg_read32(d, off + 4) << 32;
}
