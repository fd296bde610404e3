// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel side of the vDSO sysinfo(): a copy of what sysinfo(2)
 * returns, published every VDSO_SYSINFO_PERIOD_MS milliseconds while
 * somebody reads it.
 *
 * Publication on demand. The kernel cannot see a vDSO read, but it sees
 * the system call: every sysinfo(2) call (do_sysinfo()) notes the time
 * in vdso_sysinfo_demanded and, when the publisher is stopped, publishes
 * at once and starts it. The publisher stops VDSO_SYSINFO_LINGER_MS
 * after the last system call and marks the snapshot not valid; the next
 * vDSO read then makes the system call, which starts it again. So a
 * process that reads in a loop pays one system call about every
 * VDSO_SYSINFO_LINGER_MS, and a machine where nobody calls sysinfo()
 * pays one load and branch on each timekeeping update: no irq_work, no
 * block device walk, no cache line written.
 *
 * While it runs, publication is driven from update_vsyscall(), but the
 * counters are not gathered there: update_vsyscall() runs inside the
 * timekeeper's write section, with interrupts off, where every
 * ktime_get*() reader on every CPU waits. While the publisher is stopped
 * it costs one load and branch there. While it runs (vdso_sysinfo_tick())
 * it stores CLOCK_BOOTTIME's coarse base next to the snapshot (the
 * page's @now, which nothing else writes), compares jiffies (which the
 * tick has just advanced on this CPU) with the due time and, once a
 * period, queues a lazy irq_work. That work runs when the timekeeper
 * lock has been dropped (on the same tick's update_process_times(), or
 * in the irq_work thread on PREEMPT_RT), takes vdso_sysinfo_lock, stops
 * the publisher or sets the next due time, and rewrites the snapshot and
 * the time of the publication under its own sequence count, from:
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
 *		spinlock_t, which is not allowed in an irq_work. The system
 *		call that starts the publisher hands over the value it has
 *		just computed, and while the publisher runs a work item
 *		samples it once a second (not deferrable: it runs only while
 *		somebody reads, and must not wait for an idle CPU to wake).
 *
 * So the counters are at most one period old (the period rounded to
 * whole ticks, plus the time to the irq_work), bufferram about a second
 * (plus the time for a worker to run). Readers refuse a snapshot that
 * @now says is older than VDSO_SYSINFO_MAX_AGE_MS, and make the system
 * call, which publishes again at once when the snapshot is late,
 * whatever the irq_work's state: a publisher that stopped running (an
 * irq_work stuck pending on an offline CPU, a starved irq_work thread)
 * costs one system call per VDSO_SYSINFO_MAX_AGE_MS, never a stale
 * answer. The uptime is the later of @now and the publication's time
 * (after a restart @now is older until the next tick), rounded up: a
 * reader in a time namespace adds its offset first. The memory sizes are
 * scaled by sysinfo(2)'s own helpers, sysinfo_scale_memory() and, for the
 * second copy that 32-bit readers take, sysinfo_scale_compat().
 *
 * The sysctl kernel.vdso_sysinfo (0 or 1, root only) switches the
 * snapshot off and on at run time; sysctl.kernel.vdso_sysinfo=0 on the
 * kernel command line is applied before the first user space process
 * runs, so before anything can have been published. While it is off the
 * snapshot is cleared (its fields zero, not valid) and nothing is
 * published, so that the vDSO makes the sysinfo system call every time
 * and the page holds nothing to read: for administrators whose audit
 * rules or tools must see every sysinfo() call. Tasks behind a seccomp
 * filter that decides on sysinfo do not need it: the vDSO shows them a
 * page of zeroes instead of the snapshot.
 */

#include <linux/blkdev.h>
#include <linux/cache.h>
#include <linux/debugfs.h>
#include <linux/highmem.h>
#include <linux/init.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/sched/loadavg.h>
#include <linux/sched/stat.h>
#include <linux/spinlock.h>
#include <linux/swap.h>
#include <linux/sysctl.h>
#include <linux/timekeeping.h>
#include <linux/vdso_sysinfo.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>
#include <vdso/datapage.h>
#include <vdso/sysinfo.h>

#include "vsysinfo.h"

/* The period in whole ticks, and at least one */
#define VDSO_SYSINFO_PERIOD_TICKS \
	(DIV_ROUND_UP(VDSO_SYSINFO_PERIOD_MS * HZ, MSEC_PER_SEC) ?: 1)

