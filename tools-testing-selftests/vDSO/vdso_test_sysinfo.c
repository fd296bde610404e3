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
 * calls does not make the test flaky. The same source builds for every
 * x86 ABI: a 32-bit build compares with the 32-bit sysinfo(2), which
 * compat_sys_sysinfo() answers.
 *
 * Booted with vdso_sysinfo=off the vDSO must make the sysinfo system
 * call every time, and otherwise never: a seccomp filter that fails
 * sysinfo system calls made from inside the vDSO with EVDSO_MARKER tells
 * which happened.
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
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

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
#define GUARD_BYTES	64
/* What a sysinfo system call made from inside the vDSO fails with */
#define EVDSO_MARKER	4000
#define X32_SYSCALL_BIT	0x40000000U
/* The i386 layout, with 32-bit sizes (x32 has 64-bit ones, like x86-64) */
#define COMPAT_LAYOUT	(sizeof(((struct sysinfo *)0)->totalram) == 4)

typedef int (*vdso_sysinfo_t)(struct sysinfo *info);

static vdso_sysinfo_t vdso_sysinfo;
static const char *vdso_sysinfo_name;

/* Booted with vdso_sysinfo=off: the vDSO must make the system call. */
static bool opt_out;

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

/*
 * The reference: sysinfo(2), always into this buffer, which is how the
 * filter of mark_vdso_syscalls() tells these calls from the vDSO's own
 * where both enter the kernel from inside the vDSO (a 32-bit libc does,
 * through __kernel_vsyscall). Not for the reader threads.
 */
static struct sysinfo reference;

static void sys_sysinfo(struct sysinfo *info)
{
	if (syscall(SYS_sysinfo, &reference))
		fatal("sysinfo(2) failed, errno", errno);
	*info = reference;
}

static void vdso_call_sysinfo(struct sysinfo *info)
{
	long ret = VDSO_CALL(vdso_sysinfo, 1, info);

	if (ret == -EVDSO_MARKER)
		fatal("the vDSO made the sysinfo system call, returned", ret);
	if (ret)
		fatal("the vDSO sysinfo() returned", ret);
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
	if (WIFSIGNALED(status))
		ksft_print_msg("child killed by signal %d\n", WTERMSIG(status));
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

/* vdso_sysinfo=off as kstrtobool() reads it; the last one counts. */
static bool booted_with_opt_out(void)
{
	char buf[4096], *tok, *save;
	bool off = false;
	ssize_t len;
	int fd;

	fd = open("/proc/cmdline", O_RDONLY);
	if (fd < 0)
		ksft_exit_fail_msg("open /proc/cmdline: %s\n", strerror(errno));
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len < 0)
		ksft_exit_fail_msg("read /proc/cmdline: %s\n", strerror(errno));
	buf[len] = '\0';
	for (tok = strtok_r(buf, "\n ", &save); tok; tok = strtok_r(NULL, "\n ", &save)) {
		if (strncmp(tok, "vdso_sysinfo=", 13))
			continue;
		tok += 13;
		off = strchr("nN0", tok[0]) ||
		      ((tok[0] == 'o' || tok[0] == 'O') && (tok[1] == 'f' || tok[1] == 'F'));
	}
	return off;
}

/*
 * Fail sysinfo system calls made from inside the vDSO with EVDSO_MARKER:
 * those whose instruction pointer lies in the vDSO's text and whose
 * buffer is not the reference one of sys_sysinfo(). Everything else is
 * allowed. The vDSO's text lies within one 4 GiB window (checked), so
 * the low halves of the addresses decide. On x32 the vDSO makes the
 * 64-bit system call, so the x32 bit is masked off.
 */
