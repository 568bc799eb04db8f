// SPDX-License-Identifier: MIT
/*
 * The instruction decoder (vmm/pvm/insn_decode.c, Capstone underneath)
 * and the fault handler's first-instruction check built on it
 * (sc_first_insn): the input is guest code, as a hostile guest can make
 * it, decoded at every offset (a handler or failing instruction can start
 * anywhere).
 *
 * Checked for each decode:
 *   - an instruction it accepts lies within the bytes given and within
 *     the 15 the CPU allows, and its registers, scale and segment are
 *     ones the emulator can index with;
 *   - decoding again gives the same answer (the shared Capstone handle
 *     keeps no state between decodes);
 *   - sc_first_insn skips exactly the no-ops, clac and stac the decoder
 *     found, by their length, and steps everything else.
 */
#include "tests/fuzz/fuzz_util.h"
#include "vmm/pvm/insn_decode.h"
#include "vmm/pvm/syscall_decode.h"

static bool reg_ok(int r)
{
	return r >= GPR_NONE && r <= GPR_R15;
}

static void check_insn(const uint8_t *b, size_t n)
{
	static const uint64_t gpr[16];
	struct insn in, again;
	enum insn_op op = insn_decode64(b, n, &in);
	enum sc_first_insn k;
	unsigned int len = 99;

	FZ_CHECK(op == in.op, "op %d returned, %d stored", op, in.op);
	insn_decode64(b, n, &again);
	FZ_CHECK(!memcmp(&in, &again, sizeof(in)), "second decode differs");
	k = sc_first_insn(b, n, &len);
	if (op == INSN_NOP || op == INSN_CLAC || op == INSN_STAC)
		FZ_CHECK(k != SC_STEP && len == in.len, "op %d: %d, len %u",
			 op, k, len);
	else
		FZ_CHECK(k == SC_STEP && len == 0, "op %d skipped", op);
	if (op == INSN_OTHER)
		return;
	FZ_CHECK(in.len >= 1 && in.len <= n && in.len <= INSN_MAX_LEN,
		 "op %d: length %u of %zu bytes", op, in.len, n);
	FZ_CHECK(reg_ok(in.reg) && reg_ok(in.rm_reg) && reg_ok(in.base) &&
		 reg_ok(in.index), "op %d: register out of range", op);
	FZ_CHECK(in.scale == 1 || in.scale == 2 || in.scale == 4 ||
		 in.scale == 8, "op %d: scale %u", op, in.scale);
	FZ_CHECK(in.seg == SEG_DEFAULT || in.seg == SEG_FS || in.seg == SEG_GS,
		 "op %d: segment %d", op, in.seg);
	if (op == INSN_POPCNT || op == INSN_MOVBE_LOAD ||
	    op == INSN_MOVBE_STORE)
		FZ_CHECK(in.opsize == 2 || in.opsize == 4 || in.opsize == 8,
			 "op %d: operand size %u", op, in.opsize);
	insn_linear_address(&in, gpr, 0, 0, 0);	/* indexes gpr[] */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 256)
		size = 256;
	for (size_t off = 0; off < size; off++)
		check_insn(data + off, size - off);
	check_insn(data, 0);
	return 0;
}