/* How long the publisher runs after the last sysinfo(2) call */
#define VDSO_SYSINFO_LINGER_MS	2000

/*
 * Whether the publisher runs, the jiffies value from which
 * update_vsyscall() queues the next publication, and that of the last
 * publication. Together in a cache line of their own: update_vsyscall()
 * reads @active on every timekeeping update, and the others are written
 * once a period while the publisher runs, and never while it is stopped;
 * all of them under vdso_sysinfo_lock.
 */
struct vdso_sysinfo_publisher vdso_sysinfo_publisher ____cacheline_aligned_in_smp;

/* The jiffies of the last sysinfo(2) call, while the snapshot is on */
static unsigned long vdso_sysinfo_demanded;

/* kernel.vdso_sysinfo; written under vdso_sysinfo_lock */
static bool vdso_sysinfo_enabled = true;

/*
 * Serialises the publications (an irq_work may run on a second CPU while
 * it runs on the first, and the system call publishes too) with the
 * sysctl, which clears the snapshot.
 */
static DEFINE_RAW_SPINLOCK(vdso_sysinfo_lock);

#ifdef CONFIG_DEBUG_FS
/* For tests, in debugfs: publications made, and an irq_work made to stall */
static unsigned long vdso_sysinfo_publications;
static bool vdso_sysinfo_stalled;
#define vdso_sysinfo_stall()	READ_ONCE(vdso_sysinfo_stalled)
#else
#define vdso_sysinfo_stall()	false
#endif

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
static DECLARE_DELAYED_WORK(vdso_sysinfo_sampler, vdso_sysinfo_sample);

/* Sample bufferram once a second while the publisher runs */
static void vdso_sysinfo_sample(struct work_struct *work)
{
	if (!READ_ONCE(vdso_sysinfo_publisher.active))
		return;
	WRITE_ONCE(vdso_sysinfo_bufferram, nr_blockdev_pages());
	queue_delayed_work(system_unbound_wq, &vdso_sysinfo_sampler,
			   round_jiffies_relative(HZ));
}

/*
 * What do_sysinfo() returns, from the sources si_meminfo() and
 * si_swapinfo() read that an irq_work may read, scaled by the helpers
 * sysinfo(2) uses: in do_sysinfo()'s layout and units, and as
 * compat_sys_sysinfo() scales it for 32-bit tasks.
 */
static void vdso_sysinfo_fill(struct vdso_sysinfo_data *sd)
{
	struct sysinfo s;

	/* Copied to user space as it is: no stale padding */
	memset(&s, 0, sizeof(s));
	get_avenrun(s.loads, 0, SI_LOAD_SHIFT - FSHIFT);
	/* nr_threads changes under tasklist_lock; a stale value will do */
	s.procs = data_race(nr_threads);
	s.totalram = totalram_pages();
	s.freeram = global_zone_page_state(NR_FREE_PAGES);
	s.sharedram = global_node_page_state(NR_SHMEM);
	s.bufferram = READ_ONCE(vdso_sysinfo_bufferram);
#ifdef CONFIG_SWAP
	s.totalswap = READ_ONCE(total_swap_pages);
	s.freeswap = get_nr_swap_pages();
#endif
	s.totalhigh = totalhigh_pages();
	s.freehigh = nr_free_highpages();
	s.mem_unit = PAGE_SIZE;
	sysinfo_scale_memory(&s);
	memcpy(&sd->info, &s, sizeof(sd->info));

	sysinfo_scale_compat(&s);
	sd->info32 = (struct vdso_sysinfo32) {
		.loads		= { s.loads[0], s.loads[1], s.loads[2] },
		.totalram	= s.totalram,
		.freeram	= s.freeram,
		.sharedram	= s.sharedram,
		.bufferram	= s.bufferram,
		.totalswap	= s.totalswap,
		.freeswap	= s.freeswap,
		.procs		= s.procs,
		.totalhigh	= s.totalhigh,
		.freehigh	= s.freehigh,
		.mem_unit	= s.mem_unit,
	};
}

/* CLOCK_BOOTTIME's coarse base in the unit of the page's @now */
static u64 vdso_sysinfo_time_now(void)
{
	struct timespec64 ts;

	ktime_get_coarse_boottime_ts64(&ts);
	return vdso_sysinfo_time(ts.tv_sec, ts.tv_nsec);
}

