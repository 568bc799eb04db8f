#!/bin/bash
# Runs the hostile-guest payloads with random seeds for longer than
# `make check` does: PCI config/BAR abuse (tests/guest/pci.c) and MSR
# hammering (tests/guest/msr.c), under several VMM configurations.
#
#   tools/hostile.sh [ROUNDS] [COUNT]     (defaults: 20 rounds, 20000 ops)
#
# Each round picks a fresh seed and prints it; a failing round prints the
# command to reproduce it and the script exits 1.  MINIVMM selects the
# binary (default build/minivmm; build-asan/minivmm adds sanitizers).
set -u
cd "$(dirname "$0")/.."
MINIVMM=${MINIVMM:-build/minivmm}
ROUNDS=${1:-20}
COUNT=${2:-20000}
CONFIGS=(
	"ecam=ro|--ecam ro"
	"ecam=trap buses=2|--ecam trap --pci-buses 2"
	"ecam=off|--ecam off"
	"pio=off|--pci-pio off"
)
POLICIES=(preset:kvm preset:xen-strict preset:xen-relaxed preset:therm-compat)
fails=0

run() {
	local what=$1
	shift
	if ! out=$(timeout -k 5 600 "$@" </dev/null 2>&1); then
		echo "FAIL ($what): $*"
		echo "$out" | tail -n 15
		fails=$((fails + 1))
	else
		echo "ok   ($what)"
	fi
}

for ((i = 0; i < ROUNDS; i++)); do
	seed=$(( (RANDOM << 15 | RANDOM) + 1 ))
	cfg=${CONFIGS[i % ${#CONFIGS[@]}]}
	run "pci seed=$seed ${cfg%%|*}" "$MINIVMM" ${cfg#*|} \
		--kernel build/guests/pci.elf \
		--append "${cfg%%|*} hostile seed=$seed count=$COUNT"
	pol=${POLICIES[i % ${#POLICIES[@]}]}
	run "msr seed=$seed $pol" "$MINIVMM" --msr-policy "$pol" \
		--kernel build/guests/msr.elf \
		--append "hammer=$seed iters=$COUNT"
done
echo "$fails failed rounds"
[ "$fails" -eq 0 ]
