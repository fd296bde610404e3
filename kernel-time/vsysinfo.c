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
 *		spinlock_t, which is not allowed here. It is sampled once a
 *		second from a deferrable work item instead, so it can be about
 *		a second old (longer on an idle CPU, where it does not change).
 *
 * The counters (all but bufferram) are at most one timekeeping update
 * old. The memory sizes are scaled to bytes and mem_unit is set to 1
 * exactly when do_sysinfo() would do so.
 */

#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/init.h>
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

/* Last value of nr_blockdev_pages(), sampled from process context. */
static unsigned long vdso_sysinfo_bufferram;

static void vdso_sysinfo_refresh(struct work_struct *work);
static DECLARE_DEFERRABLE_WORK(vdso_sysinfo_work, vdso_sysinfo_refresh);

static void vdso_sysinfo_refresh(struct work_struct *work)
{
	WRITE_ONCE(vdso_sysinfo_bufferram, nr_blockdev_pages());
	queue_delayed_work(system_power_efficient_wq, &vdso_sysinfo_work,
			   round_jiffies_relative(HZ));
}

static int __init vdso_sysinfo_init(void)
{
	if (IS_ENABLED(CONFIG_BLOCK))
		queue_delayed_work(system_power_efficient_wq,
				   &vdso_sysinfo_work, 0);
	return 0;
}
late_initcall(vdso_sysinfo_init);

static void vdso_sysinfo_fill(struct sysinfo *info)
{
	unsigned long total;
	unsigned int shift;

	get_avenrun(info->loads, 0, SI_LOAD_SHIFT - FSHIFT);
	info->procs = nr_threads;

	info->totalram = totalram_pages();
	info->freeram = global_zone_page_state(NR_FREE_PAGES);
	info->sharedram = global_node_page_state(NR_SHMEM);
	info->bufferram = READ_ONCE(vdso_sysinfo_bufferram);
	info->totalhigh = totalhigh_pages();
	info->freehigh = nr_free_highpages();
#ifdef CONFIG_SWAP
	info->totalswap = READ_ONCE(total_swap_pages);
	info->freeswap = get_nr_swap_pages();
#else
	info->totalswap = 0;
	info->freeswap = 0;
#endif

	/*
	 * do_sysinfo() reports sizes in bytes (mem_unit = 1) when the sum
	 * of RAM and swap in bytes fits in an unsigned long, and in pages
	 * otherwise.
	 */
	info->mem_unit = PAGE_SIZE;
	total = info->totalram + info->totalswap;
	if (total < info->totalram)
		return;
	shift = ilog2(PAGE_SIZE);
	if (total > (ULONG_MAX >> shift))
		return;

	info->mem_unit = 1;
	info->totalram <<= shift;
	info->freeram <<= shift;
	info->sharedram <<= shift;
	info->bufferram <<= shift;
	info->totalswap <<= shift;
	info->freeswap <<= shift;
	info->totalhigh <<= shift;
	info->freehigh <<= shift;
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

	/* CLOCK_BOOTTIME as of this update, as update_vdso_data() does */
	sec = tk->xtime_sec + tk->wall_to_monotonic.tv_sec +
	      tk->monotonic_to_boot.tv_sec;
	nsec = (tk->tkr_mono.xtime_nsec >> shift) +
	       tk->wall_to_monotonic.tv_nsec + tk->monotonic_to_boot.tv_nsec;
	while (nsec >= NSEC_PER_SEC) {
		nsec -= NSEC_PER_SEC;
		sec++;
	}

	WRITE_ONCE(sd->seq, sd->seq + 1);
	smp_wmb();

	sd->boot_sec = sec;
	sd->boot_nsec = nsec;
	sd->info.uptime = sec + (nsec ? 1 : 0);
	vdso_sysinfo_fill(&sd->info);

	smp_wmb();
	WRITE_ONCE(sd->seq, sd->seq + 1);
}
