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
 * The sysctl kernel.vdso_sysinfo (0 or 1, root only) switches the
 * snapshot off and on at run time, and vdso_sysinfo= on the kernel command
 * line sets it at boot. While it is off the snapshot is cleared (every
 * field zero, not valid), so that the vDSO makes the sysinfo system call
 * every time and the page holds nothing to read: for administrators whose
 * audit rules or tools must see every sysinfo() call. Tasks behind a
 * seccomp filter that decides on sysinfo do not need it: the vDSO shows
 * them a page of zeroes instead of the snapshot. The snapshot is also not
 * valid before the first update.
 */

#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/init.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/sched/loadavg.h>
#include <linux/sched/stat.h>
#include <linux/spinlock.h>
#include <linux/swap.h>
#include <linux/sysctl.h>
#include <linux/timekeeper_internal.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>
#include <vdso/sysinfo.h>
#include <vdso/vsyscall.h>

#include "timekeeping_internal.h"

/* kernel.vdso_sysinfo; written under vdso_sysinfo_lock */
static bool vdso_sysinfo_enabled = true;

/* Serialises the writer with the sysctl, which clears the snapshot. */
static DEFINE_RAW_SPINLOCK(vdso_sysinfo_lock);

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
	if (!READ_ONCE(vdso_sysinfo_enabled))
		return;
	WRITE_ONCE(vdso_sysinfo_bufferram, nr_blockdev_pages());
	queue_delayed_work(system_power_efficient_wq, &vdso_sysinfo_work,
			   round_jiffies_relative(HZ));
}

static void vdso_sysinfo_start_sampler(void)
{
	if (IS_ENABLED(CONFIG_BLOCK))
		queue_delayed_work(system_power_efficient_wq,
				   &vdso_sysinfo_work, 0);
}

/* Set or clear the switch; switching off clears the snapshot too. */
static void vdso_sysinfo_switch(bool on)
{
	struct vdso_sysinfo_data *sd = __arch_get_k_vdso_sysinfo_data();
	unsigned long flags;

	raw_spin_lock_irqsave(&vdso_sysinfo_lock, flags);
	WRITE_ONCE(vdso_sysinfo_enabled, on);
	if (!on && READ_ONCE(sd->valid)) {
		vdso_sysinfo_write_begin(sd);
		memset(&sd->info, 0, sizeof(sd->info));
		sd->boot_sec = 0;
		sd->boot_nsec = 0;
		sd->valid = 0;
		vdso_sysinfo_write_end(sd);
	}
	raw_spin_unlock_irqrestore(&vdso_sysinfo_lock, flags);
	if (on)
		vdso_sysinfo_start_sampler();
}

static int vdso_sysinfo_sysctl(const struct ctl_table *table, int write,
			       void *buffer, size_t *lenp, loff_t *ppos)
{
	bool on = READ_ONCE(vdso_sysinfo_enabled);
	struct ctl_table t = *table;
	int ret;

	t.data = &on;
	ret = proc_dobool(&t, write, buffer, lenp, ppos);
	if (!ret && write)
		vdso_sysinfo_switch(on);
	return ret;
}

static struct ctl_table vdso_sysinfo_sysctls[] = {
	{
		.procname	= "vdso_sysinfo",
		.maxlen		= sizeof(bool),
		.mode		= 0644,
		.proc_handler	= vdso_sysinfo_sysctl,
	},
};

static int __init vdso_sysinfo_init(void)
{
	register_sysctl_init("kernel", vdso_sysinfo_sysctls);
	if (READ_ONCE(vdso_sysinfo_enabled))
		vdso_sysinfo_start_sampler();
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

	raw_spin_lock(&vdso_sysinfo_lock);
	if (!vdso_sysinfo_enabled) {
		raw_spin_unlock(&vdso_sysinfo_lock);
		return;
	}

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
	raw_spin_unlock(&vdso_sysinfo_lock);
}
