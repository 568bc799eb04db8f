/* SPDX-License-Identifier: MIT */
/*
 * ACPI S3, suspend to RAM: what the guest's PM1a_CNT write of SLP_TYP 1
 * (acpi_pm.h) does.  RAM and devices keep their state; the other vCPUs
 * get an INIT (they wait for a SIPI, as an OS expects after resume); the
 * boot vCPU sleeps until the RTC alarm fires (if PM1_EN.RTC_EN lets it
 * wake the machine; else until the run ends), then resumes at the FACS
 * waking vector: X_Firmware_Waking_Vector in flat 32-bit protected mode
 * if the OS set it, else Firmware_Waking_Vector in real mode (CS = vector
 * >> 4, IP = vector & 0xf).  No vector is a reset (status 3).
 */
#ifndef MINIVMM_SUSPEND_H
#define MINIVMM_SUSPEND_H

/* The acpi_pm suspend callback; ctx is the struct vm.  Runs on the vCPU
 * thread that wrote PM1a_CNT and returns when the machine is awake. */
void suspend_to_ram(void *ctx);

#endif