static void mark_vdso_syscalls(void)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR), end = base + 4 * 4096;
	uint32_t nr = (uint32_t)SYS_sysinfo & ~X32_SYSCALL_BIT;
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~X32_SYSCALL_BIT),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, instruction_pointer)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)base, 0, 3),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)end, 2, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(uintptr_t)&reference, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EVDSO_MARKER),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(filter),
		.filter = filter,
	};

	if ((uint32_t)end < (uint32_t)base)
		fatal("the vDSO straddles a 4 GiB boundary at", (long)base);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		fatal("installing the seccomp filter failed, errno", errno);
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
static bool uptime_exact(void)
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
			ksft_print_msg("uptime %lld, CLOCK_BOOTTIME %lld.%09ld, rounded up %ld%s\n",
				       (long long)v.uptime, (long long)t2.tv_sec,
				       (long)t2.tv_nsec, hi, bad ? "" : " (forgiven)");
			if (++bad > 1)
				return false;
		}
	}
	if (checked < UPTIME_SAMPLES / 2) {
		ksft_print_msg("only %d of %d uptime samples were usable\n",
			       checked, UPTIME_SAMPLES);
		return false;
	}
	return true;
}

static int check_eq(const char *name, unsigned long long v,
		    unsigned long long s, bool report)
{
	if (v == s)
		return 0;
	if (report)
		ksft_print_msg("%s %llu != %llu\n", name, v, s);
	return 1;
}

/* @v within @tol of the interval that @a and @b span */
static int check_in(const char *name, unsigned long long v, unsigned long long a,
		    unsigned long long b, unsigned long long tol, bool report)
{
	unsigned long long lo = a < b ? a : b, hi = a < b ? b : a;

	if (v + tol >= lo && v <= hi + tol)
		return 0;
	if (report)
		ksft_print_msg("%s %llu not within %llu of [%llu, %llu]\n",
			       name, v, tol, lo, hi);
	return 1;
}

/*
 * Compare @v from the vDSO with @s1 and @s2 from sysinfo(2) just before
 * and after it. Returns the number of mismatches; with @report, each is
 * printed.
 */
static int compare(const struct sysinfo *v, const struct sysinfo *s1,
		   const struct sysinfo *s2, bool report)
{
	unsigned long long tol = (unsigned long long)s1->totalram >> TOLERANCE_SHIFT;
	int bad = 0, i;

	bad += check_eq("totalram", v->totalram, s1->totalram, report);
	bad += check_eq("totalswap", v->totalswap, s1->totalswap, report);
	bad += check_eq("totalhigh", v->totalhigh, s1->totalhigh, report);
	bad += check_eq("mem_unit", v->mem_unit, s1->mem_unit, report);
	bad += check_eq("pad", v->pad, 0, report);
	/* The snapshot may be one update, and so one second, behind */
	bad += check_in("uptime", v->uptime + 1, s1->uptime, s2->uptime + 1, 0, report);
	bad += check_in("procs", v->procs, s1->procs, s2->procs, 0, report);
	for (i = 0; i < 3; i++)
		bad += check_in("loads[]", v->loads[i], s1->loads[i], s2->loads[i], 0, report);
	bad += check_in("freeram", v->freeram, s1->freeram, s2->freeram, tol, report);
	bad += check_in("sharedram", v->sharedram, s1->sharedram, s2->sharedram, tol, report);
	bad += check_in("bufferram", v->bufferram, s1->bufferram, s2->bufferram, tol, report);
	bad += check_in("freeswap", v->freeswap, s1->freeswap, s2->freeswap, tol, report);
	bad += check_in("freehigh", v->freehigh, s1->freehigh, s2->freehigh, tol, report);
	return bad;
}

/* Compare against sysinfo(2), retrying while counters move. */
static bool matches_syscall(void)
{
	struct sysinfo s1, v, s2;
	int try;

	for (try = 0; try < RETRIES; try++) {
		if (try)
			usleep(5000);
		sys_sysinfo(&s1);
		vdso_call_sysinfo(&v);
		sys_sysinfo(&s2);
		if (!compare(&v, &s1, &s2, false))
			return true;
	}
	compare(&v, &s1, &s2, true);
	return false;
}

