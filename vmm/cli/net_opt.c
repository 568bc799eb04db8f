// SPDX-License-Identifier: MIT
/* --net values; see net_opt.h. */
#include <stdio.h>
#include <string.h>

#include "vmm/cli/net_opt.h"
#include "firmware/lib/hex.h"

#define SYNTAX	"expected tap[=NAME][,mac=MAC][,offload=on|off]"

/* xx:xx:xx:xx:xx:xx, unicast, not all zero. */
static int parse_mac(const char *s, size_t l, uint8_t mac[6])
{
	if (l != 17)
		return -1;
	for (int i = 0; i < 6; i++) {
		int hi = hex_digit(s[3 * i]), lo = hex_digit(s[3 * i + 1]);

		if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
			return -1;
		mac[i] = (uint8_t)(hi << 4 | lo);
	}
	if (mac[0] & 1)
		return -1;
	for (int i = 0; i < 6; i++)
		if (mac[i])
			return 0;
	return -1;
}

/* Interface names: what the kernel's dev_valid_name() takes. */
static bool name_ok(const char *s, size_t l)
{
	if (!l || l > NET_OPT_NAME_MAX || (l == 1 && s[0] == '.') ||
	    (l == 2 && !strncmp(s, "..", 2)))
		return false;
	for (size_t i = 0; i < l; i++)
		if (s[i] == '/' || s[i] == ':' || s[i] <= ' ' || s[i] == 127)
			return false;
	return true;
}

static int word(struct net_opt *o, const char *w, size_t l, char *err,
		size_t errlen)
{
	if (l > 4 && !strncmp(w, "mac=", 4)) {
		if (parse_mac(w + 4, l - 4, o->mac) < 0) {
			snprintf(err, errlen, "mac: expected a unicast address "
				 "xx:xx:xx:xx:xx:xx, not all zero");
			return -1;
		}
		o->has_mac = true;
		return 0;
	}
	if (l == 11 && !strncmp(w, "offload=off", l)) {
		o->no_offload = true;
		return 0;
	}
	if (l == 10 && !strncmp(w, "offload=on", l)) {
		o->no_offload = false;
		return 0;
	}
	snprintf(err, errlen, "unknown '%.*s' (" SYNTAX ")", (int)(l > 40 ? 40 :
		 l), w);
	return -1;
}

int net_opt_parse(const char *v, struct net_opt *o, char *err,
		  size_t errlen)
{
	const char *comma = strchr(v, ',');
	size_t l = comma ? (size_t)(comma - v) : strlen(v);

	memset(o, 0, sizeof(*o));
	if (l < 3 || strncmp(v, "tap", 3) || (l > 3 && v[3] != '=')) {
		snprintf(err, errlen, SYNTAX);
		return -1;
	}
	if (l > 3) {
		if (!name_ok(v + 4, l - 4)) {
			snprintf(err, errlen, "tap name: 1..15 bytes, no '/', "
				 "':' or spaces");
			return -1;
		}
		memcpy(o->name, v + 4, l - 4);
		o->has_name = true;
	}
	while (comma) {
		const char *w = comma + 1, *end = strchr(w, ',');

		l = end ? (size_t)(end - w) : strlen(w);
		if (word(o, w, l, err, errlen) < 0)
			return -1;
		comma = end;
	}
	return 0;
}

void net_opt_default_mac(unsigned int nth, uint8_t mac[6])
{
	static const uint8_t base[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

	memcpy(mac, base, 6);
	mac[5] = (uint8_t)(mac[5] + nth);
}

void net_opt_format(const struct net_opt *o, char *buf, size_t len)
{
	const uint8_t *m = o->mac;

	snprintf(buf, len, "tap%s%s", o->has_name ? "=" : "",
		 o->has_name ? o->name : "");
	if (o->has_mac)
		snprintf(buf + strlen(buf), len - strlen(buf),
			 ",mac=%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1],
			 m[2], m[3], m[4], m[5]);
	if (o->no_offload)
		snprintf(buf + strlen(buf), len - strlen(buf),
			 ",offload=off");
}
