// SPDX-License-Identifier: MIT
/* The register file and target.xml (regs.h). */
#include "vmm/gdb/regs.h"

#include <stdio.h>
#include <string.h>

struct reg_desc {
	const char *name;
	unsigned int bits;
	const char *type;
	const char *feature;
};

#define CORE	"org.gnu.gdb.i386.core"
#define SSE	"org.gnu.gdb.i386.sse"
#define SEGS	"org.gnu.gdb.i386.segments"
#define SYS	"org.minivmm.gdb.x86.sys"

static const struct reg_desc regs[GDB_NREGS] = {
	{ "rax", 64, "int64", CORE }, { "rbx", 64, "int64", CORE },
	{ "rcx", 64, "int64", CORE }, { "rdx", 64, "int64", CORE },
	{ "rsi", 64, "int64", CORE }, { "rdi", 64, "int64", CORE },
	{ "rbp", 64, "data_ptr", CORE }, { "rsp", 64, "data_ptr", CORE },
	{ "r8", 64, "int64", CORE }, { "r9", 64, "int64", CORE },
	{ "r10", 64, "int64", CORE }, { "r11", 64, "int64", CORE },
	{ "r12", 64, "int64", CORE }, { "r13", 64, "int64", CORE },
	{ "r14", 64, "int64", CORE }, { "r15", 64, "int64", CORE },
	{ "rip", 64, "code_ptr", CORE }, { "eflags", 32, "i386_eflags", CORE },
	{ "cs", 32, "int32", CORE }, { "ss", 32, "int32", CORE },
	{ "ds", 32, "int32", CORE }, { "es", 32, "int32", CORE },
	{ "fs", 32, "int32", CORE }, { "gs", 32, "int32", CORE },
	{ "st0", 80, "i387_ext", CORE }, { "st1", 80, "i387_ext", CORE },
	{ "st2", 80, "i387_ext", CORE }, { "st3", 80, "i387_ext", CORE },
	{ "st4", 80, "i387_ext", CORE }, { "st5", 80, "i387_ext", CORE },
	{ "st6", 80, "i387_ext", CORE }, { "st7", 80, "i387_ext", CORE },
	{ "fctrl", 32, "int", CORE }, { "fstat", 32, "int", CORE },
	{ "ftag", 32, "int", CORE }, { "fiseg", 32, "int", CORE },
	{ "fioff", 32, "int", CORE }, { "foseg", 32, "int", CORE },
	{ "fooff", 32, "int", CORE }, { "fop", 32, "int", CORE },
	{ "xmm0", 128, "vec128", SSE }, { "xmm1", 128, "vec128", SSE },
	{ "xmm2", 128, "vec128", SSE }, { "xmm3", 128, "vec128", SSE },
	{ "xmm4", 128, "vec128", SSE }, { "xmm5", 128, "vec128", SSE },
	{ "xmm6", 128, "vec128", SSE }, { "xmm7", 128, "vec128", SSE },
	{ "xmm8", 128, "vec128", SSE }, { "xmm9", 128, "vec128", SSE },
	{ "xmm10", 128, "vec128", SSE }, { "xmm11", 128, "vec128", SSE },
	{ "xmm12", 128, "vec128", SSE }, { "xmm13", 128, "vec128", SSE },
	{ "xmm14", 128, "vec128", SSE }, { "xmm15", 128, "vec128", SSE },
	{ "mxcsr", 32, "i386_mxcsr", SSE },
	{ "fs_base", 64, "int", SEGS }, { "gs_base", 64, "int", SEGS },
	{ "cr0", 64, "int", SYS }, { "cr2", 64, "int", SYS },
	{ "cr3", 64, "int", SYS }, { "cr4", 64, "int", SYS },
	{ "cr8", 64, "int", SYS }, { "efer", 64, "int", SYS },
};

size_t gdb_regs_size(void)
{
	size_t n = 0;

	for (unsigned int i = 0; i < GDB_NREGS; i++)
		n += regs[i].bits / 8;
	return n;
}

