// SPDX-License-Identifier: GPL-2.0
/*
 * Generic vDSO implementation of sysinfo(2).
 *
 * While somebody reads it, the kernel publishes what sysinfo(2) returns
 * every VDSO_SYSINFO_PERIOD_MS milliseconds (kernel/time/vsysinfo.c says
 * where each field comes from, how old it may be and when publication
 * stops), once in the 64-bit layout of struct sysinfo and once in the
 * 32-bit one, with the time of the publication, and next to it
 * CLOCK_BOOTTIME's coarse base, which the kernel rewrites on every tick
 * while it publishes, whatever the clocksource (a time namespace's
 * offset is added as sysinfo(2) adds it). The reader copies the snapshot
 * in the caller's layout and stores it once the sequence count says the
 * copy is consistent. While there is no valid snapshot (before the first
 * publication, while the kernel rewrites it, while nobody has made the
 * system call for a while, with kernel.vdso_sysinfo at 0, or in a page of
 * zeroes) or the snapshot is older than VDSO_SYSINFO_MAX_AGE_MS by that
 * clock, it makes the system call instead, which also publishes again.
 *
 * An architecture provides sysinfo_fallback() in <asm/vdso/sysinfo.h>,
 * the sysinfo system call, returning 0 or -errno, and, before it includes
 * this file, __arch_get_vdso_sysinfo_data(): the snapshot, the same
 * inside a time namespace (a page of zeroes for a task that must not
 * read it).
 */
#include <vdso/datapage.h>
#include <vdso/sysinfo.h>
#include <asm/vdso/sysinfo.h>

#ifdef CONFIG_TIME_NS
/*
 * Inside a time namespace, @vd is the namespace's page, which holds its
 * offsets; the uptime is the snapshot's plus the namespace's boottime
 * offset, rounded up after the addition as in sysinfo(2). Out of line,
 * so that the common case carries none of it.
 */
static noinline int vdso_sysinfo_timens(const struct vdso_data *vd,
					const struct vdso_sysinfo_data *sd,
					struct sysinfo *info)
{
	const struct timens_offset *offs = &vd->offset[CLOCK_BOOTTIME];
	int ret;

	ret = vdso_sysinfo_store(sd, info, offs->sec, offs->nsec);
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
 * The uptime is CLOCK_BOOTTIME's coarse base, which the kernel rewrites
 * next to the snapshot on every timekeeping update whatever the
 * clocksource, rounded up, so a clocksource without a vDSO mode (jiffies,
 * hpet, acpi_pm) keeps the call off the system call. It lags sysinfo(2)
 * by at most one timekeeping update (a tick), so it is sysinfo(2)'s value
 * or, for at most a tick after a second begins, one less. A snapshot
 * older than VDSO_SYSINFO_MAX_AGE_MS by that clock costs the system call.
 *
 * Return: 0; -EFAULT for a NULL @info; or, when there is no valid and
 * fresh snapshot, what the sysinfo system call returned.
 */
static __always_inline int
__cvdso_sysinfo_data(const struct vdso_data *vd, const struct vdso_sysinfo_data *sd,
		     struct sysinfo *info)
{
	int ret;

	/* Only a time namespace's page has this mode, and it keeps it */
	if (IS_ENABLED(CONFIG_TIME_NS) &&
	    unlikely(READ_ONCE(vd->clock_mode) == VDSO_CLOCKMODE_TIMENS))
		return vdso_sysinfo_timens(vd, sd, info);

	ret = vdso_sysinfo_store(sd, info, 0, 0);
	if (unlikely(ret == VDSO_SYSINFO_FALLBACK))
		return sysinfo_fallback(info);
	return ret;
}

static __always_inline int __cvdso_sysinfo(struct sysinfo *info)
{
	return __cvdso_sysinfo_data(__arch_get_vdso_data(),
				    __arch_get_vdso_sysinfo_data(), info);
}
