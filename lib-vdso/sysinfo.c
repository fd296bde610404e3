// SPDX-License-Identifier: GPL-2.0
/*
 * Generic vDSO implementation of sysinfo(2).
 *
 * The kernel publishes what sysinfo(2) returns every
 * VDSO_SYSINFO_PERIOD_MS milliseconds (kernel/time/vsysinfo.c says where
 * each field comes from and how old it may be), once in the 64-bit layout
 * of struct sysinfo and once in the 32-bit one. The reader takes the
 * uptime from the clock data, CLOCK_BOOTTIME's base as of the last
 * timekeeping update (a time namespace's offset added as the clock
 * readers add it), then copies the snapshot in the caller's layout and
 * stores both once the sequence count says the copy is consistent. While
 * there is no valid snapshot (before the first publication, while the
 * kernel rewrites it, with vdso_sysinfo=off, or in a page of zeroes) or
 * the clock data is not kept up to date for the vDSO, it makes the
 * system call instead.
 *
 * An architecture provides in <asm/vdso/sysinfo.h>:
 *  - __arch_get_vdso_sysinfo_data(): the snapshot, the same inside a
 *    time namespace (a page of zeroes for a task that must not read it);
 *  - sysinfo_fallback(): the sysinfo system call, returning 0 or -errno.
 */
#include <linux/build_bug.h>
#include <uapi/asm-generic/errno-base.h>
#include <uapi/linux/sysinfo.h>
#include <vdso/datapage.h>
#include <vdso/sysinfo.h>
#include <asm/vdso/sysinfo.h>

/* vdso_sysinfo_store() found no valid snapshot: make the system call */
#define VDSO_SYSINFO_FALLBACK	1

/*
 * Copy the snapshot in @info's layout (64-bit longs on x86-64 and x32,
 * 32-bit ones in a 32-bit vDSO) from one publication, set its uptime,
 * and only then store it into @info. The copy is a local initialised
 * from the snapshot, which the compiler keeps in registers, so the
 * caller's buffer is written outside the read section: a fault on it
 * cannot make the section start again.
 *
 * Return: 0; -EFAULT, sysinfo(2)'s answer, for a NULL @info; or
 * VDSO_SYSINFO_FALLBACK when there is no valid snapshot, so that a task
 * the snapshot is hidden from gets what the system call returns (a
 * seccomp filter's answer included) for NULL too.
 */
static __always_inline int vdso_sysinfo_store(const struct vdso_sysinfo_data *sd,
					      struct sysinfo *info, s64 uptime)
{
	u32 seq;

	while ((seq = vdso_sysinfo_read_begin(sd))) {
		/* A test of the argument, off the loads' dependency chain */
		if (unlikely(!info))
			return -EFAULT;
		if (sizeof(info->totalram) == sizeof(u64)) {
			struct vdso_sysinfo64 s = sd->info;

			BUILD_BUG_ON(sizeof(*info) != sizeof(s));
			if (likely(!vdso_sysinfo_read_retry(sd, seq))) {
				s.uptime = uptime;
				*(struct vdso_sysinfo64 *)info = s;
				return 0;
			}
		} else {
			struct vdso_sysinfo32 s = sd->info32;

			BUILD_BUG_ON(sizeof(*info) != sizeof(s));
			if (likely(!vdso_sysinfo_read_retry(sd, seq))) {
				s.uptime = uptime;
				*(struct vdso_sysinfo32 *)info = s;
				return 0;
			}
		}
	}
	return VDSO_SYSINFO_FALLBACK;
}

#ifdef CONFIG_TIME_NS
/*
 * Inside a time namespace: @vd is the namespace's page, which holds its
 * offsets; the clock data is at the timens slot. The offset is added
 * before rounding up, as timens_add_boottime() is in sysinfo(2). Out of
 * line, so that the common case carries none of it.
 */
static noinline int vdso_sysinfo_timens(const struct vdso_data *vd,
					const struct vdso_sysinfo_data *sd,
					struct sysinfo *info)
{
	const struct timens_offset *offs = &vd->offset[CLOCK_BOOTTIME];
	const struct vdso_timestamp *bt;
	u64 sec, nsec;
	u32 seq;
	int ret;

	vd = __arch_get_timens_vdso_data(vd);
	bt = &vd->basetime[CLOCK_BOOTTIME];
	do {
		seq = vdso_read_begin(vd);
		if (unlikely(vd->clock_mode == VDSO_CLOCKMODE_NONE))
			return sysinfo_fallback(info);
		sec = bt->sec;
		nsec = bt->nsec >> vd->shift;
	} while (unlikely(vdso_read_retry(vd, seq)));

	ret = vdso_sysinfo_store(sd, info,
				 vdso_sysinfo_uptime(sec, nsec, offs->sec, offs->nsec));
	if (ret == VDSO_SYSINFO_FALLBACK)
		return sysinfo_fallback(info);
	return ret;
}
#else
static inline int vdso_sysinfo_timens(const struct vdso_data *vd,
				      const struct vdso_sysinfo_data *sd,
				      struct sysinfo *info)
{
	return sysinfo_fallback(info);
}
#endif

/**
 * __cvdso_sysinfo_data - Generic vDSO implementation of sysinfo()
 * @vd:		The clock data at the vvar slot: inside a time namespace, the
 *		namespace's own, which holds its offsets
 * @sd:		The snapshot the kernel publishes
 * @info:	Where to store the result
 *
 * The uptime is CLOCK_BOOTTIME's base rounded up: it lags sysinfo(2) by
 * at most one timekeeping update (a tick), so it is sysinfo(2)'s value
 * or, for at most a tick after a second begins, one less.
 *
 * Return: 0; -EFAULT for a NULL @info; or, when there is no valid
 * snapshot, what the sysinfo system call returned.
 */
static __always_inline int
__cvdso_sysinfo_data(const struct vdso_data *vd, const struct vdso_sysinfo_data *sd,
		     struct sysinfo *info)
{
	const struct vdso_timestamp *bt = &vd->basetime[CLOCK_BOOTTIME];
	typeof(info->uptime) uptime;
	u32 seq;
	int ret;

	do {
		while (unlikely((seq = READ_ONCE(vd->seq)) & 1)) {
			if (IS_ENABLED(CONFIG_TIME_NS) &&
			    vd->clock_mode == VDSO_CLOCKMODE_TIMENS)
				return vdso_sysinfo_timens(vd, sd, info);
			cpu_relax();
		}
		/* Read @seq before the clock data; pairs with vdso_write_begin() */
		smp_rmb();

		/* The kernel does not update the base for such a clock */
		if (unlikely(vd->clock_mode == VDSO_CLOCKMODE_NONE))
			return sysinfo_fallback(info);
		/* Rounded up to whole seconds, as in do_sysinfo() */
		uptime = bt->sec;
		if (bt->nsec >> vd->shift)
			uptime++;
		/* Leave only the uptime in a register for the copy below */
		OPTIMIZER_HIDE_VAR(uptime);
	} while (unlikely(vdso_read_retry(vd, seq)));

	ret = vdso_sysinfo_store(sd, info, uptime);
	if (unlikely(ret == VDSO_SYSINFO_FALLBACK))
		return sysinfo_fallback(info);
	return ret;
}

static __always_inline int __cvdso_sysinfo(struct sysinfo *info)
{
	return __cvdso_sysinfo_data(__arch_get_vdso_data(),
				    __arch_get_vdso_sysinfo_data(), info);
}
