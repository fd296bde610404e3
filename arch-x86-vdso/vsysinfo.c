// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysinfo() in the x86-64 vDSO.
 *
 * Returns the snapshot that the kernel publishes from update_vsyscall()
 * (see kernel/time/vsysinfo.c for where each field comes from and how
 * old it may be). The common case is a sequence-count protected copy of
 * a ready-made struct sysinfo; only a task in a time namespace takes the
 * slow path, which adds the namespace's boottime offset to the uptime
 * the way sysinfo(2) does with timens_add_boottime().
 */
#include <linux/types.h>
#include <vdso/datapage.h>
#include <vdso/sysinfo.h>

#define __vdso_sysinfo_data (VVAR(_vdso_sysinfo_data))

/*
 * Inside a time namespace the vvar slot maps the namespace's own page,
 * whose vdso_data holds only the clock offsets, and the real vvar page
 * is mapped at the timens slot: find the snapshot there.
 */
static __always_inline const struct vdso_sysinfo_data *vdso_sysinfo_timens_data(void)
{
	return (void *)&__vdso_sysinfo_data +
	       ((void *)&__timens_vdso_data - (void *)&__vdso_data);
}

static noinline int vdso_sysinfo_timens(struct sysinfo *info,
					const struct vdso_data *ns)
{
	const struct timens_offset *offs = &ns->offset[CLOCK_BOOTTIME];
	const struct vdso_sysinfo_data *sd = vdso_sysinfo_timens_data();
	u64 nsec;
	s64 sec;
	u32 seq;

	do {
		seq = vdso_sysinfo_read_begin(sd);
		*info = sd->info;
		sec = sd->boot_sec;
		nsec = sd->boot_nsec;
	} while (vdso_sysinfo_read_retry(sd, seq));

	sec += offs->sec;
	nsec += offs->nsec;
	if (nsec >= NSEC_PER_SEC) {
		nsec -= NSEC_PER_SEC;
		sec++;
	}
	info->uptime = sec + (nsec ? 1 : 0);

	return 0;
}

int __vdso_sysinfo(struct sysinfo *info);

int __vdso_sysinfo(struct sysinfo *info)
{
	const struct vdso_sysinfo_data *sd = &__vdso_sysinfo_data;
	const struct vdso_data *vd = __vdso_data;
	u32 seq;

	if (IS_ENABLED(CONFIG_TIME_NS) &&
	    vd->clock_mode == VDSO_CLOCKMODE_TIMENS)
		return vdso_sysinfo_timens(info, vd);

	do {
		seq = vdso_sysinfo_read_begin(sd);
		*info = sd->info;
	} while (vdso_sysinfo_read_retry(sd, seq));

	return 0;
}

int sysinfo(struct sysinfo *info) __weak __alias(__vdso_sysinfo);
