// SPDX-License-Identifier: MIT
/* Software breakpoints and debug-register slots (bkpt.h). */
#include "vmm/gdb/bkpt.h"

#include <string.h>

#define INT3		0xcc
#define DR7_FIXED	0x400ull
#define DR7_GE		(1ull << 9)	/* exact data breakpoints */

void gdb_bkpts_init(struct gdb_bkpts *b, struct gdb_phys_mem mem)
{
	memset(b, 0, sizeof(*b));
	b->mem = mem;
}

static struct gdb_sw_bp *find_sw(struct gdb_bkpts *b, uint64_t va)
{
	for (unsigned int i = 0; i < b->nsw; i++)
		if (b->sw[i].va == va)
			return &b->sw[i];
	return NULL;
}

bool gdb_sw_at(const struct gdb_bkpts *b, uint64_t va)
{
	for (unsigned int i = 0; i < b->nsw; i++)
		if (b->sw[i].va == va)
			return true;
	return false;
}

/* Another breakpoint (through another mapping) on the same byte keeps
 * the real original: that one's. */
static struct gdb_sw_bp *same_byte(struct gdb_bkpts *b, uint64_t gpa,
				   const struct gdb_sw_bp *not)
{
	for (unsigned int i = 0; i < b->nsw; i++)
		if (&b->sw[i] != not && b->sw[i].gpa == gpa &&
		    b->sw[i].inserted)
			return &b->sw[i];
	return NULL;
}

static int poke(struct gdb_bkpts *b, struct gdb_sw_bp *s)
{
	const uint8_t cc = INT3;
	struct gdb_sw_bp *o = same_byte(b, s->gpa, s);

	if (o) {
		s->orig = o->orig;
	} else {
		if (b->mem.read(b->mem.ctx, s->gpa, &s->orig, 1) < 0 ||
		    b->mem.write(b->mem.ctx, s->gpa, &cc, 1) < 0)
			return -1;
	}
	s->inserted = true;
	return 0;
}

static void unpoke(struct gdb_bkpts *b, struct gdb_sw_bp *s)
{
	if (!s->inserted)
		return;
	s->inserted = false;
	if (!same_byte(b, s->gpa, s))
		b->mem.write(b->mem.ctx, s->gpa, &s->orig, 1);
}

int gdb_sw_insert(struct gdb_bkpts *b, uint64_t va, uint64_t gpa,
		  const char **why)
{
	struct gdb_sw_bp *s = find_sw(b, va);

	if (s)
		return 0;	/* gdb may insert one twice */
	if (b->nsw == GDB_SW_MAX) {
		*why = "too many software breakpoints (64)";
		return -1;
	}
	s = &b->sw[b->nsw];
	*s = (struct gdb_sw_bp){ .va = va, .gpa = gpa };
	if (poke(b, s) < 0) {
		*why = "the address is not in guest RAM or ROM";
		return -1;
	}
	b->nsw++;
	return 0;
}

int gdb_sw_remove(struct gdb_bkpts *b, uint64_t va)
{
	struct gdb_sw_bp *s = find_sw(b, va);

	if (!s)
		return -1;
	unpoke(b, s);
	*s = b->sw[--b->nsw];
	return 0;
}

void gdb_sw_lift(struct gdb_bkpts *b)
{
	for (unsigned int i = b->nsw; i-- > 0;)
		unpoke(b, &b->sw[i]);
}

void gdb_sw_restore(struct gdb_bkpts *b)
{
	for (unsigned int i = 0; i < b->nsw; i++)
		if (!b->sw[i].inserted)
			poke(b, &b->sw[i]);
}

void gdb_sw_clear(struct gdb_bkpts *b)
{
	gdb_sw_lift(b);
	b->nsw = 0;
}

static bool in(uint64_t x, uint64_t gpa, size_t len)
{
	return x >= gpa && x - gpa < len;
}

