#!/bin/sh
# boot-tests.sh: the boot tests' names, one per line: every
# tests/boot/*.sh but the helpers the tests source (lib, need-kvm,
# linux-lib) and the guests' /init scripts (*-init.sh).  tests/run.sh runs
# them on this host, tests/hw/check-hw.sh in the hardware lane.
cd "$(dirname "$0")/boot" || exit 1
for t in *.sh; do
	t=${t%.sh}
	case $t in lib | need-kvm | linux-lib | *-init) continue ;; esac
	echo "$t"
done