/* Gather the counters and publish them, under vdso_sysinfo_lock */
static void vdso_sysinfo_write(struct vdso_sysinfo_data *sd)
{
	unsigned long now = jiffies;

	lockdep_assert_held(&vdso_sysinfo_lock);
	WRITE_ONCE(vdso_sysinfo_publisher.published, now);
	WRITE_ONCE(vdso_sysinfo_publisher.due, now + VDSO_SYSINFO_PERIOD_TICKS);
	vdso_sysinfo_write_begin(sd);
	sd->published = vdso_sysinfo_time_now();
	vdso_sysinfo_fill(sd);
	vdso_sysinfo_write_end(sd);
#ifdef CONFIG_DEBUG_FS
	WRITE_ONCE(vdso_sysinfo_publications, vdso_sysinfo_publications + 1);
#endif
}

/*
 * The irq_work's function: publish, or stop the publisher when nobody
 * has made the system call for VDSO_SYSINFO_LINGER_MS. Stopping leaves
 * the snapshot not valid, so that the next reader makes the system call.
 */
static void vdso_sysinfo_publish(struct irq_work *work)
{
	struct vdso_sysinfo_data *sd = vdso_k_sysinfo_data;
	unsigned long flags;

	if (vdso_sysinfo_stall())
		return;
	raw_spin_lock_irqsave(&vdso_sysinfo_lock, flags);
	if (!vdso_sysinfo_publisher.active)
		goto out;
	if (time_after(jiffies, READ_ONCE(vdso_sysinfo_demanded) +
			       msecs_to_jiffies(VDSO_SYSINFO_LINGER_MS))) {
		WRITE_ONCE(vdso_sysinfo_publisher.active, false);
		/* Leaves @seq even: not valid */
		vdso_sysinfo_write_begin(sd);
		goto out;
	}
	vdso_sysinfo_write(sd);
out:
	raw_spin_unlock_irqrestore(&vdso_sysinfo_lock, flags);
}

static struct irq_work vdso_sysinfo_work = IRQ_WORK_INIT_LAZY(vdso_sysinfo_publish);

/**
 * vdso_sysinfo_tick - Keep the snapshot's clock current; queue the publication
 * @mono:	CLOCK_MONOTONIC's coarse base in the clock data, just updated
 * @offs_boot:	CLOCK_BOOTTIME minus CLOCK_MONOTONIC (the time spent in suspend)
 *
 * Called by update_vsyscall(), inside the timekeeper's write section and
 * the clock data's, while the publisher runs. Stores CLOCK_BOOTTIME's
 * coarse base, from values the kernel updates whatever the clocksource,
 * into the page's @now, which only this function writes: before the
 * clock data's sequence count ends its write, so that a reader that saw
 * the new coarse clock sees an uptime at least as late. Readers measure
 * the snapshot's age against it, so a publisher that stopped running
 * costs speed, never a stale answer. Once a period it queues the
 * irq_work, which gathers the counters once the section has ended.
 */
void vdso_sysinfo_tick(const struct vdso_timestamp *mono, ktime_t offs_boot)
{
	s64 sec = mono->sec;
	u32 nsec = mono->nsec;

	/* Not zero only after a suspend */
	if (unlikely(offs_boot)) {
		struct timespec64 ts = ktime_to_timespec64(ktime_add(offs_boot, nsec));

		sec += ts.tv_sec;
		nsec = ts.tv_nsec;
	}
	WRITE_ONCE(vdso_k_sysinfo_data->now, vdso_sysinfo_time(sec, nsec));
	if (time_after_eq(jiffies, READ_ONCE(vdso_sysinfo_publisher.due)))
		irq_work_queue(&vdso_sysinfo_work);
}

/* Whether the last publication is a period late: the irq_work did not run */
static bool vdso_sysinfo_late(unsigned long now)
{
	return time_after(now, READ_ONCE(vdso_sysinfo_publisher.published) +
			       2 * VDSO_SYSINFO_PERIOD_TICKS);
}

/**
 * vdso_sysinfo_demand - Note a sysinfo(2) call; publish when needed
 * @bufferram:	nr_blockdev_pages(), as the system call has just computed it
 *
 * Called by do_sysinfo(), in process context. A vDSO reader makes the
 * system call when it finds no valid and fresh snapshot, so this is where
 * publication starts: at once, so that the caller's next vDSO call finds
 * the snapshot, and from then on every period until nobody has made the
 * system call for VDSO_SYSINFO_LINGER_MS. It also publishes at once when
 * the publisher runs but its last publication is late, whatever the
 * irq_work's state: an irq_work that cannot run (pending on a CPU that
 * went offline, on PREEMPT_RT) costs its readers one system call per
 * VDSO_SYSINFO_MAX_AGE_MS. Costs the system call two loads while the
 * publisher runs, and one store per CPU and tick at most.
 */
