// SPDX-License-Identifier: GPL-2.0
/*
 * vsysinfo_follow.c: each counter of sysinfo() in the vDSO follows the
 * kernel's within its publication period.
 *
 * Part of the vsysinfo project's own proof, not of the kernel series: it
 * depends on the machine (swap, a block device to read, more than 4 GiB)
 * and on timing. Each case moves one field at a time, by tens of MiB,
 * and checks that the vDSO shows the move within a publication period
 * (plus a tick): procs after fork(), freeram after munmap() of a large
 * mapping, sharedram after filling and unmapping a shared anonymous
 * mapping, freeswap after MADV_PAGEOUT and munmap() (needs swap with
 * room, $VDSO_SYSINFO_SWAP names the device that must have it), and
 * bufferram after reading a block device and POSIX_FADV_DONTNEED on it
 * ($VDSO_SYSINFO_BLKDEV, default /dev/ram0; sampled about once a
 * second, so within BUFFERRAM_MS). A field published as 0 or as a stale
 * value never shows the move. A 32-bit build also checks the scaling of
 * compat_sys_sysinfo() on a machine with more than 4 GiB.
 *
 * Built from the kernel tree's tools/testing/selftests/vDSO helpers, for
 * every x86 ABI, like the kselftest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include "kselftest.h"
#include "parse_vdso.h"
#include "vdso_call.h"
#include "vdso_sysinfo_helpers.h"

/* What a large mapping holds, and how much of it must show as freed */
#define BIG_MAPPING	(256UL << 20)
#define BIG_FREED	(128UL << 20)
#define FOLLOW_SAMPLES	4
#define MOVE_BYTES	(64UL << 20)
#define MOVE_SHOWN	(48UL << 20)
#define MOVE_SLACK	(4ULL << 20)
#define SWAP_NEEDED	(MOVE_BYTES + MOVE_BYTES / 2)
/* bufferram's sampling period and then some (see test_follow_bufferram) */
#define BUFFERRAM_MS	2000

/* The fields that the follow cases move */
enum field { PROCS, FREERAM, SHAREDRAM, BUFFERRAM, FREESWAP };

/* @f of @s, the memory sizes in bytes */
static unsigned long long field_of(const struct sysinfo *s, enum field f)
{
	unsigned long long unit = s->mem_unit;

	switch (f) {
	case PROCS:
		return s->procs;
	case FREERAM:
		return s->freeram * unit;
	case SHAREDRAM:
		return s->sharedram * unit;
	case BUFFERRAM:
		return s->bufferram * unit;
	case FREESWAP:
		return s->freeswap * unit;
	}
	return 0;
}

/* What the vDSO must come to show, and since when sysinfo(2) showed it */
struct change {
	const char *what;
	enum field field;
	bool down;			/* the field fell: at most target */
	unsigned long long target;
	long long since;		/* 0 when sysinfo(2) never showed it */
};

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * NSEC_PER_SEC + t.tv_nsec;
}

static bool reached(const struct change *c, unsigned long long val)
{
	return c->down ? val <= c->target : val >= c->target;
}

/*
 * Nanoseconds from @c->since until the vDSO shows @c->target, or -1
 * when it still does not after @limit nanoseconds.
 */
static long long shows_after(const struct change *c, long long limit)
{
	unsigned long long val;
	struct sysinfo v;
	long long t;
	bool fresh;

	do {
		fresh = vdso_call_sysinfo(&v);
		t = now_ns() - c->since;
		val = field_of(&v, c->field);
		if (fresh && reached(c, val))
			return t;
	} while (t < limit);
	ksft_print_msg("%s: %llu after %lld ms, sysinfo(2) %llu\n",
		       c->what, val, limit / 1000000, c->target);
	return -1;
}

/*
 * Wait (up to 3 s) until sysinfo(2) shows @c->field moved by at least
 * @by from @before, in @c->down's direction. The vDSO must then come
 * within MOVE_SLACK of what sysinfo(2) shows, which the value from
 * before the change cannot. Leaves @c->since 0 when sysinfo(2) never
 * showed it.
 */
