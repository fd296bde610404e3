// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel side of the vDSO sysinfo(): a copy of what sysinfo(2)
 * returns, published every VDSO_SYSINFO_PERIOD_MS milliseconds.
 *
 * Publication is driven from update_vsyscall(), but the counters are not
 * gathered there: update_vsyscall() runs inside the timekeeper's write
 * section, with interrupts off, where every ktime_get*() reader on every
 * CPU waits. All it does is compare jiffies (which the tick has just
 * advanced on this CPU) with vdso_sysinfo_due and, once a period, queue a
 * lazy irq_work. That work runs when the timekeeper lock
 * has been dropped (on the same tick's update_process_times(), or in the
 * irq_work thread on PREEMPT_RT), takes vdso_sysinfo_lock, sets the next
 * due time and rewrites the snapshot under its own sequence count:
 *
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
 *		spinlock_t, which is not allowed in an irq_work. A deferrable
 *		work item samples it about once a second, without waking an
 *		idle CPU for it, and the last sample is published.
 *
 * So the counters are at most one period old (the period rounded to
 * whole ticks, plus the time to the irq_work), bufferram about a second
 * or, on an idle machine, until a CPU wakes up. The uptime is not in the
 * snapshot: readers compute it from CLOCK_BOOTTIME's base in the clock
 * data, which is at most one tick old. The memory sizes are scaled to
 * bytes and mem_unit is set to 1 exactly when do_sysinfo() would do so,
 * and the snapshot is published a second time in the layout and scaling
 * of compat_sys_sysinfo() for 32-bit readers.
 *
 * The sysctl kernel.vdso_sysinfo (0 or 1, root only) switches the
 * snapshot off and on at run time, and vdso_sysinfo= on the kernel command
 * line sets it at boot. While it is off the snapshot is cleared (every
 * field zero, not valid), so that the vDSO makes the sysinfo system call
 * every time and the page holds nothing to read: for administrators whose
 * audit rules or tools must see every sysinfo() call. Tasks behind a
 * seccomp filter that decides on sysinfo do not need it: the vDSO shows
 * them a page of zeroes instead of the snapshot. The snapshot is first
 * published after the first bufferram sample, at late_initcall time.
 */

#include <linux/blkdev.h>
#include <linux/cache.h>
#include <linux/highmem.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/sched/loadavg.h>
#include <linux/sched/stat.h>
#include <linux/spinlock.h>
#include <linux/swap.h>
#include <linux/sysctl.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>
#include <vdso/sysinfo.h>
#include <vdso/vsyscall.h>

#include "timekeeping_internal.h"

/* The period in whole ticks, and at least one */
#define VDSO_SYSINFO_PERIOD_TICKS \
	(DIV_ROUND_UP(VDSO_SYSINFO_PERIOD_MS * HZ, MSEC_PER_SEC) ?: 1)

/*
 * The jiffies value from which update_vsyscall() queues the next
 * publication; ULONG_MAX while the snapshot is switched off or not yet
 * started (64-bit jiffies do not wrap). Alone in its cache line:
 * update_vsyscall() reads it on every timekeeping update, and it is
 * written once a period.
 */
unsigned long vdso_sysinfo_due ____cacheline_aligned_in_smp = ULONG_MAX;

/* kernel.vdso_sysinfo; written under vdso_sysinfo_lock */
static bool vdso_sysinfo_enabled = true;

/*
 * Serialises the publications (an irq_work may run on a second CPU while
 * it runs on the first) with the sysctl, which clears the snapshot.
 */
static DEFINE_RAW_SPINLOCK(vdso_sysinfo_lock);

/* "vdso_sysinfo" alone switches it on; an invalid value keeps the default */
static int __init vdso_sysinfo_setup(char *str)
{
	if (!str) {
		vdso_sysinfo_enabled = true;
		return 0;
	}
	return kstrtobool(str, &vdso_sysinfo_enabled);
}
early_param("vdso_sysinfo", vdso_sysinfo_setup);

/* The snapshot is what do_sysinfo() fills in, in the 64-bit layout. */
static_assert(sizeof(struct vdso_sysinfo64) == sizeof(struct sysinfo));
static_assert(offsetof(struct vdso_sysinfo64, procs) == offsetof(struct sysinfo, procs));
static_assert(offsetof(struct vdso_sysinfo64, totalhigh) == offsetof(struct sysinfo, totalhigh));
static_assert(offsetof(struct vdso_sysinfo64, mem_unit) == offsetof(struct sysinfo, mem_unit));
/* ... and what compat_sys_sysinfo() stores, in struct compat_sysinfo's */
static_assert(sizeof(struct vdso_sysinfo32) == 64);
static_assert(offsetof(struct vdso_sysinfo32, procs) == 40);
static_assert(offsetof(struct vdso_sysinfo32, mem_unit) == 52);

/* Last value of nr_blockdev_pages(), sampled from process context. */
static unsigned long vdso_sysinfo_bufferram;

static void vdso_sysinfo_sample(struct work_struct *work);
static DECLARE_DEFERRABLE_WORK(vdso_sysinfo_sampler, vdso_sysinfo_sample);

