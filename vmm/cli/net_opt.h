/* SPDX-License-Identifier: MIT */
/*
 * The --net option's value, tap[=NAME][,mac=MAC][,offload=on|off], as
 * plain data: syntax only (whether the tap can be had is checked when
 * the VM is built).
 */
#ifndef MINIVMM_NET_OPT_H
#define MINIVMM_NET_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NET_OPT_MAX		4	/* --net options */
#define NET_OPT_NAME_MAX	15	/* IFNAMSIZ - 1 */

struct net_opt {
	bool has_name;			/* tap=NAME: attach (or create) NAME */
	char name[NET_OPT_NAME_MAX + 1];
	bool has_mac;
	uint8_t mac[6];
	bool no_offload;		/* offload=off */
};

/* 0, or -1 with why in err. */
int net_opt_parse(const char *v, struct net_opt *o, char *err,
		  size_t errlen);
/* o back as a --net value (how a snapshot's CONFIG keeps it). */
void net_opt_format(const struct net_opt *o, char *buf, size_t len);
/* The MAC of the nth --net without mac=: 52:54:00:12:34:56 + n, as QEMU
 * numbers its NICs. */
void net_opt_default_mac(unsigned int nth, uint8_t mac[6]);

#endif
