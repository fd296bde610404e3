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
 * ktime_get*() reader on every CPU waits. All it does is check that the
 * publisher runs and, while it does (vdso_sysinfo_tick()), rewrite the
 * uptime next to the snapshot, compare jiffies (which the tick has just
 * advanced on this CPU) with the due time and, once a period, queue a
 * lazy irq_work. That work runs when the timekeeper lock has been
 * dropped (on the same tick's update_process_times(), or in the irq_work
 * thread on PREEMPT_RT), takes vdso_sysinfo_lock, stops the publisher or
 * sets the next due time, and rewrites the snapshot under its own
 * sequence count, from:
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
 * (plus the time for a worker to run). The publication's time is kept
 * (in jiffies), and once the snapshot is older than
 * VDSO_SYSINFO_MAX_AGE_MS the timekeeping update sets the uptime to 0,
 * which readers take as no snapshot: a publisher that stopped running
 * (an irq_work stuck pending on an offline CPU, a starved irq_work
 * thread) costs speed, never correctness. The uptime is CLOCK_BOOTTIME's
 * coarse base rounded up, rewritten on every timekeeping update from
 * CLOCK_MONOTONIC's coarse base, which the kernel updates whatever the
 * clocksource, and the boot offset, which update_vsyscall() keeps in the
 * same page for readers in a time namespace. The memory sizes are scaled
 * to bytes and mem_unit is set to 1 exactly when do_sysinfo() would do
 * so, and the snapshot is published a second time in the layout and
 * scaling of compat_sys_sysinfo() for 32-bit readers.
 *
 * The sysctl kernel.vdso_sysinfo (0 or 1, root only) switches the
 * snapshot off and on at run time; sysctl.kernel.vdso_sysinfo=0 on the
 * kernel command line is applied before the first user space process
 * runs, so before anything can have been published. While it is off the
 * snapshot is cleared (every field zero, not valid) and nothing is
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
#include <vdso/sysinfo.h>
#include <vdso/vsyscall.h>

#include "timekeeping_internal.h"

/* The period in whole ticks, and at least one */
#define VDSO_SYSINFO_PERIOD_TICKS \
	(DIV_ROUND_UP(VDSO_SYSINFO_PERIOD_MS * HZ, MSEC_PER_SEC) ?: 1)

/* How long the publisher runs after the last sysinfo(2) call */
#define VDSO_SYSINFO_LINGER_MS	2000

/*
 * Whether the publisher runs, and the jiffies value from which
 * update_vsyscall() queues the next publication. Together in a cache line
 * of their own: update_vsyscall() reads @vdso_sysinfo_active on every
 * timekeeping update, and both are written once a period while the
 * publisher runs, and never while it is stopped.
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
/* For tests, in debugfs: publications made, and a publisher made to stall */
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

/* The uptime as the snapshot's readers get it: coarse, rounded up */
static u32 vdso_sysinfo_uptime_now(void)
{
	struct timespec64 ts;

	ktime_get_coarse_boottime_ts64(&ts);
	return vdso_sysinfo_uptime(ts.tv_sec, ts.tv_nsec);
}