static void test_fields(void)
{
	ksft_test_result(matches_syscall() && uptime_exact(),
			 "fields match sysinfo(2), uptime is CLOCK_BOOTTIME rounded up\n");
}

/* A forked child shares nothing with its parent but the mappings. */
static int fork_child_matches(void)
{
	return matches_syscall() ? 0 : 1;
}

/*
 * The vDSO writes exactly one struct sysinfo: one that ends where an
 * inaccessible page begins is filled without a fault, the bytes after
 * one in a larger buffer keep their value, and its padding is zeroed as
 * sysinfo(2) zeroes it. The calls run in a child, where a fault only
 * fails the case.
 */
static int exact_child(void)
{
	size_t page = getpagesize(), size = sizeof(struct sysinfo);
	unsigned char buf[sizeof(struct sysinfo) + GUARD_BYTES], ref[sizeof(buf)];
	struct sysinfo *info, s;
	char *p;

	p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || mprotect(p + page, page, PROT_NONE))
		fatal("mmap/mprotect failed, errno", errno);
	info = (struct sysinfo *)(p + page - size);
	memset(info, 0xa5, size);
	vdso_call_sysinfo(info);
	sys_sysinfo(&s);
	if (info->totalram != s.totalram || info->mem_unit != s.mem_unit) {
		ksft_print_msg("a struct at the end of a page was not filled in\n");
		return 1;
	}

	memset(buf, 0xa5, sizeof(buf));
	memset(ref, 0xa5, sizeof(ref));
	vdso_call_sysinfo((struct sysinfo *)buf);
	if (memcmp(buf + size, ref + size, GUARD_BYTES)) {
		ksft_print_msg("bytes after the struct were written\n");
		return 1;
	}
	info = (struct sysinfo *)buf;
	if (info->pad || (sizeof(info->_f) && info->_f[0]) ||
	    memchr(info->_f, 0xa5, sizeof(info->_f))) {
		ksft_print_msg("the struct's padding was not zeroed\n");
		return 1;
	}
	return 0;
}

/*
 * The system call is made exactly when the administrator asked for it:
 * with vdso_sysinfo=off every call makes it (the filter's marker comes
 * back), otherwise none does.
 */
static int syscall_child(void)
{
	struct sysinfo v;
	int i, made = 0;
	long ret;

	mark_vdso_syscalls();
	for (i = 0; i < 10; i++) {
		ret = VDSO_CALL(vdso_sysinfo, 1, &v);
		if (ret == -EVDSO_MARKER)
			made++;
		else if (ret)
			fatal("the vDSO sysinfo() returned", ret);
	}
	ksft_print_msg("%d of 10 calls made the system call, vdso_sysinfo=%s\n",
		       made, opt_out ? "off" : "on");
	return made != (opt_out ? 10 : 0);
}

/* One result: @child run in a forked child, passing when it returns 0. */
static void test_in_child(int (*child)(void), const char *name)
{
	pid_t pid = fork_child();

	if (!pid)
		_exit(child());
	ksft_test_result(child_passed(pid), "%s\n", name);
}

/*
 * In a time namespace with a boottime offset, the uptime must follow the
 * offset (nanoseconds included, before rounding up) and every other
 * field must still be right. A reader that ignored the namespace would
 * read the namespace's page, where the snapshot's place is all zeroes
 * and so not valid: the vDSO would make the system call, which the
 * filter installed by kselftest() catches. One that followed that page's
 * clock sequence count, which stays odd, would spin: the child runs
 * under alarm().
 */
static int timens_child(long parent_uptime, long sec)
{
	long expect = parent_uptime + sec;
	struct sysinfo v;

	vdso_call_sysinfo(&v);
	if (v.uptime < expect || v.uptime > expect + 3) {
		ksft_print_msg("timens: uptime %lld, expected %ld (+3 s)\n",
			       (long long)v.uptime, expect);
		return 1;
	}
	return matches_syscall() && uptime_exact() ? 0 : 1;
}

