// SPDX-License-Identifier: MIT
/* The host profile (vmm/host.c) built from explicit facts: which kind of
 * host each set of facts makes, that the override wins, and that on
 * hardware virtualization no fixed point changes anything (CPUID, the
 * Linux command line, the MSR layer, the exit hooks, the syscall fix,
 * QEMU's -cpu) while on PVM each quirk acts and is counted. */
#include "tests/unit/unit.h"
#include "vmm/host/host.h"
#include "vmm/pvm/emulate.h"
#include "vmm/vm.h"

#include <linux/kvm.h>

#define CX16		(1u << 13)
#define KVM_FEATURES	0x40000001u
#define PV_VMCALLS	(1u << 7 | 1u << 11 | 1u << 13)

static const struct host_facts amd = { .kvm_amd = true, .cpu_svm = true,
				       .ring0_override = -1 };
static const struct host_facts pvm = { .kvm_pvm = true,
				       .ring0_override = -1 };

/* A CPUID table with every bit a quirk could clear set. */
static struct kvm_cpuid2 *table(void)
{
	struct kvm_cpuid2 *c = calloc(1, sizeof(*c) +
					 3 * sizeof(c->entries[0]));

	c->nent = 3;
	c->entries[0] = (struct kvm_cpuid_entry2){ .function = 1,
		.eax = 0x806f8, .ecx = 0xfffaf3ff, .edx = 0x178bfbff };
	c->entries[1] = (struct kvm_cpuid_entry2){ .function = KVM_FEATURES,
		.eax = 0x01ffffff };
	c->entries[2] = (struct kvm_cpuid_entry2){ .function = 7,
		.ebx = 0xffffffff, .edx = 0xffffffff };
	return c;
}

static char *stats_text(struct host *h)
{
	static char buf[2048];
	struct stats_reporter r = host_stats_reporter(h);
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	r.print(r.ctx, f);
	fclose(f);
	return buf;
}

START_TEST(kinds)
{
	struct host h;

	host_from_facts(&h, &amd);
	ck_assert_int_eq(h.kind, HOST_SVM);
	ck_assert(!h.ring0_emulated && !h.forced);
	host_from_facts(&h, &(struct host_facts){ .kvm_intel = true,
						  .ring0_override = -1 });
	ck_assert_int_eq(h.kind, HOST_VMX);
	ck_assert_str_eq(host_kind_name(&h), "Intel VMX");
	/* No module: the CPU's flags say which. */
	host_from_facts(&h, &(struct host_facts){ .cpu_vmx = true,
						  .ring0_override = -1 });
	ck_assert_int_eq(h.kind, HOST_VMX);
	host_from_facts(&h, &(struct host_facts){ .ring0_override = -1 });
	ck_assert_int_eq(h.kind, HOST_HW);
	ck_assert(!h.ring0_emulated);
	host_from_facts(&h, &pvm);
	ck_assert_int_eq(h.kind, HOST_PVM);
	ck_assert(h.ring0_emulated && !h.forced);
	/* MINIVMM_HOST_EMULATES_RING0 wins either way. */
	host_from_facts(&h, &(struct host_facts){ .kvm_pvm = true,
						  .cpu_svm = true,
						  .ring0_override = 0 });
	ck_assert_int_eq(h.kind, HOST_SVM);
	ck_assert(!h.ring0_emulated && h.forced);
	host_from_facts(&h, &(struct host_facts){ .kvm_intel = true,
						  .ring0_override = 1 });
	ck_assert_int_eq(h.kind, HOST_PVM);
	ck_assert(h.ring0_emulated && h.forced);
}
END_TEST

START_TEST(probe_override)
{
	struct host h;

	ck_assert_int_eq(setenv("MINIVMM_HOST_EMULATES_RING0", "0", 1), 0);
	host_probe(&h);
	ck_assert(!h.ring0_emulated && h.forced);
	ck_assert(!host_quirk_on(&h, QUIRK_SYSCALL_FIX));
	ck_assert_int_eq(setenv("MINIVMM_HOST_EMULATES_RING0", "1", 1), 0);
	host_probe(&h);
	ck_assert(h.ring0_emulated && h.forced);
	ck_assert_int_eq(h.kind, HOST_PVM);
	/* Anything else is no override: the module decides. */
	ck_assert_int_eq(setenv("MINIVMM_HOST_EMULATES_RING0", "yes", 1), 0);
	host_probe(&h);
	ck_assert(!h.forced);
	ck_assert(h.ring0_emulated == !access("/sys/module/kvm_pvm", F_OK));
	unsetenv("MINIVMM_HOST_EMULATES_RING0");
}
END_TEST

