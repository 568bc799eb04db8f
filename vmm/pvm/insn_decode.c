// SPDX-License-Identifier: MIT
/* The decoding is Capstone's (detail mode: the instruction, its length,
 * its operands with the memory operand's segment, base, index, scale and
 * displacement, the address size); this file picks the instructions the
 * emulator completes out of it and refuses their near misses.  Capstone
 * 4.0 (Debian 12's) needs three things done around it, all on the prefix
 * bytes: which legacy prefixes are present (it folds a mandatory F3 into
 * the opcode and keeps one of LOCK/REP/REPNE, so `lock popcnt` or `f3
 * cmpxchg16b` would pass), their order (see canonical()), and the few
 * encodings it does not know at all (see missing()); two it misnames are
 * put right in from_capstone().  ModRM, SIB, displacements and lengths
 * are Capstone's everywhere else. */
#include "vmm/pvm/insn_decode.h"

#include <capstone/capstone.h>
#include <pthread.h>
#include <string.h>

#define REX_W		0x8
#define REX_R		0x4
#define REX_B		0x1
#define GPR_BAD		(-2)	/* a register that is no general one */

/* One handle and one instruction buffer for the process, opened on first
 * use: no set-up or allocation per decode.  The handle keeps per-decode
 * state, so vCPU threads take turns; a decode takes about a microsecond,
 * on paths that have exited to the VMM (a few tens of microseconds). */
static struct {
	pthread_once_t once;
	pthread_mutex_t lock;
	csh h;
	cs_insn *insn;
	bool ok;
} dec = { PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER };

static void open_decoder(void)
{
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &dec.h) != CS_ERR_OK)
		return;
	if (cs_option(dec.h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		cs_close(&dec.h);
		return;
	}
	dec.insn = cs_malloc(dec.h);
	dec.ok = dec.insn != NULL;
}

struct prefixes {
	bool lock, rep, repne, opsize;
	uint8_t rex;
	size_t n;		/* bytes before the opcode, REX included */
};

/* Legacy prefixes and REX; a REX followed by a legacy prefix is
 * ignored, as the CPU ignores it. */
static void read_prefixes(const uint8_t *b, size_t n, struct prefixes *p)
{
	memset(p, 0, sizeof(*p));
	for (; p->n < n; p->n++) {
		uint8_t c = b[p->n];

		if ((c & 0xf0) == 0x40) {
			p->rex = c;
			continue;
		}
		switch (c) {
		case 0xf0: p->lock = true; break;
		case 0xf2: p->repne = true; break;
		case 0xf3: p->rep = true; break;
		case 0x66: p->opsize = true; break;
		case 0x67: case 0x2e: case 0x36: case 0x3e: case 0x26:
		case 0x64: case 0x65:
			break;
		default:
			return;
		}
		p->rex = 0;
	}
}

static bool mandatory(uint8_t c)
{
	return c == 0x66 || c == 0xf2 || c == 0xf3;
}

/* Capstone 4 sees a mandatory prefix (66, f2, f3) only right before the
 * opcode or REX: to it `f3 65 0f b8` (popcnt with %gs) is invalid and
 * `66 64 0f ae /6` is xsaveopt, not clwb.  The CPU does not mind the order
 * of legacy prefixes, so Capstone gets them reordered: REX bytes that do
 * not count first (still ignored there), then the other legacy prefixes,
 * then 66, then f2/f3 (each group in its own order), then the REX that
 * counts.  Same bytes, same length, same meaning. */
static void canonical(const uint8_t *b, size_t n, const struct prefixes *p,
		      uint8_t *out)
{
	size_t end = p->rex ? p->n - 1 : p->n, k = 0;

	for (size_t i = 0; i < end; i++)
		if ((b[i] & 0xf0) == 0x40)
			out[k++] = b[i];
	for (size_t i = 0; i < end; i++)
		if ((b[i] & 0xf0) != 0x40 && !mandatory(b[i]))
			out[k++] = b[i];
	for (size_t i = 0; i < end; i++)
		if (b[i] == 0x66)
			out[k++] = b[i];
	for (size_t i = 0; i < end; i++)
		if (b[i] == 0xf2 || b[i] == 0xf3)
			out[k++] = b[i];
	memcpy(out + k, b + end, n - end);
}

/* enum insn_reg of a Capstone register: GPR_NONE for none, GPR_BAD for
 * one that is no general register of 16, 32 or 64 bits. */