void vdso_sysinfo_demand(unsigned long bufferram)
{
	unsigned long flags, now = jiffies;
	bool started = false;

	if (!READ_ONCE(vdso_sysinfo_enabled))
		return;
	if (READ_ONCE(vdso_sysinfo_demanded) != now)
		WRITE_ONCE(vdso_sysinfo_demanded, now);
	if (READ_ONCE(vdso_sysinfo_publisher.active) && !vdso_sysinfo_late(now))
		return;

	raw_spin_lock_irqsave(&vdso_sysinfo_lock, flags);
	if (vdso_sysinfo_enabled &&
	    (!vdso_sysinfo_publisher.active || vdso_sysinfo_late(now))) {
		started = !vdso_sysinfo_publisher.active;
		WRITE_ONCE(vdso_sysinfo_bufferram, bufferram);
		vdso_sysinfo_write(vdso_k_sysinfo_data);
		/* @due before @active: pairs with vdso_sysinfo_running() */
		smp_store_release(&vdso_sysinfo_publisher.active, true);
	}
	raw_spin_unlock_irqrestore(&vdso_sysinfo_lock, flags);
	if (started && IS_ENABLED(CONFIG_BLOCK))
		queue_delayed_work(system_unbound_wq, &vdso_sysinfo_sampler,
				   round_jiffies_relative(HZ));
}

/* Set or clear the switch; switching off stops and clears the snapshot. */
static void vdso_sysinfo_switch(bool on)
{
	struct vdso_sysinfo_data *sd = vdso_k_sysinfo_data;
	unsigned long flags;

	raw_spin_lock_irqsave(&vdso_sysinfo_lock, flags);
	WRITE_ONCE(vdso_sysinfo_enabled, on);
	if (!on) {
		WRITE_ONCE(vdso_sysinfo_publisher.active, false);
		/* Leaves @seq even: not valid */
		vdso_sysinfo_write_begin(sd);
		sd->published = 0;
		memset(&sd->info, 0, sizeof(sd->info));
		memset(&sd->info32, 0, sizeof(sd->info32));
	}
	raw_spin_unlock_irqrestore(&vdso_sysinfo_lock, flags);
}

static int vdso_sysinfo_sysctl(const struct ctl_table *table, int write,
			       void *buffer, size_t *lenp, loff_t *ppos)
{
	bool on = READ_ONCE(vdso_sysinfo_enabled);
	const struct ctl_table t = {
		.procname	= table->procname,
		.data		= &on,
		.maxlen		= sizeof(on),
		.mode		= table->mode,
	};
	int ret;

	ret = proc_dobool(&t, write, buffer, lenp, ppos);
	if (!ret && write)
		vdso_sysinfo_switch(on);
	return ret;
}

static vdso_sysinfo_ctl_table vdso_sysinfo_sysctls[] = {
	{
		.procname	= "vdso_sysinfo",
		.maxlen		= sizeof(bool),
		.mode		= 0644,
		.proc_handler	= vdso_sysinfo_sysctl,
	},
};

#ifdef CONFIG_DEBUG_FS
/*
 * vdso_sysinfo/publications counts the publications, so that a test can
 * see that nothing is published while nobody reads; vdso_sysinfo/stall,
 * set to 1, makes the irq_work a no-op, as if it could not run (pending
 * on an offline CPU), so that a test can see readers refuse the aging
 * snapshot and their system call publish it again.
 */
static void __init vdso_sysinfo_debugfs(void)
{
	struct dentry *dir = debugfs_create_dir("vdso_sysinfo", NULL);

	debugfs_create_ulong("publications", 0400, dir, &vdso_sysinfo_publications);
	debugfs_create_bool("stall", 0600, dir, &vdso_sysinfo_stalled);
}
#else
static inline void vdso_sysinfo_debugfs(void) { }
#endif

static int __init vdso_sysinfo_init(void)
{
	register_sysctl_init("kernel", vdso_sysinfo_sysctls);
	vdso_sysinfo_debugfs();
	return 0;
}
late_initcall(vdso_sysinfo_init);
