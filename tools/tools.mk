# Host tools, included by the top Makefile.
#   kvm-floor: the minimal raw-KVM program that times bare exits, the floor
#   minivmm's benchmarks compare against (`minivmm bench` runs it).  It
#   links only the pure statistics module, no other minivmm code.

TOOLS_BINS	:= $(BUILD)/kvm-floor $(BUILD)/linux/mvsnap
KVM_FLOOR_OBJS	:= $(BUILD)/host/tools/kvm_floor.o \
		   $(BUILD)/host/tools/kvm_floor_vm.o \
		   $(BUILD)/host/vmm/bench/stats.o

tools: $(TOOLS_BINS)

$(BUILD)/kvm-floor: $(KVM_FLOOR_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^

# Programs for a Linux guest's initramfs (tests/linux/), static: the
# initramfs holds busybox and nothing else.  mvsnap: the snapshot control
# page from user space (the Linux snapshot test, docs/snapshot.md).
$(BUILD)/linux/%: tests/linux/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -static \
		-o $@ $<

# The guest kernel for the Linux boot tests (tools/build-kernel.sh): built
# from Debian's linux-source-6.1 and tools/kernel/minivmm.config into the
# cache, not under $(BUILD); prints the directory holding the images.
guest-kernel:
	@tools/build-kernel.sh

.PHONY: guest-kernel
