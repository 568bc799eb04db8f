# Guest test payloads: every tests/guest/<name>.c becomes
# $(BUILD)/guests/<name>.elf, a freestanding PVH ELF linked at 1 MiB with
# the library in tests/guest/lib/.  Included by the top Makefile.

GUEST_CFLAGS	:= -std=c11 -O2 -g -Wall -Wextra -Werror -I. -MMD -MP \
		   -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
		   -fno-asynchronous-unwind-tables -fno-common \
		   -mno-red-zone -mgeneral-regs-only -m64
GUEST_ASFLAGS	:= -I. -MMD -MP -m64
GUEST_LDFLAGS	:= -nostdlib -static -no-pie -Wl,--build-id=none \
		   -Wl,-z,max-page-size=4096 -Wl,-z,noexecstack \
		   -Wl,-T,tests/guest/lib/payload.lds

GUEST_OBJDIR	:= $(BUILD)/guest-obj
GUEST_LIB_SRCS	:= $(wildcard tests/guest/lib/*.c tests/guest/lib/*.S)
GUEST_LIB_OBJS	:= $(patsubst tests/guest/%,$(GUEST_OBJDIR)/%.o,$(GUEST_LIB_SRCS))
GUEST_SRCS	:= $(wildcard tests/guest/*.c)
GUEST_OBJS	:= $(GUEST_SRCS:tests/guest/%.c=$(GUEST_OBJDIR)/%.c.o)
GUEST_ELFS	:= $(GUEST_SRCS:tests/guest/%.c=$(BUILD)/guests/%.elf)

$(GUEST_OBJDIR)/%.c.o: tests/guest/%.c
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -c -o $@ $<

$(GUEST_OBJDIR)/%.S.o: tests/guest/%.S
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_ASFLAGS) -c -o $@ $<

$(BUILD)/guests/%.elf: $(GUEST_OBJDIR)/%.c.o $(GUEST_LIB_OBJS) \
		       tests/guest/lib/payload.lds
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_LDFLAGS) -o $@ $< $(GUEST_LIB_OBJS) -lgcc

guests: $(GUEST_ELFS)

# Keep the objects (make would delete them as pattern intermediates).
.SECONDARY: $(GUEST_OBJS) $(GUEST_LIB_OBJS)