/* The hardware profile: an empty table, and every fixed point a no-op. */
START_TEST(hardware_does_nothing)
{
	static const struct host_quirks none;
	struct kvm_cpuid2 *c = table(), *before = table();
	struct vmm_config cfg;
	struct vm vm = { .cfg = &cfg };
	struct vcpu_hook hook = { (void *)1, (void *)1 };
	struct capture cap;
	struct host h;
	char buf[256], line[256];

	host_from_facts(&h, &amd);
	ck_assert_mem_eq(h.quirks, &none, sizeof(none));
	for (int q = 0; q < QUIRK_COUNT; q++)
		ck_assert_msg(!host_quirk_on(&h, q), "%s on", quirk_name(q));
	host_cpuid(&h, c, true);
	ck_assert_mem_eq(c, before, sizeof(*c) + 3 * sizeof(c->entries[0]));
	ck_assert_int_eq(host_linux_cmdline(&h, "console=ttyS0 -- x", true,
					    buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "console=ttyS0 -- x");
	ck_assert_int_eq(host_linux_cmdline(&h, NULL, false, buf,
					    sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(host_linux_cmdline(&h, "123456789", false, buf, 10),
			 0);
	ck_assert_int_eq(host_linux_cmdline(&h, "1234567890", false, buf,
					    10), -1);
	capture_start(&cap, 2);
	host_linux_cmdline_notes(&h, "", true);
	ck_assert_str_eq(capture_end(&cap), "");
	ck_assert_ptr_null(host_msr_offered(&h, "IA32_SPEC_CTRL"));
	host_internal_error_hook(&h, &vm.quirk_ctx, &hook);
	ck_assert_ptr_null(hook.fn);
	ck_assert_ptr_null(hook.ctx);
	/* The syscall fix is off, even asked for. */
	cli_defaults(&cfg);
	cfg.syscall_fix = SYSCALL_FIX_ON;
	host_vm_prepare(&h, &vm);
	ck_assert_int_eq(vm.msr_observer.nwatch, 0);
	ck_assert_ptr_null(vm.msr_observer.access);
	ck_assert_int_eq(host_vm_install(&h, &vm), 0);
	ck_assert_ptr_null(vm.syscall_state);
	ck_assert_ptr_null(vm.exits.debug.fn);
	host_vm_destroy(&h, &vm);
	ck_assert_ptr_null(host_qemu_cpu(&h));
	for (int q = 0; q < QUIRK_COUNT; q++)
		ck_assert_uint_eq(quirk_count(&h.log, q), 0);
	host_describe(&h, line, sizeof(line));
	ck_assert_str_eq(line, "host: AMD SVM: no quirks");
	ck_assert_str_eq(stats_text(&h), "host quirks (AMD SVM): none\n");
	free(c);
	free(before);
}
END_TEST

/* The PVM profile: each fixed point acts, and counts. */
START_TEST(pvm_acts)
{
	struct kvm_cpuid2 *c = table();
	struct vmm_config cfg;
	struct vm vm = { .cfg = &cfg };
	struct vcpu_hook hook;
	struct capture cap;
	struct host h;
	char buf[256], line[256];

	host_from_facts(&h, &pvm);
	host_cpuid(&h, c, false);		/* a preview: not counted */
	ck_assert_uint_eq(c->entries[0].ecx & CX16, 0);
	ck_assert_uint_eq(c->entries[1].eax & PV_VMCALLS, 0);
	ck_assert_uint_eq(c->entries[2].edx, 0xffffffff);	/* untouched */
	ck_assert_uint_eq(quirk_count(&h.log, QUIRK_CPUID_HIDE), 0);
	host_cpuid(&h, c, true);	/* nothing left to hide */
	ck_assert_uint_eq(quirk_count(&h.log, QUIRK_CPUID_HIDE), 0);
	free(c);
	c = table();
	host_cpuid(&h, c, true);
	ck_assert_uint_eq(quirk_count(&h.log, QUIRK_CPUID_HIDE), 1);
	ck_assert_int_eq(host_linux_cmdline(&h, "quiet", false, buf,
					    sizeof(buf)), 0);
	ck_assert_str_eq(buf, "noxsave clearcpuid=smap,popcnt,ssse3,erms,fsrm "
			 "noreplace-smp lapic=notscdeadline quiet");
	capture_start(&cap, 2);
	host_linux_cmdline_notes(&h, "quiet", false);
	ck_assert_int_eq(count_lines(capture_end(&cap)), 4);
	ck_assert_uint_eq(quirk_count(&h.log, QUIRK_LINUX_CMDLINE), 4);
	ck_assert_str_eq(host_msr_offered(&h, "IA32_SPEC_CTRL"), "emulate");
	ck_assert_ptr_null(host_msr_offered(&h, "IA32_PRED_CMD"));
	ck_assert_uint_eq(quirk_count(&h.log, QUIRK_SPEC_CTRL), 1);
	host_internal_error_hook(&h, &vm.quirk_ctx, &hook);
	ck_assert_ptr_eq(hook.fn, emulate_failure);
	ck_assert_ptr_eq(hook.ctx, &vm.quirk_ctx);
	cli_defaults(&cfg);		/* --syscall-fix auto */
	host_vm_prepare(&h, &vm);
	ck_assert_int_eq(vm.msr_observer.nwatch, 4);
	memset(&vm.msr_observer, 0, sizeof(vm.msr_observer));
	cfg.syscall_fix = SYSCALL_FIX_OFF;
	host_vm_prepare(&h, &vm);
	ck_assert_int_eq(vm.msr_observer.nwatch, 0);
	ck_assert_str_eq(host_qemu_cpu(&h), "host,-arch-capabilities");
	host_describe(&h, line, sizeof(line));
	ck_assert_str_eq(line, "host: PVM (guest ring 0 emulated): quirks on: "
			 "cpuid-hide, linux-cmdline, spec-ctrl, "
			 "insn-complete, syscall-fix, qemu-cpu, debug-ring0");
	ck_assert_ptr_nonnull(strstr(stats_text(&h),
		"host quirks (PVM (guest ring 0 emulated)):\n"
		"  cpuid-hide     acted          1  (vCPU CPUID tables)\n"
		"  linux-cmdline  acted          4  (words added)\n"));
	free(c);
}
END_TEST

START_TEST(verbose_once)
{
	struct capture cap;
	struct host h;
	char line[256];
	const char *out;

	host_from_facts(&h, &(struct host_facts){ .kvm_amd = true,
						  .ring0_override = 1 });
	host_describe(&h, line, sizeof(line));
	ck_assert_str_eq(line, "host: PVM (guest ring 0 emulated) "
			 "(MINIVMM_HOST_EMULATES_RING0=1): quirks on: "
			 "cpuid-hide, linux-cmdline, spec-ctrl, "
			 "insn-complete, syscall-fix, qemu-cpu, debug-ring0");
	capture_start(&cap, 2);
	quirk_acted(&h.log, QUIRK_INSN_COMPLETE, 1);	/* not verbose */
	h.log.verbose = true;
	quirk_acted(&h.log, QUIRK_INSN_COMPLETE, 2);
	quirk_acted(&h.log, QUIRK_INSN_COMPLETE, 1);
	quirk_acted(&h.log, QUIRK_SYSCALL_FIX, 0);	/* did not act */
	out = capture_end(&cap);
	ck_assert_int_eq(count_lines(out), 1);
	ck_assert_ptr_nonnull(strstr(out, "minivmm: host quirk insn-complete "
				     "acts: "));
	ck_assert_uint_eq(quirk_count(&h.log, QUIRK_INSN_COMPLETE), 4);
	ck_assert_uint_eq(quirk_count(&h.log, QUIRK_SYSCALL_FIX), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("host");
	TCase *t = tcase_create("profile");

	tcase_add_test(t, kinds);
	tcase_add_test(t, probe_override);
	tcase_add_test(t, hardware_does_nothing);
	tcase_add_test(t, pvm_acts);
	tcase_add_test(t, verbose_once);
	suite_add_tcase(s, t);
	return unit_run(s);
}