static void syscall_shows(struct change *c, unsigned long long before,
			  unsigned long long by)
{
	long long start = now_ns();
	unsigned long long now;
	struct sysinfo s;

	do {
		sys_sysinfo(&s);
		now = field_of(&s, c->field);
		if (c->down ? now + by <= before : now >= before + by) {
			c->since = now_ns();
			c->target = c->down ? now + MOVE_SLACK : now - MOVE_SLACK;
			return;
		}
		usleep(1000);
	} while (now_ns() - start < 3 * NSEC_PER_SEC);
	ksft_print_msg("%s: sysinfo(2) moved from %llu to %llu, not by %llu, in 3 s\n",
		       c->what, before, now, by);
}

static unsigned long long syscall_field(enum field f)
{
	struct sysinfo s;

	sys_sysinfo(&s);
	return field_of(&s, f);
}

/* A child that only waits to be killed counts in procs. */
static struct change after_fork(pid_t *pid)
{
	struct change c = { .what = "procs after fork()", .field = PROCS };
	struct sysinfo s;

	*pid = fork_child();
	if (!*pid)
		for (;;)
			pause();
	sys_sysinfo(&s);
	c.since = now_ns();
	c.target = s.procs;
	return c;
}

static void *map_filled(int flags, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fatal("mmap, errno", errno);
	memset(p, 0x5a, len);
	return p;
}

static void unmap(void *p, size_t len)
{
	if (munmap(p, len))
		fatal("munmap, errno", errno);
}

/*
 * A large mapping, filled then unmapped, counts in freeram once the
 * kernel has given its pages back (those on the per-CPU free lists do
 * not count until they are drained, and may hold tens of MiB): BIG_FREED
 * of the BIG_MAPPING must show.
 */
static struct change after_munmap(void)
{
	struct change c = { .what = "freeram after munmap()", .field = FREERAM };
	unsigned long long before;
	void *p;

	p = map_filled(MAP_PRIVATE, BIG_MAPPING);
	before = syscall_field(FREERAM);
	unmap(p, BIG_MAPPING);
	syscall_shows(&c, before, BIG_FREED);
	return c;
}

/* The publication period: PERIOD_MS rounded up to whole ticks */
static long long period_ns(void)
{
	long long tick = tick_ns();

	return (PERIOD_MS * 1000000LL + tick - 1) / tick * tick;
}

/* How late the vDSO showed the changes of one case */
struct lags {
	long long bound, worst;
	int late, missing;
	bool again;
};

/*
 * Record when the vDSO showed @c. One late change per case is forgiven
 * (a virtual CPU's timer interrupt can come late); a stale or missing
 * field never shows the change.
 */
static void record(struct lags *l, const struct change *c)
{
	long long lag = c->since ? shows_after(c, 2 * l->bound + NSEC_PER_SEC) : -1;

	if (lag < 0) {
		l->missing++;
		return;
	}
	if (lag > l->bound) {
		ksft_print_msg("%s: shown after %lld us%s\n", c->what, lag / 1000,
			       l->late ? "" : " (forgiven)");
		l->late++;
	}
	if (lag > l->worst)
		l->worst = lag;
}

static bool lags_ok(const struct lags *l, const char *what)
{
	ksft_print_msg("%s: bound %lld us, slowest %lld us\n", what,
		       l->bound / 1000, l->worst / 1000);
	return !l->missing && l->late <= 1;
}

/*
 * Whether to sample a case once more: when more than one of its changes
 * came late the first time. A loaded host deschedules a virtual CPU past
 * a tick now and then; a publisher that runs late is late again, and a
 * missing change is not sampled again.
 */
static bool again(struct lags *l, const char *what)
{
	if (l->again || l->missing || l->late <= 1)
		return false;
	ksft_print_msg("%s: %d changes late, sampled once more\n", what, l->late);
	*l = (struct lags){ .bound = l->bound, .again = true };
	return true;
}

