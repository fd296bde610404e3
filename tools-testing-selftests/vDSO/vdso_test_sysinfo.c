// SPDX-License-Identifier: GPL-2.0
/*
 * vdso_test_sysinfo.c: check sysinfo() in the vDSO against sysinfo(2).
 *
 * The vDSO returns a snapshot that the kernel refreshes on every
 * timekeeping update, so fields that move are compared with a tolerance:
 *
 *   totalram, totalswap, totalhigh, mem_unit   exactly equal
 *   uptime     between sysinfo(2) before the call minus one second (the
 *              snapshot may lag by one update) and sysinfo(2) after it;
 *              and exactly CLOCK_BOOTTIME rounded up whenever no second
 *              boundary lies between UPDATE_SLACK_NS before the call and
 *              its end
 *   procs, loads[]
 *              between the values of sysinfo(2) before and after the call
 *   freeram, sharedram, bufferram, freeswap, freehigh
 *              within TOLERANCE_SHIFT (1/64) of totalram around the values
 *              of sysinfo(2) before and after the call
 *
 * A comparison that fails is retried (RETRIES times, a few milliseconds
 * apart) before the case fails, so that a counter moving between the
 * calls does not make the test flaky.
 *
 * Usage: vdso_test_sysinfo [bench]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "parse_vdso.h"
#include "vdso_config.h"
#include "vdso_call.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

#define NSEC_PER_SEC	1000000000LL
#define TOLERANCE_SHIFT	6
#define RETRIES		50
#define UPDATE_SLACK_NS	(100 * 1000 * 1000LL)
#define UPTIME_SAMPLES	40
#define UPTIME_STEP_US	37000
#define MIN_READS	100000
#define MIN_CHANGES	20
#define MAX_SECONDS	30
#define READERS		4
#define TIMENS_SEC	(10 * 86400L)
#define TIMENS_NSEC	700000000L

typedef int (*vdso_sysinfo_t)(struct sysinfo *info);

static vdso_sysinfo_t vdso_sysinfo;

/* A forked child reports a fatal error and exits; the parent fails. */
static bool in_child;

static void fatal(const char *what, long err)
{
	if (in_child) {
		ksft_print_msg("child: %s: %ld\n", what, err);
		_exit(1);
	}
	ksft_exit_fail_msg("%s: %ld\n", what, err);
}

static void sys_sysinfo(struct sysinfo *info)
{
	if (syscall(SYS_sysinfo, info))
		fatal("sysinfo(2) failed, errno", errno);
}

static void vdso_call_sysinfo(struct sysinfo *info)
{
	long ret = VDSO_CALL(vdso_sysinfo, 1, info);

	if (ret)
		fatal("__vdso_sysinfo() returned", ret);
}

static pid_t fork_child(void)
{
	pid_t pid = fork();

	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		in_child = true;
		alarm(20);
	}
	return pid;
}

