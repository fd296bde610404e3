/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vdso_sysinfo_helpers.h: what the sysinfo() vDSO tests share.
 *
 * The vDSO returns a snapshot that the kernel publishes about every
 * PERIOD_MS milliseconds (rounded up to whole ticks) while somebody makes
 * the sysinfo system call (it stops LINGER_MS after the last one), so
 * compare() checks the fields that move with a tolerance:
 *
 *   totalram, totalswap, totalhigh, mem_unit   exactly equal
 *   uptime     at most one tick, so one second, behind sysinfo(2)'s
 *   procs, loads[]
 *              between the values of sysinfo(2) before and after the call
 *   freeram, sharedram, bufferram, freeswap, freehigh
 *              within TOLERANCE_SHIFT (1/64) of totalram around the values
 *              of sysinfo(2) before and after the call
 *
 * Where the snapshot must be there, a comparison only counts answers
 * that came from it (the sequence count odd and unchanged around the
 * call, see vdso_call_sysinfo()), and matches_syscall() retries a few
 * milliseconds apart so that a counter moving between the calls does
 * not fail it. The same sources build for every ABI that has the
 * function: a 32-bit build compares with the 32-bit sysinfo(2).
 *
 * The snapshot's place in [vvar] is not ABI: locate_snapshot() finds its
 * page by its content, a struct sysinfo with the fields of sysinfo(2)
 * that do not move.
 */
#ifndef VDSO_SYSINFO_HELPERS_H
#define VDSO_SYSINFO_HELPERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/sysinfo.h>
#include <sys/types.h>
#include <time.h>

#define NSEC_PER_SEC	1000000000LL
#define TOLERANCE_SHIFT	6
#define RETRIES		50
/* The kernel's publication period (VDSO_SYSINFO_PERIOD_MS) */
#define PERIOD_MS	10
/* The age of a snapshot the vDSO refuses; how long the kernel publishes */
#define MAX_AGE_MS	(5 * PERIOD_MS)
#define LINGER_MS	2000
/* What a sysinfo system call made from inside the vDSO fails with */
#define EVDSO_MARKER	4000
/* The i386 layout, with 32-bit sizes (x32 has 64-bit ones, like x86-64) */
#define COMPAT_LAYOUT	(sizeof(((struct sysinfo *)0)->totalram) == 4)
#define CALLS		10
#define SYSCTL_PATH	"/proc/sys/kernel/vdso_sysinfo"

/*
 * This build's system calls as seccomp and ptrace see them: on x32 with
 * the x32 bit, which the vDSO's fallback must set as the C library does.
 */
#ifdef __aarch64__
#define SYSCALL_ARCH	AUDIT_ARCH_AARCH64
#else
#define SYSCALL_ARCH	(COMPAT_LAYOUT ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64)
#endif
#define SYSINFO_NR	((uint32_t)SYS_sysinfo)

typedef int (*vdso_sysinfo_t)(struct sysinfo *info);

/* __vdso_sysinfo (__kernel_sysinfo on arm64), found by vsysinfo_init() */
extern vdso_sysinfo_t vdso_sysinfo;
extern const char *vdso_sysinfo_name;
/* kernel.vdso_sysinfo is 0: the vDSO must make the system call. */
extern bool opt_out;
/* A forked child reports a fatal error and exits; the parent fails. */
extern bool in_child;
/* sysinfo(2)'s fields that do not move, as locate_snapshot() read them */
extern struct sysinfo constants;
/* The snapshot's page in [vvar] and its index, or no_page and -1 */
extern const uint32_t *sysinfo_page;
extern int sysinfo_page_index;
/* The vDSO's text, where traced() counts system calls */
extern uintptr_t vdso_lo, vdso_hi;
/* The system calls of traced()'s last child that no rewrite explains */
extern int traced_stray;

void fatal(const char *what, long err);
void vsysinfo_init(void);
void locate_snapshot(void);

/* sysinfo(2), into a buffer that traced() knows */
extern struct sysinfo reference;
void sys_sysinfo(struct sysinfo *info);
long si_uptime(void);
/* The vDSO; true when the answer came from the snapshot (see above) */
bool vdso_call_sysinfo(struct sysinfo *info);
int ten_calls(void);
/* @v equal to @s; @v within @tol of the interval that @a and @b span, plus @above */
int check_eq(const char *name, unsigned long long v,
	     unsigned long long s, bool report);
int check_in(const char *name, unsigned long long v, unsigned long long a,
	     unsigned long long b, unsigned long long tol,
	     unsigned long long above, bool report);
/* Mismatches of @v against sysinfo(2)'s @s1 and @s2, read around it */
int compare(const struct sysinfo *v, const struct sysinfo *s1,
	    const struct sysinfo *s2, unsigned int threads, bool report);
bool matches_syscall(bool snapshot);
/* The uptime, sampled over more than a second, is CLOCK_BOOTTIME's rounded up */
bool uptime_exact(void);
long ceil_sec(const struct timespec *t, long long minus_ns);
long long tick_ns(void);

pid_t fork_child(void);
bool child_passed(pid_t pid);
/* @fn in a ptrace'd child; *made: its sysinfo system calls from the vDSO */
bool traced(int (*fn)(void), int *made);
bool traced_as_expected(int (*child)(void), bool syscalls);

int sysctl_get(void);
bool sysctl_set(int on);

/* [vvar]: find a mapping, read a page safely, find the snapshot */
void find_mapping(const char *name, uintptr_t *lo, uintptr_t *hi);
bool vvar_read(uintptr_t addr, void *buf);
int snapshot_page(uintptr_t lo, uintptr_t hi);
bool snapshot_mapped(void);
const uint32_t *vvar_sysinfo_page(void);
bool page_valid(const uint32_t *page);
int page_nonzero(const uint32_t *page, int from);

/* A filter returning @action for this ABI's system call @nr */
long filter_sysinfo(uint32_t nr, uint32_t action, unsigned int flags);

double per_call(void (*fn)(void), long n);

#endif /* VDSO_SYSINFO_HELPERS_H */