static void test_timens(const char *name, long sec, long nsec)
{
	struct sysinfo s;
	char buf[64];
	int fd, len;
	pid_t pid;

	sys_sysinfo(&s);
	if (sec < 0 && s.uptime + sec < 2) {
		ksft_print_msg("uptime %lld too short for offset %ld\n",
			       (long long)s.uptime, sec);
		ksft_test_result_skip("time namespace: %s boottime offset\n", name);
		return;
	}
	pid = fork_child();
	if (!pid) {
		if (unshare(CLONE_NEWTIME)) {
			ksft_print_msg("unshare(CLONE_NEWTIME): %s\n", strerror(errno));
			_exit(KSFT_SKIP);
		}
		fd = open("/proc/self/timens_offsets", O_WRONLY);
		if (fd < 0)
			fatal("open timens_offsets, errno", errno);
		len = snprintf(buf, sizeof(buf), "%d %ld %ld\n", CLOCK_BOOTTIME,
			       sec, nsec);
		if (write(fd, buf, len) != len)
			fatal("write timens_offsets, errno", errno);
		close(fd);
		ksft_print_msg("boottime offset %ld s + %ld ns\n", sec, nsec);
		sys_sysinfo(&s);
		/* Only children of the unsharing task enter the namespace. */
		pid = fork();
		if (pid < 0)
			fatal("fork, errno", errno);
		if (!pid)
			_exit(timens_child(s.uptime, sec));
		_exit(child_passed(pid) ? 0 : 1);
	}
	if (waitpid(pid, &fd, 0) == pid && WIFEXITED(fd) && WEXITSTATUS(fd) == KSFT_SKIP)
		ksft_test_result_skip("time namespace: %s boottime offset\n", name);
	else
		ksft_test_result(WIFEXITED(fd) && !WEXITSTATUS(fd),
				 "time namespace: %s boottime offset\n", name);
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
				ksft_print_msg("inconsistent: uptime %lld after %lld, %s\n",
					       (long long)v.uptime, (long long)prev.uptime,
					       "or a field out of range");
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
	ksft_print_msg("%ld reads in %d threads saw %ld changes in %d ms, %ld inconsistent\n",
		       reads, READERS, changes, ms, atomic_load(&violations));
	ksft_test_result(reads >= MIN_READS && changes >= MIN_CHANGES &&
			 atomic_load(&violations) == 0,
			 "concurrent reads under fork/exit/fault are consistent\n");
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
	ksft_test_result(matches_syscall(),
			 "32-bit sizes scaled as compat_sys_sysinfo() does\n");
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

#define ROW(label, fmt, val)	printf("%-46s %10" fmt "\n", label, val)

/*
 * Prints one row per line, label and value: the 64-bit build a header,
 * its rows and the ratios; the 32-bit and x32 builds their vDSO and
 * system call rows. With vdso_sysinfo=off only the vDSO's own row is
 * printed, as the cost of the fallback.
 */
static void bench(void)
{
	const char *abi = COMPAT_LAYOUT ? "32-bit " :
			  sizeof(void *) == 4 ? "x32 " : "";
	double vdso, sys, proc, floor;
	char label[64];

	per_call(bench_vdso, 10000);
	vdso = per_call(bench_vdso, 1000000);
	if (opt_out) {
		snprintf(label, sizeof(label), "%svDSO sysinfo(), vdso_sysinfo=off", abi);
		ROW(label, ".1f", vdso);
		return;
	}
	if (*abi) {
		sys = per_call(bench_syscall, 100000);
		snprintf(label, sizeof(label), "%svDSO sysinfo()", abi);
		ROW(label, ".1f", vdso);
		/* A 32-bit libc enters the kernel through __kernel_vsyscall */
		snprintf(label, sizeof(label), "%ssysinfo(2) %s", abi,
			 COMPAT_LAYOUT ? "via __kernel_vsyscall" : "syscall");
		ROW(label, ".1f", sys);
		return;
	}

	vdso_clock_gettime = vdso_sym(versions[VDSO_VERSION], names[VDSO_NAMES][1]);
	if (!vdso_clock_gettime)
		ksft_exit_fail_msg("%s is missing from the vDSO\n", names[VDSO_NAMES][1]);
	sys = per_call(bench_syscall, 100000);
	proc = per_call(bench_proc, 2000);
	floor = per_call(bench_floor, 1000000);

	ROW("per call", "s", "ns");
	ROW("vDSO sysinfo()", ".1f", vdso);
	ROW("sysinfo(2) syscall", ".1f", sys);
	ROW("read+parse /proc/meminfo and /proc/loadavg", ".1f", proc);
	ROW("vDSO clock_gettime(CLOCK_MONOTONIC_COARSE)", ".1f", floor);
	ROW("ratio syscall / vDSO sysinfo", ".2f", sys / vdso);
	ROW("ratio /proc / vDSO sysinfo", ".2f", proc / vdso);
	ROW("ratio vDSO sysinfo / floor", ".2f", vdso / floor);
}

static long si_uptime(void)
{
	struct sysinfo s;

	sys_sysinfo(&s);
	return s.uptime;
}

static void vsysinfo_init(void)
{
	const char *version = versions[VDSO_VERSION];
	unsigned long ehdr = getauxval(AT_SYSINFO_EHDR);

	vdso_sysinfo_name = names[VDSO_NAMES][7];
	if (!ehdr)
		ksft_exit_skip("AT_SYSINFO_EHDR is not present\n");
	vdso_init_from_sysinfo_ehdr(ehdr);
	vdso_sysinfo = (vdso_sysinfo_t)vdso_sym(version, vdso_sysinfo_name);
	if (!vdso_sysinfo)
		ksft_exit_skip("%s@%s symbol is missing from vDSO\n",
			       vdso_sysinfo_name, version);
	opt_out = booted_with_opt_out();
}

static void kselftest(void)
{
	const char *version = versions[VDSO_VERSION];
	void *alias;

	ksft_print_header();
	vsysinfo_init();
	/* A 32-bit struct sysinfo has one more case, its compat scaling. */
	ksft_set_plan(COMPAT_LAYOUT ? 9 : 8);
	ksft_print_msg("vdso_sysinfo=%s: the vDSO must %s the system call\n",
		       opt_out ? "off" : "on", opt_out ? "always make" : "never make");

	alias = vdso_sym(version, "sysinfo");
	if (alias != (void *)vdso_sysinfo)
		ksft_print_msg("sysinfo@%s at %p, %s at %p\n", version, alias,
			       vdso_sysinfo_name, (void *)vdso_sysinfo);
	ksft_test_result(alias == (void *)vdso_sysinfo,
			 "sysinfo is an alias of __vdso_sysinfo\n");
	test_in_child(syscall_child,
		      "system call made exactly when booted with vdso_sysinfo=off");
	/* From here on, a system call from the vDSO fails the case. */
	if (!opt_out)
		mark_vdso_syscalls();
	test_fields();
	test_in_child(fork_child_matches, "fields match sysinfo(2) in a forked child");
	test_in_child(exact_child, "writes exactly one struct sysinfo");
	test_threads();
	test_timens("positive", TIMENS_SEC, TIMENS_NSEC);
	test_timens("negative", -(si_uptime() / 2), 300000000L);
	if (COMPAT_LAYOUT)
		test_compat_scaling();

	ksft_finished();
}

static void usage(const char *argv0)
{
	fprintf(stderr, "Usage: %s [bench]\n", argv0);
}

int main(int argc, char **argv)
{
	if (argc == 1) {
		kselftest();
		return 0;
	}
	if (argc != 2 || strcmp(argv[1], "bench")) {
		usage(argv[0]);
		return 1;
	}
	vsysinfo_init();
	bench();
	return 0;
}