/*
 * The counters are at most one publication period old: the period plus
 * the time from the tick to the irq_work that publishes, which is
 * allowed one more tick. Each sample first lets a period pass, so that
 * the snapshot holds the old value.
 */
static void test_follow(void)
{
	struct lags l = { .bound = period_ns() + tick_ns() };
	struct change c;
	pid_t pid;
	int i;

	do {
		for (i = 0; i < FOLLOW_SAMPLES; i++) {
			usleep(3 * period_ns() / 1000);
			c = after_fork(&pid);
			record(&l, &c);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			usleep(3 * period_ns() / 1000);
			c = after_munmap();
			record(&l, &c);
		}
	} while (again(&l, "procs, freeram"));
	ksft_test_result(lags_ok(&l, "procs, freeram"),
			 "procs and freeram follow within one publication period\n");
}

/* A shared anonymous mapping is shmem: filled, then unmapped. */
static void test_follow_shmem(void)
{
	struct lags l = { .bound = period_ns() + tick_ns() };
	struct change up = { .what = "sharedram after filling shmem", .field = SHAREDRAM };
	struct change down = { .what = "sharedram after munmap() of shmem",
			       .field = SHAREDRAM, .down = true };
	unsigned long long before;
	void *p;
	int i;

	do {
		for (i = 0; i < FOLLOW_SAMPLES / 2; i++) {
			usleep(3 * period_ns() / 1000);
			before = syscall_field(SHAREDRAM);
			p = map_filled(MAP_SHARED, MOVE_BYTES);
			syscall_shows(&up, before, MOVE_SHOWN);
			record(&l, &up);
			usleep(3 * period_ns() / 1000);
			before = syscall_field(SHAREDRAM);
			unmap(p, MOVE_BYTES);
			syscall_shows(&down, before, MOVE_SHOWN);
			record(&l, &down);
		}
	} while (again(&l, "sharedram"));
	ksft_test_result(lags_ok(&l, "sharedram"),
			 "sharedram follows within one publication period\n");
}

/*
 * A case whose device is missing is skipped, unless the environment
 * variable @env names the device: then whoever set it up (the harness)
 * expects the case to run, and it fails.
 */
static void no_device(const char *name, const char *env)
{
	if (getenv(env))
		ksft_test_result_fail(name);
	else
		ksft_test_result_skip(name);
}

/*
 * Anonymous pages pushed out to swap with MADV_PAGEOUT take swap slots,
 * which munmap() gives back. Needs active swap with room for MOVE_BYTES
 * (the device named by $VDSO_SYSINFO_SWAP, if set).
 */
static void test_follow_swap(void)
{
	struct lags l = { .bound = period_ns() + tick_ns() };
	struct change down = { .what = "freeswap after MADV_PAGEOUT",
			       .field = FREESWAP, .down = true };
	struct change up = { .what = "freeswap after munmap() of swapped pages",
			     .field = FREESWAP };
	const char *name = "freeswap follows within one publication period\n";
	unsigned long long before;
	void *p;
	int i;

	if (syscall_field(FREESWAP) < SWAP_NEEDED) {
		ksft_print_msg("needs swap with %lu MiB free\n", SWAP_NEEDED >> 20);
		no_device(name, "VDSO_SYSINFO_SWAP");
		return;
	}
	do {
		for (i = 0; i < FOLLOW_SAMPLES / 2; i++) {
			p = map_filled(MAP_PRIVATE, MOVE_BYTES);
			usleep(3 * period_ns() / 1000);
			before = syscall_field(FREESWAP);
			if (madvise(p, MOVE_BYTES, MADV_PAGEOUT))
				fatal("madvise(MADV_PAGEOUT), errno", errno);
			syscall_shows(&down, before, MOVE_SHOWN);
			record(&l, &down);
			usleep(3 * period_ns() / 1000);
			before = syscall_field(FREESWAP);
			unmap(p, MOVE_BYTES);
			syscall_shows(&up, before, MOVE_SHOWN);
			record(&l, &up);
		}
	} while (again(&l, "freeswap"));
	ksft_test_result(lags_ok(&l, "freeswap"), name);
}

