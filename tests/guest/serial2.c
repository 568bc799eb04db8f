// SPDX-License-Identifier: MIT
/*
 * serial2: the UARTs and their host ends (tests/boot/serial.sh).  Says
 * "com1: hello" on COM1 and "com2: hello" on COM2 (0x2f8), then:
 *   dsdt=1|0   the DSDT lists COM1 (PNP0501 at 0x3f8, IRQ 4) and does (1)
 *              or does not (0) list COM2 at 0x2f8, IRQ 3;
 *   lines=N    N numbered lines on COM1 ("line N of M"), for a host end
 *              that must keep up or drop without stopping the guest;
 *   echo=1|2   "comN: ready" on that port, then every byte read there
 *              echoed as "<hex>" on the same port until a 'q'.
 * Ends with "serial2: N failure(s)" on COM1 and status 0 or 1.
 */
#include "lib/guest.h"

#define COM1		ABI_UART_PORT
#define COM2		ABI_UART2_PORT
#define LSR		5
#define LSR_DR		0x01

static unsigned int failures;

static void com_putc(uint16_t port, char c)
{
	outb(port, (uint8_t)c);
}

static void com_puts(uint16_t port, const char *s)
{
	while (*s)
		com_putc(port, *s++);
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static const uint8_t *dsdt_of(const struct hvm_start_info *si)
{
	const uint8_t *rsdp = (const uint8_t *)(uintptr_t)si->rsdp_paddr;
	const uint8_t *xsdt, *t;

	if (!rsdp || memcmp(rsdp, "RSD PTR ", 8))
		return NULL;
	xsdt = (const uint8_t *)(uintptr_t)le(rsdp + 24, 8);
	for (uint32_t o = 36; o + 8 <= le(xsdt + 4, 4); o += 8) {
		t = (const uint8_t *)(uintptr_t)le(xsdt + o, 8);
		if (!memcmp(t, "FACP", 4))
			return (const uint8_t *)(uintptr_t)le(t + 140, 8);
	}
	return NULL;
}

/* Device NAME with an I/O descriptor for port and an IRQ descriptor for
 * irq in the few dozen bytes after its name (its _HID, _UID, _CRS). */
static bool dsdt_has_uart(const uint8_t *d, const char *name, uint16_t port,
			  unsigned int irq)
{
	const uint8_t io[] = { 0x47, 0x01, port & 0xff, port >> 8,
			       port & 0xff, port >> 8, 1, 8 };
	const uint8_t irqd[] = { 0x22, (1u << irq) & 0xff, (1u << irq) >> 8 };
	const uint8_t pnp0501[] = { 0x41, 0xd0, 0x05, 0x01 };
	uint32_t len = (uint32_t)le(d + 4, 4);

	for (uint32_t i = 36; i + 4 <= len; i++) {
		bool hid = false, ok_io = false, ok_irq = false;

		if (memcmp(d + i, name, 4))
			continue;
		for (uint32_t j = i; j + 8 <= len && j < i + 64; j++) {
			hid |= !memcmp(d + j, pnp0501, 4);
			ok_io |= !memcmp(d + j, io, 8);
			ok_irq |= !memcmp(d + j, irqd, 3);
		}
		if (hid && ok_io && ok_irq)
			return true;
	}
	return false;
}

static void check_dsdt(const struct hvm_start_info *si, uint64_t want2)
{
	const uint8_t *d = dsdt_of(si);

	if (!d || memcmp(d, "DSDT", 4)) {
		gputs("FAIL: no DSDT\n");
		failures++;
		return;
	}
	if (!dsdt_has_uart(d, "COM1", COM1, ABI_UART_IRQ)) {
		gputs("FAIL: the DSDT lacks COM1 (PNP0501, 0x3f8, IRQ 4)\n");
		failures++;
	}
	if (dsdt_has_uart(d, "COM2", COM2, ABI_UART2_IRQ) != (want2 != 0)) {
		gprintf("FAIL: the DSDT %s COM2\n", want2 ? "lacks" : "has");
		failures++;
	} else {
		gprintf("com2: %s the DSDT\n", want2 ? "in" : "not in");
	}
}

static void echo(uint16_t port)
{
	static const char hex[] = "0123456789abcdef";

	com_puts(port, port == COM1 ? "com1: ready\n" : "com2: ready\n");
	for (;;) {
		uint8_t c;

		while (!(inb(port + LSR) & LSR_DR))
			__asm__ volatile("pause");
		c = inb(port);
		com_putc(port, '<');
		com_putc(port, hex[c >> 4]);
		com_putc(port, hex[c & 15]);
		com_putc(port, '>');
		if (c == 'q') {
			com_putc(port, '\n');
			return;
		}
	}
}

int payload_main(const struct hvm_start_info *si)
{
	const char *cmd = start_info_cmdline(si);
	uint64_t v;

	gputs("com1: hello\n");
	com_puts(COM2, "com2: hello\n");
	if (cmdline_u64(cmd, "dsdt", &v))
		check_dsdt(si, v);
	if (cmdline_u64(cmd, "lines", &v))
		for (uint64_t i = 1; i <= v; i++)
			gprintf("line %llu of %llu\n", (unsigned long long)i,
				(unsigned long long)v);
	if (cmdline_u64(cmd, "echo", &v))
		echo(v == 2 ? COM2 : COM1);
	gprintf("serial2: %u failure(s)\n", failures);
	return failures ? 1 : 0;
}
