#!/bin/bash
# One shard of kvm-unit-tests under minivmm.  Everything Bazel hands a
# test (the shard, XML_OUTPUT_FILE, TEST_UNDECLARED_OUTPUTS_DIR,
# TEST_TMPDIR, TESTBRIDGE_TEST_ONLY, TEST_TIMEOUT, the status and
# infrastructure files) minivmm test reads itself; this script only finds
# the files in the runfiles and passes what `make check-bazel` asked for
# (its arguments: the same selection as make check's) with the expected
# failures of the host kind it runs on (MINIVMM_KUT_XFAIL, a path in the
# tree: tests/kut-xfail.txt, or the lane's tests/hw/kut-xfail.txt).
set -u
tree=$TEST_SRCDIR/minivmm
[ -d "$tree" ] || tree=$TEST_SRCDIR/external/minivmm
# From the suite's folder, so the JUnit testsuite is "minivmm: unittests.cfg"
# (the runfiles are read-only: logs and scratch files go where Bazel says).
cd "$(dirname "$(echo "$tree"/build/kut/*/x86/unittests.cfg)")" || exit 2
exec "$tree/build/minivmm" test -j 1 --xfail "$tree/${MINIVMM_KUT_XFAIL:-tests/kut-xfail.txt}" \
	"$@" unittests.cfg
