// SPDX-License-Identifier: MIT
#include "devices/acpi_pm.h"
#include "firmware/lib/acpi_build.h"
#include "firmware/lib/le.h"

#include <string.h>

#define PM_TMR_HZ	3579545ull
#define OFF_STS		ACPI_PM_REG_STS
#define OFF_EN		ACPI_PM_REG_EN
#define OFF_CNT		ACPI_PM_REG_CNT
#define OFF_TMR		ACPI_PM_REG_TMR
#define SLP_TYP_MASK	(7u << ACPI_PM1_SLP_TYP_SHIFT)

void acpi_pm_init(struct acpi_pm *pm, uint64_t (*now_ns)(void),
		  void (*poweroff)(void *ctx), void *ctx)
{
	memset(pm, 0, sizeof(*pm));
	pthread_mutex_init(&pm->lock, NULL);
	pm->now_ns = now_ns;
	pm->start_ns = now_ns();
	pm->poweroff = poweroff;
	pm->ctx = ctx;
	pm->cnt = ACPI_PM1_SCI_EN;
}

/* Under the lock: the SCI follows the enabled status bits. */
static void update_sci(struct acpi_pm *pm)
{
	bool level = (pm->cnt & ACPI_PM1_SCI_EN) &&
		     (pm->sts & pm->en & ACPI_PM1_PWRBTN_STS);

	if (level == pm->sci_level)
		return;
	pm->sci_level = level;
	irq_set(&pm->sci, level);
}

void acpi_pm_set_sci(struct acpi_pm *pm, struct irq_line sci)
{
	pthread_mutex_lock(&pm->lock);
	pm->sci = sci;
	pm->sci_level = false;
	update_sci(pm);
	pthread_mutex_unlock(&pm->lock);
}

bool acpi_pm_power_button(struct acpi_pm *pm)
{
	bool enabled;

	pthread_mutex_lock(&pm->lock);
	pm->sts |= ACPI_PM1_PWRBTN_STS;
	enabled = pm->en & ACPI_PM1_PWRBTN_EN;
	update_sci(pm);
	pthread_mutex_unlock(&pm->lock);
	return enabled;
}

static uint32_t timer(const struct acpi_pm *pm)
{
	uint64_t ns = pm->now_ns() - pm->start_ns;

	/* ns * HZ / 1e9 without overflow for centuries of uptime. */
	return (uint32_t)((ns / 1000000000ull) * PM_TMR_HZ +
			  (ns % 1000000000ull) * PM_TMR_HZ / 1000000000ull);
}

/* The registers as one little-endian byte image, so any width at any
 * offset reads consistently. */
static void image(const struct acpi_pm *pm, uint8_t img[ACPI_PM_REGS_LEN])
{
	uint32_t t = timer(pm);

	memset(img, 0, ACPI_PM_REGS_LEN);
	le16_put(img + OFF_STS, pm->sts);
	le16_put(img + OFF_EN, pm->en);
	le16_put(img + OFF_CNT, pm->cnt);
	le32_put(img + OFF_TMR, t);
}

static void pm_read(void *opaque, uint64_t off, uint8_t *data, uint32_t len)
{
	struct acpi_pm *pm = opaque;
	uint8_t img[ACPI_PM_REGS_LEN];

	pthread_mutex_lock(&pm->lock);
	image(pm, img);
	pthread_mutex_unlock(&pm->lock);
	for (uint32_t i = 0; i < len; i++)
		data[i] = off + i < ACPI_PM_REGS_LEN ? img[off + i] : 0xff;
}

static void write_byte(struct acpi_pm *pm, unsigned int off, uint8_t v)
{
	switch (off) {
	case OFF_STS: case OFF_STS + 1:
		pm->sts &= (uint16_t)~((uint16_t)v << 8 * (off - OFF_STS));
		break;
	case OFF_EN: case OFF_EN + 1:
		pm->en &= (uint16_t)~(0xffu << 8 * (off - OFF_EN));
		pm->en |= (uint16_t)(v << 8 * (off - OFF_EN));
		break;
	case OFF_CNT: case OFF_CNT + 1:
		pm->cnt &= (uint16_t)~(0xffu << 8 * (off - OFF_CNT));
		pm->cnt |= (uint16_t)(v << 8 * (off - OFF_CNT));
		pm->cnt |= ACPI_PM1_SCI_EN;
		break;
	}
}

static void pm_write(void *opaque, uint64_t off, const uint8_t *data,
		     uint32_t len)
{
	struct acpi_pm *pm = opaque;
	unsigned int typ = 0;
	bool sleep;

	pthread_mutex_lock(&pm->lock);
	for (uint32_t i = 0; i < len && off + i < ACPI_PM_REGS_LEN; i++)
		write_byte(pm, (unsigned int)(off + i), data[i]);
	update_sci(pm);
	sleep = pm->cnt & ACPI_PM1_SLP_EN;
	if (sleep) {
		typ = (pm->cnt & SLP_TYP_MASK) >> ACPI_PM1_SLP_TYP_SHIFT;
		pm->cnt &= (uint16_t)~ACPI_PM1_SLP_EN;	/* self-clears */
	}
	pthread_mutex_unlock(&pm->lock);
	/* Unlocked: suspending takes its time and may read the registers. */
	if (sleep) {
		if (typ == ACPI_SLP_TYP_S5 && pm->poweroff)
			pm->poweroff(pm->ctx);
		else if (typ == ACPI_SLP_TYP_S3 && pm->suspend)
			pm->suspend(pm->ctx);
	}
}

void acpi_pm_woken(struct acpi_pm *pm, bool by_rtc)
{
	pthread_mutex_lock(&pm->lock);
	pm->sts |= ACPI_PM1_WAK_STS;
	if (by_rtc)
		pm->sts |= ACPI_PM1_RTC_STS;
	pthread_mutex_unlock(&pm->lock);
}

bool acpi_pm_rtc_wake(const struct acpi_pm *pm)
{
	return __atomic_load_n(&pm->en, __ATOMIC_RELAXED) & ACPI_PM1_RTC_EN;
}

const struct bus_ops acpi_pm_ops = { .read = pm_read, .write = pm_write };

void acpi_pm_get_state(const struct acpi_pm *pm, struct acpi_pm_state *s)
{
	*s = (struct acpi_pm_state){
		.sts = pm->sts, .en = pm->en, .cnt = pm->cnt,
		.elapsed_ns = pm->now_ns() - pm->start_ns,
	};
}

int acpi_pm_set_state(struct acpi_pm *pm, const struct acpi_pm_state *s)
{
	if (s->reserved || !(s->cnt & ACPI_PM1_SCI_EN) ||
	    (s->cnt & ACPI_PM1_SLP_EN))
		return -1;
	pthread_mutex_lock(&pm->lock);
	pm->sts = s->sts;
	pm->en = s->en;
	pm->cnt = s->cnt;
	update_sci(pm);
	pthread_mutex_unlock(&pm->lock);
	/* Modulo 2^64: timer() subtracts it back whatever the host clock. */
	pm->start_ns = pm->now_ns() - s->elapsed_ns;
	return 0;
}
