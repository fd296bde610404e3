/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __VDSO_SYSINFO_H
#define __VDSO_SYSINFO_H

#ifndef __ASSEMBLY__

#include <linux/compiler.h>
#include <uapi/linux/types.h>

#include <asm/barrier.h>
#include <vdso/time64.h>

/**
 * struct vdso_sysinfo64 - What sysinfo(2) of a 64-bit kernel returns
 *
 * The fields, names and offsets of the 64-bit struct sysinfo, spelled
 * with fixed-width types (and explicit padding) so that the 64-bit and
 * the 32-bit kernel code see the same layout. A reader whose struct
 * sysinfo has 64-bit longs (x86-64 and x32) copies it as it is.
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
 * struct vdso_sysinfo32 - What sysinfo(2) returns to a 32-bit task
 *
 * The layout of struct compat_sysinfo (kernel/sys.c), filled the way
 * compat_sys_sysinfo() fills it: sizes scaled to a larger mem_unit when
 * a total does not fit in 32 bits, then truncated, padding zero.
 */
struct vdso_sysinfo32 {
	s32	uptime;
	u32	loads[3];
	u32	totalram;
	u32	freeram;
	u32	sharedram;
	u32	bufferram;
	u32	totalswap;
	u32	freeswap;
	u16	procs;
	u16	pad;
	u32	totalhigh;
	u32	freehigh;
	u32	mem_unit;
	u32	__pad[2];
};

/**
 * struct vdso_sysinfo_data - sysinfo(2) snapshot shared with the vDSO
 * @seq:	Sequence count. Odd while the snapshot is valid and stable;
 *		even while the kernel rewrites it, before the first
 *		publication and while kernel.vdso_sysinfo is 0. A reader that
 *		sees an even count makes the system call instead of waiting,
 *		and so does a reader of a page of zeroes.
 * @info:	The snapshot as do_sysinfo() returns it to a 64-bit task,
 *		except @info.uptime, which is always zero: readers take the
 *		uptime from the clock data (CLOCK_BOOTTIME's base).
 * @info32:	The same snapshot as compat_sys_sysinfo() returns it, with
 *		@info32.uptime zero as well.
 *
 * The kernel rewrites the snapshot about every VDSO_SYSINFO_PERIOD_MS
 * milliseconds, between vdso_sysinfo_write_begin() and
 * vdso_sysinfo_write_end(). Readers copy it between
 * vdso_sysinfo_read_begin() and vdso_sysinfo_read_retry() and try again
 * when the count changed, so they never see a mix of two publications.
 */
struct vdso_sysinfo_data {
	u32			seq;
	u32			__pad;
	struct vdso_sysinfo64	info;
	struct vdso_sysinfo32	info32;
};

/* How often the kernel publishes the counters, rounded to whole ticks */
#define VDSO_SYSINFO_PERIOD_MS	10

/*
 * Hidden visibility makes the compiler use a PC-relative reference; see
 * the comment above _vdso_rng_data in vdso/datapage.h.
 */
extern struct vdso_sysinfo_data _vdso_sysinfo_data __attribute__((visibility("hidden")));

/**
 * vdso_sysinfo_uptime - The uptime sysinfo(2) reports for a boot time
 * @sec:	Seconds of CLOCK_BOOTTIME
 * @nsec:	Nanoseconds, below NSEC_PER_SEC
 * @ns_sec:	Seconds of a time namespace's boottime offset (or 0)
 * @ns_nsec:	Nanoseconds of that offset, below NSEC_PER_SEC (or 0)
 *
 * Return: the sum rounded up to whole seconds, as do_sysinfo() rounds
 * after timens_add_boottime(). Both nanosecond parts are normalised, so
 * their sum carries at most one second: no loop, and no division for a
 * 32-bit compiler to turn into a libgcc call.
 */
static __always_inline s64 vdso_sysinfo_uptime(s64 sec, u32 nsec, s64 ns_sec, u32 ns_nsec)
{
	u32 sum = nsec + ns_nsec;

	sec += ns_sec;
	if (sum >= NSEC_PER_SEC) {
		sum -= NSEC_PER_SEC;
		sec++;
	}
	return sec + (sum ? 1 : 0);
}

static __always_inline void vdso_sysinfo_write_begin(struct vdso_sysinfo_data *sd)
{
	/* Even: readers take the system call until write_end() */
	WRITE_ONCE(sd->seq, (sd->seq + 1) & ~1U);
	/* Make @seq even before the snapshot changes; pairs with read_begin */
	smp_wmb();
}

static __always_inline void vdso_sysinfo_write_end(struct vdso_sysinfo_data *sd)
{
	/* Complete the snapshot before @seq is odd; pairs with read_retry */
	smp_wmb();
	WRITE_ONCE(sd->seq, sd->seq + 1);
}

/*
 * Return the sequence count to pass to vdso_sysinfo_read_retry(), or 0
 * when there is no valid snapshot to read (the caller makes the system
 * call). A valid count is odd, so never 0.
 */
static __always_inline u32 vdso_sysinfo_read_begin(const struct vdso_sysinfo_data *sd)
{
	u32 seq = READ_ONCE(sd->seq);

	/* Read @seq before the snapshot; pairs with write_begin */
	smp_rmb();
	return seq & 1 ? seq : 0;
}

static __always_inline bool vdso_sysinfo_read_retry(const struct vdso_sysinfo_data *sd,
						    u32 start)
{
	/* Read the snapshot before @seq; pairs with write_end */
	smp_rmb();
	return READ_ONCE(sd->seq) != start;
}

#endif /* !__ASSEMBLY__ */

#endif /* __VDSO_SYSINFO_H */
