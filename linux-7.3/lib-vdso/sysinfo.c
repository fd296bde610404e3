// SPDX-License-Identifier: GPL-2.0
/*
 * Generic vDSO implementation of sysinfo(2).
 *
 * While somebody reads it, the kernel publishes what sysinfo(2) returns
 * every VDSO_SYSINFO_PERIOD_MS milliseconds in a data page of its own,
 * vdso_u_sysinfo_data (kernel/time/vsysinfo.c says where each field comes
 * from, how old it may be and when publication stops), in the 64-bit and
 * in the 32-bit layout of struct sysinfo, with CLOCK_BOOTTIME's coarse
 * base next to it, which the kernel rewrites on every tick while it
 * publishes, whatever the clocksource. The reader copies it with
 * vdso_sysinfo_store() (<vdso/sysinfo.h>) and makes the system call
 * whenever there is no valid and fresh snapshot, which also publishes
 * again. Inside a time namespace, the namespace's boottime offset is
 * added to the uptime before it is rounded, as sysinfo(2) adds it.
 *
 * An architecture provides in <asm/vdso/sysinfo.h> sysinfo_fallback(),
 * the sysinfo system call, returning 0 or -errno. Where a task's seccomp
 * filters decide on sysinfo, the page is a page of zeroes, which reads as
 * no snapshot (lib/vdso/datastore.c).
 */
#include <vdso/datapage.h>
#include <vdso/helpers.h>
#include <vdso/sysinfo.h>
#include <asm/vdso/sysinfo.h>
#include <asm/vdso/vsyscall.h>

#ifdef CONFIG_TIME_NS
/*
 * Inside a time namespace, @vdns is the namespace's page, which holds its
 * offsets; the uptime is the snapshot's plus the namespace's boottime
 * offset, rounded up after the addition as in sysinfo(2). Out of line,
 * so that the common case carries none of it.
 */
static noinline int vdso_sysinfo_timens(const struct vdso_time_data *vdns,
					const struct vdso_sysinfo_data *sd,
					struct sysinfo *info)
{
	const struct timens_offset *offs =
		&vdns->clock_data[CS_HRES_COARSE].offset[CLOCK_BOOTTIME];
	int ret;

	ret = vdso_sysinfo_store(sd, info, offs->sec, offs->nsec);
	if (ret == VDSO_SYSINFO_FALLBACK)
		return sysinfo_fallback(info);
	return ret;
}
#else
static inline int vdso_sysinfo_timens(const struct vdso_time_data *vdns,
				      const struct vdso_sysinfo_data *sd,
				      struct sysinfo *info)
{
	return sysinfo_fallback(info);
}
#endif

/**
 * __cvdso_sysinfo_data - Generic vDSO implementation of sysinfo()
 * @vd:		The time data page: inside a time namespace, the namespace's
 *		own, which holds its offsets
 * @sd:		The snapshot the kernel publishes
 * @info:	Where to store the result
 *
 * The uptime is CLOCK_BOOTTIME's coarse base, which the kernel rewrites
 * next to the snapshot on every timekeeping update whatever the
 * clocksource, rounded up. It lags sysinfo(2) by at most one timekeeping
 * update (a tick). A snapshot older than VDSO_SYSINFO_MAX_AGE_MS by that
 * clock costs the system call.
 *
 * Return: 0; -EFAULT for a NULL @info; or, when there is no valid and
 * fresh snapshot, what the sysinfo system call returned.
 */
static __always_inline int
__cvdso_sysinfo_data(const struct vdso_time_data *vd, const struct vdso_sysinfo_data *sd,
		     struct sysinfo *info)
{
	int ret;

	/* Only a time namespace's page has this mode, and it keeps it */
	if (IS_ENABLED(CONFIG_TIME_NS) &&
	    unlikely(vdso_is_timens_clock(&vd->clock_data[CS_HRES_COARSE])))
		return vdso_sysinfo_timens(vd, sd, info);

	ret = vdso_sysinfo_store(sd, info, 0, 0);
	if (unlikely(ret == VDSO_SYSINFO_FALLBACK))
		return sysinfo_fallback(info);
	return ret;
}

static __always_inline int __cvdso_sysinfo(struct sysinfo *info)
{
	return __cvdso_sysinfo_data(__arch_get_vdso_u_time_data(),
				    __arch_get_vdso_u_sysinfo_data(), info);
}
