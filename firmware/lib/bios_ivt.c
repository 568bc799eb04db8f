// SPDX-License-Identifier: MIT
/* Real-mode vectors and their stubs; see bios_ivt.h. */
#include "firmware/lib/bios_ivt.h"

/* 16-bit code.  iret; push ax; mov al, 0x20; out 0x20, al; pop ax; iret;
 * and the same with an EOI to the slave (0xa0) first. */
static const uint8_t code[] = {
	0xcf,						/* +0: iret */
	0x50, 0xb0, 0x20, 0xe6, 0x20, 0x58, 0xcf,	/* +1: master EOI */
	0x50, 0xb0, 0x20, 0xe6, 0xa0, 0xe6, 0x20, 0x58, 0xcf, /* +8: both */
};

#define STUB_IRET	0
#define STUB_MASTER	1
#define STUB_BOTH	8

_Static_assert(sizeof(code) <= BIOS_STUBS_SIZE, "stubs too large");

int bios_ivt_build(uint32_t ivt[BIOS_IVT_VECTORS],
		   uint8_t stubs[BIOS_STUBS_SIZE], uint32_t stubs_gpa)
{
	uint32_t seg = stubs_gpa >> 4;

	if ((stubs_gpa & 15) || stubs_gpa + BIOS_STUBS_SIZE > 0x100000)
		return -1;
	for (unsigned int i = 0; i < BIOS_STUBS_SIZE; i++)
		stubs[i] = i < sizeof(code) ? code[i] : 0xcf;
	for (unsigned int v = 0; v < BIOS_IVT_VECTORS; v++) {
		uint32_t off = STUB_IRET;

		if (v >= BIOS_PIC_MASTER_BASE && v < BIOS_PIC_MASTER_BASE + 8)
			off = STUB_MASTER;
		else if (v >= BIOS_PIC_SLAVE_BASE &&
			 v < BIOS_PIC_SLAVE_BASE + 8)
			off = STUB_BOTH;
		ivt[v] = seg << 16 | off;
	}
	return 0;
}
