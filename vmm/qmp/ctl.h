/* SPDX-License-Identifier: MIT */
/*
 * `minivmm ctl ADDR COMMAND [JSON-ARGS]`: a QMP client for the shell.
 * Connects to ADDR (unix:PATH, tcp:[HOST]:PORT, or a plain path),
 * negotiates capabilities, sends one command and prints its reply (one
 * JSON line, events skipped).  Exit status 0 on a "return", 1 on a QMP
 * error, 2 on bad usage or an unreachable or silent socket.
 */
#ifndef MINIVMM_QMP_CTL_H
#define MINIVMM_QMP_CTL_H

/* argv[0] is "ctl". */
int qmp_ctl_main(int argc, char **argv);

#endif
