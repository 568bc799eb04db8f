# libFuzzer targets (tests/fuzz/fuzz_*.c), built with clang-14 against the
# same VMM sources minivmm runs, compiled separately under $(FUZZ_BUILD).
# Included by the top Makefile; also usable alone:
#   make -f tests/fuzz/fuzz.mk fuzz-smoke
#
#   make fuzz            each target for FUZZ_SECONDS (default 60), growing
#                        its corpus in $(FUZZ_BUILD)/corpus/<target>/
#   make fuzz-smoke      each target replays its committed seeds and
#                        regressions, then fuzzes FUZZ_SMOKE_SECONDS (5)
#   make fuzz-long       a measured campaign (tests/fuzz/campaign.sh): each
#                        target for FUZZ_LONG_RUNS executions (1000000) or
#                        FUZZ_LONG_SECONDS (600), from a persistent corpus,
#                        minimised after; one table row per target
#   make fuzz-<target>   one target (pci, xen_ports, uart, msr_policy, net,
#                        loader, fdt, virtq, snapshot, manifest, xfail,
#                        insn, vhost_user,
#                        gdb, qmp) for
#                        FUZZ_SECONDS
#
# Committed seeds: tests/fuzz/corpus/<target>/; every input that once
# crashed a target: tests/fuzz/regress/<target>/ (replayed by fuzz-smoke).

FUZZ_CC		?= clang-14
FUZZ_BUILD	?= build-fuzz
FUZZ_SECONDS	?= 60
FUZZ_SMOKE_SECONDS ?= 5
FUZZ_TARGETS	:= pci xen_ports uart msr_policy loader fdt virtq net snapshot \
		   manifest xfail insn vhost_user gdb qmp

FUZZ_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=undefined \
		   -fno-omit-frame-pointer
FUZZ_CFLAGS	:= -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra \
		   -Wno-missing-field-initializers -I. -MMD -MP \
		   -DMINIVMM_VERSION='"fuzz"' $(FUZZ_SAN)
FUZZ_LDLIBS	:= -lfdt -lcapstone -lcjson -lseccomp -lz -lpthread
# Stderr closed while fuzzing (the VMM's own error lines would flood it);
# sanitizer and libFuzzer reports still get through.
FUZZ_RUN_FLAGS	?= -close_fd_mask=2 -timeout=10 -rss_limit_mb=2048

FUZZ_VMM_SRCS	:= $(filter-out vmm/main.c,$(wildcard vmm/*.c vmm/*/*.c \
		   vmm/*/*/*.c devices/*.c devices/*/*.c devices/*/*/*.c)) \
		   $(wildcard firmware/lib/*.c) \
		   tools/test/manifest.c tools/test/plan.c tools/test/words.c \
		   tools/test/xfail.c tools/test/filter.c
FUZZ_VMM_OBJS	:= $(FUZZ_VMM_SRCS:%.c=$(FUZZ_BUILD)/obj/%.o)
FUZZ_BINS	:= $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

# The VMM objects: coverage-instrumented, but without libFuzzer's main.
# No -Werror here: gcc's build is the one that gates warnings, and a
# clang-only warning in some file must not stop the fuzzers.
$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/libminivmm-fuzz.a: $(FUZZ_VMM_OBJS)
	@rm -f $@
	ar qcs $@ $^

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.h \
		      $(FUZZ_BUILD)/libminivmm-fuzz.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Werror -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_BUILD)/libminivmm-fuzz.a $(FUZZ_LDLIBS)

fuzz-build: $(FUZZ_BINS)

# fuzz-run-T SECONDS: replay the regressions, then fuzz T from its seeds
# into a scratch corpus (new finds stay out of the tree until committed).
define fuzz_run
	@mkdir -p $(FUZZ_BUILD)/corpus/$(1) $(FUZZ_BUILD)/artifacts/$(1)
	@if [ -n "$$(ls -A tests/fuzz/regress/$(1) 2>/dev/null)" ]; then \
		echo "fuzz_$(1): replaying tests/fuzz/regress/$(1)"; \
		$(FUZZ_BUILD)/fuzz_$(1) $(FUZZ_RUN_FLAGS) \
			tests/fuzz/regress/$(1)/* >$(FUZZ_BUILD)/fuzz_$(1).regress.log 2>&1 || \
			{ tail -n 40 $(FUZZ_BUILD)/fuzz_$(1).regress.log; exit 1; }; \
	fi
	@echo "fuzz_$(1): $(2) s"
	@$(FUZZ_BUILD)/fuzz_$(1) $(FUZZ_RUN_FLAGS) -max_total_time=$(2) \
		-print_final_stats=1 \
		-artifact_prefix=$(FUZZ_BUILD)/artifacts/$(1)/ \
		$(FUZZ_BUILD)/corpus/$(1) tests/fuzz/corpus/$(1) \
		>$(FUZZ_BUILD)/fuzz_$(1).log 2>&1 || \
		{ tail -n 60 $(FUZZ_BUILD)/fuzz_$(1).log; \
		  echo "fuzz_$(1): FAILED; reproducer in $(FUZZ_BUILD)/artifacts/$(1)/"; \
		  exit 1; }
	@grep -E '^stat::(number_of_executed_units|peak_rss_mb)' \
		$(FUZZ_BUILD)/fuzz_$(1).log | tr '\n' ' ' | \
		sed 's/^/fuzz_$(1): /; s/$$/\n/'
endef

fuzz-%: $(FUZZ_BUILD)/fuzz_%
	$(call fuzz_run,$*,$(FUZZ_SECONDS))

fuzz: $(FUZZ_BINS)
	@$(foreach t,$(FUZZ_TARGETS),$(MAKE) --no-print-directory \
		-f $(firstword $(MAKEFILE_LIST)) fuzz-$(t) || exit 1;)

fuzz-long: $(FUZZ_BINS)
	FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_TARGETS="$(FUZZ_TARGETS)" \
		tests/fuzz/campaign.sh

fuzz-smoke: $(FUZZ_BINS)
	@$(foreach t,$(FUZZ_TARGETS),$(MAKE) --no-print-directory \
		-f $(firstword $(MAKEFILE_LIST)) fuzz-$(t) \
		FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) || exit 1;)

.PHONY: fuzz fuzz-smoke fuzz-build fuzz-long
.SECONDARY: $(FUZZ_BINS) $(FUZZ_VMM_OBJS)

-include $(shell find $(FUZZ_BUILD) -name '*.d' 2>/dev/null)
