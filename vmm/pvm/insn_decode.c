// SPDX-License-Identifier: MIT
/* A deliberately tiny 64-bit decoder: legacy prefixes, REX, and the ModRM
 * and SIB forms of a memory operand.  Anything unexpected is INSN_OTHER, so
 * the caller falls back to reporting the failure. */
#include "vmm/pvm/insn_decode.h"
#include "firmware/lib/le.h"

#include <string.h>

#define REX_W	0x8
#define REX_R	0x4
#define REX_X	0x2
#define REX_B	0x1

struct prefixes {
	bool lock, addr32, opsize, rep, repne;
	enum insn_seg seg;
	uint8_t rex;
};

/* Consumes legacy prefixes and a REX byte; returns the opcode offset, or
 * -1 if the buffer ends first. */
static int read_prefixes(const uint8_t *b, size_t n, struct prefixes *p)
{
	size_t i = 0;

	memset(p, 0, sizeof(*p));
	for (; i < n && i < INSN_MAX_LEN; i++) {
		switch (b[i]) {
		case 0xf0: p->lock = true; break;
		case 0xf2: p->repne = true; break;
		case 0xf3: p->rep = true; break;
		case 0x66: p->opsize = true; break;
		case 0x67: p->addr32 = true; break;
		case 0x2e: case 0x36: case 0x3e: case 0x26:
			p->seg = SEG_DEFAULT; break;	/* no base in 64-bit */
		case 0x64: p->seg = SEG_FS; break;
		case 0x65: p->seg = SEG_GS; break;
		default:
			goto rex;
		}
		p->rex = 0;	/* a REX before a legacy prefix is ignored */
	}
rex:
	if (i < n && (b[i] & 0xf0) == 0x40)
		p->rex = b[i++];
	return i < n ? (int)i : -1;
}

static int64_t read_disp(const uint8_t *b, unsigned int size)
{
	if (size == 1)
		return (int8_t)b[0];
	return (int32_t)le32_get(b);
}

/* Decodes ModRM (at b[off]) with SIB and displacement: the reg field into
 * in->reg, the r/m operand into in->rm_reg or the memory operand.  Returns
 * the offset after the operand, or -1 if the buffer ends first. */
static int read_modrm(const uint8_t *b, size_t n, size_t off, uint8_t rex,
		      struct insn *in)
{
	uint8_t modrm, mod, rm;
	unsigned int disp_size;

	if (off >= n)
		return -1;
	modrm = b[off++];
	mod = modrm >> 6;
	rm = modrm & 7;
	in->reg = ((modrm >> 3) & 7) | (rex & REX_R ? 8 : 0);
	in->rm_reg = GPR_NONE;
	in->base = GPR_NONE;
	in->index = GPR_NONE;
	in->scale = 1;
	if (mod == 3) {
		in->rm_reg = rm | (rex & REX_B ? 8 : 0);
		return (int)off;
	}
	disp_size = mod == 1 ? 1 : mod == 2 ? 4 : 0;
	if (rm == 4) {
		uint8_t sib, idx, base;

		if (off >= n)
			return -1;
		sib = b[off++];
		in->scale = 1u << (sib >> 6);
		idx = (uint8_t)(((sib >> 3) & 7) | (rex & REX_X ? 8 : 0));
		if (idx != GPR_RSP)	/* 100b without REX.X: no index */
			in->index = idx;
		base = sib & 7;
		if (base == 5 && mod == 0)
			disp_size = 4;	/* no base, disp32 */
		else
			in->base = base | (rex & REX_B ? 8 : 0);
	} else if (rm == 5 && mod == 0) {
		in->rip_relative = true;
		disp_size = 4;
	} else {
		in->base = rm | (rex & REX_B ? 8 : 0);
	}
	if (off + disp_size > n)
		return -1;
	in->disp = disp_size ? read_disp(b + off, disp_size) : 0;
	return (int)(off + disp_size);
}

static enum insn_op finish(struct insn *in, enum insn_op op, int end,
			   const struct prefixes *p)
{
	if (end < 0)
		return INSN_OTHER;
	in->op = op;
	in->len = (unsigned int)end;
	in->lock = p->lock;
	in->addr32 = p->addr32;
	in->seg = p->seg;
	return op;
}

/* cmpxchg16b: 0f c7 with ModRM.reg = 1, REX.W, memory operand; no
 * 66/f2/f3 (those select other instructions or are undefined). */
static enum insn_op cmpxchg16b(const uint8_t *b, size_t n, size_t off,
			       const struct prefixes *p, struct insn *in)
{
	int end;

	if (!(p->rex & REX_W) || p->opsize || p->rep || p->repne)
		return INSN_OTHER;
	end = read_modrm(b, n, off, p->rex, in);
	if (end < 0 || (in->reg & 7) != 1 || in->rm_reg != GPR_NONE)
		return INSN_OTHER;
	return finish(in, INSN_CMPXCHG16B, end, p);
}

