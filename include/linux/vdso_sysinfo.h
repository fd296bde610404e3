/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_VDSO_SYSINFO_H
#define _LINUX_VDSO_SYSINFO_H

/*
 * The sysinfo(2) system call starts the vDSO snapshot's publisher; see
 * kernel/time/vsysinfo.c.
 */
#ifdef CONFIG_VDSO_SYSINFO
void vdso_sysinfo_demand(unsigned long bufferram);
#else
static inline void vdso_sysinfo_demand(unsigned long bufferram) { }
#endif

#endif /* _LINUX_VDSO_SYSINFO_H */
