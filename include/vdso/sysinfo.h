/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __VDSO_SYSINFO_H
#define __VDSO_SYSINFO_H

#ifndef __ASSEMBLY__

#include <linux/compiler.h>
#include <uapi/linux/sysinfo.h>
#include <uapi/linux/types.h>

#include <asm/barrier.h>
#include <vdso/processor.h>

/**
 * struct vdso_sysinfo_data - sysinfo(2) snapshot shared with the vDSO
 * @seq:	Sequence count; odd while the kernel is updating the snapshot
 * @boot_nsec:	Nanoseconds part of CLOCK_BOOTTIME at the last update
 * @boot_sec:	Seconds part of CLOCK_BOOTTIME at the last update
 * @info:	The snapshot in the form sysinfo(2) returns it, with the
 *		memory sizes already scaled so that mem_unit is folded the
 *		way do_sysinfo() folds it. @info.uptime is @boot_sec rounded
 *		up, without any time namespace offset applied.
 *
 * The kernel rewrites the snapshot from update_vsyscall() on every
 * timekeeping update. Readers retry while @seq is odd or has changed,
 * so they never see a mix of two updates. The vDSO uses @boot_sec and
 * @boot_nsec only inside a time namespace, where the namespace's
 * boottime offset has to be added before rounding.
 */
struct vdso_sysinfo_data {
	u32		seq;
	u32		boot_nsec;
	s64		boot_sec;
	struct sysinfo	info;
};

/*
 * Hidden visibility makes the compiler use a PC-relative reference; see
 * the comment above _vdso_rng_data in vdso/datapage.h.
 */
extern struct vdso_sysinfo_data _vdso_sysinfo_data __attribute__((visibility("hidden")));

static __always_inline u32 vdso_sysinfo_read_begin(const struct vdso_sysinfo_data *sd)
{
	u32 seq;

	while (unlikely((seq = READ_ONCE(sd->seq)) & 1))
		cpu_relax();

	/* Read @seq before the snapshot; pairs with the writer's first smp_wmb() */
	smp_rmb();
	return seq;
}

static __always_inline u32 vdso_sysinfo_read_retry(const struct vdso_sysinfo_data *sd,
						   u32 start)
{
	/* Read the snapshot before @seq; pairs with the writer's last smp_wmb() */
	smp_rmb();
	return READ_ONCE(sd->seq) != start;
}

#endif /* !__ASSEMBLY__ */

#endif /* __VDSO_SYSINFO_H */
