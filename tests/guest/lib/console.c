// SPDX-License-Identifier: MIT
/*
 * Console output on the COM1 16550: the VMM's (and QEMU's) UART is always
 * ready, so characters go straight to THR without polling LSR.
 *
 * A small printf: %d %i %u %x %X %p %s %c %% with the l, ll and z length
 * modifiers, a width, a precision (%s only) and the '-', '0', '#' flags.
 * Ring-0 instructions may be emulated (~1 us each), so the formatter keeps
 * its state in locals (registers) and gprintf formats into a stack buffer
 * before writing it out: about 10 instructions per literal character.
 */
#include "guest.h"

#define PRINTF_BUF	512

void gputc(char c)
{
	outb(ABI_UART_PORT, c);
}

void gputs(const char *s)
{
	while (*s)
		outb(ABI_UART_PORT, *s++);
}

struct spec {
	bool left, zero, alt, upper;
	unsigned int width;
	int prec;	/* -1: none */
};

/* Every helper appends at buf[pos] while pos < len and returns the new
 * pos, which keeps counting past len (snprintf semantics). */
static inline size_t put(char *buf, size_t len, size_t pos, char c)
{
	if (pos < len)
		buf[pos] = c;
	return pos + 1;
}

static size_t pad(char *buf, size_t len, size_t pos, unsigned int n, char c)
{
	while (n--)
		pos = put(buf, len, pos, c);
	return pos;
}

static size_t put_str(char *buf, size_t len, size_t pos,
		      const struct spec *sp, const char *str)
{
	size_t n = 0;
	unsigned int fill;

	while (str[n] && (sp->prec < 0 || n < (size_t)sp->prec))
		n++;
	fill = sp->width > n ? sp->width - n : 0;
	if (!sp->left)
		pos = pad(buf, len, pos, fill, ' ');
	for (size_t i = 0; i < n; i++)
		pos = put(buf, len, pos, str[i]);
	if (sp->left)
		pos = pad(buf, len, pos, fill, ' ');
	return pos;
}

static size_t put_num(char *buf, size_t len, size_t pos,
		      const struct spec *sp, uint64_t v, bool hex, bool neg)
{
	const char *digits = sp->upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	unsigned int n = 0, prefix = neg + (sp->alt ? 2 : 0), fill;

	/* Constant divisors: shifts and multiplies, no DIV. */
	if (hex) {
		do {
			tmp[n++] = digits[v & 15];
			v >>= 4;
		} while (v);
	} else {
		do {
			tmp[n++] = digits[v % 10];
			v /= 10;
		} while (v);
	}
	fill = sp->width > n + prefix ? sp->width - n - prefix : 0;
	if (!sp->left && !sp->zero)
		pos = pad(buf, len, pos, fill, ' ');
	if (neg)
		pos = put(buf, len, pos, '-');
	if (sp->alt) {
		pos = put(buf, len, pos, '0');
		pos = put(buf, len, pos, sp->upper ? 'X' : 'x');
	}
	if (!sp->left && sp->zero)
		pos = pad(buf, len, pos, fill, '0');
	while (n)
		pos = put(buf, len, pos, tmp[--n]);
	if (sp->left)
		pos = pad(buf, len, pos, fill, ' ');
	return pos;
}

/* Reads an integer argument of the given length modifier (0, 1 = l, 2 = ll,
 * 3 = z), sign-extending when is_signed. */
static uint64_t get_arg(va_list *ap, int length, bool is_signed)
{
	switch (length) {
	case 0:
		return is_signed ? (uint64_t)(int64_t)va_arg(*ap, int)
				 : va_arg(*ap, unsigned int);
	case 1:
		return is_signed ? (uint64_t)va_arg(*ap, long)
				 : va_arg(*ap, unsigned long);
	case 2:
		return is_signed ? (uint64_t)va_arg(*ap, long long)
				 : va_arg(*ap, unsigned long long);
	default:
		return va_arg(*ap, size_t);
	}
}

static const char *parse_spec(const char *f, struct spec *sp, int *length)
{
	*sp = (struct spec){ .prec = -1 };
	for (;; f++) {
		if (*f == '-')
			sp->left = true;
		else if (*f == '0')
			sp->zero = true;
		else if (*f == '#')
			sp->alt = true;
		else
			break;
	}
	for (; *f >= '0' && *f <= '9'; f++)
		if (sp->width < 64)
			sp->width = sp->width * 10 + (*f - '0');
	if (sp->width > 64)
		sp->width = 64;
	if (*f == '.') {
		for (sp->prec = 0, f++; *f >= '0' && *f <= '9'; f++)
			if (sp->prec < 4096)
				sp->prec = sp->prec * 10 + (*f - '0');
	}
	*length = 0;
	if (*f == 'z') {
		*length = 3;
		f++;
	}
	for (; *f == 'l' && *length < 2; f++)
		(*length)++;
	return f;
}

/* One conversion at *f; returns the new pos. */
static size_t convert(char *buf, size_t len, size_t pos, const char *f,
		      struct spec *sp, int length, va_list *ap)
{
	uint64_t v;
	const char *str;

	switch (*f) {
	case 'd':
	case 'i':
		v = get_arg(ap, length, true);
		return put_num(buf, len, pos, sp, (int64_t)v < 0 ? -v : v,
			       false, (int64_t)v < 0);
	case 'u':
		v = get_arg(ap, length, false);
		return put_num(buf, len, pos, sp, v, false, false);
	case 'X':
		sp->upper = true;
		/* fall through */
	case 'x':
		v = get_arg(ap, length, false);
		return put_num(buf, len, pos, sp, v, true, false);
	case 'p':
		sp->alt = true;
		v = (uintptr_t)va_arg(*ap, void *);
		return put_num(buf, len, pos, sp, v, true, false);
	case 's':
		str = va_arg(*ap, const char *);
		return put_str(buf, len, pos, sp, str ? str : "(null)");
	case 'c':
		return put(buf, len, pos, (char)va_arg(*ap, int));
	case '%':
		return put(buf, len, pos, '%');
	default:	/* unknown: show it verbatim */
		pos = put(buf, len, pos, '%');
		return put(buf, len, pos, *f);
	}
}

static size_t format(char *buf, size_t len, const char *f, va_list *ap)
{
	size_t pos = 0;
	struct spec sp;
	int length;

	for (; *f; f++) {
		if (*f != '%') {
			pos = put(buf, len, pos, *f);
			continue;
		}
		f = parse_spec(f + 1, &sp, &length);
		if (!*f)
			break;
		pos = convert(buf, len, pos, f, &sp, length, ap);
	}
	return pos;
}

int gvsnprintf(char *buf, size_t len, const char *fmt, va_list ap)
{
	va_list aq;
	size_t n;

	if (!buf)
		len = 0;
	va_copy(aq, ap);
	n = format(buf, len, fmt, &aq);
	va_end(aq);
	if (len)
		buf[n < len ? n : len - 1] = '\0';
	return (int)n;
}

int gsnprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = gvsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n;
}

/* Formats into a stack buffer; longer output is cut with a marker (print
 * long strings with gputs). */
int gvprintf(const char *fmt, va_list ap)
{
	char buf[PRINTF_BUF];
	int n = gvsnprintf(buf, sizeof(buf), fmt, ap);

	gputs(buf);
	if (n >= (int)sizeof(buf))
		gputs("[...]\n");
	return n;
}

int gprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = gvprintf(fmt, ap);
	va_end(ap);
	return n;
}