static int gpr(x86_reg r)
{
	static const x86_reg by_size[3][16] = {
		{ X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX,
		  X86_REG_RSP, X86_REG_RBP, X86_REG_RSI, X86_REG_RDI,
		  X86_REG_R8, X86_REG_R9, X86_REG_R10, X86_REG_R11,
		  X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15 },
		{ X86_REG_EAX, X86_REG_ECX, X86_REG_EDX, X86_REG_EBX,
		  X86_REG_ESP, X86_REG_EBP, X86_REG_ESI, X86_REG_EDI,
		  X86_REG_R8D, X86_REG_R9D, X86_REG_R10D, X86_REG_R11D,
		  X86_REG_R12D, X86_REG_R13D, X86_REG_R14D, X86_REG_R15D },
		{ X86_REG_AX, X86_REG_CX, X86_REG_DX, X86_REG_BX,
		  X86_REG_SP, X86_REG_BP, X86_REG_SI, X86_REG_DI,
		  X86_REG_R8W, X86_REG_R9W, X86_REG_R10W, X86_REG_R11W,
		  X86_REG_R12W, X86_REG_R13W, X86_REG_R14W, X86_REG_R15W },
	};

	if (r == X86_REG_INVALID || r == X86_REG_RIZ || r == X86_REG_EIZ)
		return GPR_NONE;
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < 16; i++)
			if (by_size[s][i] == r)
				return i;
	return GPR_BAD;
}

static bool memory(const x86_op_mem *m, struct insn *in)
{
	in->seg = m->segment == X86_REG_FS ? SEG_FS :
		  m->segment == X86_REG_GS ? SEG_GS : SEG_DEFAULT;
	in->rip_relative = m->base == X86_REG_RIP || m->base == X86_REG_EIP;
	in->base = in->rip_relative ? GPR_NONE : gpr(m->base);
	in->index = gpr(m->index);
	in->scale = m->scale > 0 ? (unsigned int)m->scale : 1;
	in->disp = m->disp;
	return in->base != GPR_BAD && in->index != GPR_BAD;
}

/* The operands: the first register is ModRM.reg (in->reg, whose size is
 * the operand size), a second one the register form of r/m (in->rm_reg);
 * a memory operand fills the address fields.  False if one is of a kind
 * none of ours has. */
static bool operands(const cs_x86 *x, struct insn *in)
{
	for (uint8_t i = 0; i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];

		if (o->type == X86_OP_MEM) {
			if (!memory(&o->mem, in))
				return false;
		} else if (o->type == X86_OP_REG && in->reg == GPR_NONE) {
			in->reg = gpr(o->reg);
			in->opsize = o->size;
			if (in->reg == GPR_BAD)
				return false;
		} else if (o->type == X86_OP_REG && in->rm_reg == GPR_NONE) {
			in->rm_reg = gpr(o->reg);
			if (in->rm_reg == GPR_BAD)
				return false;
		} else {
			return false;
		}
	}
	return true;
}

/* Ops with no operands and no prefix: one fixed length. */
static enum insn_op exact(const cs_insn *ci, enum insn_op op, uint16_t len)
{
	return ci->size == len ? op : INSN_OTHER;
}

static enum insn_op from_capstone(const cs_insn *ci, const struct prefixes *p,
				  struct insn *in)
{
	const cs_x86 *x = &ci->detail->x86;
	bool plain = !p->lock && !p->rep && !p->repne;
	enum insn_op op;

	switch (ci->id) {
	case X86_INS_INT3:	return exact(ci, INSN_INT3, 1); /* not 48 cc */
	case X86_INS_WAIT:	return exact(ci, INSN_FWAIT, 1);
	case X86_INS_CLAC:	return exact(ci, INSN_CLAC, 3);
	case X86_INS_STAC:	return exact(ci, INSN_STAC, 3);
	case X86_INS_XGETBV:	return exact(ci, INSN_XGETBV, 3);
	case X86_INS_ENDBR64:
	case X86_INS_ENDBR32:	return exact(ci, INSN_NOP, 4);
	case X86_INS_NOP:	/* 0f 1f /1-/7 and 0f 19-1e: hint space */
		if (p->lock || (x->opcode[0] != 0x90 && (x->opcode[0] != 0x0f ||
		    x->opcode[1] != 0x1f || ((x->modrm >> 3) & 7) != 0)))
			return INSN_OTHER;
		return INSN_NOP;
	case X86_INS_INT:
		in->imm = (uint8_t)x->operands[0].imm;
		return exact(ci, INSN_INT_N, 2);
	case X86_INS_CMPXCHG16B:	/* 66/f2/f3 select others or #UD */
		op = p->opsize || p->rep || p->repne ? INSN_OTHER :
		     INSN_CMPXCHG16B;
		break;
	case X86_INS_POPCNT:		/* f2 with it: no popcnt; lock: #UD */
		op = p->rep && !p->repne && !p->lock ? INSN_POPCNT :
		     INSN_OTHER;
		break;
	case X86_INS_XSAVEOPT64:	/* Capstone 4's name for 66 REX.W */
	case X86_INS_CLWB:		/* 0f ae /6: xsaveopt64 is NP only */
	case X86_INS_CLFLUSHOPT:
		op = !plain || !p->opsize ? INSN_OTHER :
		     ci->id == X86_INS_CLFLUSHOPT ? INSN_CLFLUSHOPT :
		     INSN_CLWB;
		break;
	case X86_INS_MOVBE:		/* the store has its memory first */
		op = !plain ? INSN_OTHER :
		     x->operands[0].type == X86_OP_MEM ? INSN_MOVBE_STORE :
		     INSN_MOVBE_LOAD;
		break;
	case X86_INS_INVPCID:		/* Capstone 4 takes it without 66 */
		op = plain && p->opsize ? INSN_INVPCID : INSN_OTHER;
		break;
	default:
		return INSN_OTHER;
	}
	if (op == INSN_OTHER || !operands(x, in))
		return INSN_OTHER;
	in->lock = p->lock;
	in->addr32 = x->addr_size == 4;
	return op;
}

