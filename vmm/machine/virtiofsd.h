/* SPDX-License-Identifier: MIT */
/*
 * The virtiofsd behind a --share: the daemon Debian ships
 * (/usr/lib/qemu/virtiofsd, or $MINIVMM_VIRTIOFSD) started on a socket in
 * a private temporary directory, waited for until that socket exists,
 * and ended with the guest.  ,ro is enforced on the host: the daemon runs
 * in its own mount namespace where DIR is a read-only bind mount.  The
 * daemon dies with minivmm (PR_SET_PDEATHSIG) however minivmm ends, and
 * it exits by itself when minivmm closes the connection.
 */
#ifndef MINIVMM_VIRTIOFSD_H
#define MINIVMM_VIRTIOFSD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "vmm/cli/cli.h"

#define VIRTIOFSD_DEFAULT	"/usr/lib/qemu/virtiofsd"
#define VIRTIOFSD_WAIT_MS	20000	/* for its socket (a loaded host) */

struct virtiofsd {
	pid_t pid;			/* 0: not running */
	char dir[32];			/* the private socket directory */
	char sock[64];			/* dir/vhost.sock */
};

/* Start the daemon for o (a --share): 0, or -1 with a one-line reason
 * in err (no such directory, no daemon, the daemon died at start);
 * nothing is left running then. */
int virtiofsd_start(struct virtiofsd *d, const struct fs_opt *o, char *err,
		    size_t errlen);
/* For cfg's --fs (the path must be a socket) and --share options (a
 * daemon each, into d[i]): 0, or -1 after one line (exit status 2). */
int virtiofsd_start_all(struct virtiofsd *d, const struct vmm_config *cfg);
/* End it (if running) and remove its socket directory. */
void virtiofsd_stop(struct virtiofsd *d);

#endif
