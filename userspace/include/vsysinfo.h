/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vsysinfo.h: sysinfo(2) through the vDSO's __vdso_sysinfo when the
 * running kernel exports it, through the system call otherwise.
 */
#ifndef VSYSINFO_H
#define VSYSINFO_H

#include <sys/sysinfo.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * vsysinfo - fill in @info as sysinfo(2) does
 *
 * The first call (thread-safe, no allocation) looks up __vdso_sysinfo
 * (version LINUX_2.6) in the vDSO; every call then goes there, or to the
 * sysinfo system call when the vDSO has no such symbol.
 *
 * Return: 0, or -1 with errno set. A NULL @info gives EFAULT on every
 * path; any other bad @info gives EFAULT on the system call path and
 * SIGSEGV on the vDSO path, like any vDSO function.
 */
int vsysinfo(struct sysinfo *info);

#ifdef __cplusplus
}
#endif

#endif /* VSYSINFO_H */
