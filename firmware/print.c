// SPDX-License-Identifier: MIT
/*
 * A tiny printf for the console: %s %c %d %u %x %%, an optional '0' flag
 * and width, and the l, ll and z length modifiers.  Enough for banners and
 * error lines; anything else is printed literally.
 */
#include <stdarg.h>
#include <stdbool.h>

#include "firmware/exit.h"
#include "firmware/lib/abi.h"
#include "firmware/print.h"
#include "firmware/serial.h"

struct spec {
	bool zero;
	unsigned int width;
	int longs;		/* 0 int, 1 long, 2 long long / size_t */
};

static void put_num(unsigned long long v, bool neg, unsigned int base,
		    const struct spec *s)
{
	char buf[24];
	unsigned int n = 0;

	do {
		buf[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (neg && s->zero)
		serial_putc('-');
	for (unsigned int w = n + neg; w < s->width; w++)
		serial_putc(s->zero ? '0' : ' ');
	if (neg && !s->zero)
		serial_putc('-');
	while (n)
		serial_putc(buf[--n]);
}

static unsigned long long get_unsigned(va_list *ap, int longs)
{
	if (longs == 2)
		return va_arg(*ap, unsigned long long);
	if (longs == 1)
		return va_arg(*ap, unsigned long);
	return va_arg(*ap, unsigned int);
}

static long long get_signed(va_list *ap, int longs)
{
	if (longs == 2)
		return va_arg(*ap, long long);
	if (longs == 1)
		return va_arg(*ap, long);
	return va_arg(*ap, int);
}

static void put_str(const char *s, const struct spec *sp)
{
	unsigned int n = 0;

	if (!s)
		s = "(null)";
	while (s[n])
		n++;
	for (unsigned int w = n; w < sp->width; w++)
		serial_putc(' ');
	while (*s)
		serial_putc(*s++);
}

/* Parse flags, width and length after '%'; returns the conversion char. */
static const char *parse_spec(const char *f, struct spec *s)
{
	*s = (struct spec){ 0 };
	if (*f == '0') {
		s->zero = true;
		f++;
	}
	while (*f >= '0' && *f <= '9' && s->width < 100)
		s->width = s->width * 10 + (unsigned int)(*f++ - '0');
	while (*f == 'l' && s->longs < 2) {
		s->longs++;
		f++;
	}
	if (*f == 'z') {
		s->longs = 2;
		f++;
	}
	return f;
}

static void vprint(const char *f, va_list *ap)
{
	for (; *f; f++) {
		struct spec s;
		long long v;

		if (*f != '%') {
			serial_putc(*f);
			continue;
		}
		f = parse_spec(f + 1, &s);
		switch (*f) {
		case 'd':
			v = get_signed(ap, s.longs);
			put_num(v < 0 ? 0ull - (unsigned long long)v
				      : (unsigned long long)v, v < 0, 10, &s);
			break;
		case 'u':
			put_num(get_unsigned(ap, s.longs), false, 10, &s);
			break;
		case 'x':
			put_num(get_unsigned(ap, s.longs), false, 16, &s);
			break;
		case 'c':
			serial_putc((char)va_arg(*ap, int));
			break;
		case 's':
			put_str(va_arg(*ap, const char *), &s);
			break;
		case '\0':
			return;
		default:
			serial_putc(*f);
			break;
		}
	}
}

void fw_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint(fmt, &ap);
	va_end(ap);
}

void fw_fail(uint32_t reason, const char *fmt, ...)
{
	va_list ap;

	fw_printf("firmware: error: ");
	va_start(ap, fmt);
	vprint(fmt, &ap);
	va_end(ap);
	serial_putc('\n');
	fw_exit(ABI_FW_FAIL_MAGIC | reason);
}

/* libfdt is built with -fstack-protector-strong; the canary is set up in
 * entry.S. */
__attribute__((noreturn)) void __stack_chk_fail(void);

void __stack_chk_fail(void)
{
	fw_fail(ABI_FW_FAIL_INTERNAL, "stack smashing detected");
}