/* Gather the counters and publish them, under vdso_sysinfo_lock */
static void vdso_sysinfo_write(struct vdso_sysinfo_data *sd)
{
	unsigned long now = jiffies;

	if (vdso_sysinfo_stall())
		return;
	WRITE_ONCE(vdso_sysinfo_publisher.published, now);
	WRITE_ONCE(vdso_sysinfo_publisher.due, now + VDSO_SYSINFO_PERIOD_TICKS);
	/* Before the count: a reader that sees this publication sees it */
	WRITE_ONCE(sd->uptime, vdso_sysinfo_uptime_now());
	vdso_sysinfo_write_begin(sd);
	vdso_sysinfo_fill(&sd->info);
	vdso_sysinfo_fill32(&sd->info32, &sd->info);
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
 * vdso_sysinfo_tick - Keep the uptime current; queue the publication
 * @mono:	CLOCK_MONOTONIC's coarse base in the clock data, just updated
 *
 * Called by update_vsyscall(), inside the timekeeper's write section,
 * while the publisher runs. Rewrites the uptime from the coarse base
 * and the boot offset, which the kernel updates whatever the
 * clocksource, or sets it to 0 once the last publication is more than
 * VDSO_SYSINFO_MAX_AGE_MS old (in jiffies, which advance with that
 * base), so that readers make the system call: a publisher that stopped
 * running costs speed, never a stale answer. Once a period it queues the
 * irq_work, which gathers the counters once that section has ended.
 */
void vdso_sysinfo_tick(const struct vdso_timestamp *mono)
{
	struct vdso_sysinfo_data *sd = vdso_k_sysinfo_data;
	unsigned long now = jiffies;
	s64 sec = mono->sec;
	u32 nsec = mono->nsec;

	if (time_after(now, READ_ONCE(vdso_sysinfo_publisher.published) +
			    msecs_to_jiffies(VDSO_SYSINFO_MAX_AGE_MS))) {
		WRITE_ONCE(sd->uptime, 0);
	} else {
		vdso_sysinfo_add(&sec, &nsec, sd->boot_sec, sd->boot_nsec);
		WRITE_ONCE(sd->uptime, vdso_sysinfo_uptime(sec, nsec));
	}
	if (time_after_eq(now, READ_ONCE(vdso_sysinfo_publisher.due)))
		irq_work_queue(&vdso_sysinfo_work);
}

/**
 * vdso_sysinfo_set_boot - Write the boot offset next to the snapshot
 * @offs_boot:	CLOCK_BOOTTIME minus CLOCK_MONOTONIC
 *
 * Called by update_vsyscall() when the offset changed (on resume), inside
 * the clock data's write section: readers in a time namespace read it
 * under that sequence count, with CLOCK_MONOTONIC's coarse base.
 */
void vdso_sysinfo_set_boot(ktime_t offs_boot)
{
	struct vdso_sysinfo_data *sd = vdso_k_sysinfo_data;
	struct timespec64 ts = ktime_to_timespec64(offs_boot);

	vdso_sysinfo_publisher.offs_boot = offs_boot;
	WRITE_ONCE(sd->boot_sec, ts.tv_sec);
	WRITE_ONCE(sd->boot_nsec, ts.tv_nsec);
}

/**
 * vdso_sysinfo_demand - Note a sysinfo(2) call; start the publisher
 * @bufferram:	nr_blockdev_pages(), as the system call has just computed it
 *
 * Called by do_sysinfo(), in process context. A vDSO reader makes the
 * system call when it finds no valid and fresh snapshot, so this is where
 * publication starts: at once, so that the caller's next vDSO call finds
 * the snapshot, and from then on every period until nobody has made the
 * system call for VDSO_SYSINFO_LINGER_MS. Costs the system call one load
 * while the publisher runs, and one store per CPU and tick at most.
 */
void vdso_sysinfo_demand(unsigned long bufferram)
{
	unsigned long flags, now = jiffies;
	bool started = false;

	if (!READ_ONCE(vdso_sysinfo_enabled))
		return;
	if (READ_ONCE(vdso_sysinfo_demanded) != now)
		WRITE_ONCE(vdso_sysinfo_demanded, now);
	if (READ_ONCE(vdso_sysinfo_publisher.active))
		return;

	raw_spin_lock_irqsave(&vdso_sysinfo_lock, flags);
	if (vdso_sysinfo_enabled && !vdso_sysinfo_publisher.active) {
		WRITE_ONCE(vdso_sysinfo_bufferram, bufferram);
		WRITE_ONCE(vdso_sysinfo_publisher.active, true);
		vdso_sysinfo_write(vdso_k_sysinfo_data);
		started = true;
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
		WRITE_ONCE(sd->uptime, 0);
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
 * set to 1, makes every publication a no-op, as if the irq_work had
 * stopped running, so that a test can see readers refuse the aging
 * snapshot.
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