/* What Capstone 4.0 (Debian 12's) rejects but the CPU runs: rdpru (0f
 * 01 fd, newer than its tables), the register form of nop (0f 1f /0),
 * and those of movbe and invpcid, which the CPU answers with #UD
 * (tests/guest/emulate.c checks that).  Only the opcode bytes and ModRM
 * matter, never a SIB or displacement; a later Capstone that decodes
 * them never gets here. */
static enum insn_op missing(const uint8_t *b, size_t n,
			    const struct prefixes *p, struct insn *in)
{
	const uint8_t *o = b + p->n;
	size_t left = n - p->n;
	uint8_t modrm;

	if (p->n == 0 && left >= 3 && !memcmp(o, "\x0f\x01\xfd", 3)) {
		in->len = 3;
		return INSN_RDPRU;
	}
	if (left >= 3 && o[0] == 0x0f && o[1] == 0x1f && o[2] >> 3 == 0x18 &&
	    !p->lock) {
		in->len = (unsigned int)p->n + 3;
		return INSN_NOP;
	}
	if (left < 4 || o[0] != 0x0f || o[1] != 0x38 || (o[3] >> 6) != 3 ||
	    p->lock || p->rep || p->repne)
		return INSN_OTHER;
	modrm = o[3];
	in->len = (unsigned int)p->n + 4;
	in->reg = ((modrm >> 3) & 7) | (p->rex & REX_R ? 8 : 0);
	in->rm_reg = (modrm & 7) | (p->rex & REX_B ? 8 : 0);
	in->opsize = p->rex & REX_W ? 8 : p->opsize ? 2 : 4;
	if (o[2] == 0x82 && p->opsize)
		return INSN_INVPCID;
	if (o[2] == 0xf0 || o[2] == 0xf1)
		return o[2] == 0xf0 ? INSN_MOVBE_LOAD : INSN_MOVBE_STORE;
	return INSN_OTHER;
}

enum insn_op insn_decode64(const uint8_t *buf, size_t n, struct insn *out)
{
	uint8_t bytes[INSN_MAX_LEN];
	const uint8_t *code = bytes;
	struct prefixes p;
	uint64_t addr = 0;
	size_t left;
	enum insn_op op;

	memset(out, 0, sizeof(*out));
	out->base = out->index = out->reg = out->rm_reg = GPR_NONE;
	out->scale = 1;
	if (n > INSN_MAX_LEN)
		n = INSN_MAX_LEN;
	if (!n)
		return INSN_OTHER;
	pthread_once(&dec.once, open_decoder);
	if (!dec.ok)
		return INSN_OTHER;
	read_prefixes(buf, n, &p);
	canonical(buf, n, &p, bytes);
	left = n;
	pthread_mutex_lock(&dec.lock);
	if (cs_disasm_iter(dec.h, &code, &left, &addr, dec.insn)) {
		out->len = dec.insn->size;
		op = from_capstone(dec.insn, &p, out);
	} else {
		op = missing(buf, n, &p, out);
	}
	pthread_mutex_unlock(&dec.lock);
	out->op = op;
	return op;
}

uint64_t insn_linear_address(const struct insn *in, const uint64_t gpr[16],
			     uint64_t rip, uint64_t fs_base, uint64_t gs_base)
{
	uint64_t ea = (uint64_t)in->disp;

	if (in->rip_relative)
		ea += rip + in->len;
	if (in->base != GPR_NONE)
		ea += gpr[in->base];
	if (in->index != GPR_NONE)
		ea += gpr[in->index] * in->scale;
	if (in->addr32)
		ea &= 0xffffffffull;
	if (in->seg == SEG_FS)
		ea += fs_base;
	else if (in->seg == SEG_GS)
		ea += gs_base;
	return ea;
}
