// SPDX-License-Identifier: GPL-2.0
/*
 * Generic vDSO implementation of sysinfo(2).
 *
 * The kernel publishes what sysinfo(2) returns on every timekeeping update
 * (kernel/time/vsysinfo.c says where each field comes from and how old it
 * may be). The reader copies that snapshot under its sequence count, adds
 * a time namespace's boottime offset to the uptime, and hands it over in
 * the caller's layout of struct sysinfo. While the snapshot is not valid
 * (before the first update, or for good with vdso_sysinfo=off) it makes
 * the system call instead.
 *
 * An architecture provides in <asm/vdso/sysinfo.h>:
 *  - __arch_get_vdso_sysinfo_data(): the snapshot, the same inside a
 *    time namespace (a page of zeroes, not valid, for a task that must
 *    not read it);
 *  - sysinfo_fallback(): the sysinfo system call, returning 0 or -errno.
 */
#include <linux/build_bug.h>
#include <uapi/linux/sysinfo.h>
#include <vdso/datapage.h>
#include <vdso/sysinfo.h>
#include <asm/vdso/sysinfo.h>

#define VDSO_SYSINFO_PAGE_SIZE	BIT(CONFIG_PAGE_SHIFT)

/*
 * Copy a consistent snapshot into @dst, and with @boot_sec the boot time
 * it was taken at; false when there is none to copy.
 */
static __always_inline bool vdso_sysinfo_read(const struct vdso_sysinfo_data *sd,
					      struct vdso_sysinfo64 *dst,
					      s64 *boot_sec, u64 *boot_nsec)
{
	u32 seq;

	do {
		seq = vdso_sysinfo_read_begin(sd);
		if (unlikely(!READ_ONCE(sd->valid)))
			return false;
		*dst = sd->info;
		if (boot_sec) {
			*boot_sec = sd->boot_sec;
			*boot_nsec = sd->boot_nsec;
		}
	} while (unlikely(vdso_sysinfo_read_retry(sd, seq)));

	return true;
}

/*
 * A struct sysinfo with 32-bit longs gets what compat_sys_sysinfo()
 * makes of do_sysinfo()'s result: when a total does not fit in 32 bits,
 * mem_unit is raised to the page size and every size shifted down to
 * match; then each field is truncated to 32 bits.
 */
static __always_inline void vdso_sysinfo_to_compat(struct sysinfo *info,
						   const struct vdso_sysinfo64 *s)
{
	unsigned int bitcount = 0;
	u32 mem_unit = s->mem_unit;

	if ((s->totalram >> 32) || (s->totalswap >> 32)) {
		while (mem_unit < VDSO_SYSINFO_PAGE_SIZE) {
			mem_unit <<= 1;
			bitcount++;
		}
	}

	info->uptime = s->uptime;
	info->loads[0] = s->loads[0];
	info->loads[1] = s->loads[1];
	info->loads[2] = s->loads[2];
	info->totalram = s->totalram >> bitcount;
	info->freeram = s->freeram >> bitcount;
	info->sharedram = s->sharedram >> bitcount;
	info->bufferram = s->bufferram >> bitcount;
	info->totalswap = s->totalswap >> bitcount;
	info->freeswap = s->freeswap >> bitcount;
	info->procs = s->procs;
	info->pad = 0;
	info->totalhigh = s->totalhigh >> bitcount;
	info->freehigh = s->freehigh >> bitcount;
	info->mem_unit = mem_unit;
	__builtin_memset(info->_f, 0, sizeof(info->_f));
}

/*
 * Copy a consistent snapshot into @s; false when there is none. Inside a
 * time namespace (@timens; @vd is then the namespace's page) the uptime
 * follows the namespace's boottime offset, added before rounding up as
 * timens_add_boottime() is in sysinfo(2).
 */
static __always_inline bool vdso_sysinfo_get(const struct vdso_data *vd,
					     const struct vdso_sysinfo_data *sd,
					     struct vdso_sysinfo64 *s, bool timens)
{
	const struct timens_offset *offs = &vd->offset[CLOCK_BOOTTIME];
	u64 boot_nsec;
	s64 boot_sec;

	if (!timens)
		return vdso_sysinfo_read(sd, s, NULL, NULL);
	if (!vdso_sysinfo_read(sd, s, &boot_sec, &boot_nsec))
		return false;
	s->uptime = vdso_sysinfo_uptime(boot_sec + offs->sec, boot_nsec + offs->nsec);
	return true;
}

/*
 * A caller whose struct sysinfo has 64-bit longs (the layout of the
 * snapshot) gets the snapshot copied straight into @info; any other gets
 * the compat_sys_sysinfo() conversion of a copy. Without a valid
 * snapshot, the system call answers.
 */
static __always_inline int vdso_sysinfo_store(const struct vdso_data *vd,
					      const struct vdso_sysinfo_data *sd,
					      struct sysinfo *info, bool timens)
{
	if (sizeof(info->totalram) == sizeof(u64)) {
		BUILD_BUG_ON(sizeof(*info) != sizeof(struct vdso_sysinfo64));
		if (!vdso_sysinfo_get(vd, sd, (struct vdso_sysinfo64 *)info, timens))
			return sysinfo_fallback(info);
	} else {
		struct vdso_sysinfo64 s;

		if (!vdso_sysinfo_get(vd, sd, &s, timens))
			return sysinfo_fallback(info);
		vdso_sysinfo_to_compat(info, &s);
	}
	return 0;
}

/* Out of line, so that the common case never reads the boot time. */
static noinline int vdso_sysinfo_timens(const struct vdso_data *vd,
					const struct vdso_sysinfo_data *sd,
					struct sysinfo *info)
{
	return vdso_sysinfo_store(vd, sd, info, true);
}

/**
 * __cvdso_sysinfo_data - Generic vDSO implementation of sysinfo()
 * @vd:		The clock data at the vvar slot: inside a time namespace, the
 *		namespace's own, which holds its offsets
 * @sd:		The snapshot the kernel publishes
 * @info:	Where to store the result
 *
 * Return: 0, or what the sysinfo system call returned when the snapshot
 * is not valid.
 */
static __always_inline int
__cvdso_sysinfo_data(const struct vdso_data *vd, const struct vdso_sysinfo_data *sd,
		     struct sysinfo *info)
{
	if (IS_ENABLED(CONFIG_TIME_NS) && vd->clock_mode == VDSO_CLOCKMODE_TIMENS)
		return vdso_sysinfo_timens(vd, sd, info);
	return vdso_sysinfo_store(vd, sd, info, false);
}

static __always_inline int __cvdso_sysinfo(struct sysinfo *info)
{
	return __cvdso_sysinfo_data(__arch_get_vdso_data(),
				    __arch_get_vdso_sysinfo_data(), info);
}
