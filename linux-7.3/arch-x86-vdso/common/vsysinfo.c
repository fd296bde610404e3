// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysinfo() in the x86 vDSOs; the reader is lib/vdso/sysinfo.c.
 */
#include <linux/kernel.h>
#include <linux/types.h>

#include "lib/vdso/sysinfo.c"

int __vdso_sysinfo(struct sysinfo *info);

int __vdso_sysinfo(struct sysinfo *info)
{
	return __cvdso_sysinfo(info);
}

int sysinfo(struct sysinfo *info) __weak __alias(__vdso_sysinfo);