static void vdso_sysinfo_sample(struct work_struct *work)
{
	if (!READ_ONCE(vdso_sysinfo_enabled))
		return;
	WRITE_ONCE(vdso_sysinfo_bufferram, nr_blockdev_pages());
	queue_delayed_work(system_power_efficient_wq, &vdso_sysinfo_sampler,
			   round_jiffies_relative(HZ));
}

/*
 * Start publishing: sample bufferram first, so that a valid snapshot
 * never carries a bufferram that was never sampled, then let the next
 * timekeeping update queue the first publication (unless the switch was
 * turned off again meanwhile).
 */
static void vdso_sysinfo_start(void)
{
	unsigned long flags;

	if (IS_ENABLED(CONFIG_BLOCK))
		WRITE_ONCE(vdso_sysinfo_bufferram, nr_blockdev_pages());
	raw_spin_lock_irqsave(&vdso_sysinfo_lock, flags);
	if (vdso_sysinfo_enabled && vdso_sysinfo_due == ULONG_MAX)
		WRITE_ONCE(vdso_sysinfo_due, 0);
	raw_spin_unlock_irqrestore(&vdso_sysinfo_lock, flags);
	if (IS_ENABLED(CONFIG_BLOCK))
		queue_delayed_work(system_power_efficient_wq,
				   &vdso_sysinfo_sampler,
				   round_jiffies_relative(HZ));
}

/* Set or clear the switch; switching off clears the snapshot too. */
static void vdso_sysinfo_switch(bool on)
{
	struct vdso_sysinfo_data *sd = __arch_get_k_vdso_sysinfo_data();
	unsigned long flags;

	raw_spin_lock_irqsave(&vdso_sysinfo_lock, flags);
	WRITE_ONCE(vdso_sysinfo_enabled, on);
	if (!on) {
		WRITE_ONCE(vdso_sysinfo_due, ULONG_MAX);
		/* Leaves @seq even: not valid */
		vdso_sysinfo_write_begin(sd);
		memset(&sd->info, 0, sizeof(sd->info));
		memset(&sd->info32, 0, sizeof(sd->info32));
	}
	raw_spin_unlock_irqrestore(&vdso_sysinfo_lock, flags);
	if (on)
		vdso_sysinfo_start();
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
		vdso_sysinfo_start();
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
	info->uptime = 0;
	info->loads[0] = loads[0];
	info->loads[1] = loads[1];
	info->loads[2] = loads[2];
	/* nr_threads changes under tasklist_lock; a stale value will do */
	info->procs = data_race(nr_threads);
	info->pad = 0;
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

/*
 * What compat_sys_sysinfo() makes of do_sysinfo()'s result: when a total
 * does not fit in 32 bits, mem_unit is raised to the page size and every
 * size shifted down to match; then each field is truncated to 32 bits.
 */
static void vdso_sysinfo_fill32(struct vdso_sysinfo32 *c, const struct vdso_sysinfo64 *s)
{
	unsigned int bitcount = 0;
	u32 mem_unit = s->mem_unit;

	if (upper_32_bits(s->totalram) || upper_32_bits(s->totalswap)) {
		while (mem_unit < PAGE_SIZE) {
			mem_unit <<= 1;
			bitcount++;
		}
	}

	c->uptime = 0;
	c->loads[0] = s->loads[0];
	c->loads[1] = s->loads[1];
	c->loads[2] = s->loads[2];
	c->totalram = s->totalram >> bitcount;
	c->freeram = s->freeram >> bitcount;
	c->sharedram = s->sharedram >> bitcount;
	c->bufferram = s->bufferram >> bitcount;
	c->totalswap = s->totalswap >> bitcount;
	c->freeswap = s->freeswap >> bitcount;
	c->procs = s->procs;
	c->pad = 0;
	c->totalhigh = s->totalhigh >> bitcount;
	c->freehigh = s->freehigh >> bitcount;
	c->mem_unit = mem_unit;
	c->__pad[0] = 0;
	c->__pad[1] = 0;
}

/* Gather the counters and publish them; the irq_work's function. */
static void vdso_sysinfo_publish(struct irq_work *work)
{
	struct vdso_sysinfo_data *sd = __arch_get_k_vdso_sysinfo_data();
	unsigned long flags;

	raw_spin_lock_irqsave(&vdso_sysinfo_lock, flags);
	if (vdso_sysinfo_due != ULONG_MAX) {
		WRITE_ONCE(vdso_sysinfo_due, jiffies + VDSO_SYSINFO_PERIOD_TICKS);
		vdso_sysinfo_write_begin(sd);
		vdso_sysinfo_fill(&sd->info);
		vdso_sysinfo_fill32(&sd->info32, &sd->info);
		vdso_sysinfo_write_end(sd);
	}
	raw_spin_unlock_irqrestore(&vdso_sysinfo_lock, flags);
}

static struct irq_work vdso_sysinfo_work = IRQ_WORK_INIT_LAZY(vdso_sysinfo_publish);

/**
 * vdso_sysinfo_queue - Queue the next publication of the snapshot
 *
 * Called by update_vsyscall(), inside the timekeeper's write section,
 * once the snapshot is due (see vdso_sysinfo_due). The irq_work gathers
 * the counters once that section has ended.
 */
void vdso_sysinfo_queue(void)
{
	irq_work_queue(&vdso_sysinfo_work);
}
