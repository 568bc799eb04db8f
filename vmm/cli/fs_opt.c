// SPDX-License-Identifier: MIT
/* --fs and --share values; see fs_opt.h. */
#include <stdio.h>
#include <string.h>

#include "vmm/cli/fs_opt.h"

static bool tag_ok(const char *t, size_t l)
{
	if (!l || l > FS_TAG_MAX)
		return false;
	for (size_t i = 0; i < l; i++) {
		char c = t[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return false;
	}
	return true;
}

static int word(struct fs_opt *o, const char *w, size_t l, char *err,
		size_t errlen)
{
	if (l >= 4 && !strncmp(w, "tag=", 4)) {
		if (!tag_ok(w + 4, l - 4)) {
			snprintf(err, errlen, "a tag is 1..36 bytes of "
				 "letters, digits, '.', '_' and '-'");
			return -1;
		}
		memcpy(o->tag, w + 4, l - 4);
		o->tag[l - 4] = 0;
		return 0;
	}
	if (o->share && l == 2 && !strncmp(w, "ro", 2)) {
		o->ro = true;
		return 0;
	}
	snprintf(err, errlen, "unknown option '%.*s' (expected %s)",
		 (int)(l > 64 ? 64 : l), w, o->share ? "tag=TAG or ro" :
		 "tag=TAG");
	return -1;
}

int fs_opt_parse(const char *v, bool share, unsigned int nth,
		 struct fs_opt *o, char *err, size_t errlen)
{
	const char *comma = strchr(v, ',');
	size_t plen = comma ? (size_t)(comma - v) : strlen(v);

	memset(o, 0, sizeof(*o));
	o->share = share;
	if (!plen || plen >= FS_PATH_MAX) {
		snprintf(err, errlen, "expected %s", share ?
			 "DIR[,tag=TAG][,ro]" : "SOCKET,tag=TAG");
		return -1;
	}
	memcpy(o->path, v, plen);
	/* DIR:ro, the spelling of virtme-ng and the issue, as ,ro */
	if (share && plen > 3 && !strcmp(o->path + plen - 3, ":ro")) {
		o->path[plen - 3] = 0;
		o->ro = true;
	}
	/* The host's root is only ever shared read-only. */
	if (share && !strcmp(o->path, "/"))
		o->ro = true;
	while (comma) {
		const char *w = comma + 1, *end = strchr(w, ',');
		size_t l = end ? (size_t)(end - w) : strlen(w);

		if (word(o, w, l, err, errlen) < 0)
			return -1;
		comma = end;
	}
	if (o->tag[0])
		return 0;
	if (!share) {
		snprintf(err, errlen, "tag=TAG is needed (what the guest "
			 "mounts)");
		return -1;
	}
	if (!strcmp(o->path, "/"))
		snprintf(o->tag, sizeof(o->tag), "root");
	else
		snprintf(o->tag, sizeof(o->tag), "share%u", nth);
	return 0;
}

int fs_opt_add(struct fs_opt *all, unsigned int *n, const char *v,
	       bool share, char *err, size_t errlen)
{
	unsigned int nth = 0;

	if (*n == FS_OPT_MAX) {
		snprintf(err, errlen, "at most 4 --fs and --share");
		return -1;
	}
	for (unsigned int i = 0; i < *n; i++)
		nth += all[i].share;
	if (fs_opt_parse(v, share, nth, &all[*n], err, errlen) < 0)
		return -1;
	for (unsigned int i = 0; i < *n; i++) {
		if (strcmp(all[i].tag, all[*n].tag))
			continue;
		snprintf(err, errlen, "tag %s is taken already", all[i].tag);
		return -1;
	}
	(*n)++;
	return 0;
}
