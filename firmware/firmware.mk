# Guest firmware: freestanding C and assembly linked by firmware/fw.lds into
# a flat ROM image that ends at 4 GiB, plus an ELF with symbols for gdb.
# Included by the top Makefile (BUILD, CC, VERSION).

FW_SRCS		:= $(wildcard firmware/*.S firmware/*.c firmware/lib/*.c)
FW_OBJS		:= $(patsubst firmware/%,$(BUILD)/fw/%.o,$(basename $(FW_SRCS)))
FW_LIBFDT	:= /usr/lib/x86_64-linux-gnu/libfdt.a
FW_ROM_MAX	:= 1048576

# -fPIE with the small code model: the code is linked at the ROM alias
# 0xffffffff_fxxxxxxx, within reach of the low-RAM .bss (see fw.lds).
# General registers only: no SSE in our code, fewer surprises for the
# instruction emulator.
FW_CFLAGS	:= -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
		   -Wno-missing-field-initializers -I. -MMD -MP \
		   -ffreestanding -fno-stack-protector -mno-red-zone \
		   -mgeneral-regs-only -fPIE -fvisibility=hidden \
		   -ffunction-sections -fdata-sections \
		   -fno-asynchronous-unwind-tables -fcf-protection=none \
		   -fno-tree-loop-distribute-patterns \
		   -DMINIVMM_VERSION='"$(VERSION)"'
FW_LDFLAGS	:= -nostdlib -static -no-pie -Wl,-T,firmware/fw.lds \
		   -Wl,--gc-sections -Wl,--build-id=none -Wl,-z,noexecstack \
		   -Wl,-z,max-page-size=4096 -Wl,--no-warn-rwx-segments

$(BUILD)/fw/%.o: firmware/%.c firmware/firmware.mk
	@mkdir -p $(dir $@)
	$(CC) $(FW_CFLAGS) -c -o $@ $<

$(BUILD)/fw/%.o: firmware/%.S firmware/firmware.mk
	@mkdir -p $(dir $@)
	$(CC) $(FW_CFLAGS) -D__ASSEMBLY__ -c -o $@ $<

$(BUILD)/firmware.elf: $(FW_OBJS) $(FW_LIBFDT) firmware/fw.lds
	$(CC) $(FW_LDFLAGS) -o $@ $(FW_OBJS) $(FW_LIBFDT)

# The image must be whole pages and fit the ROM window below 4 GiB.
$(BUILD)/firmware.bin: $(BUILD)/firmware.elf
	objcopy -O binary $< $@
	@size=$$(stat -c %s $@); \
	if [ $$((size % 4096)) -ne 0 ] || [ $$size -gt $(FW_ROM_MAX) ] || \
	   [ $$size -eq 0 ]; then \
		echo "firmware.bin: bad size $$size" >&2; rm -f $@; exit 1; \
	fi
