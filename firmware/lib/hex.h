/* SPDX-License-Identifier: MIT */
/*
 * hex_digit: the value of one hexadecimal digit, either case, or -1.  The
 * one copy for the parsers that read hex text (gdb's packets, MAC
 * addresses on the command line).
 *
 * Freestanding: no headers.
 */
#ifndef MINIVMM_HEX_H
#define MINIVMM_HEX_H

static inline int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
