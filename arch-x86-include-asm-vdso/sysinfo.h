/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __ASM_VDSO_SYSINFO_H
#define __ASM_VDSO_SYSINFO_H

#ifndef __ASSEMBLER__

#include <asm/unistd.h>
#include <uapi/linux/sysinfo.h>
#include <vdso/sysinfo.h>

/*
 * The x32 vDSO's reader is built from vsysinfox32.c with BUILD_VDSOX32,
 * so that its fallback is the system call an x32 program makes, with the
 * x32 bit: a seccomp filter written for x32 numbers sees its own.
 */
#ifdef BUILD_VDSOX32
#define VDSO_NR_sysinfo		(__X32_SYSCALL_BIT | __NR_sysinfo)
#else
#define VDSO_NR_sysinfo		__NR_sysinfo
#endif

/**
 * sysinfo_fallback - Invoke the sysinfo() system call
 * @info:	Where the kernel stores the result
 *
 * The 64-bit and x32 vDSOs use the syscall instruction (sysinfo is a
 * common system call: the x32 one is the 64-bit one with the x32 bit),
 * the 32-bit vDSO __kernel_vsyscall, as the clock fallbacks do.
 *
 * Return: 0, or a negative errno.
 */
static __always_inline long sysinfo_fallback(struct sysinfo *info)
{
	long ret;

#ifndef BUILD_VDSO32
	asm ("syscall" : "=a" (ret), "=m" (*info) :
	     "0" (VDSO_NR_sysinfo), "D" (info) :
	     "rcx", "r11");
#else
	asm ("mov %%ebx, %%edx\n"
	     "mov %[info], %%ebx\n"
	     "call __kernel_vsyscall\n"
	     "mov %%edx, %%ebx\n"
	     : "=a" (ret), "=m" (*info)
	     : "0" (__NR_sysinfo), [info] "g" (info)
	     : "edx");
#endif

	return ret;
}

#endif /* !__ASSEMBLER__ */

#endif /* __ASM_VDSO_SYSINFO_H */