static bool child_passed(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		ksft_exit_fail_msg("waitpid: %s\n", strerror(errno));
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

/* Seconds of @t minus @minus_ns, rounded up as sysinfo(2) rounds. */
static long ceil_sec(const struct timespec *t, long long minus_ns)
{
	long long ns = t->tv_sec * NSEC_PER_SEC + t->tv_nsec - minus_ns;

	return (ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
}

/*
 * The uptime is CLOCK_BOOTTIME of the last update, rounded up. That
 * update is at most UPDATE_SLACK_NS older than t1, read just before the
 * call, so when ceil(t1 - slack) equals ceil(t2), read just after it,
 * the uptime must be exactly that. Samples are spread over more than a
 * second so that they see every fraction of a second. One mismatch is
 * forgiven (a virtual CPU can be held up for longer than the slack); a
 * wrong rounding or offset mismatches in most samples.
 */
static bool uptime_exact(char *why, size_t len)
{
	struct timespec t1, t2;
	int i, checked = 0, bad = 0;
	struct sysinfo v;
	long lo, hi;

	for (i = 0; i < UPTIME_SAMPLES; i++) {
		usleep(UPTIME_STEP_US);
		clock_gettime(CLOCK_BOOTTIME, &t1);
		vdso_call_sysinfo(&v);
		clock_gettime(CLOCK_BOOTTIME, &t2);
		lo = ceil_sec(&t1, UPDATE_SLACK_NS);
		hi = ceil_sec(&t2, 0);
		if (lo != hi)
			continue;
		checked++;
		if (v.uptime != hi) {
			snprintf(why, len, " uptime %ld, CLOCK_BOOTTIME %ld.%09ld %s %ld",
				 v.uptime, (long)t2.tv_sec, t2.tv_nsec,
				 "rounded up is", hi);
			if (++bad > 1)
				return false;
			ksft_print_msg("forgiven:%s\n", why);
			why[0] = '\0';
		}
	}
	if (checked < UPTIME_SAMPLES / 2) {
		snprintf(why, len, " only %d of %d uptime samples were usable",
			 checked, UPTIME_SAMPLES);
		return false;
	}
	return true;
}

static bool between(unsigned long v, unsigned long a, unsigned long b,
		    unsigned long tol)
{
	unsigned long lo = a < b ? a : b, hi = a < b ? b : a;

	return v + tol >= lo && v <= hi + tol;
}

/*
 * Compare @v from the vDSO with @s1 and @s2 from sysinfo(2) just before
 * and after it. Returns the number of mismatches, each described in @why.
 */
static int compare(const struct sysinfo *v, const struct sysinfo *s1,
		   const struct sysinfo *s2, char *why, size_t len)
{
	unsigned long tol = s1->totalram >> TOLERANCE_SHIFT;
	int bad = 0, i;

#define CHECK(cond, fmt, ...) do {					\
	if (!(cond)) {							\
		int n = snprintf(why, len, " " fmt, ##__VA_ARGS__);	\
		if (n > 0 && (size_t)n < len) {				\
			why += n;					\
			len -= n;					\
		}							\
		bad++;							\
	}								\
} while (0)

	CHECK(v->totalram == s1->totalram, "totalram %lu != %lu",
	      v->totalram, s1->totalram);
	CHECK(v->totalswap == s1->totalswap, "totalswap %lu != %lu",
	      v->totalswap, s1->totalswap);
	CHECK(v->totalhigh == s1->totalhigh, "totalhigh %lu != %lu",
	      v->totalhigh, s1->totalhigh);
	CHECK(v->mem_unit == s1->mem_unit, "mem_unit %u != %u",
	      v->mem_unit, s1->mem_unit);
	CHECK(v->pad == 0, "pad %u != 0", v->pad);
	CHECK(v->uptime + 1 >= s1->uptime && v->uptime <= s2->uptime,
	      "uptime %ld not in [%ld - 1, %ld]", v->uptime, s1->uptime,
	      s2->uptime);
	CHECK(between(v->procs, s1->procs, s2->procs, 0),
	      "procs %u not in [%u, %u]", v->procs, s1->procs, s2->procs);
	for (i = 0; i < 3; i++)
		CHECK(between(v->loads[i], s1->loads[i], s2->loads[i], 0),
		      "loads[%d] %lu not in [%lu, %lu]", i, v->loads[i],
		      s1->loads[i], s2->loads[i]);
	CHECK(between(v->freeram, s1->freeram, s2->freeram, tol),
	      "freeram %lu not within %lu of [%lu, %lu]", v->freeram, tol,
	      s1->freeram, s2->freeram);
	CHECK(between(v->sharedram, s1->sharedram, s2->sharedram, tol),
	      "sharedram %lu not within %lu of [%lu, %lu]", v->sharedram,
	      tol, s1->sharedram, s2->sharedram);
	CHECK(between(v->bufferram, s1->bufferram, s2->bufferram, tol),
	      "bufferram %lu not within %lu of [%lu, %lu]", v->bufferram,
	      tol, s1->bufferram, s2->bufferram);
	CHECK(between(v->freeswap, s1->freeswap, s2->freeswap, tol),
	      "freeswap %lu not within %lu of [%lu, %lu]", v->freeswap, tol,
	      s1->freeswap, s2->freeswap);
	CHECK(between(v->freehigh, s1->freehigh, s2->freehigh, tol),
	      "freehigh %lu not within %lu of [%lu, %lu]", v->freehigh, tol,
	      s1->freehigh, s2->freehigh);
#undef CHECK
	return bad;
}

/* Compare against sysinfo(2), retrying while counters move. */
static bool matches_syscall(char *why, size_t len)
{
	struct sysinfo s1, v, s2;
	int try;

	for (try = 0; try < RETRIES; try++) {
		if (try)
			usleep(5000);
		sys_sysinfo(&s1);
		vdso_call_sysinfo(&v);
		sys_sysinfo(&s2);
		if (!compare(&v, &s1, &s2, why, len))
			return true;
	}
	return false;
}

static void test_fields(void)
{
	char why[1024] = "";

	ksft_test_result(matches_syscall(why, sizeof(why)) &&
			 uptime_exact(why, sizeof(why)),
			 "fields match sysinfo(2), uptime is CLOCK_BOOTTIME rounded up%s\n",
			 why);
}

/* A forked child shares nothing with its parent but the mappings. */
static void test_fork(void)
{
	char why[1024] = "";
	pid_t pid;

	pid = fork_child();
	if (!pid) {
		if (!matches_syscall(why, sizeof(why))) {
			ksft_print_msg("child:%s\n", why);
			_exit(1);
		}
		_exit(0);
	}
	ksft_test_result(child_passed(pid),
			 "fields match sysinfo(2) in a forked child\n");
}

/*
 * In a time namespace with a boottime offset, the uptime must follow the
 * offset (nanoseconds included, before rounding up) and every other
 * field must still be right. A reader that ignored the namespace would
 * read the namespace's page, where the snapshot's place is all zeroes;
 * one that followed that page's clock sequence count, which stays odd,
 * would spin: the child runs under alarm().
 */
static int timens_child(long parent_uptime, long sec)
{
	long expect = parent_uptime + sec;
	char why[1024] = "";
	struct sysinfo v;

	vdso_call_sysinfo(&v);
	if (v.uptime < expect || v.uptime > expect + 3) {
		ksft_print_msg("timens: uptime %ld, expected %ld (+3 s)\n",
			       v.uptime, expect);
		return 1;
	}
	if (!matches_syscall(why, sizeof(why)) ||
	    !uptime_exact(why, sizeof(why))) {
		ksft_print_msg("timens:%s\n", why);
		return 1;
	}
	return 0;
}

static void test_timens(long sec, long nsec)
{
	struct sysinfo s;
	char buf[64];
	int fd, len;
	pid_t pid;

	sys_sysinfo(&s);
	if (sec < 0 && s.uptime + sec < 2) {
		ksft_test_result_skip("time namespace: uptime %ld too short for offset %ld\n",
				      s.uptime, sec);
		return;
	}
	if (unshare(CLONE_NEWTIME)) {
		ksft_test_result_skip("time namespace: unshare: %s\n",
				      strerror(errno));
		return;
	}
	fd = open("/proc/self/timens_offsets", O_WRONLY);
	if (fd < 0)
		ksft_exit_fail_msg("open timens_offsets: %s\n", strerror(errno));
	len = snprintf(buf, sizeof(buf), "%d %ld %ld\n", CLOCK_BOOTTIME, sec,
		       nsec);
	if (write(fd, buf, len) != len)
		ksft_exit_fail_msg("write timens_offsets: %s\n", strerror(errno));
	close(fd);

	sys_sysinfo(&s);
	pid = fork_child();
	if (!pid)
		_exit(timens_child(s.uptime, sec));
	ksft_test_result(child_passed(pid),
			 "time namespace: uptime shifted by %ld s + %ld ns, fields valid\n",
			 sec, nsec);
}

static atomic_bool stop, stop_readers;
static atomic_long violations, total_reads, total_changes;

/* Every snapshot must be internally consistent, uptime never go back. */
static bool consistent(const struct sysinfo *v, const struct sysinfo *prev,
		       const struct sysinfo *first)
{
	return v->totalram == first->totalram &&
	       v->totalswap == first->totalswap &&
	       v->mem_unit == first->mem_unit &&
	       v->uptime >= prev->uptime &&
	       v->freeram <= v->totalram && v->sharedram <= v->totalram &&
	       v->bufferram <= v->totalram && v->freeswap <= v->totalswap &&
	       v->freehigh <= v->totalhigh && v->procs > 0;
}

static void *reader(void *arg)
{
	struct sysinfo first, v, prev;
	long reads = 0, changes = 0;

	vdso_call_sysinfo(&first);
	prev = first;
	while (!atomic_load(&stop_readers)) {
		vdso_call_sysinfo(&v);
		if (!consistent(&v, &prev, &first)) {
			if (atomic_fetch_add(&violations, 1) < 5)
				ksft_print_msg("inconsistent snapshot: uptime %ld after %ld, %s\n",
					       v.uptime, prev.uptime, "or a field out of range");
		}
		if (v.freeram != prev.freeram || v.procs != prev.procs)
			changes++;
		prev = v;
		if (++reads % 1024 == 0) {
			atomic_fetch_add(&total_reads, reads);
			atomic_fetch_add(&total_changes, changes);
			reads = 0;
			changes = 0;
		}
	}
	atomic_fetch_add(&total_reads, reads);
	atomic_fetch_add(&total_changes, changes);
	return NULL;
}

/* Make the counters move: processes come and go, memory is faulted. */
static void *forker(void *arg)
{
	int status;
	pid_t pid;

	while (!atomic_load(&stop)) {
		pid = fork();
		if (!pid)
			_exit(0);
		if (pid > 0)
			waitpid(pid, &status, 0);
	}
	return NULL;
}

static void *faulter(void *arg)
{
	size_t len = 16 << 20, off;
	char *p;

	while (!atomic_load(&stop)) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			continue;
		for (off = 0; off < len; off += 4096)
			p[off] = 1;
		munmap(p, len);
	}
	return NULL;
}

/*
 * Readers run until they have made MIN_READS calls and seen the counters
 * change MIN_CHANGES times (so that the kernel did update the snapshot
 * under them), or MAX_SECONDS have passed.
 */
static void test_threads(void)
{
	pthread_t readers[READERS], churn[2];
	long reads, changes;
	int i, ms;

	if (pthread_create(&churn[0], NULL, forker, NULL) ||
	    pthread_create(&churn[1], NULL, faulter, NULL))
		ksft_exit_fail_msg("pthread_create failed\n");
	for (i = 0; i < READERS; i++)
		if (pthread_create(&readers[i], NULL, reader, NULL))
			ksft_exit_fail_msg("pthread_create failed\n");
	for (ms = 0; ms < MAX_SECONDS * 1000; ms += 10) {
		usleep(10000);
		if (atomic_load(&total_reads) >= MIN_READS &&
		    atomic_load(&total_changes) >= MIN_CHANGES)
			break;
	}
	atomic_store(&stop_readers, true);
	for (i = 0; i < READERS; i++)
		pthread_join(readers[i], NULL);
	atomic_store(&stop, true);
	pthread_join(churn[0], NULL);
	pthread_join(churn[1], NULL);

	reads = atomic_load(&total_reads);
	changes = atomic_load(&total_changes);
	ksft_print_msg("%ld reads in %d threads saw %ld changes in %d ms\n",
		       reads, READERS, changes, ms);
	ksft_test_result(reads >= MIN_READS && changes >= MIN_CHANGES &&
			 atomic_load(&violations) == 0,
			 "%ld concurrent reads under fork/exit/fault: %ld inconsistent\n",
			 reads, atomic_load(&violations));
}

/* Nanoseconds per call of @fn over @n calls. */
static double per_call(void (*fn)(void), long n)
{
	struct timespec a, b;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		fn();
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
}

static int (*vdso_clock_gettime)(clockid_t clk, struct timespec *ts);
static void bench_vdso(void)
{
	struct sysinfo v;

	vdso_sysinfo(&v);
}

static void bench_syscall(void)
{
	struct sysinfo s;

	syscall(SYS_sysinfo, &s);
}

static unsigned long proc_field(const char *path, const char *key)
{
	char buf[4096], *p;
	unsigned long val = 0;
	ssize_t len;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		ksft_exit_fail_msg("open %s: %s\n", path, strerror(errno));
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		ksft_exit_fail_msg("read %s failed\n", path);
	buf[len] = '\0';
	p = key ? strstr(buf, key) : buf;
	if (p)
		val = strtoul(p + (key ? strlen(key) : 0), NULL, 10);
	return val;
}

static void bench_proc(void)
{
	if (!proc_field("/proc/meminfo", "MemFree:") &&
	    !proc_field("/proc/loadavg", NULL))
		ksft_print_msg("/proc/meminfo and /proc/loadavg read as zero\n");
}

static void bench_floor(void)
{
	struct timespec ts;

	vdso_clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
}

static void bench(void)
{
	double vdso, sys, proc, floor;

	vdso_clock_gettime = vdso_sym(versions[VDSO_VERSION],
				      names[VDSO_NAMES][1]);
	if (!vdso_clock_gettime)
		ksft_exit_fail_msg("%s is missing from the vDSO\n",
				   names[VDSO_NAMES][1]);

	per_call(bench_vdso, 10000);
	vdso = per_call(bench_vdso, 1000000);
	sys = per_call(bench_syscall, 100000);
	proc = per_call(bench_proc, 2000);
	floor = per_call(bench_floor, 1000000);

	printf("%-46s %10s\n", "per call", "ns");
	printf("%-46s %10.1f\n", "vDSO sysinfo()", vdso);
	printf("%-46s %10.1f\n", "sysinfo(2) syscall", sys);
	printf("%-46s %10.1f\n", "read+parse /proc/meminfo and /proc/loadavg", proc);
	printf("%-46s %10.1f\n", "vDSO clock_gettime(CLOCK_MONOTONIC_COARSE)", floor);
	printf("%-46s %10.2f\n", "ratio syscall / vDSO sysinfo", sys / vdso);
	printf("%-46s %10.2f\n", "ratio /proc / vDSO sysinfo", proc / vdso);
	printf("%-46s %10.2f\n", "ratio vDSO sysinfo / floor", vdso / floor);
}

static long si_uptime(void)
{
	struct sysinfo s;

	sys_sysinfo(&s);
	return s.uptime;
}

int main(int argc, char **argv)
{
	const char *version = versions[VDSO_VERSION];
	unsigned long ehdr = getauxval(AT_SYSINFO_EHDR);
	void *alias;

	if (argc > 1 && strcmp(argv[1], "bench")) {
		fprintf(stderr, "Usage: %s [bench]\n", argv[0]);
		return KSFT_FAIL;
	}

	if (argc == 1)
		ksft_print_header();
	if (!ehdr)
		ksft_exit_skip("AT_SYSINFO_EHDR is not present\n");
	vdso_init_from_sysinfo_ehdr(ehdr);
	vdso_sysinfo = (vdso_sysinfo_t)vdso_sym(version, "__vdso_sysinfo");
	if (!vdso_sysinfo)
		ksft_exit_skip("__vdso_sysinfo@%s is missing from the vDSO\n",
			       version);

	if (argc > 1) {
		bench();
		return 0;
	}

	ksft_set_plan(6);

	alias = vdso_sym(version, "sysinfo");
	ksft_test_result(alias == (void *)vdso_sysinfo,
			 "sysinfo@%s is __vdso_sysinfo (%p, %p)\n", version,
			 alias, (void *)vdso_sysinfo);
	test_fields();
	test_fork();
	test_threads();
	test_timens(TIMENS_SEC, TIMENS_NSEC);
	test_timens(-(si_uptime() / 2), 300000000L);

	ksft_finished();
}