/* popcnt: f3 0f b8 /r (with f2 it is something else); no lock. */
static enum insn_op popcnt(const uint8_t *b, size_t n, size_t off,
			   const struct prefixes *p, struct insn *in)
{
	if (!p->rep || p->repne || p->lock)
		return INSN_OTHER;
	in->opsize = p->rex & REX_W ? 8 : p->opsize ? 2 : 4;
	return finish(in, INSN_POPCNT, read_modrm(b, n, off, p->rex, in), p);
}

/* 66 0f ae /6 and /7 with a memory operand: clwb, clflushopt (without
 * 66 they are xsaveopt and clflush, which the host emulates). */
static enum insn_op cache_op(const uint8_t *b, size_t n, size_t off,
			     const struct prefixes *p, struct insn *in)
{
	int end;

	if (!p->opsize || p->rep || p->repne || p->lock)
		return INSN_OTHER;
	end = read_modrm(b, n, off, p->rex, in);
	if (end < 0 || in->rm_reg != GPR_NONE ||
	    ((in->reg & 7) != 6 && (in->reg & 7) != 7))
		return INSN_OTHER;
	return finish(in, (in->reg & 7) == 6 ? INSN_CLWB : INSN_CLFLUSHOPT,
		      end, p);
}

/* 0f 38 f0/f1 (movbe; with f2 it is crc32) and 66 0f 38 82 (invpcid).
 * Register forms decode too: both are #UD. */
static enum insn_op three_byte(const uint8_t *b, size_t n, size_t off,
			       const struct prefixes *p, struct insn *in)
{
	uint8_t op;

	if (off >= n || p->rep || p->repne || p->lock)
		return INSN_OTHER;
	op = b[off];
	if (op == 0x82 && p->opsize)
		return finish(in, INSN_INVPCID,
			      read_modrm(b, n, off + 1, p->rex, in), p);
	if (op != 0xf0 && op != 0xf1)
		return INSN_OTHER;
	in->opsize = p->rex & REX_W ? 8 : p->opsize ? 2 : 4;
	return finish(in, op == 0xf0 ? INSN_MOVBE_LOAD : INSN_MOVBE_STORE,
		      read_modrm(b, n, off + 1, p->rex, in), p);
}

/* Opcodes without operands to decode: int3, fwait, int n, and the 0f 01
 * group's clac, stac, xgetbv and rdpru. */
static enum insn_op simple(const uint8_t *buf, size_t n, struct insn *out)
{
	static const struct { uint8_t b2; enum insn_op op; } grp7[] = {
		{ 0xca, INSN_CLAC }, { 0xcb, INSN_STAC },
		{ 0xd0, INSN_XGETBV }, { 0xfd, INSN_RDPRU },
	};

	if (buf[0] == 0xcc || buf[0] == 0x9b) {
		out->op = buf[0] == 0xcc ? INSN_INT3 : INSN_FWAIT;
		out->len = 1;
		return out->op;
	}
	if (buf[0] == 0xcd && n >= 2) {
		out->op = INSN_INT_N;
		out->imm = buf[1];
		out->len = 2;
		return out->op;
	}
	if (n < 3 || buf[0] != 0x0f || buf[1] != 0x01)
		return INSN_OTHER;
	for (size_t i = 0; i < sizeof(grp7) / sizeof(grp7[0]); i++)
		if (buf[2] == grp7[i].b2) {
			out->op = grp7[i].op;
			out->len = 3;
			return out->op;
		}
	return INSN_OTHER;
}

enum insn_op insn_decode64(const uint8_t *buf, size_t n, struct insn *out)
{
	struct prefixes p;
	int off;

	memset(out, 0, sizeof(*out));
	out->base = out->index = out->reg = out->rm_reg = GPR_NONE;
	if (n > INSN_MAX_LEN)
		n = INSN_MAX_LEN;
	off = read_prefixes(buf, n, &p);
	if (off < 0)
		return INSN_OTHER;
	if (off == 0 && simple(buf, n, out) != INSN_OTHER)
		return out->op;
	if ((size_t)off + 2 > n || buf[off] != 0x0f)
		return INSN_OTHER;
	if (buf[off + 1] == 0xc7)
		return cmpxchg16b(buf, n, (size_t)off + 2, &p, out);
	if (buf[off + 1] == 0xb8)
		return popcnt(buf, n, (size_t)off + 2, &p, out);
	if (buf[off + 1] == 0xae)
		return cache_op(buf, n, (size_t)off + 2, &p, out);
	if (buf[off + 1] == 0x38)
		return three_byte(buf, n, (size_t)off + 2, &p, out);
	return INSN_OTHER;
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
