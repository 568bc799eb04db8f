// SPDX-License-Identifier: MIT
#include "tools/vmm_path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int vmm_path(const char *who, char *buf, size_t size)
{
	const char *env = getenv("MINIVMM");
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(buf, size, "%s", env);
	} else {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0) {
			fprintf(stderr, "minivmm: error: %s: cannot find my own "
				"binary: %s\n", who, strerror(errno));
			return -1;
		}
		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash)
			*slash = 0;
		if ((size_t)snprintf(buf, size, "%s/minivmm", self) >= size)
			return -1;
	}
	if (access(buf, X_OK) < 0) {
		fprintf(stderr, "minivmm: error: %s: no minivmm at '%s': %s\n",
			who, buf, strerror(errno));
		return -1;
	}
	return 0;
}