bool gdb_reg_slot(unsigned int n, size_t *off, size_t *size)
{
	size_t o = 0;

	if (n >= GDB_NREGS)
		return false;
	for (unsigned int i = 0; i < n; i++)
		o += regs[i].bits / 8;
	*off = o;
	*size = regs[n].bits / 8;
	return true;
}

bool gdb_reg_readonly(unsigned int n)
{
	return n >= GDB_REG_CR0 && n < GDB_NREGS;
}

/* The types a feature's registers use, defined in that feature (gdb
 * knows only the basic ones: int64, code_ptr, i387_ext...). */
static const char core_types[] =
	"<flags id=\"i386_eflags\" size=\"4\">"
	"<field name=\"CF\" start=\"0\" end=\"0\"/>"
	"<field name=\"\" start=\"1\" end=\"1\"/>"
	"<field name=\"PF\" start=\"2\" end=\"2\"/>"
	"<field name=\"AF\" start=\"4\" end=\"4\"/>"
	"<field name=\"ZF\" start=\"6\" end=\"6\"/>"
	"<field name=\"SF\" start=\"7\" end=\"7\"/>"
	"<field name=\"TF\" start=\"8\" end=\"8\"/>"
	"<field name=\"IF\" start=\"9\" end=\"9\"/>"
	"<field name=\"DF\" start=\"10\" end=\"10\"/>"
	"<field name=\"OF\" start=\"11\" end=\"11\"/>"
	"<field name=\"NT\" start=\"14\" end=\"14\"/>"
	"<field name=\"RF\" start=\"16\" end=\"16\"/>"
	"<field name=\"VM\" start=\"17\" end=\"17\"/>"
	"<field name=\"AC\" start=\"18\" end=\"18\"/>"
	"<field name=\"VIF\" start=\"19\" end=\"19\"/>"
	"<field name=\"VIP\" start=\"20\" end=\"20\"/>"
	"<field name=\"ID\" start=\"21\" end=\"21\"/>"
	"</flags>";

static const char sse_types[] =
	"<vector id=\"v4f\" type=\"ieee_single\" count=\"4\"/>"
	"<vector id=\"v2d\" type=\"ieee_double\" count=\"2\"/>"
	"<vector id=\"v16i8\" type=\"int8\" count=\"16\"/>"
	"<vector id=\"v8i16\" type=\"int16\" count=\"8\"/>"
	"<vector id=\"v4i32\" type=\"int32\" count=\"4\"/>"
	"<vector id=\"v2i64\" type=\"int64\" count=\"2\"/>"
	"<union id=\"vec128\">"
	"<field name=\"v4_float\" type=\"v4f\"/>"
	"<field name=\"v2_double\" type=\"v2d\"/>"
	"<field name=\"v16_int8\" type=\"v16i8\"/>"
	"<field name=\"v8_int16\" type=\"v8i16\"/>"
	"<field name=\"v4_int32\" type=\"v4i32\"/>"
	"<field name=\"v2_int64\" type=\"v2i64\"/>"
	"<field name=\"uint128\" type=\"uint128\"/>"
	"</union>"
	"<flags id=\"i386_mxcsr\" size=\"4\">"
	"<field name=\"IE\" start=\"0\" end=\"0\"/>"
	"<field name=\"DE\" start=\"1\" end=\"1\"/>"
	"<field name=\"ZE\" start=\"2\" end=\"2\"/>"
	"<field name=\"OE\" start=\"3\" end=\"3\"/>"
	"<field name=\"UE\" start=\"4\" end=\"4\"/>"
	"<field name=\"PE\" start=\"5\" end=\"5\"/>"
	"<field name=\"DAZ\" start=\"6\" end=\"6\"/>"
	"<field name=\"IM\" start=\"7\" end=\"7\"/>"
	"<field name=\"DM\" start=\"8\" end=\"8\"/>"
	"<field name=\"ZM\" start=\"9\" end=\"9\"/>"
	"<field name=\"OM\" start=\"10\" end=\"10\"/>"
	"<field name=\"UM\" start=\"11\" end=\"11\"/>"
	"<field name=\"PM\" start=\"12\" end=\"12\"/>"
	"<field name=\"FZ\" start=\"15\" end=\"15\"/>"
	"</flags>";

