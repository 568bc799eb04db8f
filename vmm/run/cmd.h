/* SPDX-License-Identifier: MIT */
/*
 * --cmd: run one command in a Linux guest and end with its status.  The
 * guest's initramfs is the one minivmm ships (build/cmd-initramfs.cpio,
 * next to the binary, or $MINIVMM_CMD_INITRAMFS; its /init is
 * vmm/run/cmd-init.sh) with a small newc archive appended in memory
 * that carries the command, the working directory and the shares, so
 * nothing has to fit on the kernel command line.  The working directory
 * is the current one when a --share covers it, else /.
 */
#ifndef MINIVMM_CMD_H
#define MINIVMM_CMD_H

#include <stddef.h>

#include "vmm/cli/cli.h"

/* With cfg->cmd: point cfg->initrd at the prepared image (a memfd) and
 * give the kernel a quiet serial console unless --append was given.  0,
 * or -1 after one line (exit status 2). */
int cmd_prepare(struct vmm_config *cfg);

#endif
