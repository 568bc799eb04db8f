// SPDX-License-Identifier: MIT
#include "vmm/kvm.h"
#include "vmm/layout.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct cap {
	int id;
	const char *name;
};

/* Everything the run relies on; checked up front so a missing feature is
 * one clear line instead of a failure deep in set-up. */
static const struct cap required_caps[] = {
	{ KVM_CAP_USER_MEMORY,		"KVM_CAP_USER_MEMORY" },
	{ KVM_CAP_READONLY_MEM,		"KVM_CAP_READONLY_MEM" },
	{ KVM_CAP_IRQCHIP,		"KVM_CAP_IRQCHIP" },
	{ KVM_CAP_PIT2,			"KVM_CAP_PIT2" },
	{ KVM_CAP_EXT_CPUID,		"KVM_CAP_EXT_CPUID" },
	{ KVM_CAP_SET_TSS_ADDR,		"KVM_CAP_SET_TSS_ADDR" },
	{ KVM_CAP_IMMEDIATE_EXIT,	"KVM_CAP_IMMEDIATE_EXIT" },
	{ KVM_CAP_X86_USER_SPACE_MSR,	"KVM_CAP_X86_USER_SPACE_MSR" },
	{ KVM_CAP_X86_MSR_FILTER,	"KVM_CAP_X86_MSR_FILTER" },
};

static int open_dev(void)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == ENOENT)
		fprintf(stderr, "minivmm: error: /dev/kvm does not exist "
			"(KVM is not available on this host)\n");
	else if (errno == EACCES || errno == EPERM)
		fprintf(stderr, "minivmm: error: no permission to open "
			"/dev/kvm (join the 'kvm' group or run as root)\n");
	else
		fprintf(stderr, "minivmm: error: cannot open /dev/kvm: %s\n",
			strerror(errno));
	return -1;
}

static int check_caps(struct kvm *kvm)
{
	for (size_t i = 0; i < sizeof(required_caps) / sizeof(required_caps[0]);
	     i++) {
		if (ioctl(kvm->sys_fd, KVM_CHECK_EXTENSION,
			  required_caps[i].id) <= 0) {
			fprintf(stderr, "minivmm: error: KVM lacks capability "
				"%s\n", required_caps[i].name);
			return -1;
		}
	}
	return 0;
}

static int create_vm(struct kvm *kvm)
{
	struct kvm_pit_config pit = { .flags = KVM_PIT_SPEAKER_DUMMY };
	uint64_t ident = LAYOUT_IDENT_MAP_ADDR;
	int n;

	kvm->vm_fd = ioctl(kvm->sys_fd, KVM_CREATE_VM, 0);
	if (kvm->vm_fd < 0) {
		fprintf(stderr, "minivmm: error: KVM_CREATE_VM: %s\n",
			strerror(errno));
		return -1;
	}
	n = ioctl(kvm->vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_MAX_VCPUS);
	kvm->max_vcpus = n > 0 ? (unsigned int)n : 1;
	if (ioctl(kvm->vm_fd, KVM_SET_TSS_ADDR, LAYOUT_TSS_ADDR) < 0 ||
	    ioctl(kvm->vm_fd, KVM_SET_IDENTITY_MAP_ADDR, &ident) < 0 ||
	    ioctl(kvm->vm_fd, KVM_CREATE_IRQCHIP, 0) < 0 ||
	    ioctl(kvm->vm_fd, KVM_CREATE_PIT2, &pit) < 0) {
		fprintf(stderr, "minivmm: error: creating the VM's TSS, "
			"irqchip or PIT: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int kvm_open(struct kvm *kvm)
{
	int v;

	memset(kvm, 0, sizeof(*kvm));
	kvm->vm_fd = -1;
	kvm->sys_fd = open_dev();
	if (kvm->sys_fd < 0)
		return -1;
	v = ioctl(kvm->sys_fd, KVM_GET_API_VERSION, 0);
	if (v != KVM_API_VERSION) {
		fprintf(stderr, "minivmm: error: KVM API version %d, need %d\n",
			v, KVM_API_VERSION);
		goto fail;
	}
	if (check_caps(kvm) < 0)
		goto fail;
	kvm->vcpu_mmap_size = ioctl(kvm->sys_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (kvm->vcpu_mmap_size <= 0) {
		fprintf(stderr, "minivmm: error: KVM_GET_VCPU_MMAP_SIZE\n");
		goto fail;
	}
	if (create_vm(kvm) < 0)
		goto fail;
	return 0;
fail:
	kvm_close(kvm);
	return -1;
}

void kvm_close(struct kvm *kvm)
{
	if (kvm->vm_fd >= 0)
		close(kvm->vm_fd);
	if (kvm->sys_fd >= 0)
		close(kvm->sys_fd);
	kvm->vm_fd = kvm->sys_fd = -1;
}

int kvm_irq_line(struct kvm *kvm, uint32_t irq, int level)
{
	struct kvm_irq_level l = { .irq = irq, .level = level };

	return ioctl(kvm->vm_fd, KVM_IRQ_LINE, &l);
}
