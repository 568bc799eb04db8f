// SPDX-License-Identifier: MIT
/*
 * The C library subset libfdt and the firmware link against.  Block
 * copies and fills use rep movs/stos, 8 bytes per iteration where they
 * can: the ring-0 emulator charges each iteration about as much as an
 * instruction, but a loop would take three.
 */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;
	size_t q = n / 8, r = n % 8;

	__asm__ volatile("rep movsq; mov %3, %%rcx; rep movsb"
			 : "+D"(d), "+S"(src), "+c"(q) : "r"(r) : "memory");
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;
	uint64_t v = 0x0101010101010101ull * (unsigned char)c;
	size_t q = n / 8, r = n % 8;

	__asm__ volatile("rep stosq; mov %3, %%rcx; rep stosb"
			 : "+D"(d), "+c"(q) : "a"(v), "r"(r) : "memory");
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (; n; n--, p++, q++)
		if (*p != *q)
			return *p - *q;
	return 0;
}

int strcmp(const char *a, const char *b)
{
	for (; *a && *a == *b; a++, b++)
		;
	return (unsigned char)*a - (unsigned char)*b;
}

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (; n; n--, p++)
		if (*p == (unsigned char)c)
			return (void *)p;
	return NULL;
}

size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return (size_t)(p - s);
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *strrchr(const char *s, int c)
{
	const char *found = NULL;

	for (;; s++) {
		if (*s == (char)c)
			found = s;
		if (!*s)
			return (char *)found;
	}
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/* Base 0 or 2..36; saturates at ULONG_MAX on overflow (errno does not
 * exist here). */
unsigned long strtoul(const char *s, char **end, int base)
{
	const char *start = s;
	unsigned long v = 0;
	bool neg = false, any = false, over = false;

	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	if ((base == 0 || base == 16) && s[0] == '0' &&
	    (s[1] == 'x' || s[1] == 'X') && digit_value(s[2]) < 16) {
		s += 2;
		base = 16;
	} else if (base == 0) {
		base = s[0] == '0' ? 8 : 10;
	}
	for (int d; base >= 2 && base <= 36 &&
		    (d = digit_value(*s)) < base; s++) {
		any = true;
		if (v > (ULONG_MAX - (unsigned long)d) / (unsigned long)base)
			over = true;
		v = v * (unsigned long)base + (unsigned long)d;
	}
	if (end)
		*end = (char *)(any ? s : start);
	if (over)
		return ULONG_MAX;
	return neg ? 0ul - v : v;
}
