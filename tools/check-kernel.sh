#!/bin/sh
# check-kernel.sh start|wait|stop: make check's guest kernel
# (tools/build-kernel.sh, cached), built beside the VMM's builds.
#
# The VMM's builds run on one core; the kernel's first build is most of a
# fresh machine's work, so `start` begins it at once in the background and
# the tests that boot it (the boot tests where this host has /dev/kvm, the
# lane's Linux part where it has none: tests/run.sh) `wait` for it.
#   start   begin the build in its own session; its log goes to
#           build/test-logs/kernel.log, its process to build/kernel.pid,
#           its end ("STATUS SECONDS") to build/kernel.done
#   wait    until it ends (building now if it is not built); one
#           line: the build's directory and seconds, or why it failed
#           with the log's tail.  Exit status 0 built, 1 not.
#   stop    end a build still running (make check's exit trap)
set -u
cd "$(dirname "$0")/.."
pidf=build/kernel.pid
donef=build/kernel.done
log=build/test-logs/kernel.log

running() {	# true if the build started last is still going
	[ -f "$pidf" ] && [ ! -f "$donef" ] || return 1
	# Its pid, not a later process's that was given the same number.
	grep -qs build-kernel "/proc/$(cat "$pidf")/cmdline"
}

case ${1:-} in
start)
	mkdir -p build/test-logs
	running && exit 0
	rm -f "$pidf" "$donef"
	# Nothing would boot it: no /dev/kvm and no lane (tests/run.sh).
	[ -e /dev/kvm ] || [ "${MINIVMM_HW_LANE:-1}" != 0 ] || exit 0
	# Its own session, so `stop` ends the make it runs too.
	setsid sh -c 't0=$(date +%s); tools/build-kernel.sh; rc=$?
		echo "$rc $(($(date +%s) - t0))" >'"$donef" \
		</dev/null >"$log" 2>&1 &
	echo $! >"$pidf"
	;;
wait)
	# Not started, or its cache emptied since: build now.
	running || tools/build-kernel.sh --print >/dev/null 2>&1 || "$0" start
	while running; do sleep 2; done
	if dir=$(tools/build-kernel.sh --print 2>/dev/null); then
		set -- $(cat "$donef" 2>/dev/null) cached
		[ $# -eq 3 ] && set -- "built in $2 s"
		echo "kernel: $dir ($1)"
		exit 0
	fi
	set -- $(cat "$donef" 2>/dev/null)
	echo "kernel: tools/build-kernel.sh failed (status ${1:-none}); the end of $log:"
	tail -n 15 "$log" | sed 's/^/    /'
	exit 1
	;;
stop)
	running || exit 0
	kill -- -"$(cat "$pidf")" 2>/dev/null
	rm -f "$pidf"
	;;
*)
	echo "usage: check-kernel.sh start|wait|stop" >&2
	exit 2
	;;
esac
