#!/bin/bash
# A measured fuzzing campaign (make fuzz-long): each target in turn runs
# until FUZZ_LONG_RUNS executions (default 1000000) or FUZZ_LONG_SECONDS
# (default 600), whichever comes first, from its persistent corpus; then
# the corpus is minimised (libFuzzer -merge=1) back into place.
#
#   tests/fuzz/campaign.sh [TARGET...]      (default: every FUZZ_TARGETS)
#
# Persistent corpus: $FUZZ_CORPUS/<target>/ (default
# ~/.cache/minivmm/fuzz-corpus), started from the committed seeds
# tests/fuzz/corpus/<target>/ and kept between campaigns; FUZZ_SAVE=1
# copies the minimised corpus into tests/fuzz/corpus/<target>/ to commit.
# Each target's regressions (tests/fuzz/regress/<target>/) are replayed
# first.  Prints one Markdown table row per target (also in
# $FUZZ_BUILD/fuzz-long.md): executions, executions per second, seconds,
# edges covered (libFuzzer's cov), features (ft), corpus files before and
# after, crashes (0, or the reproducer's path).  Exit status 1 if any
# target crashed or a regression failed.
set -u
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
RUNS=${FUZZ_LONG_RUNS:-1000000}
SECS=${FUZZ_LONG_SECONDS:-600}
CORPUS=${FUZZ_CORPUS:-$HOME/.cache/minivmm/fuzz-corpus}
FLAGS=(-close_fd_mask=2 -timeout=10 -rss_limit_mb=2048)
targets=${*:-$FUZZ_TARGETS}
out=$FUZZ_BUILD/fuzz-long.md
bad=0

row() { echo "$1" | tee -a "$out"; }

# stat NAME LOG: libFuzzer's final stat::NAME.
stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -n 1; }

mkdir -p "$FUZZ_BUILD"
{
	echo "Campaign $(date -u '+%Y-%m-%d %H:%M UTC'), commit" \
		"$(git rev-parse --short HEAD 2>/dev/null), $RUNS runs or" \
		"$SECS s per target, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
	echo
	echo "| target | executions | exec/s | seconds | cov | ft | corpus before → after | crashes |"
	echo "|---|---|---|---|---|---|---|---|"
} | tee "$out"
for t in $targets; do
	bin=$FUZZ_BUILD/fuzz_$t
	dir=$CORPUS/$t
	log=$FUZZ_BUILD/fuzz_$t.long.log
	art=$FUZZ_BUILD/artifacts/$t/
	mkdir -p "$dir" "$art"
	if [ ! -x "$bin" ]; then
		row "| $t | no binary ($bin) | | | | | | |"
		bad=1
		continue
	fi
	if [ -n "$(ls -A "tests/fuzz/regress/$t" 2>/dev/null)" ] &&
	   ! "$bin" "${FLAGS[@]}" "tests/fuzz/regress/$t"/* \
		>"$FUZZ_BUILD/fuzz_$t.regress.log" 2>&1; then
		row "| $t | regression fails: $FUZZ_BUILD/fuzz_$t.regress.log | | | | | | |"
		bad=1
		continue
	fi
	cp -n "tests/fuzz/corpus/$t"/* "$dir"/ 2>/dev/null
	before=$(ls "$dir" | wc -l)
	start=$(date +%s)
	"$bin" "${FLAGS[@]}" -runs="$RUNS" -max_total_time="$SECS" \
		-print_final_stats=1 -artifact_prefix="$art" "$dir" \
		>"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	execs=$(stat number_of_executed_units "$log")
	rate=$(stat average_exec_per_sec "$log")
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
	crash=0
	if [ $rc -ne 0 ]; then
		crash=$(ls -t "$art" | head -n 1)
		crash=${crash:+$art$crash}
		crash=${crash:-"exit $rc, see $log"}
		bad=1
	fi
	# Minimise: keep the inputs that add coverage.
	rm -rf "$dir.min" && mkdir -p "$dir.min"
	if "$bin" "${FLAGS[@]}" -merge=1 "$dir.min" "$dir" \
		>"$FUZZ_BUILD/fuzz_$t.merge.log" 2>&1; then
		rm -rf "$dir" && mv "$dir.min" "$dir"
	fi
	after=$(ls "$dir" | wc -l)
	if [ "${FUZZ_SAVE:-0}" = 1 ]; then
		cp "$dir"/* "tests/fuzz/corpus/$t"/
	fi
	set -- $cov
	row "| $t | ${execs:-?} | ${rate:-?} | $secs | ${2:-?} | ${4:-?} | $before → $after | $crash |"
done
exit $bad