static void drop_cache(int fd)
{
	int err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);

	if (err)
		fatal("posix_fadvise(POSIX_FADV_DONTNEED) on the block device, errno", err);
}

/*
 * bufferram is the page cache of the block devices, which reading one
 * fills and POSIX_FADV_DONTNEED empties. The kernel samples it about once
 * a second (round_jiffies() of a second: at most 1.75 s apart) and
 * publishes the sample within the next period, so the bound is
 * BUFFERRAM_MS. The device is $VDSO_SYSINFO_BLKDEV or /dev/ram0 and must
 * hold MOVE_BYTES; it is only read.
 */
static void test_follow_bufferram(void)
{
	struct lags l = { .bound = BUFFERRAM_MS * 1000000LL + period_ns() + tick_ns() };
	struct change up = { .what = "bufferram after reading a block device",
			     .field = BUFFERRAM };
	struct change down = { .what = "bufferram after POSIX_FADV_DONTNEED",
			       .field = BUFFERRAM, .down = true };
	const char *name = "bufferram follows within its sampling period\n";
	const char *dev = getenv("VDSO_SYSINFO_BLKDEV") ?: "/dev/ram0";
	unsigned long long before, size = 0;
	static char buf[1 << 20];
	size_t done;
	int fd, i;

	fd = open(dev, O_RDONLY);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) || size < MOVE_BYTES) {
		ksft_print_msg("needs a block device of %lu MiB to read: %s: %s\n",
			       MOVE_BYTES >> 20, dev,
			       fd < 0 ? strerror(errno) : "too small or not a block device");
		if (fd >= 0)
			close(fd);
		no_device(name, "VDSO_SYSINFO_BLKDEV");
		return;
	}
	do {
		for (i = 0; i < FOLLOW_SAMPLES / 2; i++) {
			drop_cache(fd);
			usleep(l.bound / 1000);
			before = syscall_field(BUFFERRAM);
			for (done = 0; done < MOVE_BYTES; done += sizeof(buf))
				if (pread(fd, buf, sizeof(buf), done) != sizeof(buf))
					fatal("pread from the block device, errno", errno);
			syscall_shows(&up, before, MOVE_SHOWN);
			record(&l, &up);
			usleep(l.bound / 1000);
			before = syscall_field(BUFFERRAM);
			drop_cache(fd);
			syscall_shows(&down, before, MOVE_SHOWN);
			record(&l, &down);
		}
	} while (again(&l, "bufferram"));
	close(fd);
	ksft_test_result(lags_ok(&l, "bufferram"), name);
}

/*
 * A 32-bit struct sysinfo gets what compat_sys_sysinfo() returns; with
 * more than 4 GiB of RAM or swap that means sizes in pages. The guest
 * of the vsysinfo harness has more than 4 GiB so that this is reached.
 */
static void test_compat_scaling(void)
{
	struct sysinfo s;

	sys_sysinfo(&s);
	if (s.mem_unit == 1) {
		ksft_print_msg("RAM and swap fit in 32 bits: nothing to scale\n");
		ksft_test_result_skip("32-bit sizes scaled as compat_sys_sysinfo() does\n");
		return;
	}
	ksft_print_msg("sysinfo(2): mem_unit %u, totalram %llu\n", s.mem_unit,
		       (unsigned long long)s.totalram);
	ksft_test_result(matches_syscall(true),
			 "32-bit sizes scaled as compat_sys_sysinfo() does\n");
}

int main(void)
{
	ksft_print_header();
	vsysinfo_init();
	locate_snapshot();
	ksft_set_plan(COMPAT_LAYOUT ? 5 : 4);
	test_follow();
	test_follow_shmem();
	test_follow_swap();
	test_follow_bufferram();
	if (COMPAT_LAYOUT)
		test_compat_scaling();
	ksft_finished();
}
