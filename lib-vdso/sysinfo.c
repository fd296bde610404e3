// SPDX-License-Identifier: GPL-2.0
/*
 * Generic vDSO implementation of sysinfo(2).
 *
 * While somebody reads it, the kernel publishes what sysinfo(2) returns
 * every VDSO_SYSINFO_PERIOD_MS milliseconds (kernel/time/vsysinfo.c says
 * where each field comes from, how old it may be and when publication
 * stops), once in the 64-bit layout of struct sysinfo and once in the
 * 32-bit one, with the uptime next to it, which the kernel rewrites on
 * every tick whatever the clocksource (a time namespace's offset is
 * added as sysinfo(2) adds it). The reader copies the snapshot in the
 * caller's layout and stores it once the sequence count says the copy is
 * consistent. While there is no valid snapshot (before the first
 * publication, while the kernel rewrites it, while nobody has made the
 * system call for a while, with kernel.vdso_sysinfo at 0, or in a page of
 * zeroes) or the snapshot is older than VDSO_SYSINFO_MAX_AGE_MS (the
 * kernel then clears the uptime), it makes the system call instead,
 * which also starts the publisher again.
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
 * and only then store it into @info. The uptime is the snapshot's own
 * (@ns_uptime < 0) or, inside a time namespace, @ns_uptime; either way
 * a snapshot whose own is 0, too old, is not used. The copy is a local
 * initialised from the snapshot, which the compiler keeps in registers,
 * so the caller's buffer is written outside the read section: a fault on
 * it cannot make the section start again.
 *
 * Return: 0; -EFAULT, sysinfo(2)'s answer, for a NULL @info; or
 * VDSO_SYSINFO_FALLBACK when there is no valid and fresh snapshot, so
 * that a task the snapshot is hidden from gets what the system call
 * returns (a seccomp filter's answer included) for NULL too.
 */
static __always_inline int vdso_sysinfo_store(const struct vdso_sysinfo_data *sd,
					      struct sysinfo *info, s64 ns_uptime)
{
	s64 uptime;
	u32 seq;

	while ((seq = vdso_sysinfo_read_begin(sd))) {
		/* After @seq: a publication writes the uptime first */
		uptime = READ_ONCE(sd->uptime);
		if (unlikely(!uptime))
			break;
		if (ns_uptime >= 0)
			uptime = ns_uptime;
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
 * offsets; the clock data is at the timens slot. The uptime is
 * CLOCK_MONOTONIC's coarse base plus the boot offset, read under the
 * clock data's sequence count, plus the namespace's boottime offset,
 * then rounded up, as timens_add_boottime() is added before rounding in
 * sysinfo(2). Out of line, so that the common case carries none of it.
 */
static noinline int vdso_sysinfo_timens(const struct vdso_data *vd,
					const struct vdso_sysinfo_data *sd,
					struct sysinfo *info)
{
	const struct timens_offset *offs = &vd->offset[CLOCK_BOOTTIME];
	const struct vdso_timestamp *mono;
	s64 sec, boot_sec;
	u32 seq, nsec, boot_nsec;
	int ret;

	vd = __arch_get_timens_vdso_data(vd);
	mono = &vd->basetime[CLOCK_MONOTONIC_COARSE];
	do {
		seq = vdso_read_begin(vd);
		sec = mono->sec;
		nsec = mono->nsec;
		boot_sec = READ_ONCE(sd->boot_sec);
		boot_nsec = READ_ONCE(sd->boot_nsec);
	} while (unlikely(vdso_read_retry(vd, seq)));

	vdso_sysinfo_add(&sec, &nsec, boot_sec, boot_nsec);
	vdso_sysinfo_add(&sec, &nsec, offs->sec, offs->nsec);
	ret = vdso_sysinfo_store(sd, info, vdso_sysinfo_uptime(sec, nsec));
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
 * The uptime is the one the kernel keeps next to the snapshot:
 * CLOCK_BOOTTIME's coarse base rounded up, rewritten on every timekeeping
 * update whatever the clocksource, so a clocksource without a vDSO mode
 * (jiffies, hpet, acpi_pm) keeps the call off the system call. It lags
 * sysinfo(2) by at most one timekeeping update (a tick), so it is
 * sysinfo(2)'s value or, for at most a tick after a second begins, one
 * less. The kernel sets it to 0 when the snapshot is older than
 * VDSO_SYSINFO_MAX_AGE_MS, which costs the system call.
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

	ret = vdso_sysinfo_store(sd, info, -1);
	if (unlikely(ret == VDSO_SYSINFO_FALLBACK))
		return sysinfo_fallback(info);
	return ret;
}

static __always_inline int __cvdso_sysinfo(struct sysinfo *info)
{
	return __cvdso_sysinfo_data(__arch_get_vdso_data(),
				    __arch_get_vdso_sysinfo_data(), info);
}
