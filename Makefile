# minivmm build.  `make` builds the VMM and the firmware; `make run` boots
# the demo guest; `make check` runs every test (also under ASan+UBSan).
#
# Sources are picked up by directory: vmm/ and devices/ (with one level of
# sub-folders) form the VMM, firmware/lib/*.c is shared between the
# firmware and the host,
# tests/unit/check_*.c each become one Check binary.

BUILD	?= build
SAN	?=
CC	:= gcc
VERSION	:= $(shell git describe --always --dirty 2>/dev/null || echo unknown)

CFLAGS	:= -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
	   -Wno-missing-field-initializers -I. -MMD -MP \
	   -DMINIVMM_VERSION='"$(VERSION)"'
LDLIBS	:= -lfdt -lcapstone -lcjson -lseccomp -lz -lpthread
ifeq ($(SAN),1)
CFLAGS	+= -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=undefined
LDFLAGS	+= -fsanitize=address,undefined
endif

VMM_SRCS	:= $(wildcard vmm/*.c vmm/*/*.c vmm/*/*/*.c devices/*/*/*.c \
			devices/*.c devices/*/*.c) \
		   $(wildcard firmware/lib/*.c)
VMM_LIB_SRCS	:= $(filter-out vmm/main.c,$(VMM_SRCS))
VMM_LIB_OBJS	:= $(VMM_LIB_SRCS:%.c=$(BUILD)/host/%.o)
# The benchmark driver and the test runner: programs of their own that
# start minivmm as a child (`minivmm bench|test` runs them); each is a
# library plus a main, so the unit tests can link the library.
BENCH_LIB_SRCS	:= $(filter-out tools/bench/main.c,$(wildcard tools/bench/*.c)) \
		   tools/vmm_path.c
TEST_LIB_SRCS	:= $(filter-out tools/test/main.c,$(wildcard tools/test/*.c))
UNIT_SRCS	:= $(wildcard tests/unit/check_*.c)
UNIT_BINS	:= $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_LIBS	:= $(BUILD)/libminivmm-test.a $(BUILD)/libminivmm-bench.a \
		   $(BUILD)/libminivmm.a

all: $(BUILD)/minivmm $(BUILD)/minivmm-bench $(BUILD)/minivmm-test \
	$(BUILD)/firmware.bin $(BUILD)/cmd-initramfs.cpio \
	$(BUILD)/fsbench-initramfs.cpio guests tools

# --cmd's initramfs, found next to the binary (vmm/run/cmd.h).
$(BUILD)/cmd-initramfs.cpio: vmm/run/cmd-init.sh tools/mkinitramfs.sh
	@mkdir -p $(dir $@)
	tools/mkinitramfs.sh -o $@ vmm/run/cmd-init.sh >/dev/null

# The file-system benchmarks' guest init (`minivmm bench --cases fs`,
# tools/fsbench/run.sh), found next to the binary as well.
$(BUILD)/fsbench-initramfs.cpio: tools/fsbench/init.sh tools/mkinitramfs.sh
	@mkdir -p $(dir $@)
	tools/mkinitramfs.sh -o $@ tools/fsbench/init.sh >/dev/null

$(BUILD)/host/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/libminivmm.a: $(VMM_LIB_OBJS)
	@rm -f $@
	ar qcs $@ $^

$(BUILD)/libminivmm-bench.a: $(BENCH_LIB_SRCS:%.c=$(BUILD)/host/%.o)
	@rm -f $@
	ar qcs $@ $^

$(BUILD)/libminivmm-test.a: $(TEST_LIB_SRCS:%.c=$(BUILD)/host/%.o)
	@rm -f $@
	ar qcs $@ $^

$(BUILD)/minivmm: $(BUILD)/host/vmm/main.o $(BUILD)/libminivmm.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/minivmm-bench: $(BUILD)/host/tools/bench/main.o \
			$(BUILD)/libminivmm-bench.a $(BUILD)/libminivmm.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/minivmm-test: $(BUILD)/host/tools/test/main.o $(TOOL_LIBS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(TOOL_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TOOL_LIBS) \
		$(LDLIBS) $(shell pkg-config --libs check)

unit: $(UNIT_BINS)

include firmware/firmware.mk
include tests/guest/guest.mk
include tests/fuzz/fuzz.mk
-include tools/tools.mk

# The Debian packages, by tier (tools/deps.sh): build for make and make
# run, test for make check beyond that, kernel for the Linux guest; each
# target asks for the tiers it needs, make deps for all of them.
deps:
	@tools/deps.sh all

# The demo: firmware plus the hello payload, with boot timing.
RUN_ARGS ?= --kernel $(BUILD)/guests/hello.elf \
	    --append "hello from make run" --timing

# Without /dev/kvm here, on the lane's KVM (kvm_amd in QEMU's software
# CPU: tools/run-lane.sh, which needs the test tier's QEMU).
run:
	@tools/deps.sh build
	@[ -e /dev/kvm ] || tools/deps.sh test
	@$(MAKE) --no-print-directory all
	@if [ -e /dev/kvm ]; then $(BUILD)/minivmm run $(RUN_ARGS); \
	else BUILD=$(BUILD) tools/run-lane.sh $(BUILD)/minivmm run $(RUN_ARGS); fi

# The guest kernel's first build, most of a fresh machine's work, runs
# beside the VMM's builds (which use one core) and the lane; the tests that
# boot it wait for it (tools/check-kernel.sh).  One shell, so a failed
# build ends it too.
check: deps
	@trap 'tools/check-kernel.sh stop' EXIT; \
	tools/check-kernel.sh start && \
	$(MAKE) --no-print-directory all unit && \
	$(MAKE) --no-print-directory SAN=1 BUILD=build-asan \
		build-asan/minivmm build-asan/minivmm-bench \
		build-asan/minivmm-test build-asan/firmware.bin unit && \
	$(MAKE) --no-print-directory fuzz-build && \
	tests/run.sh

# make check plus the Linux boot test (fetches Debian's cloud kernel).
check-linux: deps
	@$(MAKE) --no-print-directory all unit
	@MINIVMM_LINUX_TEST=1 SKIP_BOOT_TESTS="foundation firmware msr pci console emulate robust bench" tests/run.sh

# The whole kvm-unit-tests manifest, minivmm beside QEMU (tools/kut.sh
# builds the suite out of tree): the table for docs/kvm-unit-tests.md in
# $(BUILD)/kut-results.md, TAP, JUnit and logs next to it.  Tests failing
# is the expected outcome on some hosts: the table is the product.
check-kut:
	@tools/deps.sh build test
	@$(MAKE) --no-print-directory all
	@x86=$$(tools/kut.sh) && \
	$(BUILD)/minivmm test -j 2 --peer qemu --logs $(BUILD)/kut-logs \
		--markdown $(BUILD)/kut-results.md --tap $(BUILD)/kut.tap \
		--junit $(BUILD)/kut.xml $$x86/unittests.cfg; \
	echo "table: $(BUILD)/kut-results.md"

# kvm-unit-tests as a sharded Bazel sh_test (tests/bazel/, docs/ci.md), run
# offline with Debian's bazel-bootstrap (installed if missing and root):
# every shard passes, every test runs exactly once over the shards.  Slow
# (Bazel's start-up plus the suite), so not part of make check.
check-bazel: all
	@tests/bazel/check.sh

# The soak alone (tests/boot/linux-crash.sh without its crash rounds): a
# restored Linux guest with disk and console traffic for SOAK_SECONDS
# (600), its RSS and descriptors sampled; make check runs 60 s of it.
# Without /dev/kvm here, on the lane's KVM (tools/run-lane.sh).
SOAK_SECONDS	?= 600
SOAK_ENV = MINIVMM_SOAK_SECONDS=$(SOAK_SECONDS) MINIVMM_CRASH_ROUNDS=0 \
	MINIVMM_CRASH_NOSYNC_ROUNDS=0 MINIVMM=$(BUILD)/minivmm BUILD=$(BUILD)
soak: all
	@tools/build-kernel.sh >/dev/null
	@if [ -e /dev/kvm ]; then $(SOAK_ENV) bash tests/boot/linux-crash.sh; \
	else tools/deps.sh test && BUILD=$(BUILD) tools/run-lane.sh env \
		$(SOAK_ENV) MINIVMM_TIMEOUT_SCALE=3 bash tests/boot/linux-crash.sh; fi

# Many guests at once: tests/boot/load.sh with 16 guests (make check runs
# 8), then tests/boot/linux-load.sh's 4 Linux guests.
check-load: all
	@tools/build-kernel.sh >/dev/null
	@MINIVMM_LOAD_GUESTS=16 MINIVMM=$(BUILD)/minivmm BUILD=$(BUILD) \
		bash tests/boot/load.sh
	@MINIVMM=$(BUILD)/minivmm BUILD=$(BUILD) bash tests/boot/linux-load.sh

# The hardware-virtualization lane (tests/hw/, docs/hw-lane.md): every
# boot test on a real KVM (kvm_amd in QEMU's software CPU with SVM), with
# nested paging on (tests/hw/lanes.sh: the payloads' and the Linux
# guests' tests in two L1s at once), then the firmware and foundation
# tests with it off; expected failures (the software CPU's gaps) in
# tests/hw/xfail.txt.  Slow (an hour or more on 2 cores): not part of make
# check, which runs most of it.
check-hw:
	@tools/deps.sh build test
	@$(MAKE) --no-print-directory all
	@trap 'tools/check-kernel.sh stop' EXIT; tools/check-kernel.sh start; \
	tests/hw/lanes.sh --npt on $$(tests/boot-tests.sh); a=$$?; \
	tests/hw/check-hw.sh --npt off firmware foundation; b=$$?; \
	[ $$a -eq 0 ] && [ $$b -eq 0 ]

clean:
	rm -rf build build-asan build-fuzz

.PHONY: all unit deps run check check-linux check-kut check-bazel check-hw \
	clean guests tools soak check-load
.DELETE_ON_ERROR:

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
