// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysinfo() in the x86 vDSO; the reader is lib/vdso/sysinfo.c.
 */
#include <linux/kernel.h>
#include <linux/types.h>

#include <vdso/datapage.h>
#include <asm/vvar.h>
#include <vdso/sysinfo.h>

/*
 * The snapshot has a vvar page of its own, which a time namespace does
 * not replace: the same address inside a namespace as outside. Where the
 * kernel maps a page of zeroes in its place (see vvar_fault()), it reads
 * as a snapshot that is not valid.
 */
static __always_inline const struct vdso_sysinfo_data *__arch_get_vdso_sysinfo_data(void)
{
	return &VVAR(_vdso_sysinfo_data);
}

#include "../../../../lib/vdso/sysinfo.c"

int __vdso_sysinfo(struct sysinfo *info);

int __vdso_sysinfo(struct sysinfo *info)
{
	return __cvdso_sysinfo(info);
}

int sysinfo(struct sysinfo *info) __weak __alias(__vdso_sysinfo);
