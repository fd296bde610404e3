// SPDX-License-Identifier: GPL-2.0
/*
 * sysinfo() in the arm64 vDSO; the reader is lib/vdso/sysinfo.c, which
 * the Makefile includes.
 */
#include <linux/types.h>

int __kernel_sysinfo(struct sysinfo *info);

int __kernel_sysinfo(struct sysinfo *info)
{
	return __cvdso_sysinfo(info);
}
