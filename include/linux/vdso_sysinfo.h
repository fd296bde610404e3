/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_VDSO_SYSINFO_H
#define _LINUX_VDSO_SYSINFO_H

#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/ktime.h>
#include <linux/types.h>
#include <asm/barrier.h>

/*
 * The vDSO's sysinfo() snapshot (kernel/time/vsysinfo.c): the sysinfo(2)
 * system call starts its publisher, and update_vsyscall() drives it.
 */
struct vdso_timestamp;

#ifdef CONFIG_VDSO_SYSINFO
/**
 * struct vdso_sysinfo_publisher - The vDSO sysinfo() snapshot's publisher
 * @active:	Whether it publishes: somebody made the sysinfo system call
 *		recently
 * @due:	The jiffies from which the next publication is queued
 * @published:	The jiffies of the last publication
 *
 * Written under the publisher's lock; @active set last, with a release,
 * when the publisher starts.
 */
struct vdso_sysinfo_publisher {
	bool		active;
	unsigned long	due;
	unsigned long	published;
};

extern struct vdso_sysinfo_publisher vdso_sysinfo_publisher;

/* Whether update_vsyscall() calls vdso_sysinfo_tick(): one load */
static __always_inline bool vdso_sysinfo_running(void)
{
	/* Pairs with the release in vdso_sysinfo_demand(): @due is set */
	return smp_load_acquire(&vdso_sysinfo_publisher.active);
}

void vdso_sysinfo_demand(unsigned long bufferram);
#else
static inline bool vdso_sysinfo_running(void) { return false; }
static inline void vdso_sysinfo_demand(unsigned long bufferram) { }
#endif

/* Called only while vdso_sysinfo_running() */
void vdso_sysinfo_tick(const struct vdso_timestamp *mono, ktime_t offs_boot);

/* sysinfo(2)'s scaling of its memory sizes (kernel/sys.c), shared */
struct sysinfo;
void sysinfo_scale_memory(struct sysinfo *info);
void sysinfo_scale_compat(struct sysinfo *s);

#endif /* _LINUX_VDSO_SYSINFO_H */
