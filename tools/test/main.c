// SPDX-License-Identifier: MIT
/* minivmm-test: the guest test runner, a program of its own that starts
 * minivmm (and its peers) as children; `minivmm test ARGS` runs it. */
#include "tools/test/test.h"

int main(int argc, char **argv)
{
	return test_main(argc, argv);
}
