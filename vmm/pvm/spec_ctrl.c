// SPDX-License-Identifier: MIT
/* IA32_SPEC_CTRL kept per vCPU (spec_ctrl.h). */
#include "vmm/pvm/spec_ctrl.h"

#include <string.h>

const char *pvm_spec_ctrl(const char *name)
{
	return strcmp(name, "IA32_SPEC_CTRL") ? NULL : "emulate";
}
