// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel side of the vDSO sysinfo(): a copy of what sysinfo(2)
 * returns, refreshed on every timekeeping update.
 *
 * vdso_sysinfo_update() runs from update_vsyscall() with the raw
 * timekeeper_lock held and interrupts off, so every field is taken from
 * a source that can be read there without sleeping, without a spinlock_t
 * and without walking a list:
 *
 *   uptime	CLOCK_BOOTTIME from the timekeeper being published, rounded
 *		up like sysinfo(2); at most one timekeeping update old.
 *   loads	avenrun[], as get_avenrun() reports it.
 *   procs	nr_threads.
 *   totalram	totalram_pages().
 *   freeram	the global NR_FREE_PAGES counter.
 *   sharedram	the global NR_SHMEM counter.
 *   totalhigh, freehigh
 *		totalhigh_pages() and nr_free_highpages() (zero without
 *		CONFIG_HIGHMEM).
 *   totalswap, freeswap
 *		total_swap_pages and nr_swap_pages, read without swap_lock.
 *		These are the values si_swapinfo() returns except while a
 *		swapoff is in progress, when si_swapinfo() also counts the
 *		pages still in use on the area being removed.
 *   bufferram	nr_blockdev_pages() walks every block device inode under a
 *		spinlock_t, which is not allowed here. It is sampled about
 *		once a second from a work item instead (round_jiffies() to
 *		batch the wakeup with others), so it can be about a second
 *		old.
 *
 * The counters (all but bufferram) are at most one timekeeping update
 * old. The memory sizes are scaled to bytes and mem_unit is set to 1
 * exactly when do_sysinfo() would do so.
 *
 * vdso_sysinfo=off on the kernel command line leaves the snapshot not
 * valid, so that the vDSO makes the sysinfo system call every time: for
 * administrators whose seccomp filters, audit rules or container tools
 * must see every sysinfo() call. The snapshot is also not valid before
 * the first update.
 */

#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/init.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/sched/loadavg.h>
#include <linux/sched/stat.h>
#include <linux/swap.h>
#include <linux/timekeeper_internal.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>
#include <vdso/sysinfo.h>
#include <vdso/vsyscall.h>

#include "timekeeping_internal.h"

static bool vdso_sysinfo_enabled __ro_after_init = true;

static int __init vdso_sysinfo_setup(char *str)
{
	return kstrtobool(str, &vdso_sysinfo_enabled);
}
early_param("vdso_sysinfo", vdso_sysinfo_setup);

/* The snapshot is what do_sysinfo() fills in, in the 64-bit layout. */
static_assert(sizeof(struct vdso_sysinfo64) == sizeof(struct sysinfo));
static_assert(offsetof(struct vdso_sysinfo64, procs) == offsetof(struct sysinfo, procs));
static_assert(offsetof(struct vdso_sysinfo64, totalhigh) == offsetof(struct sysinfo, totalhigh));
static_assert(offsetof(struct vdso_sysinfo64, mem_unit) == offsetof(struct sysinfo, mem_unit));

/* Last value of nr_blockdev_pages(), sampled from process context. */
static unsigned long vdso_sysinfo_bufferram;

static void vdso_sysinfo_refresh(struct work_struct *work);
static DECLARE_DELAYED_WORK(vdso_sysinfo_work, vdso_sysinfo_refresh);

static void vdso_sysinfo_refresh(struct work_struct *work)
{
	WRITE_ONCE(vdso_sysinfo_bufferram, nr_blockdev_pages());
	queue_delayed_work(system_power_efficient_wq, &vdso_sysinfo_work,
			   round_jiffies_relative(HZ));
}

static int __init vdso_sysinfo_init(void)
{
	if (IS_ENABLED(CONFIG_BLOCK) && vdso_sysinfo_enabled)
		queue_delayed_work(system_power_efficient_wq,
				   &vdso_sysinfo_work, 0);
	return 0;
}
late_initcall(vdso_sysinfo_init);

static void vdso_sysinfo_fill(struct vdso_sysinfo64 *info)
{
	unsigned long totalram = totalram_pages();
	unsigned long totalswap = 0, freeswap = 0, total, loads[3];
	unsigned int shift = 0;

#ifdef CONFIG_SWAP
	totalswap = READ_ONCE(total_swap_pages);
	freeswap = get_nr_swap_pages();
#endif

	/*
	 * do_sysinfo() reports sizes in bytes (mem_unit = 1) when the sum
	 * of RAM and swap in bytes fits in an unsigned long, and in pages
	 * otherwise.
	 */
	total = totalram + totalswap;
	if (total >= totalram && total <= (ULONG_MAX >> PAGE_SHIFT))
		shift = PAGE_SHIFT;

	get_avenrun(loads, 0, SI_LOAD_SHIFT - FSHIFT);
	info->loads[0] = loads[0];
	info->loads[1] = loads[1];
	info->loads[2] = loads[2];
	info->procs = nr_threads;
	info->totalram = totalram << shift;
	info->freeram = global_zone_page_state(NR_FREE_PAGES) << shift;
	info->sharedram = global_node_page_state(NR_SHMEM) << shift;
	info->bufferram = READ_ONCE(vdso_sysinfo_bufferram) << shift;
	info->totalswap = totalswap << shift;
	info->freeswap = freeswap << shift;
	info->totalhigh = totalhigh_pages() << shift;
	info->freehigh = nr_free_highpages() << shift;
	info->mem_unit = shift ? 1 : PAGE_SIZE;
}

/**
 * vdso_sysinfo_update - Publish a new sysinfo snapshot to the vDSO
 * @tk:	The timekeeper being published by update_vsyscall()
 *
 * Called with the timekeeper lock held and interrupts disabled.
 */
void vdso_sysinfo_update(const struct timekeeper *tk)
{
	struct vdso_sysinfo_data *sd = __arch_get_k_vdso_sysinfo_data();
	u32 shift = tk->tkr_mono.shift;
	u64 nsec;
	s64 sec;

	if (!vdso_sysinfo_enabled)
		return;

	/*
	 * CLOCK_BOOTTIME as of this update, as update_vdso_data() computes
	 * it; the nanoseconds may add up to more than a second, which
	 * vdso_sysinfo_uptime() carries.
	 */
	sec = tk->xtime_sec + tk->wall_to_monotonic.tv_sec +
	      tk->monotonic_to_boot.tv_sec;
	nsec = (tk->tkr_mono.xtime_nsec >> shift) +
	       tk->wall_to_monotonic.tv_nsec + tk->monotonic_to_boot.tv_nsec;

	vdso_sysinfo_write_begin(sd);
	sd->boot_sec = sec;
	sd->boot_nsec = nsec;
	sd->info.uptime = vdso_sysinfo_uptime(sec, nsec);
	vdso_sysinfo_fill(&sd->info);
	sd->valid = 1;
	vdso_sysinfo_write_end(sd);
}
