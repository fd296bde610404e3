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
static DECLARE_DELAYED_WORK(vdso_sysinfo_work, vdso_sysinfo_refresh);

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
	unsigned long totalram = totalram_pages();
	unsigned long totalswap = 0, freeswap = 0, total;
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

	get_avenrun(info->loads, 0, SI_LOAD_SHIFT - FSHIFT);
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
	/* Make @seq odd before the snapshot changes: vdso_sysinfo_read_begin() */
	smp_wmb();

	sd->boot_sec = sec;
	sd->boot_nsec = nsec;
	sd->info.uptime = sec + (nsec ? 1 : 0);
	vdso_sysinfo_fill(&sd->info);

	/* Complete the snapshot before @seq is even: vdso_sysinfo_read_retry() */
	smp_wmb();
	WRITE_ONCE(sd->seq, sd->seq + 1);
}
