// SPDX-License-Identifier: MIT
/*
 * Exceptions and ring 3: the IDT and TSS, the C trap handler, guest_try()
 * and run_user().
 *
 * Both guest_try() and run_user() record a recovery point (a guest_ctx,
 * like a jmp_buf).  The trap handler never returns into faulting code: it
 * resumes the run_user() that owns the "return from user" ud2, or the
 * innermost guest_try(), or it reports the exception and exits.
 */
#include "guest.h"

#define IDT_VECTORS	32	/* with a stub each */
#define IDT_ENTRIES	256	/* the rest for trap_set_gate() */
#define TRAP_STUB_SIZE	16	/* must match trap.S */
#define VEC_UD		6
#define VEC_PF		14
#define FATAL_STATUS	3

/* Pushed by trap.S: GPRs, vector, error code, then the CPU's frame. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;
};

/* Callee-saved state for guest_ctx_save/resume (layout fixed by trap.S). */
struct guest_ctx {
	uint64_t rip, rsp, rbx, rbp, r12, r13, r14, r15;
};

struct idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t reserved;
};

struct __attribute__((packed)) tss64 {
	uint32_t reserved0;
	uint64_t rsp0;
	uint64_t rsp1, rsp2;
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
};

struct __attribute__((packed)) desc_ptr {
	uint16_t limit;
	uint64_t base;
};

struct try_frame {
	struct guest_ctx ctx;
	struct fault fault;
	struct try_frame *prev;
	struct user_frame *user;	/* run_user active at guest_try */
};

struct user_frame {
	struct guest_ctx ctx;
};

int guest_ctx_save(struct guest_ctx *c) __attribute__((returns_twice));
__attribute__((noreturn)) void guest_ctx_resume(const struct guest_ctx *c,
						int v);
__attribute__((noreturn)) void guest_enter_user(void (*fn)(void *), void *arg,
						void *stack_top);
void trap_handler(struct trap_frame *tf);
void trap_init(void);

extern const char trap_stubs[];
extern const char user_return_ud2[];
extern uint64_t guest_gdt[];

static struct idt_gate idt[IDT_ENTRIES] __attribute__((aligned(16)));
static struct tss64 tss __attribute__((aligned(16)));
static struct try_frame *cur_try;
static struct user_frame *cur_user;

/* Ring-0 stack for traps from ring 3: not the boot stack, whose frames
 * (run_user's) must survive until the trap resumes them.  Ring-3 stack. */
#define STACK_ATTR __attribute__((aligned(16), section(".bss.stack")))
static uint8_t trap_stack[8192] STACK_ATTR;
static uint8_t user_stack[16384] STACK_ATTR;

static void set_tss_desc(void)
{
	uint64_t base = (uintptr_t)&tss;
	uint64_t limit = sizeof(tss) - 1;

	/* Available 64-bit TSS (type 9), present, DPL 0. */
	guest_gdt[GUEST_TSS_SEL / 8] = (limit & 0xffff) |
		(base & 0xffffff) << 16 | 0x89ull << 40 |
		(limit >> 16 & 0xf) << 48 | (base >> 24 & 0xff) << 56;
	guest_gdt[GUEST_TSS_SEL / 8 + 1] = base >> 32;
}

void trap_init(void)
{
	struct desc_ptr p = { sizeof(idt) - 1, (uintptr_t)idt };
	uint64_t stub = (uintptr_t)trap_stubs;

	tss.rsp0 = (uintptr_t)trap_stack + sizeof(trap_stack);
	tss.iomap_base = sizeof(tss);	/* no bitmap: IOPL decides */
	set_tss_desc();
	__asm__ volatile("ltr %w0" : : "r"(GUEST_TSS_SEL));

	for (int i = 0; i < IDT_VECTORS; i++, stub += TRAP_STUB_SIZE) {
		idt[i].offset_lo = stub;
		idt[i].selector = GUEST_KERNEL_CS;
		idt[i].type_attr = 0x8e;	/* present, DPL 0, interrupt gate */
		idt[i].offset_mid = stub >> 16;
		idt[i].offset_hi = stub >> 32;
	}
	__asm__ volatile("lidt %0" : : "m"(p));
}

static __attribute__((noreturn)) void fatal_trap(const struct trap_frame *tf)
{
	gprintf("\nunexpected exception: vector %llu error %#llx rip %#llx "
		"cs %#llx rsp %#llx cr2 %#llx\n",
		(unsigned long long)tf->vector,
		(unsigned long long)tf->error_code,
		(unsigned long long)tf->rip, (unsigned long long)tf->cs,
		(unsigned long long)tf->rsp, (unsigned long long)read_cr2());
	test_exit(FATAL_STATUS);
}

void trap_set_gate(unsigned int vec, const void *handler, unsigned int dpl,
		   bool trap_gate)
{
	uint64_t h = (uintptr_t)handler;

	if (vec >= IDT_ENTRIES)
		return;
	idt[vec].offset_lo = h;
	idt[vec].selector = GUEST_KERNEL_CS;
	idt[vec].ist = 0;
	idt[vec].type_attr = (handler ? 0x80 : 0) | (dpl & 3) << 5 |
			     (trap_gate ? 0xf : 0xe);
	idt[vec].offset_mid = h >> 16;
	idt[vec].offset_hi = h >> 32;
}

void trap_handler(struct trap_frame *tf)
{
	struct try_frame *t = cur_try;

	if (tf->vector == VEC_UD && (tf->cs & 3) == 3 && cur_user &&
	    tf->rip == (uintptr_t)user_return_ud2)
		guest_ctx_resume(&cur_user->ctx, 1);
	if (!t)
		fatal_trap(tf);
	t->fault.vector = tf->vector;
	t->fault.error_code = tf->error_code;
	t->fault.rip = tf->rip;
	t->fault.cs = tf->cs;
	t->fault.cr2 = tf->vector == VEC_PF ? read_cr2() : 0;
	guest_ctx_resume(&t->ctx, 1);
}

int guest_try(void (*fn)(void *), void *arg, struct fault *f)
{
	struct try_frame t = { .prev = cur_try, .user = cur_user };

	if (guest_ctx_save(&t.ctx)) {
		/* A fault unwound through any run_user() inside fn. */
		cur_try = t.prev;
		cur_user = t.user;
		if (f)
			*f = t.fault;
		return (int)t.fault.vector;
	}
	cur_try = &t;
	fn(arg);
	cur_try = t.prev;
	return -1;
}

void run_user(void (*fn)(void *), void *arg)
{
	struct user_frame u;

	if (cur_user) {
		gputs("run_user: nested call\n");
		test_exit(FATAL_STATUS);
	}
	if (guest_ctx_save(&u.ctx)) {
		cur_user = NULL;
		return;
	}
	cur_user = &u;
	guest_enter_user(fn, arg, user_stack + sizeof(user_stack));
}
