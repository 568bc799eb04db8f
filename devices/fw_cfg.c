// SPDX-License-Identifier: MIT
#include "devices/fw_cfg.h"
#include "firmware/lib/le.h"

#include <string.h>

#define OFF_SELECTOR	0
#define OFF_DATA	1
#define KEY_MASK	0x3fff	/* bit 14: write, bit 15: arch-specific */

void fw_cfg_init(struct fw_cfg *f, uint64_t ram_size, unsigned int ncpus)
{
	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->lock, NULL);
	f->ram_size = ram_size;
	f->ncpus = (uint16_t)ncpus;
}

void fw_cfg_destroy(struct fw_cfg *f)
{
	pthread_mutex_destroy(&f->lock);
}

void fw_cfg_get_state(struct fw_cfg *f, struct fw_cfg_state *s)
{
	memset(s, 0, sizeof(*s));
	pthread_mutex_lock(&f->lock);
	s->selector = f->selector;
	s->offset = f->offset;
	pthread_mutex_unlock(&f->lock);
}

int fw_cfg_set_state(struct fw_cfg *f, const struct fw_cfg_state *s)
{
	if (s->reserved || s->offset > FW_CFG_ITEM_MAX)
		return -1;
	pthread_mutex_lock(&f->lock);
	f->selector = s->selector;
	f->offset = s->offset;
	pthread_mutex_unlock(&f->lock);
	return 0;
}

/* The selected item's bytes; returns its length (0: none). */
static unsigned int item(const struct fw_cfg *f, uint8_t b[FW_CFG_ITEM_MAX])
{
	if (f->selector & ~KEY_MASK)	/* no arch-specific items */
		return 0;
	switch (f->selector) {
	case FW_CFG_SIGNATURE:
		memcpy(b, "QEMU", 4);
		return 4;
	case FW_CFG_ID:
		le_put(b, 1, 4);
		return 4;
	case FW_CFG_RAM_SIZE:
		le_put(b, f->ram_size, 8);
		return 8;
	case FW_CFG_NB_CPUS:
	case FW_CFG_MAX_CPUS:
		le_put(b, f->ncpus, 2);
		return 2;
	case FW_CFG_FILE_DIR:
		memset(b, 0, 4);	/* big-endian count: no files */
		return 4;
	}
	return 0;
}

static void fw_cfg_read(void *opaque, uint64_t off, uint8_t *data,
			uint32_t len)
{
	struct fw_cfg *f = opaque;
	uint8_t b[FW_CFG_ITEM_MAX];
	unsigned int n;

	if (off != OFF_DATA) {
		memset(data, 0xff, len);	/* the selector reads nothing */
		return;
	}
	pthread_mutex_lock(&f->lock);
	n = item(f, b);
	for (uint32_t i = 0; i < len; i++)
		data[i] = f->offset < n ? b[f->offset++] : 0;
	pthread_mutex_unlock(&f->lock);
}

static void fw_cfg_write(void *opaque, uint64_t off, const uint8_t *data,
			 uint32_t len)
{
	struct fw_cfg *f = opaque;

	/* Only the 16-bit selector write; data writes are ignored, as QEMU
	 * has done since 2.4. */
	if (off != OFF_SELECTOR || len != 2)
		return;
	pthread_mutex_lock(&f->lock);
	f->selector = (uint16_t)(data[0] | data[1] << 8);
	f->offset = 0;
	pthread_mutex_unlock(&f->lock);
}

const struct bus_ops fw_cfg_ops = {
	.read = fw_cfg_read,
	.write = fw_cfg_write,
};