static const char *types_of(const char *feature)
{
	if (!strcmp(feature, CORE))
		return core_types;
	if (!strcmp(feature, SSE))
		return sse_types;
	return "";
}

const char *gdb_target_xml(void)
{
	static char xml[16384];
	const char *cur = NULL;
	size_t n;

	if (xml[0])
		return xml;
	n = (size_t)snprintf(xml, sizeof(xml), "<?xml version=\"1.0\"?>"
			     "<!DOCTYPE target SYSTEM \"gdb-target.dtd\">"
			     "<target><architecture>i386:x86-64"
			     "</architecture>");
	for (unsigned int i = 0; i < GDB_NREGS && n < sizeof(xml); i++) {
		if (!cur || strcmp(cur, regs[i].feature)) {
			n += (size_t)snprintf(xml + n, sizeof(xml) - n,
					      "%s<feature name=\"%s\">%s",
					      cur ? "</feature>" : "",
					      regs[i].feature,
					      types_of(regs[i].feature));
			cur = regs[i].feature;
		}
		if (n >= sizeof(xml))
			break;
		n += (size_t)snprintf(xml + n, sizeof(xml) - n,
				      "<reg name=\"%s\" bitsize=\"%u\" "
				      "type=\"%s\" regnum=\"%u\"%s/>",
				      regs[i].name, regs[i].bits,
				      regs[i].type, i,
				      !strcmp(regs[i].feature, SYS) ?
				      " group=\"system\"" : "");
	}
	if (n < sizeof(xml))
		snprintf(xml + n, sizeof(xml) - n, "</feature></target>");
	return xml;
}

static void put(uint8_t *file, unsigned int n, uint64_t v)
{
	size_t off = 0, size = 0;

	gdb_reg_slot(n, &off, &size);
	memcpy(file + off, &v, size < 8 ? size : 8);	/* little-endian */
}

static uint64_t get(const uint8_t *file, unsigned int n)
{
	size_t off = 0, size = 0;
	uint64_t v = 0;

	gdb_reg_slot(n, &off, &size);
	memcpy(&v, file + off, size < 8 ? size : 8);
	return v;
}

static const struct kvm_segment *seg(const struct kvm_sregs *s, int i)
{
	const struct kvm_segment *t[6] = { &s->cs, &s->ss, &s->ds, &s->es,
					   &s->fs, &s->gs };
	return t[i];
}

/* FXSAVE's abridged tag (one bit: valid) to the full tag word (two bits:
 * 11 empty); "valid" is all gdb needs to print the stack. */
static uint32_t full_tag(uint8_t ftwx)
{
	uint32_t t = 0;

	for (int i = 0; i < 8; i++)
		if (!(ftwx & (1u << i)))
			t |= 3u << (2 * i);
	return t;
}

static uint8_t abridged_tag(uint32_t tag)
{
	uint8_t t = 0;

	for (int i = 0; i < 8; i++)
		if (((tag >> (2 * i)) & 3) != 3)
			t |= (uint8_t)(1u << i);
	return t;
}

