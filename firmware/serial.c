// SPDX-License-Identifier: MIT
/*
 * Console output on the 16550 at ABI_UART_PORT, through a RAM buffer:
 * ring-3 code (ring.h) cannot do port I/O, and ring 0 sends the buffer
 * with one `rep outsb` instead of a formatting loop around each `outb`.
 * Every port write is still one VM exit (~8 us), so lines stay short.
 * Ring 0 flushes at each phase, after each ring-3 call and before the VM
 * ends; output that does not fit before a flush is dropped and marked.
 *
 * No init and no LSR polling: minivmm's UART accepts a byte at any time
 * and ignores line settings.  (A real 16550 would need the THR-empty wait,
 * LSR bit 5.)  Lines end in a bare '\n' so that logs grep cleanly.
 */
#include <stddef.h>

#include "firmware/io.h"
#include "firmware/ring.h"
#include "firmware/serial.h"

#define CONSOLE_BUF	2048
#define LOST_MARK	"[...]\n"

static struct {
	size_t len;
	int lost;
} cons;
static char cons_buf[CONSOLE_BUF] __attribute__((section(".noinit")));

void serial_putc(char c)
{
	if (cons.len < CONSOLE_BUF - (sizeof(LOST_MARK) - 1)) {
		cons_buf[cons.len++] = c;
		return;
	}
	if (cpu_cpl() == 0) {
		console_flush();
		cons_buf[cons.len++] = c;
		return;
	}
	cons.lost = 1;
}

void console_flush(void)
{
	const char *p = cons_buf;
	size_t n = cons.len;

	if (cons.lost) {
		for (size_t i = 0; i < sizeof(LOST_MARK) - 1; i++)
			cons_buf[n++] = LOST_MARK[i];
		cons.lost = 0;
	}
	__asm__ volatile("rep outsb" : "+S"(p), "+c"(n)
			 : "d"((uint16_t)ABI_UART_PORT) : "memory");
	cons.len = 0;
}
