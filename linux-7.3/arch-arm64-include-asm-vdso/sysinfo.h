/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __ASM_VDSO_SYSINFO_H
#define __ASM_VDSO_SYSINFO_H

#ifndef __ASSEMBLER__

#include <asm/unistd.h>
#include <uapi/linux/sysinfo.h>

/**
 * sysinfo_fallback - Invoke the sysinfo() system call
 * @info:	Where the kernel stores the result
 *
 * The svc instruction, as the clock fallbacks use.
 *
 * Return: 0, or a negative errno.
 */
static __always_inline long sysinfo_fallback(struct sysinfo *info)
{
	register struct sysinfo *x0 asm("x0") = info;
	register long ret asm("x0");
	register long nr asm("x8") = __NR_sysinfo;

	asm volatile("svc #0\n"
		     : "=r" (ret)
		     : "r" (x0), "r" (nr)
		     : "memory");

	return ret;
}

#endif /* !__ASSEMBLER__ */

#endif /* __ASM_VDSO_SYSINFO_H */
