// SPDX-License-Identifier: MIT
/* The snapshot control page (snapctl.h). */
#include "devices/test/snapctl.h"
#include "firmware/lib/le.h"

#include <string.h>

void snapctl_set(struct snapctl *s, unsigned int reg, uint32_t value)
{
	if (reg <= SNAPCTL_ENV - 4)
		le32_put(s->page + reg, value);
}

uint32_t snapctl_get(const struct snapctl *s, unsigned int reg)
{
	return reg <= SNAPCTL_ENV - 4 ? le32_get(s->page + reg) : 0;
}

void snapctl_init(struct snapctl *s, uint8_t *page,
		  void (*request)(void *ctx), void *ctx)
{
	*s = (struct snapctl){ page, request, ctx };
	memset(page, 0, SNAPCTL_SIZE);
	snapctl_set(s, SNAPCTL_REG_MAGIC, SNAPCTL_MAGIC);
	snapctl_set(s, SNAPCTL_REG_VERSION, SNAPCTL_VERSION);
}

int snapctl_set_env(struct snapctl *s, const char *const *env, int n)
{
	size_t len = 0;

	for (int i = 0; i < n; i++)
		len += strlen(env[i]) + 1;
	if (len > SNAPCTL_ENV_MAX)
		return -1;
	memset(s->page + SNAPCTL_ENV, 0, SNAPCTL_ENV_MAX);
	len = 0;
	for (int i = 0; i < n; i++) {
		size_t k = strlen(env[i]);

		memcpy(s->page + SNAPCTL_ENV + len, env[i], k);
		s->page[SNAPCTL_ENV + len + k] = '\n';
		len += k + 1;
	}
	snapctl_set(s, SNAPCTL_REG_ENV_LEN, (uint32_t)len);
	return 0;
}

/* Only if the page is not mapped into the guest do reads come here. */
static void ctl_read(void *opaque, uint64_t off, uint8_t *data, uint32_t len)
{
	const struct snapctl *s = opaque;

	for (uint32_t i = 0; i < len; i++)
		data[i] = off + i < SNAPCTL_SIZE ? s->page[off + i] : 0xff;
}

static void ctl_write(void *opaque, uint64_t off, const uint8_t *data,
		      uint32_t len)
{
	struct snapctl *s = opaque;
	if (off != SNAPCTL_REG_REQUEST || len != 4)
		return;		/* every other register is read-only */
	if (le32_get(data) == SNAPCTL_REQUEST_MAGIC && s->request)
		s->request(s->ctx);
}

const struct bus_ops snapctl_ops = { .read = ctl_read, .write = ctl_write };
