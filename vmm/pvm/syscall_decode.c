// SPDX-License-Identifier: MIT
/* Guest structures the CPU reads on a system call, and what an exception
 * frame means (see syscall_decode.h). */
#include "vmm/pvm/syscall_decode.h"
#include "vmm/pvm/insn_decode.h"
#include "firmware/lib/le.h"

#include <string.h>

#define PF_WRITE	(1ull << 1)
#define PF_USER		(1ull << 2)

#define GATE_INT	0xe
#define GATE_TRAP	0xf

void sc_gate_decode(const uint8_t raw[SC_GATE_SIZE], struct sc_gate *g)
{
	uint64_t lo = le64_get(raw), hi = le64_get(raw + 8);

	g->offset = (lo & 0xffff) | ((lo >> 48) & 0xffff) << 16 |
		    (hi & 0xffffffffull) << 32;
	g->selector = (uint16_t)(lo >> 16);
	g->ist = (uint8_t)((lo >> 32) & 7);
	g->type = (uint8_t)((lo >> 40) & 0xf);
	g->dpl = (uint8_t)((lo >> 45) & 3);
	g->present = (lo >> 47) & 1;
}

bool sc_gate_usable(const struct sc_gate *g)
{
	return g->present && (g->type == GATE_INT || g->type == GATE_TRAP);
}

uint64_t sc_gate_handler(const uint8_t raw[SC_GATE_SIZE], unsigned int vec,
			 uint16_t idt_limit)
{
	struct sc_gate g;

	if ((uint32_t)vec * SC_GATE_SIZE + SC_GATE_SIZE - 1 > idt_limit)
		return 0;
	sc_gate_decode(raw, &g);
	return sc_gate_usable(&g) ? g.offset : 0;
}

static void flat(struct kvm_segment *s, uint16_t sel, uint8_t type)
{
	memset(s, 0, sizeof(*s));
	s->selector = sel;
	s->limit = 0xffffffff;
	s->type = type;
	s->present = 1;
	s->s = 1;
	s->g = 1;
}

void sc_star_segments(uint64_t star, struct kvm_segment *cs,
		      struct kvm_segment *ss)
{
	uint16_t sel = (uint16_t)(star >> 32);

	flat(cs, sel & 0xfffc, 0xb);		/* execute/read, accessed */
	cs->l = 1;
	flat(ss, (uint16_t)(sel + 8), 0x3);	/* read/write, accessed */
	ss->db = 1;
}

void sc_desc_segment(uint64_t desc, uint16_t sel, struct kvm_segment *s)
{
	uint32_t limit = (uint32_t)((desc & 0xffff) | ((desc >> 48) & 0xf) << 16);

	memset(s, 0, sizeof(*s));
	s->selector = sel;
	s->base = ((desc >> 16) & 0xffffff) | ((desc >> 56) & 0xff) << 24;
	s->g = (desc >> 55) & 1;
	s->limit = s->g ? limit << 12 | 0xfff : limit;
	/* Loading a segment sets its accessed bit. */
	s->type = (uint8_t)(((desc >> 40) & 0xf) | 1);
	s->s = (desc >> 44) & 1;
	s->dpl = (desc >> 45) & 3;
	s->present = (desc >> 47) & 1;
	s->avl = (desc >> 52) & 1;
	s->l = (desc >> 53) & 1;
	s->db = (desc >> 54) & 1;
}

void sc_frame_parse(const uint64_t *q, bool has_err, struct sc_frame *f)
{
	f->err = has_err ? *q++ : 0;
	f->rip = q[0];
	f->cs = q[1];
	f->rflags = q[2];
	f->rsp = q[3];
	f->ss = q[4];
}

enum sc_landing sc_pf_landing(const struct sc_frame *f, uint64_t cr2,
			      uint64_t r11, const struct sc_targets *t)
{
	uint64_t fl = f->rflags & ~SC_RFLAGS_RF;
	bool user = (f->cs & 3) == 3;

	if (((f->cs & 3) != 3 && (f->cs & 3) != 0) ||
	    !(f->err & PF_USER) != !user || (f->err & PF_WRITE) ||
	    f->rip != cr2)
		return SC_GENUINE;
	if ((fl & t->fmask) || fl != (r11 & ~t->fmask & ~SC_RFLAGS_RF))
		return SC_GENUINE;
	if (t->lstar && f->rip == t->lstar && (user || t->lstar_trap))
		return SC_SYSCALL64;
	if (t->cstar && f->rip == t->cstar && (user || t->cstar_trap))
		return SC_SYSCALL_COMPAT;
	return SC_GENUINE;
}

uint64_t sc_syscall_rflags(uint64_t user_rflags, uint64_t fmask)
{
	return (user_rflags & ~fmask & ~SC_RFLAGS_RF) | SC_RFLAGS_FIXED;
}

int sc_int_vector(const uint8_t bytes[2])
{
	return bytes[0] == 0xcd ? bytes[1] : -1;
}

enum sc_first_insn sc_first_insn(const uint8_t *buf, size_t n,
				 unsigned int *len)
{
	struct insn in;

	*len = 0;
	switch (insn_decode64(buf, n, &in)) {
	case INSN_NOP:
		*len = in.len;
		return SC_SKIP;
	case INSN_CLAC:
	case INSN_STAC:
		*len = in.len;
		return in.op == INSN_CLAC ? SC_SKIP_CLAC : SC_SKIP_STAC;
	default:
		return SC_STEP;
	}
}

unsigned int sc_push_insn(const uint8_t *buf, size_t n, int *reg,
			  uint64_t *imm)
{
	*reg = -1;
	*imm = 0;
	/* REX (W is ignored by push r64; B picks r8-r15). */
	if (n >= 2 && (buf[0] & 0xf0) == 0x40 && (buf[1] & 0xf8) == 0x50) {
		*reg = (buf[1] & 7) | (buf[0] & 1 ? 8 : 0);
		return 2;
	}
	if (n >= 1 && (buf[0] & 0xf8) == 0x50) {
		*reg = buf[0] & 7;
		return 1;
	}
	if (n >= 2 && buf[0] == 0x6a) {
		*imm = (uint64_t)(int64_t)(int8_t)buf[1];
		return 2;
	}
	if (n >= 5 && buf[0] == 0x68) {
		*imm = (uint64_t)(int64_t)(int32_t)le32_get(buf + 1);
		return 5;
	}
	return 0;
}