void gdb_regs_from_kvm(const struct gdb_kvm_state *s, uint8_t *file)
{
	const struct kvm_regs *r = &s->regs;
	const uint64_t gpr[16] = { r->rax, r->rbx, r->rcx, r->rdx, r->rsi,
		r->rdi, r->rbp, r->rsp, r->r8, r->r9, r->r10, r->r11, r->r12,
		r->r13, r->r14, r->r15 };
	const uint64_t sys[6] = { s->sregs.cr0, s->sregs.cr2, s->sregs.cr3,
		s->sregs.cr4, s->sregs.cr8, s->sregs.efer };
	const struct kvm_fpu *f = &s->fpu;
	size_t off = 0, size = 0;

	memset(file, 0, gdb_regs_size());
	for (unsigned int i = 0; i < 16; i++)
		put(file, i, gpr[i]);
	put(file, GDB_REG_RIP, r->rip);
	put(file, GDB_REG_EFLAGS, r->rflags);
	for (int i = 0; i < 6; i++)
		put(file, GDB_REG_CS + (unsigned int)i, seg(&s->sregs, i)->selector);
	for (unsigned int i = 0; i < 8; i++) {
		gdb_reg_slot(GDB_REG_ST0 + i, &off, &size);
		memcpy(file + off, f->fpr[i], size);
	}
	put(file, GDB_REG_FCTRL, f->fcw);
	put(file, GDB_REG_FCTRL + 1, f->fsw);
	put(file, GDB_REG_FCTRL + 2, full_tag(f->ftwx));
	put(file, GDB_REG_FCTRL + 4, f->last_ip);
	put(file, GDB_REG_FCTRL + 6, f->last_dp);
	put(file, GDB_REG_FCTRL + 7, f->last_opcode);
	for (unsigned int i = 0; i < 16; i++) {
		gdb_reg_slot(GDB_REG_XMM0 + i, &off, &size);
		memcpy(file + off, f->xmm[i], size);
	}
	put(file, GDB_REG_MXCSR, f->mxcsr);
	put(file, GDB_REG_FS_BASE, s->sregs.fs.base);
	put(file, GDB_REG_GS_BASE, s->sregs.gs.base);
	for (unsigned int i = 0; i < 6; i++)
		put(file, GDB_REG_CR0 + i, sys[i]);
}

bool gdb_regs_to_kvm(const uint8_t *file, struct gdb_kvm_state *s)
{
	uint8_t now[1024];
	struct kvm_regs *r = &s->regs;
	__u64 *gpr[16] = { &r->rax, &r->rbx, &r->rcx, &r->rdx, &r->rsi,
		&r->rdi, &r->rbp, &r->rsp, &r->r8, &r->r9, &r->r10, &r->r11,
		&r->r12, &r->r13, &r->r14, &r->r15 };
	struct kvm_fpu *f = &s->fpu;
	size_t off = 0, size = 0;

	/* What cannot be written must come back as it is. */
	gdb_regs_from_kvm(s, now);
	for (unsigned int i = GDB_REG_CS; i < GDB_REG_CS + 6; i++)
		if (get(file, i) != get(now, i))
			return false;
	for (unsigned int i = GDB_REG_CR0; i < GDB_NREGS; i++)
		if (get(file, i) != get(now, i))
			return false;
	for (unsigned int i = 0; i < 16; i++)
		*gpr[i] = get(file, i);
	r->rip = get(file, GDB_REG_RIP);
	/* gdb's eflags is 32 bits; the upper half is reserved (zero). */
	r->rflags = (uint32_t)get(file, GDB_REG_EFLAGS) | 2;
	for (unsigned int i = 0; i < 8; i++) {
		gdb_reg_slot(GDB_REG_ST0 + i, &off, &size);
		memcpy(f->fpr[i], file + off, size);
	}
	f->fcw = (uint16_t)get(file, GDB_REG_FCTRL);
	f->fsw = (uint16_t)get(file, GDB_REG_FCTRL + 1);
	f->ftwx = abridged_tag((uint32_t)get(file, GDB_REG_FCTRL + 2));
	f->last_ip = get(file, GDB_REG_FCTRL + 4);
	f->last_dp = get(file, GDB_REG_FCTRL + 6);
	f->last_opcode = (uint16_t)get(file, GDB_REG_FCTRL + 7);
	for (unsigned int i = 0; i < 16; i++) {
		gdb_reg_slot(GDB_REG_XMM0 + i, &off, &size);
		memcpy(f->xmm[i], file + off, size);
	}
	f->mxcsr = (uint32_t)get(file, GDB_REG_MXCSR);
	s->sregs.fs.base = get(file, GDB_REG_FS_BASE);
	s->sregs.gs.base = get(file, GDB_REG_GS_BASE);
	return true;
}
