#!/bin/sh
# run-l1.sh [options] SCRIPT [ARG...]: boots the lane's L1 guest (QEMU's
# software CPU with AMD SVM and nested paging, Debian's kernel with
# kvm_amd; l1-kernel.sh) and runs `sh SCRIPT ARG...` in it, chrooted into
# this host's / (read-only) with OUT writable; prints the serial console.
#   --out DIR       the writable folder (default build/hw); must exist
#   --npt on|off    kvm_amd's nested paging (default on: KVM's default)
#   --mem SIZE      L1's RAM (default 12G: guests of 4 GiB, snapshots in
#                   L1's /tmp); allocated by QEMU as L1 touches it
#   --timeout SECS  QEMU is killed after that (default 5400): a hung L1
#                   fails the lane instead of hanging it
#   --append WORDS  more words for L1's kernel command line
#   --timer-check   without no_timer_check (below)
# The arguments are passed on L1's command line: no commas or spaces.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=build/hw npt=on mem=12G limit=5400 more= timer=no_timer_check
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--npt) npt=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--timeout) limit=$2; shift 2 ;;
	--append) more=$2; shift 2 ;;
	--timer-check) timer=; shift ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: run-l1.sh [options] SCRIPT [ARG...]" >&2; exit 2; }
script=$(readlink -f "$1"); shift
out=$(readlink -f "$out")
cache=$("$here/l1-kernel.sh")
# vgif=0: with QEMU 7.2's virtual GIF (kvm_amd's default where the CPU
# has it), Linux guests in L2 hung in 3 of 5 boots, spinning with
# interrupts off on the interrupt stack for jiffies_lock, already held;
# with vgif=0, 20 of 20 plain boots came through, though linux-serial and
# linux-gdb still hung that way (docs/hw-lane.md).
# dump_invalid_vmcb=1: a VM entry the software CPU refuses is explained
# only by the VMCB kvm_amd then logs (the crash test prints it).
kopt=vgif=0,dump_invalid_vmcb=1
[ "$npt" = off ] && kopt=npt=0,$kopt
kopt=l1kvmopt=$kopt
# no_timer_check: under a loaded software CPU the kernel's check of the
# IO-APIC timer can time out and L1 would run without one.
# (--timer-check leaves it out, to see what happens then.)
args=$(echo "$*" | tr ' ' ,)
# QEMU's monitor, for a look at a wedged L1 (check-hw.sh asks it for both
# CPUs' registers); left out where the socket's path would be too long.
mon=
[ ${#out} -lt 90 ] && mon="-monitor unix:$out/qemu-monitor.sock,server=on,wait=off"
# One L1 CPU (MINIVMM_L1_CPUS=2 for two), on one host thread
# (MINIVMM_L1_TCG=multi: a thread per CPU).
# - With a thread per CPU, QEMU 7.2 wedged L1 in about one test in four:
#   both CPUs looping through exc_int3 and __schedule (the kernel's
#   int3-based code patching, of static keys KVM flips as VMs come and
#   go; a CPU running stale translated code is our guess).  One thread was
#   also faster wherever L2 had 2 vCPUs or many exits: msr 62 s instead of
#   457, syscall 20 s instead of 60-120.
# - With two L1 CPUs on that one thread, 2-vCPU Linux guests in L2 hung
#   in 7 of 24 boots (minivmm 1 of 12, QEMU 6 of 12: a vCPU halted in
#   kvm_wait for a kick that never came); with one L1 CPU, 0 of 24.  Two
#   CPUs on one thread run no faster than one (docs/hw-lane.md).
# --foreground: timeout stays in its caller's process group, so stopping
# that group (tests/run.sh on an interrupted run) stops QEMU too.
exec timeout --foreground -k 10 "$limit" qemu-system-x86_64 \
	-accel "tcg,thread=${MINIVMM_L1_TCG:-single}" $mon \
	-cpu max -smp "${MINIVMM_L1_CPUS:-1}" -m "$mem" -display none -serial stdio -no-reboot \
	-kernel "$cache/vmlinuz" -initrd "$cache/l1.cpio" \
	-append "console=ttyS0 mitigations=off $timer quiet $kopt $more l1script=$script l1out=$out${args:+ l1args=$args}" \
	-virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$out,mount_tag=out,security_model=none" \
	</dev/null
