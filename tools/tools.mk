# Host tools, included by the top Makefile.
#   kvm-floor: the minimal raw-KVM program that times bare exits, the floor
#   minivmm's benchmarks compare against (`minivmm bench` runs it).  It
#   links only the pure statistics module, no other minivmm code.
#   exit-cost: minivmm's own share of an exit (the dispatch, the PCI bus,
#   the MSR table) timed without KVM, for perf and before/after figures.

TOOLS_BINS	:= $(BUILD)/kvm-floor $(BUILD)/linux/mvsnap $(BUILD)/exit-cost
KVM_FLOOR_OBJS	:= $(BUILD)/host/tools/kvm_floor.o \
		   $(BUILD)/host/tools/kvm_floor_vm.o \
		   $(BUILD)/host/tools/bench/stats.o

tools: $(TOOLS_BINS)

$(BUILD)/kvm-floor: $(KVM_FLOOR_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/exit-cost: $(BUILD)/host/tools/exit_cost.o $(BUILD)/libminivmm.a \
		    $(BUILD)/host/tools/bench/stats.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

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

# Linux with a busybox shell on the console: the kernel above (built once,
# then cached) and an initramfs whose init is tests/boot/linux-init.sh.
# Ctrl-A x quits; `poweroff` in the guest ends minivmm with status 0.
# LINUX_IMAGE=bzImage boots the compressed image instead of PVH's vmlinux;
# LINUX_ARGS adds minivmm options (e.g. -c 2), LINUX_APPEND kernel ones.
LINUX_IMAGE	?= vmlinux
LINUX_ARGS	?= -m 128M
LINUX_APPEND	?=

run-linux:
	@tools/deps.sh build kernel
	@$(MAKE) --no-print-directory $(BUILD)/minivmm $(BUILD)/firmware.bin
	@k=$$(tools/build-kernel.sh) && \
	initrd=$$(tools/mkinitramfs.sh tests/boot/linux-init.sh) && \
	echo "minivmm: booting $$k/$(LINUX_IMAGE) (about a minute where" \
		"guest ring 0 is emulated); Ctrl-A x quits" && \
	exec $(BUILD)/minivmm --kernel "$$k/$(LINUX_IMAGE)" \
		--initrd "$$initrd" $(LINUX_ARGS) \
		--append "console=ttyS0 earlycon=uart8250,io,0x3f8 $(LINUX_APPEND)"

.PHONY: guest-kernel run-linux