void gdb_sw_mask_read(const struct gdb_bkpts *b, uint64_t gpa, uint8_t *buf,
		      size_t len)
{
	for (unsigned int i = 0; i < b->nsw; i++)
		if (b->sw[i].inserted && in(b->sw[i].gpa, gpa, len))
			buf[b->sw[i].gpa - gpa] = b->sw[i].orig;
}

void gdb_sw_fix_write(struct gdb_bkpts *b, uint64_t gpa, uint8_t *buf,
		      size_t len)
{
	for (unsigned int i = 0; i < b->nsw; i++) {
		struct gdb_sw_bp *s = &b->sw[i];

		if (!s->inserted || !in(s->gpa, gpa, len))
			continue;
		s->orig = buf[s->gpa - gpa];
		buf[s->gpa - gpa] = INT3;
	}
}

int gdb_hw_insert(struct gdb_bkpts *b, enum gdb_bp_type t, uint64_t addr,
		  unsigned int len, const char **why)
{
	if (t == GDB_BP_HW) {
		len = 1;
	} else if ((len != 1 && len != 2 && len != 4 && len != 8) ||
		   (addr & (len - 1))) {
		*why = "the debug registers watch 1, 2, 4 or 8 aligned bytes";
		return -1;
	}
	for (int i = 0; i < GDB_HW_SLOTS; i++) {
		if (b->hw[i].used)
			continue;
		b->hw[i] = (struct gdb_hw_bp){ true, t, addr, len };
		return 0;
	}
	*why = "all four debug registers are in use";
	return -1;
}

int gdb_hw_remove(struct gdb_bkpts *b, enum gdb_bp_type t, uint64_t addr,
		  unsigned int len)
{
	for (int i = 0; i < GDB_HW_SLOTS; i++) {
		struct gdb_hw_bp *h = &b->hw[i];

		if (h->used && h->type == t && h->addr == addr &&
		    (t == GDB_BP_HW || h->len == len)) {
			h->used = false;
			return 0;
		}
	}
	return -1;
}

void gdb_hw_clear(struct gdb_bkpts *b)
{
	for (int i = 0; i < GDB_HW_SLOTS; i++)
		b->hw[i].used = false;
}

/* DR7's R/W and LEN fields for one slot. */
static uint64_t dr7_bits(const struct gdb_hw_bp *h, int i)
{
	static const uint64_t len_code[9] = { 0, 0, 1, 0, 3, 0, 0, 0, 2 };
	uint64_t rw = h->type == GDB_BP_HW ? 0 :
		      h->type == GDB_WP_WRITE ? 1 : 3;
	uint64_t ln = h->type == GDB_BP_HW ? 0 : len_code[h->len];

	return (2ull << (2 * i)) | (rw << (16 + 4 * i)) |
	       (ln << (18 + 4 * i));
}

void gdb_bkpts_debug(const struct gdb_bkpts *b, bool step,
		     struct kvm_guest_debug *dbg)
{
	bool hw = false;

	memset(dbg, 0, sizeof(*dbg));
	dbg->arch.debugreg[7] = DR7_FIXED;
	for (int i = 0; i < GDB_HW_SLOTS; i++) {
		if (!b->hw[i].used)
			continue;
		hw = true;
		dbg->arch.debugreg[i] = b->hw[i].addr;
		dbg->arch.debugreg[7] |= dr7_bits(&b->hw[i], i) | DR7_GE;
	}
	if (b->nsw)
		dbg->control |= KVM_GUESTDBG_USE_SW_BP;
	if (hw)
		dbg->control |= KVM_GUESTDBG_USE_HW_BP;
	if (step)
		dbg->control |= KVM_GUESTDBG_SINGLESTEP;
	if (dbg->control)
		dbg->control |= KVM_GUESTDBG_ENABLE;
}

int gdb_hw_hit(const struct gdb_bkpts *b, uint64_t dr6)
{
	for (int i = 0; i < GDB_HW_SLOTS; i++)
		if (b->hw[i].used && (dr6 & (1ull << i)))
			return i;
	return -1;
}
