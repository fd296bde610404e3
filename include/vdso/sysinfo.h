/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __VDSO_SYSINFO_H
#define __VDSO_SYSINFO_H

#ifndef __ASSEMBLY__

#include <linux/compiler.h>
#include <uapi/linux/types.h>

#include <asm/barrier.h>
#include <vdso/processor.h>
#include <vdso/time64.h>

/**
 * struct vdso_sysinfo64 - What sysinfo(2) of a 64-bit kernel returns
 *
 * The fields, names and offsets of the 64-bit struct sysinfo, spelled
 * with fixed-width types (and explicit padding) so that the 64-bit and
 * the 32-bit vDSO see the same layout. A reader whose struct sysinfo has
 * 64-bit longs (x86-64 and x32) copies it as it is; a 32-bit reader
 * converts it the way compat_sys_sysinfo() does.
 */
struct vdso_sysinfo64 {
	s64	uptime;
	u64	loads[3];
	u64	totalram;
	u64	freeram;
	u64	sharedram;
	u64	bufferram;
	u64	totalswap;
	u64	freeswap;
	u16	procs;
	u16	pad;
	u32	__pad1;
	u64	totalhigh;
	u64	freehigh;
	u32	mem_unit;
	u32	__pad2;
};

/**
 * struct vdso_sysinfo_data - sysinfo(2) snapshot shared with the vDSO
 * @seq:	Sequence count; odd while the kernel is updating the snapshot
 * @valid:	Non-zero once the kernel has published a snapshot. Zero before
 *		the first update and for good with vdso_sysinfo=off: the
 *		vDSO then makes the sysinfo system call instead.
 * @boot_sec:	Seconds part of CLOCK_BOOTTIME at the last update
 * @boot_nsec:	Nanoseconds part of CLOCK_BOOTTIME at the last update; not
 *		normalised (it may exceed NSEC_PER_SEC), vdso_sysinfo_uptime()
 *		carries it
 * @info:	The snapshot as do_sysinfo() returns it, memory sizes already
 *		scaled so that mem_unit is folded the way do_sysinfo() folds
 *		it. @info.uptime is the uptime without any time namespace
 *		offset.
 *
 * The kernel rewrites the snapshot from update_vsyscall() on every
 * timekeeping update, between vdso_sysinfo_write_begin() and
 * vdso_sysinfo_write_end(). Readers retry while @seq is odd or has
 * changed (vdso_sysinfo_read_begin() and vdso_sysinfo_read_retry()), so
 * they never see a mix of two updates.
 */
struct vdso_sysinfo_data {
	u32			seq;
	u32			valid;
	s64			boot_sec;
	u64			boot_nsec;
	struct vdso_sysinfo64	info;
};

/*
 * Hidden visibility makes the compiler use a PC-relative reference; see
 * the comment above _vdso_rng_data in vdso/datapage.h.
 */
extern struct vdso_sysinfo_data _vdso_sysinfo_data __attribute__((visibility("hidden")));

/**
 * vdso_sysinfo_uptime - The uptime sysinfo(2) reports for a boot time
 * @sec:	Seconds of CLOCK_BOOTTIME (a time namespace's offset included)
 * @nsec:	Nanoseconds, which may add up to several seconds
 *
 * Return: @sec plus the whole seconds of @nsec, rounded up when a
 * fraction of a second is left, as do_sysinfo() rounds.
 */
static __always_inline s64 vdso_sysinfo_uptime(s64 sec, u64 nsec)
{
	while (nsec >= NSEC_PER_SEC) {
		nsec -= NSEC_PER_SEC;
		sec++;
	}
	return sec + (nsec ? 1 : 0);
}

static __always_inline void vdso_sysinfo_write_begin(struct vdso_sysinfo_data *sd)
{
	WRITE_ONCE(sd->seq, sd->seq + 1);
	/* Make @seq odd before the snapshot changes; pairs with read_begin */
	smp_wmb();
}

static __always_inline void vdso_sysinfo_write_end(struct vdso_sysinfo_data *sd)
{
	/* Complete the snapshot before @seq is even; pairs with read_retry */
	smp_wmb();
	WRITE_ONCE(sd->seq, sd->seq + 1);
}

static __always_inline u32 vdso_sysinfo_read_begin(const struct vdso_sysinfo_data *sd)
{
	u32 seq;

	while (unlikely((seq = READ_ONCE(sd->seq)) & 1))
		cpu_relax();

	/* Read @seq before the snapshot; pairs with write_begin */
	smp_rmb();
	return seq;
}

static __always_inline u32 vdso_sysinfo_read_retry(const struct vdso_sysinfo_data *sd,
						   u32 start)
{
	/* Read the snapshot before @seq; pairs with write_end */
	smp_rmb();
	return READ_ONCE(sd->seq) != start;
}

#endif /* !__ASSEMBLY__ */

#endif /* __VDSO_SYSINFO_H */
