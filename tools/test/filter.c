// SPDX-License-Identifier: MIT
#include "tools/test/filter.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#define GLOB_MAX	256

/* Whether name matches one of the globs in [s, end). *any is set when
 * there was at least one glob. */
static bool any_glob(const char *s, const char *end, const char *name,
		     bool *any)
{
	char glob[GLOB_MAX];

	*any = false;
	while (s < end) {
		size_t n = strcspn(s, ":,");

		if (s + n > end)
			n = (size_t)(end - s);
		if (n) {
			*any = true;
			snprintf(glob, sizeof(glob), "%.*s", (int)n, s);
			if (fnmatch(glob, name, 0) == 0)
				return true;
		}
		s += n + 1;
	}
	return false;
}

bool filter_match(const char *filter, const char *name)
{
	const char *minus, *end;
	bool any;

	if (!filter || !filter[0])
		return true;
	end = filter + strlen(filter);
	minus = strchr(filter, '-');
	/* a '-' inside a glob (pcid-enabled) is a name character: the
	 * negative part starts at a '-' that begins a glob */
	while (minus && minus != filter && minus[-1] != ':' &&
	       minus[-1] != ',')
		minus = strchr(minus + 1, '-');
	if (minus) {
		if (any_glob(minus + 1, end, name, &any))
			return false;
		end = minus;
	}
	return any_glob(filter, end, name, &any) || !any;
}
