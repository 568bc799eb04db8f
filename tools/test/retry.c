// SPDX-License-Identifier: MIT
#include "tools/test/retry.h"

#include <stdio.h>
#include <string.h>

bool retry_again(const struct retry_policy *p, const struct result *r,
		 int done, bool expected, double timeout)
{
	if (r->v != V_TIMEOUT || expected || done > p->retries ||
	    done > RETRY_MAX)
		return false;
	return p->budget_left < 0 || p->budget_left > timeout;
}

void retry_final(struct result *last, const struct result *earlier, int n)
{
	char text[RESULT_TEXT_MAX];
	int total = n + 1;

	last->attempts = total;
	if (n <= 0)
		return;
	if (last->v == V_PASS) {
		last->v = V_FLAKY;
		snprintf(text, sizeof(text), "passed on attempt %d%s%.70s%s; "
			 "attempt %d: %.50s", total, last->text[0] ? " (" : "",
			 last->text, last->text[0] ? ")" : "", n,
			 earlier[n - 1].text);
	} else {
		snprintf(text, sizeof(text), "%d attempts, the last: %.160s",
			 total, last->text);
	}
	memcpy(last->text, text, sizeof(text));
}
