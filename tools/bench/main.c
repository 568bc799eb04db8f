// SPDX-License-Identifier: MIT
/* minivmm-bench: the benchmark driver, a program of its own that starts
 * minivmm (and its peers) as children; `minivmm bench ARGS` runs it. */
#include "tools/bench/bench.h"

int main(int argc, char **argv)
{
	return bench_main(argc, argv);
}
