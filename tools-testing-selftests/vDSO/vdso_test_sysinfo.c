// SPDX-License-Identifier: GPL-2.0
/*
 * vdso_test_sysinfo.c: check sysinfo() in the vDSO against sysinfo(2).
 *
 * The vDSO returns a snapshot that the kernel publishes about every
 * PERIOD_MS milliseconds (rounded up to whole ticks), so fields that
 * move are compared with a tolerance:
 *
 *   totalram, totalswap, totalhigh, mem_unit   exactly equal
 *   uptime     CLOCK_BOOTTIME's base, at most one tick old, rounded up:
 *              between CLOCK_BOOTTIME one tick before the call and
 *              CLOCK_BOOTTIME after it, each rounded up (the tick is
 *              CLOCK_MONOTONIC_COARSE's resolution)
 *   procs, loads[]
 *              between the values of sysinfo(2) before and after the call
 *   freeram, sharedram, bufferram, freeswap, freehigh
 *              within TOLERANCE_SHIFT (1/64) of totalram around the values
 *              of sysinfo(2) before and after the call
 *
 * Where the snapshot must be there, a comparison only counts answers
 * that came from it (the sequence count in [vvar] odd and unchanged
 * around the call): a call that meets the kernel rewriting the snapshot
 * makes the system call, whose answer would match whatever the snapshot
 * holds. A comparison that fails is retried (RETRIES times, a few
 * milliseconds apart) before the case fails, so that a counter moving
 * between the calls does not make the test flaky. The same source builds for every
 * x86 ABI: a 32-bit build compares with the 32-bit sysinfo(2), which
 * compat_sys_sysinfo() answers.
 *
 * The follow cases then move one field at a time, by tens of MiB, and
 * check that the vDSO shows the move within a publication period (plus
 * a tick): procs after fork(), freeram after munmap() of a large
 * mapping, sharedram after filling and unmapping a shared anonymous
 * mapping, freeswap after MADV_PAGEOUT and munmap() (needs swap), and
 * bufferram after reading a block device and POSIX_FADV_DONTNEED on it
 * ($VDSO_SYSINFO_BLKDEV, default /dev/ram0; sampled about once a
 * second, so within BUFFERRAM_MS). A field published as 0 or as a stale
 * value never shows the move.
 *
 * With kernel.vdso_sysinfo = 0 (sysctl.kernel.vdso_sysinfo=0 at boot) the
 * vDSO must make the sysinfo system call every time, and otherwise never
 * but when the snapshot is not valid: a tracer (ptrace) counts the
 * sysinfo system calls made from inside the vDSO's text. The same holds
 * on a clocksource without a vDSO mode (acpi_pm or hpet, switched to for
 * the case). The kernel publishes only while somebody makes the system
 * call (it stops LINGER_MS after the last one): after a pause the first
 * vDSO call makes it, the next ones do not, and in between the kernel's
 * count of publications (debugfs) stands still. A publisher made to
 * stall (debugfs) leaves a snapshot that the vDSO refuses once it is
 * MAX_AGE_MS old.
 *
 * A task whose seccomp filters do not always allow sysinfo, in any of
 * the ABIs through which it can make system calls, must get the system
 * call too, so that the filter decides (the kernel maps a page of zeroes
 * at the snapshot's place in [vvar] for its whole mm): filters that deny
 * it, trap it, log it, kill for it, hand it to a supervisor, or allow it
 * only for some arguments; and strict mode; attached with TSYNC, by one
 * thread, before fork and exec, or while another thread forks; also
 * after the process mapped another vDSO image. A filter that always
 * allows sysinfo keeps the fast path, and so does an unfiltered child of
 * a process whose other thread filtered. The snapshot's place in [vvar]
 * is not ABI: the test finds its page by its content.
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
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/audit.h>
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
/* The kernel's publication period (VDSO_SYSINFO_PERIOD_MS) */
#define PERIOD_MS	10
/* The age of a snapshot the vDSO refuses; how long the kernel publishes */
#define MAX_AGE_MS	(5 * PERIOD_MS)
#define LINGER_MS	2000
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
/* The i386 layout, with 32-bit sizes (x32 has 64-bit ones, like x86-64) */
#define COMPAT_LAYOUT	(sizeof(((struct sysinfo *)0)->totalram) == 4)

typedef int (*vdso_sysinfo_t)(struct sysinfo *info);

static vdso_sysinfo_t vdso_sysinfo;
static const char *vdso_sysinfo_name;

/* kernel.vdso_sysinfo is 0: the vDSO must make the system call. */
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
 * ptrace counter of traced() tells these calls from the vDSO's own
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

/* This process's snapshot page, set by vsysinfo_init() */
static const uint32_t *sysinfo_page;

/*
 * The calls that met the kernel rewriting the snapshot, counted across
 * the processes of the test (a MAP_SHARED page): see vdso_call_sysinfo().
 */
static unsigned int *rewrites_met;

/*
 * Call the vDSO and tell whether its answer came from the snapshot: the
 * sequence count (the first word of [vvar]'s sysinfo page) odd and the
 * same before and after the call. A call that meets the kernel
 * rewriting the snapshot makes the system call instead, as the vDSO
 * must: its answer would match sysinfo(2) whatever the snapshot holds,
 * so the field checks only count answers from the snapshot, and the
 * tracer does not count such a call's system call as one the vDSO
 * should not have made. With kernel.vdso_sysinfo at 0 every call makes
 * the system call: true then.
 */
static bool vdso_call_sysinfo(struct sysinfo *info)
{
	uint32_t seq = __atomic_load_n(&sysinfo_page[0], __ATOMIC_ACQUIRE);
	long ret = VDSO_CALL(vdso_sysinfo, 1, info);
	bool stable = (seq & 1) && __atomic_load_n(&sysinfo_page[0], __ATOMIC_ACQUIRE) == seq;

	if (ret == -EVDSO_MARKER)
		fatal("the vDSO made the sysinfo system call, returned", ret);
	if (ret)
		fatal("the vDSO sysinfo() returned", ret);
	if (!stable)
		__atomic_fetch_add(rewrites_met, 1, __ATOMIC_RELAXED);
	return opt_out || stable;
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

/*
 * This build's system calls as seccomp and ptrace see them: on x32 with
 * the x32 bit, which the vDSO's fallback must set as the C library does.
 */
#define SYSCALL_ARCH	(COMPAT_LAYOUT ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64)
#define SYSINFO_NR	((uint32_t)SYS_sysinfo)

/*
 * Where the snapshot lies in [vvar] is not ABI: vsysinfo_init() finds
 * its page by its content (see snapshot_page()). Its first word is the
 * sequence count, odd while the snapshot is valid; a task that must not
 * read it sees a page of zeroes.
 */
static bool page_valid(const uint32_t *page)
{
	return __atomic_load_n(&page[0], __ATOMIC_RELAXED) & 1;
}

#define SYSCTL_PATH	"/proc/sys/kernel/vdso_sysinfo"

/* kernel.vdso_sysinfo (0 or 1), the kernel's own answer; -1 if unreadable. */
static int sysctl_get(void)
{
	char c = 0;
	int fd, n;

	fd = open(SYSCTL_PATH, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, &c, 1);
	close(fd);
	return n == 1 && (c == '0' || c == '1') ? c - '0' : -1;
}

static bool sysctl_set(int on)
{
	char c = '0' + on;
	bool ok;
	int fd;

	fd = open(SYSCTL_PATH, O_WRONLY);
	if (fd < 0)
		return false;
	ok = write(fd, &c, 1) == 1;
	close(fd);
	return ok;
}

/*
 * The system calls of traced()'s last child that no rewrite of the
 * snapshot explains: where the snapshot is there, there must be none.
 */
static int traced_stray;

/* The vDSO's text: its mapping, the image of its one PT_LOAD segment. */
static uintptr_t vdso_lo, vdso_hi;

/*
 * Run @fn in a child traced with ptrace and count the sysinfo system
 * calls it enters from inside the vDSO's text, but the reference ones of
 * sys_sysinfo() (a 32-bit libc makes those from the vDSO too), told apart
 * by their buffer. True when the child exits with 0.
 */
static bool traced(int (*fn)(void), int *made)
{
	bool ok;

	struct __ptrace_syscall_info si;
	int status, sig = 0;
	pid_t pid;

	*made = 0;
	*rewrites_met = 0;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		in_child = true;
		alarm(20);
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			fatal("PTRACE_TRACEME, errno", errno);
		raise(SIGSTOP);
		_exit(fn());
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) {
		ksft_print_msg("tracing the child failed: %s\n", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return false;
	}
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, 0, sig) ||
		    waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
			break;
		sig = WSTOPSIG(status) == (SIGTRAP | 0x80) ? 0 : WSTOPSIG(status);
		if (sig || ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(si), &si) <= 0)
			continue;
		if (si.op == PTRACE_SYSCALL_INFO_ENTRY && si.arch == SYSCALL_ARCH &&
		    si.entry.nr == SYSINFO_NR &&
		    si.instruction_pointer >= vdso_lo && si.instruction_pointer < vdso_hi &&
		    si.entry.args[0] != (uintptr_t)&reference)
			(*made)++;
	}
	if (WIFSIGNALED(status))
		ksft_print_msg("the tracee was killed by signal %d\n", WTERMSIG(status));
	ok = WIFEXITED(status) && !WEXITSTATUS(status);
	traced_stray = *made - (int)(*rewrites_met < (unsigned int)*made ? *rewrites_met : *made);
	if (*made)
		ksft_print_msg("%d system calls from the vDSO, %u calls met a rewrite\n",
			       *made, *rewrites_met);
	return ok;
}

/* Where this process maps @name ("[vvar]", "[vdso]"): [*lo, *hi). */
static void find_mapping(const char *name, uintptr_t *lo, uintptr_t *hi)
{
	char line[256], *end;
	FILE *f;

	*lo = 0;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		fatal("open /proc/self/maps, errno", errno);
	while (!*lo && fgets(line, sizeof(line), f)) {
		if (!strstr(line, name))
			continue;
		*lo = strtoul(line, &end, 16);
		*hi = strtoul(end + 1, NULL, 16);
	}
	fclose(f);
	if (!*lo)
		fatal("no such mapping in /proc/self/maps, errno", ENOENT);
}

/*
 * What sysinfo(2) said at the start (before any filter): the fields that
 * do not move, by which snapshot_page() recognizes the snapshot.
 */
static struct sysinfo constants;

/* The snapshot's page in [vvar], or -1: with kernel.vdso_sysinfo = 0 */
static int sysinfo_page_index = -1;

/* A page of zeroes, which stands for the snapshot's page when it has none */
static const uint32_t no_page[4096 / sizeof(uint32_t)];

/*
 * Copy a page of [vvar] through a pipe: a page the kernel does not back
 * (a pvclock page without pvclock) then fails with EFAULT, not SIGBUS.
 */
static bool vvar_read(uintptr_t addr, void *buf)
{
	int fds[2];
	bool ok;

	if (pipe(fds))
		fatal("pipe, errno", errno);
	ok = write(fds[1], (void *)addr, getpagesize()) == getpagesize() &&
	     read(fds[0], buf, getpagesize()) == getpagesize();
	close(fds[0]);
	close(fds[1]);
	return ok;
}

/* Whether @page holds a struct sysinfo with the constant fields of now. */
static bool holds_snapshot(const unsigned char *page)
{
	struct sysinfo s;
	size_t off;

	if (!constants.totalram)
		fatal("no sysinfo(2) answer to recognize the snapshot by", 0);
	for (off = 0; off + sizeof(s) <= (size_t)getpagesize(); off += 4) {
		memcpy(&s, page + off, sizeof(s));
		if (s.totalram == constants.totalram && s.totalswap == constants.totalswap &&
		    s.mem_unit == constants.mem_unit)
			return true;
	}
	return false;
}

/* The page of the [vvar] mapping at @lo..@hi that holds the snapshot, or -1. */
static int snapshot_page(uintptr_t lo, uintptr_t hi)
{
	static unsigned char buf[4096];
	int i;

	for (i = 0; lo + (uintptr_t)i * getpagesize() < hi; i++) {
		if (vvar_read(lo + (uintptr_t)i * getpagesize(), buf) && holds_snapshot(buf))
			return i;
	}
	return -1;
}

/* Whether any page of this process's [vvar] holds the snapshot. */
static bool snapshot_mapped(void)
{
	uintptr_t lo, hi;

	find_mapping("[vvar]", &lo, &hi);
	return snapshot_page(lo, hi) >= 0;
}

/* The snapshot's page in [vvar], as this process maps it. */
static const uint32_t *vvar_sysinfo_page(void)
{
	uintptr_t lo, hi;

	if (sysinfo_page_index < 0)
		return no_page;
	find_mapping("[vvar]", &lo, &hi);
	return (const uint32_t *)(lo + sysinfo_page_index * getpagesize());
}

/*
 * Find the snapshot's page in [vvar] by its content: sysinfo(2) starts
 * the publication, which shows within a period or two.
 */
static void locate_snapshot(void)
{
	uintptr_t lo, hi;
	int ms;

	sys_sysinfo(&constants);
	find_mapping("[vvar]", &lo, &hi);
	for (ms = 0; !opt_out && ms < 2000 && sysinfo_page_index < 0; ms++) {
		sysinfo_page_index = snapshot_page(lo, hi);
		usleep(1000);
	}
	if (!opt_out && sysinfo_page_index < 0)
		ksft_exit_fail_msg("no page of [vvar] holds the snapshot\n");
	sysinfo_page = vvar_sysinfo_page();
}

/* The words of the page that are not zero, from word @from on. */
static int page_nonzero(const uint32_t *page, int from)
{
	int i, n = 0;

	for (i = from; i < getpagesize() / 4; i++)
		n += !!page[i];
	return n;
}

/*
 * Install a seccomp filter that returns @action for system call @nr of
 * this build's ABI (x32: with the x32 bit) and allows everything
 * else, with seccomp(2) @flags; returns what seccomp(2) returns.
 */
static long filter_sysinfo(uint32_t nr, uint32_t action, unsigned int flags)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYSCALL_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(filter),
		.filter = filter,
	};
	long ret;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		fatal("PR_SET_NO_NEW_PRIVS, errno", errno);
	ret = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
	if (ret < 0)
		fatal("installing the seccomp filter failed, errno", errno);
	return ret;
}

/* Seconds of @t minus @minus_ns, rounded up as sysinfo(2) rounds. */
static long ceil_sec(const struct timespec *t, long long minus_ns)
{
	long long ns = t->tv_sec * NSEC_PER_SEC + t->tv_nsec - minus_ns;

	return (ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
}

/* One tick: the resolution of the coarse clocks, TICK_NSEC */
static long long tick_ns(void)
{
	struct timespec res;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &res))
		fatal("clock_getres(CLOCK_MONOTONIC_COARSE), errno", errno);
	return res.tv_sec * NSEC_PER_SEC + res.tv_nsec;
}

/*
 * The uptime is CLOCK_BOOTTIME's base in the clock data, rounded up: the
 * boot time of the last timekeeping update, at most one tick before t1,
 * read just before the call. So it lies between ceil(t1 - tick) and
 * ceil(t2), t2 read just after the call, and is exactly ceil(t2) when
 * those are equal (the case for all but one tick in every second).
 * Samples are spread over more than a second so that they see every
 * fraction of a second. One miss is forgiven (a virtual CPU's timer
 * interrupt can come late); a wrong rounding, offset or a staler
 * uptime misses in most samples.
 */
static bool uptime_exact(void)
{
	long long tick = tick_ns();
	struct timespec t1, t2;
	int i, checked = 0, bad = 0;
	struct sysinfo v;
	long lo, hi;
	bool fresh;

	for (i = 0; i < UPTIME_SAMPLES; i++) {
		usleep(UPTIME_STEP_US);
		clock_gettime(CLOCK_BOOTTIME, &t1);
		fresh = vdso_call_sysinfo(&v);
		clock_gettime(CLOCK_BOOTTIME, &t2);
		if (!fresh)
			continue;
		lo = ceil_sec(&t1, tick);
		hi = ceil_sec(&t2, 0);
		checked += lo == hi;
		if (v.uptime < lo || v.uptime > hi) {
			ksft_print_msg("uptime %lld, boottime %lld.%09ld, allowed [%ld, %ld]%s\n",
				       (long long)v.uptime, (long long)t2.tv_sec,
				       (long)t2.tv_nsec, lo, hi, bad ? "" : " (forgiven)");
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
	/* The uptime may be one tick, and so one second, behind */
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

/*
 * Compare against sysinfo(2), retrying while counters move. With
 * @snapshot, only answers that came from the snapshot count (where it
 * must be there: not behind a filter or with the switch off).
 */
static bool matches_syscall(bool snapshot)
{
	struct sysinfo s1, v, s2;
	bool fresh;
	int try;

	for (try = 0; try < RETRIES; try++) {
		if (try)
			usleep(5000);
		sys_sysinfo(&s1);
		fresh = vdso_call_sysinfo(&v);
		sys_sysinfo(&s2);
		if ((fresh || !snapshot) && !compare(&v, &s1, &s2, false))
			return true;
	}
	compare(&v, &s1, &s2, true);
	return false;
}

static void test_fields(void)
{
	ksft_test_result(matches_syscall(true) && uptime_exact(),
			 "fields match sysinfo(2), uptime is CLOCK_BOOTTIME rounded up\n");
}

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
	close(fd);
	ksft_test_result(lags_ok(&l, "bufferram"), name);
}

/* A forked child shares nothing with its parent but the mappings. */
static int fork_child_matches(void)
{
	return matches_syscall(true) ? 0 : 1;
}

/*
 * The bytes of a struct sysinfo that no field covers, which sysinfo(2)
 * returns as zeroes: in the 64-bit layout the four after pad and the four
 * after mem_unit (the 32-bit layout has none). True when all are zero.
 */
static bool holes_zeroed(const unsigned char *b)
{
	static const size_t from[] = {
		offsetof(struct sysinfo, pad) + sizeof(((struct sysinfo *)0)->pad),
		offsetof(struct sysinfo, _f) + sizeof(((struct sysinfo *)0)->_f),
	};
	static const size_t to[] = {
		offsetof(struct sysinfo, totalhigh),
		sizeof(struct sysinfo),
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(from); i++)
		for (j = from[i]; j < to[i]; j++)
			if (b[j])
				return false;
	return true;
}

/*
 * The vDSO writes exactly one struct sysinfo: one that ends where an
 * inaccessible page begins is filled without a fault, the bytes after
 * one in a larger buffer keep their value, and its padding (pad, _f and
 * the compiler's holes) is zeroed as sysinfo(2) zeroes it. The calls run
 * in a child, where a fault only fails the case.
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
	    memchr(info->_f, 0xa5, sizeof(info->_f)) || !holes_zeroed(buf)) {
		ksft_print_msg("the struct's padding was not zeroed\n");
		return 1;
	}
	return 0;
}

/*
 * NULL gets sysinfo(2)'s answer, -EFAULT, rather than a fault, so that a
 * C library that binds the vDSO keeps the system call's behaviour. With
 * a valid snapshot it comes without a system call; with
 * kernel.vdso_sysinfo at 0 from the system call the vDSO makes.
 */
static int null_child(void)
{
	long ret = VDSO_CALL(vdso_sysinfo, 1, NULL);

	if (ret == -EFAULT)
		return 0;
	ksft_print_msg("sysinfo(NULL) returned %ld, not -EFAULT (%d)\n", ret, -EFAULT);
	return 1;
}

#define CALLS	10

/* CALLS vDSO calls, each of which must succeed. */
static int ten_calls(void)
{
	struct sysinfo v;
	int i;

	for (i = 0; i < CALLS; i++)
		vdso_call_sysinfo(&v);
	return 0;
}

/*
 * The system call is made exactly when the administrator asked for it:
 * with kernel.vdso_sysinfo = 0 every call makes it, otherwise none does.
 */
static void test_syscalls(void)
{
	int made;
	bool ok = traced(ten_calls, &made);

	ksft_print_msg("%d of %d calls made the system call, kernel.vdso_sysinfo = %d\n",
		       made, CALLS, !opt_out);
	ksft_test_result(ok && (opt_out ? made == CALLS : !traced_stray),
			 "system call made exactly when kernel.vdso_sysinfo is 0\n");
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
 * field must still be right, without a system call (the child is
 * traced). A reader that followed the namespace page's clock sequence
 * count, which stays odd, would spin: the child runs under alarm().
 */
static long timens_expect;

static int timens_child(void)
{
	long expect = timens_expect;
	struct sysinfo v;

	vdso_call_sysinfo(&v);
	if (v.uptime < expect || v.uptime > expect + 3) {
		ksft_print_msg("timens: uptime %lld, expected %ld (+3 s)\n",
			       (long long)v.uptime, expect);
		return 1;
	}
	return matches_syscall(true) && uptime_exact() ? 0 : 1;
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
		timens_expect = s.uptime + sec;
		/* Only children of the unsharing task enter the namespace. */
		if (!traced(timens_child, &len))
			_exit(1);
		if (opt_out ? !len : traced_stray) {
			ksft_print_msg("%d system calls from the vDSO in the namespace\n", len);
			_exit(1);
		}
		_exit(0);
	}
	if (waitpid(pid, &fd, 0) == pid && WIFEXITED(fd) && WEXITSTATUS(fd) == KSFT_SKIP)
		ksft_test_result_skip("time namespace: %s boottime offset\n", name);
	else
		ksft_test_result(WIFEXITED(fd) && !WEXITSTATUS(fd),
				 "time namespace: %s boottime offset\n", name);
}

/*
 * Behind a seccomp filter that does not always allow sysinfo, every call
 * must make the system call, and [vvar] must hold no snapshot, also when
 * read directly. @faulted: the page was mapped before the filter came.
 */
static int hidden_check(void)
{
	const uint32_t *page = vvar_sysinfo_page();
	struct sysinfo v;
	int i, marked = 0;

	bool found = constants.totalram && snapshot_mapped();

	for (i = 0; i < CALLS; i++)
		marked += VDSO_CALL(vdso_sysinfo, 1, &v) == -EVDSO_MARKER;
	if (marked != CALLS || page_nonzero(page, 0) || found) {
		ksft_print_msg("%d of %d calls got the filter's errno, %d words set%s\n",
			       marked, CALLS, page_nonzero(page, 0),
			       found ? ", a snapshot in [vvar]" : "");
		return 1;
	}
	return 0;
}

static int deny_child(void)
{
	filter_sysinfo(SYSINFO_NR, SECCOMP_RET_ERRNO | EVDSO_MARKER, 0);
	return hidden_check();
}

/* The same, with the real page faulted in before the filter came. */
static int deny_after_use_child(void)
{
	const uint32_t *page = vvar_sysinfo_page();
	struct sysinfo v;

	vdso_call_sysinfo(&v);
	if (!page_valid(page) && !opt_out) {
		ksft_print_msg("no valid snapshot in [vvar] before the filter\n");
		return 1;
	}
	return deny_child();
}

/*
 * A filter attached by one thread, without TSYNC, hides the page from
 * every thread of the process: the other thread, unfiltered, gets its
 * answer from the system call and so reads the page as zeroes.
 */
static void *deny_thread(void *arg)
{
	filter_sysinfo(SYSINFO_NR, SECCOMP_RET_ERRNO | EVDSO_MARKER, 0);
	*(int *)arg = hidden_check();
	return NULL;
}

static int deny_thread_child(void)
{
	const uint32_t *page = vvar_sysinfo_page();
	pthread_t t;
	int ret = -1;

	if (!matches_syscall(false))
		return 1;
	if (pthread_create(&t, NULL, deny_thread, &ret) || pthread_join(t, NULL))
		fatal("pthread_create/join failed", 0);
	if (ret || page_nonzero(page, 0)) {
		ksft_print_msg("filtered thread: %d, unfiltered thread sees %d words set\n",
			       ret, page_nonzero(page, 0));
		return 1;
	}
	/* The unfiltered thread's fallback reaches the kernel. */
	return matches_syscall(false) ? 0 : 1;
}

/* fork() and exec() keep the choice of the process that filtered. */
static int deny_fork_exec_child(void)
{
	char index[16];
	pid_t pid;

	filter_sysinfo(SYSINFO_NR, SECCOMP_RET_ERRNO | EVDSO_MARKER, 0);
	pid = fork();
	if (pid < 0)
		fatal("fork, errno", errno);
	if (!pid)
		_exit(hidden_check());
	if (!child_passed(pid))
		return 1;
	snprintf(index, sizeof(index), "%d", sysinfo_page_index);
	execl("/proc/self/exe", "vdso_test_sysinfo", "hidden", index, (char *)NULL);
	fatal("exec /proc/self/exe, errno", errno);
	return 1;
}

/*
 * A filter that always allows sysinfo keeps the fast path: no system
 * call, and the snapshot in [vvar]; also one that decides on another
 * system call. On x32, which the filters' action cache does not cover,
 * any filter hides the page.
 */
static int allow_check(void)
{
	const uint32_t *page = vvar_sysinfo_page();
	bool hidden;

	if (!matches_syscall(true))
		return 1;
	hidden = !page_valid(page);
	if (!opt_out && hidden) {
		ksft_print_msg("[vvar]'s sysinfo page: sequence count %u\n", page[0]);
		return 1;
	}
	return 0;
}

static int allow_all_child(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(filter),
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		fatal("installing the seccomp filter failed, errno", errno);
	return allow_check();
}

static int allow_other_child(void)
{
	filter_sysinfo((uint32_t)SYS_getppid, SECCOMP_RET_ERRNO | EVDSO_MARKER, 0);
	if (syscall(SYS_getppid) != -1 || errno != EVDSO_MARKER) {
		ksft_print_msg("the filter on getppid did not act\n");
		return 1;
	}
	return allow_check();
}

/* @child passes, traced, and makes system calls from the vDSO or none. */
static void test_traced(int (*child)(void), bool syscalls, const char *name)
{
	int made;
	bool ok = traced(child, &made);

	if (syscalls ? !made : traced_stray)
		ksft_print_msg("%d system calls from the vDSO, expected %s\n", made,
			       syscalls ? "some" : "none but while the snapshot was rewritten");
	ksft_test_result(ok && (syscalls ? made : !traced_stray), "%s\n", name);
}

/*
 * An LXD-like supervisor: a worker thread's filter hands sysinfo to the
 * supervisor thread through a user notification; the supervisor writes
 * its own answer into the worker's buffer through /proc/<tid>/mem, as LXD
 * does, and lets the call return 0. The worker's vDSO call must return
 * the supervisor's values.
 */
static const struct sysinfo notif_answer = {
	.uptime = 4242, .loads = { 1, 2, 3 }, .totalram = 1234567,
	.freeram = 7654, .procs = 77, .mem_unit = 4096,
};

static atomic_int notif_fd = -1;

static void *notif_worker(void *arg)
{
	struct sysinfo v;
	long ret, fd;

	memset(&v, 0, sizeof(v));
	fd = filter_sysinfo(SYSINFO_NR, SECCOMP_RET_USER_NOTIF,
			    SECCOMP_FILTER_FLAG_NEW_LISTENER);
	atomic_store(&notif_fd, (int)fd);
	ret = VDSO_CALL(vdso_sysinfo, 1, &v);
	*(int *)arg = ret || memcmp(&v, &notif_answer, sizeof(v));
	if (*(int *)arg)
		ksft_print_msg("worker: returned %ld, uptime %lld, procs %u, totalram %llu\n",
			       ret, (long long)v.uptime, v.procs,
			       (unsigned long long)v.totalram);
	return NULL;
}

static int notif_child(void)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	char path[64];
	struct sysinfo v;
	pthread_t t;
	int ret = -1, fd, mem;

	vdso_call_sysinfo(&v);
	if (pthread_create(&t, NULL, notif_worker, &ret))
		fatal("pthread_create failed", 0);
	while ((fd = atomic_load(&notif_fd)) < 0)
		usleep(1000);
	memset(&req, 0, sizeof(req));
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req))
		fatal("SECCOMP_IOCTL_NOTIF_RECV, errno", errno);
	if (req.data.nr != (int)SYSINFO_NR)
		fatal("notified of system call", req.data.nr);
	snprintf(path, sizeof(path), "/proc/%d/mem", req.pid);
	mem = open(path, O_RDWR);
	if (mem < 0 || pwrite64(mem, &notif_answer, sizeof(notif_answer),
				(off64_t)req.data.args[0]) != sizeof(notif_answer))
		fatal("writing the answer through /proc/<tid>/mem, errno", errno);
	close(mem);
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp))
		fatal("SECCOMP_IOCTL_NOTIF_SEND, errno", errno);
	pthread_join(t, NULL);
	return ret;
}

/*
 * A filter that denies the native sysinfo and lets every other
 * architecture through (filter_sysinfo()'s shape), inherited through
 * exec by a program that maps the 32-bit vDSO in place of its own
 * (arch_prctl(ARCH_MAP_VDSO_32), with CONFIG_CHECKPOINT_RESTORE) before
 * it read [vvar]: the snapshot stays hidden, as what decides is the
 * system calls the process can make, not the image it mapped; also
 * where ia32_emulation=0 leaves it no 32-bit system call at all. Run as
 * "vdso_test_sysinfo vdso32 PAGE TOTALRAM TOTALSWAP MEM_UNIT"; KSFT_SKIP where there is no 32-bit
 * vDSO to map.
 */
#ifndef ARCH_MAP_VDSO_32
#define ARCH_MAP_VDSO_32	0x2002
#endif

static int vdso32_swap(int index)
{
	static unsigned char buf[4096];
	uintptr_t lo, hi, vlo, vhi;
	int words = 0, page, i;

	find_mapping("[vvar]", &lo, &hi);
	find_mapping("[vdso]", &vlo, &vhi);
	/* From here on, nothing may call into the vDSO: libc's clocks included. */
	if (munmap((void *)lo, hi - lo) || munmap((void *)vlo, vhi - vlo))
		fatal("munmap of [vvar] and [vdso], errno", errno);
	if (syscall(SYS_arch_prctl, ARCH_MAP_VDSO_32, lo) < 0) {
		ksft_print_msg("arch_prctl(ARCH_MAP_VDSO_32): %s\n", strerror(errno));
		return errno == EINVAL ? KSFT_SKIP : 1;
	}
	find_mapping("[vvar]", &lo, &hi);
	page = snapshot_page(lo, hi);
	if (index >= 0 && vvar_read(lo + (uintptr_t)index * getpagesize(), buf)) {
		for (i = 0; i < getpagesize(); i += 4)
			words += !!*(uint32_t *)(buf + i);
	}
	if (page >= 0 || words) {
		ksft_print_msg("32-bit vDSO's [vvar]: snapshot in page %d, %d words set\n",
			       page, words);
		return 1;
	}
	return 0;
}

static const char vdso32_name[] =
	"seccomp: ARCH_MAP_VDSO_32 behind a filter that allows other ABIs finds no snapshot";

static void test_vdso32(void)
{
	pid_t pid;
	int status;
	char index[16], ram[32], swap[32], unit[16];

	if (sizeof(void *) != 8) {
		ksft_test_result_skip("%s\n", vdso32_name);
		return;
	}
	pid = fork_child();
	if (!pid) {
		filter_sysinfo(SYSINFO_NR, SECCOMP_RET_ERRNO | EVDSO_MARKER, 0);
		snprintf(index, sizeof(index), "%d", sysinfo_page_index);
		snprintf(ram, sizeof(ram), "%llu", (unsigned long long)constants.totalram);
		snprintf(swap, sizeof(swap), "%llu", (unsigned long long)constants.totalswap);
		snprintf(unit, sizeof(unit), "%u", constants.mem_unit);
		execl("/proc/self/exe", "vdso_test_sysinfo", "vdso32", index, ram, swap, unit,
		      (char *)NULL);
		fatal("exec /proc/self/exe, errno", errno);
	}
	if (waitpid(pid, &status, 0) != pid)
		ksft_exit_fail_msg("waitpid: %s\n", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_SKIP)
		ksft_test_result_skip("%s\n", vdso32_name);
	else
		ksft_test_result(WIFEXITED(status) && !WEXITSTATUS(status), "%s\n", vdso32_name);
}

/* fork_answer() of a child that has the filter and sees zeroes */
#define FILTERED_OK	3

/*
 * What a fork child sees, which its own filters decide: the snapshot
 * without a filter, zeroes and the system call with one.
 */
static int fork_answer(void)
{
	bool filtered = prctl(PR_GET_SECCOMP) == SECCOMP_MODE_FILTER;
	bool found = snapshot_mapped();
	struct sysinfo v;

	if (filtered)
		return found || VDSO_CALL(vdso_sysinfo, 1, &v) != -EVDSO_MARKER ? 1 : FILTERED_OK;
	return found == !opt_out ? 0 : 2;
}

#define FORKS	40

static atomic_int tsync_go;

static void *tsync_later(void *arg)
{
	while (!atomic_load(&tsync_go))
		;
	filter_sysinfo(SYSINFO_NR, SECCOMP_RET_ERRNO | EVDSO_MARKER, SECCOMP_FILTER_FLAG_TSYNC);
	return NULL;
}

/*
 * Children forked while another thread attaches a filter with TSYNC,
 * after MADV_KEEPONFORK on [vvar]: each gets the answer of the filters
 * it got, with no window in which a filtered child copied the snapshot.
 */
static int fork_race_child(void)
{
	int i, status, wrong = 0, filtered = 0, keep;
	pid_t pids[FORKS];
	uintptr_t lo, hi;
	struct sysinfo v;
	pthread_t t;

	find_mapping("[vvar]", &lo, &hi);
	keep = madvise((void *)lo, hi - lo, MADV_KEEPONFORK);
	vdso_call_sysinfo(&v);
	if (pthread_create(&t, NULL, tsync_later, NULL))
		fatal("pthread_create failed", 0);
	for (i = 0; i < FORKS; i++) {
		if (i == FORKS / 4)
			atomic_store(&tsync_go, 1);
		pids[i] = fork();
		if (pids[i] < 0)
			fatal("fork, errno", errno);
		if (!pids[i])
			_exit(fork_answer());
	}
	pthread_join(t, NULL);
	for (i = 0; i < FORKS; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i])
			fatal("waitpid, errno", errno);
		filtered += WIFEXITED(status) && WEXITSTATUS(status) == FILTERED_OK;
		wrong += !WIFEXITED(status) ||
			 (WEXITSTATUS(status) && WEXITSTATUS(status) != FILTERED_OK);
	}
	ksft_print_msg("MADV_KEEPONFORK on [vvar]: %s\n", keep ? strerror(errno) : "done");
	ksft_print_msg("%d children, %d with the filter, %d saw the wrong page\n",
		       FORKS, filtered, wrong);
	return wrong ? 1 : 0;
}

static void *filter_thread(void *arg)
{
	filter_sysinfo(SYSINFO_NR, SECCOMP_RET_ERRNO | EVDSO_MARKER, 0);
	return NULL;
}

/*
 * A process one of whose threads filtered sysinfo is hidden; a child
 * forked by its unfiltered thread has no filter, and the fast path.
 */
static int unfiltered_fork_child(void)
{
	pthread_t t;
	pid_t pid;

	if (pthread_create(&t, NULL, filter_thread, NULL) || pthread_join(t, NULL))
		fatal("pthread_create/join failed", 0);
	if (snapshot_mapped()) {
		ksft_print_msg("the process maps the snapshot after its thread filtered\n");
		return 1;
	}
	pid = fork();
	if (pid < 0)
		fatal("fork, errno", errno);
	if (!pid)
		_exit(fork_answer() || !matches_syscall(!opt_out) ? 1 : 0);
	return child_passed(pid) ? 0 : 1;
}

/* A filter attached with TSYNC hides the snapshot from the other threads. */
static atomic_int tsync_done;

static void *tsync_sibling(void *arg)
{
	while (!atomic_load(&tsync_done))
		usleep(1000);
	*(int *)arg = hidden_check();
	return NULL;
}

static int tsync_child(void)
{
	pthread_t t;
	int ret = -1;

	if (pthread_create(&t, NULL, tsync_sibling, &ret))
		fatal("pthread_create failed", 0);
	filter_sysinfo(SYSINFO_NR, SECCOMP_RET_ERRNO | EVDSO_MARKER, SECCOMP_FILTER_FLAG_TSYNC);
	atomic_store(&tsync_done, 1);
	pthread_join(t, NULL);
	return ret;
}

/* SECCOMP_RET_TRAP: the vDSO call raises SIGSYS, whose handler answers. */
static atomic_int sigsys_seen;

static void on_sigsys(int sig, siginfo_t *si, void *context)
{
	ucontext_t *uc = context;

	atomic_fetch_add(&sigsys_seen, 1);
#ifdef __x86_64__
	uc->uc_mcontext.gregs[REG_RAX] = -EVDSO_MARKER;
#else
	uc->uc_mcontext.gregs[REG_EAX] = -EVDSO_MARKER;
#endif
}

static int trap_child(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO };

	if (sigaction(SIGSYS, &sa, NULL))
		fatal("sigaction, errno", errno);
	filter_sysinfo(SYSINFO_NR, SECCOMP_RET_TRAP, 0);
	if (hidden_check())
		return 1;
	if (atomic_load(&sigsys_seen) != CALLS) {
		ksft_print_msg("%d SIGSYS for %d calls\n", atomic_load(&sigsys_seen), CALLS);
		return 1;
	}
	return 0;
}

/* SECCOMP_RET_LOG allows the call, but only the system call is logged. */
static int log_child(void)
{
	const uint32_t *page = vvar_sysinfo_page();

	filter_sysinfo(SYSINFO_NR, SECCOMP_RET_LOG, 0);
	if (page_nonzero(page, 0) || snapshot_mapped()) {
		ksft_print_msg("behind SECCOMP_RET_LOG: %d words set\n", page_nonzero(page, 0));
		return 1;
	}
	return matches_syscall(false) ? 0 : 1;
}

/*
 * Strict mode allows read, write, exit and sigreturn only (and on x32 not
 * even those), and SECCOMP_RET_KILL_PROCESS kills with SIGSYS: the vDSO
 * call must make the system call, which kills the process. The child
 * reports through shared memory, which needs no system call: whether
 * [vvar]'s page reads as zeroes, and whether the vDSO call returned (a
 * global, so that each store is made before the calls that follow it).
 */
static char *killed_shared;

static void enter_strict(void)
{
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT))
		_exit(2);
}

static void enter_kill_filter(void)
{
	filter_sysinfo(SYSINFO_NR, SECCOMP_RET_KILL_PROCESS, 0);
}

static void test_killed(void (*enter)(void), int sig, const char *name)
{
	const char *page_state;
	const uint32_t *page;
	struct sysinfo v;
	int status;
	pid_t pid;

	killed_shared = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (killed_shared == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	pid = fork_child();
	if (!pid) {
		page = vvar_sysinfo_page();
		vdso_call_sysinfo(&v);
		enter();
		killed_shared[0] = page_nonzero(page, 0) ? 'D' : 'Z';
		VDSO_CALL(vdso_sysinfo, 1, &v);
		killed_shared[1] = 'R';
		syscall(SYS_exit, 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		ksft_exit_fail_msg("waitpid: %s\n", strerror(errno));
	page_state = killed_shared[0] == 'Z' ? "zeroes" :
		     killed_shared[0] == 'D' ? "data" : "unread";
	ksft_print_msg("[vvar] page %s, the vDSO call %s, child %s %d\n",
		       page_state, killed_shared[1] == 'R' ? "returned" : "did not return",
		       WIFSIGNALED(status) ? "killed by signal" : "exited with",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	ksft_test_result(killed_shared[0] == 'Z' && killed_shared[1] != 'R' &&
			 WIFSIGNALED(status) && WTERMSIG(status) == sig, "%s\n", name);
	munmap(killed_shared, getpagesize());
}

/*
 * kernel.vdso_sysinfo at run time: 0 clears the snapshot (the page holds
 * no data) and every call makes the system call; 1 brings back the fast
 * path with valid data. The value found is restored.
 */
static void test_switch(void)
{
	const uint32_t *page = vvar_sysinfo_page();
	int was = sysctl_get(), off_made, on_made = -1, ms, data_off;
	bool ok;

	if (was < 0 || !sysctl_set(was)) {
		ksft_print_msg("cannot write %s: %s\n", SYSCTL_PATH, strerror(errno));
		ksft_test_result_skip("runtime switch kernel.vdso_sysinfo\n");
		return;
	}
	if (sysinfo_page_index < 0) {
		/* Booted with it off: the page is found once it is on. */
		sysctl_set(1);
		opt_out = false;
		locate_snapshot();
		opt_out = true;
		page = sysinfo_page;
	}
	sysctl_set(0);
	/* Words 1-5 hold the uptime and the boot offset, not the snapshot */
	data_off = page_nonzero(page, 6);
	ok = traced(ten_calls, &off_made) && matches_syscall(false);
	sysctl_set(1);
	/* The system call (made by the vDSO here) starts publication */
	for (ms = 0; ms < 2000 && !page_valid(page); ms++) {
		ten_calls();
		usleep(1000);
	}
	ok = ok && page_valid(page) && traced(ten_calls, &on_made) && !traced_stray &&
	     matches_syscall(true);
	sysctl_set(was);
	ksft_print_msg("off: %d words of data, %d of %d calls made the system call\n",
		       data_off, off_made, CALLS);
	ksft_print_msg("on: valid after %d ms, %d calls made the system call\n", ms, on_made);
	ksft_test_result(ok && !data_off && off_made == CALLS,
			 "runtime switch kernel.vdso_sysinfo\n");
}

/* Read or write a short file, such as a sysfs or debugfs value. */
static bool read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return true;
}

static bool write_line(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok;
}

#define CS_PATH "/sys/devices/system/clocksource/clocksource0/"

/*
 * The x86 clocksources without a vDSO mode, for which the kernel does not
 * keep the clock data's high-resolution bases: the first two can be
 * switched to at run time (the jiffies ones only at boot, by
 * clocksource=, as the tick is in one-shot mode).
 */
static const char *const no_vdso_mode[] = { "acpi_pm", "hpet", "refined-jiffies", "jiffies" };

/*
 * On a clocksource without a vDSO mode, the vDSO's clock_gettime()
 * makes the system call; sysinfo() must not, and its fields and uptime
 * must still be right. Switches to acpi_pm or hpet when booted on another
 * clocksource, and back.
 */
static void test_clocksource(void)
{
	const char *name = "no system call on a clocksource without a vDSO mode";
	char was[64], avail[256], now[64] = "";
	const char *target = NULL;
	bool ok, switched = false;
	unsigned int i;
	int made;

	if (!read_line(CS_PATH "current_clocksource", was, sizeof(was)) ||
	    !read_line(CS_PATH "available_clocksource", avail, sizeof(avail))) {
		ksft_test_result_skip("%s: no clocksource in sysfs\n", name);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(no_vdso_mode) && !target; i++)
		if (!strcmp(was, no_vdso_mode[i]))
			target = was;
	for (i = 0; i < 2 && !target; i++) {
		if (!strstr(avail, no_vdso_mode[i]))
			continue;
		switched = write_line(CS_PATH "current_clocksource", no_vdso_mode[i]);
		if (switched && read_line(CS_PATH "current_clocksource", now, sizeof(now)) &&
		    !strcmp(now, no_vdso_mode[i]))
			target = no_vdso_mode[i];
	}
	if (!target) {
		if (switched)
			write_line(CS_PATH "current_clocksource", was);
		ksft_print_msg("on %s, available: %s\n", was, avail);
		ksft_test_result_skip("%s: none available\n", name);
		return;
	}
	ok = traced(ten_calls, &made) && (opt_out ? made == CALLS : !traced_stray) &&
	     matches_syscall(!opt_out) && uptime_exact();
	ksft_print_msg("clocksource %s (booted on %s): %d of %d calls made the system call\n",
		       target, was, made, CALLS);
	if (target != was && !write_line(CS_PATH "current_clocksource", was))
		ksft_print_msg("could not switch back to %s\n", was);
	ksft_test_result(ok, "%s\n", name);
}

#define DEBUGFS_PATH "/sys/kernel/debug/vdso_sysinfo/"

/* A value in the kernel's debugfs files for these tests; -1 without them */
static long debugfs_get(const char *file)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), DEBUGFS_PATH "%s", file);
	if (access(DEBUGFS_PATH, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (!read_line(path, buf, sizeof(buf)))
		return -1;
	return buf[0] == 'Y' ? 1 : buf[0] == 'N' ? 0 : strtol(buf, NULL, 0);
}

static bool debugfs_set(const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), DEBUGFS_PATH "%s", file);
	return debugfs_get(file) >= 0 && write_line(path, val);
}

/*
 * A publisher that stopped running: with vdso_sysinfo/stall set, the
 * kernel publishes nothing, and once the snapshot is MAX_AGE_MS old
 * (plus a tick) every vDSO call makes the system call, with the right
 * answer. Once the stall ends the fast path comes back.
 */
static void test_stall(void)
{
	const char *name = "a snapshot older than the age bound is refused, then renewed";
	int stale_made, fresh_made = -1;
	bool ok;

	if (opt_out) {
		ksft_test_result_skip("%s: kernel.vdso_sysinfo is 0\n", name);
		return;
	}
	sys_sysinfo(&reference);
	if (!debugfs_set("stall", "1")) {
		ksft_test_result_skip("%s: no %sstall (CONFIG_DEBUG_FS)\n", name, DEBUGFS_PATH);
		return;
	}
	usleep((MAX_AGE_MS + 2 * PERIOD_MS) * 1000);
	ok = traced(ten_calls, &stale_made) && stale_made == CALLS && matches_syscall(false);
	debugfs_set("stall", "0");
	usleep(3 * PERIOD_MS * 1000);
	ok = ok && traced(ten_calls, &fresh_made) && !traced_stray && matches_syscall(true);
	ksft_print_msg("stalled: %d of %d calls made the system call; renewed: %d\n",
		       stale_made, CALLS, fresh_made);
	ksft_test_result(ok, "%s\n", name);
}

/*
 * Nobody makes the system call for LINGER_MS: the kernel stops
 * publishing (its count stands still) and leaves the snapshot not
 * valid; the first vDSO call then makes the system call, which starts
 * publication again, and the calls after it take the fast path.
 */
static void test_idle(void)
{
	const char *name = "nothing is published while nobody reads; the first call restarts it";
	long before, after;
	bool was_valid;
	int made = -1;
	bool ok;

	if (opt_out) {
		ksft_test_result_skip("%s: kernel.vdso_sysinfo is 0\n", name);
		return;
	}
	if (debugfs_get("publications") < 0) {
		ksft_test_result_skip("%s: no %spublications (CONFIG_DEBUG_FS)\n",
				      name, DEBUGFS_PATH);
		return;
	}
	usleep((LINGER_MS + 500) * 1000);
	before = debugfs_get("publications");
	usleep(1000 * 1000);
	after = debugfs_get("publications");
	was_valid = page_valid(sysinfo_page);
	ok = traced(ten_calls, &made) && made == 1 && !traced_stray && matches_syscall(true);
	ksft_print_msg("publications %ld, a second later %ld; snapshot %s\n",
		       before, after, was_valid ? "valid" : "not valid");
	ksft_print_msg("%d of %d calls made the system call\n", made, CALLS);
	ksft_test_result(ok && before == after && !was_valid, "%s\n", name);
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
	ksft_test_result(matches_syscall(true),
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

/*
 * Run @child in a forked child, which fills in @n numbers of @res; they
 * come back through a pipe. The test fails if the child does.
 */
static void bench_child(void (*child)(double *res), double *res, size_t n)
{
	size_t len = n * sizeof(*res);
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (!pid) {
		child(res);
		_exit(write(fds[1], res, len) != (ssize_t)len);
	}
	close(fds[1]);
	if (read(fds[0], res, len) != (ssize_t)len || !child_passed(pid))
		ksft_exit_fail_msg("a benchmark child failed\n");
	close(fds[0]);
}

/*
 * The vDSO call and the system call behind a filter that denies
 * sysinfo: the vDSO makes the system call there (the snapshot is
 * hidden), so both should cost the same.
 */
static void bench_filtered(double *res)
{
	filter_sysinfo(SYSINFO_NR, SECCOMP_RET_ERRNO | EVDSO_MARKER, 0);
	per_call(bench_vdso, 10000);
	res[0] = per_call(bench_vdso, 100000);
	res[1] = per_call(bench_syscall, 100000);
}

static void bench_timens_inside(double *res)
{
	per_call(bench_vdso, 10000);
	res[0] = per_call(bench_vdso, 1000000);
}

/*
 * The vDSO call inside a time namespace with a boottime offset, where the
 * reader takes its out-of-line path: in a grandchild, as only children
 * of the unsharing task enter the namespace. -1 without time namespaces.
 */
static void bench_timens(double *res)
{
	char buf[64];
	int fd, len;

	res[0] = -1;
	if (unshare(CLONE_NEWTIME))
		return;
	fd = open("/proc/self/timens_offsets", O_WRONLY);
	len = snprintf(buf, sizeof(buf), "%d %ld %ld\n", CLOCK_BOOTTIME,
		       TIMENS_SEC, TIMENS_NSEC);
	if (fd < 0 || write(fd, buf, len) != len)
		_exit(1);
	close(fd);
	bench_child(bench_timens_inside, res, 1);
}

/*
 * The vDSO call on acpi_pm or hpet, which have no vDSO mode; -1 when
 * neither can be switched to. Switches back.
 */
static double bench_no_vdso_mode(void)
{
	double ns = -1;
	char was[64], now[64];
	unsigned int i;

	if (!read_line(CS_PATH "current_clocksource", was, sizeof(was)))
		return ns;
	for (i = 0; i < 2 && ns < 0; i++) {
		if (!write_line(CS_PATH "current_clocksource", no_vdso_mode[i]) ||
		    !read_line(CS_PATH "current_clocksource", now, sizeof(now)) ||
		    strcmp(now, no_vdso_mode[i]))
			continue;
		per_call(bench_vdso, 10000);
		ns = per_call(bench_vdso, 1000000);
	}
	write_line(CS_PATH "current_clocksource", was);
	return ns;
}

#define ROW(label, fmt, val)	printf("%-46s %10" fmt "\n", label, val)

/*
 * Prints one row per line, label and value: the 64-bit build a header,
 * its rows and the ratios; the 32-bit and x32 builds their vDSO and
 * system call rows. With kernel.vdso_sysinfo at 0 only the vDSO's own row is
 * printed, as the cost of the fallback.
 */
static void bench(void)
{
	const char *abi = COMPAT_LAYOUT ? "32-bit " :
			  sizeof(void *) == 4 ? "x32 " : "";
	double vdso, sys, proc, floor, filtered[2], timens, nomode;
	char label[64];

	per_call(bench_vdso, 10000);
	vdso = per_call(bench_vdso, 1000000);
	if (opt_out) {
		snprintf(label, sizeof(label), "%svDSO sysinfo(), kernel.vdso_sysinfo=0", abi);
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
		snprintf(label, sizeof(label), "ratio %ssysinfo(2) / %svDSO sysinfo", abi, abi);
		ROW(label, ".2f", sys / vdso);
		return;
	}

	vdso_clock_gettime = vdso_sym(versions[VDSO_VERSION], names[VDSO_NAMES][1]);
	if (!vdso_clock_gettime)
		ksft_exit_fail_msg("%s is missing from the vDSO\n", names[VDSO_NAMES][1]);
	sys = per_call(bench_syscall, 100000);
	proc = per_call(bench_proc, 2000);
	floor = per_call(bench_floor, 1000000);
	bench_child(bench_filtered, filtered, 2);
	bench_child(bench_timens, &timens, 1);
	nomode = bench_no_vdso_mode();

	ROW("per call", "s", "ns");
	ROW("vDSO sysinfo()", ".1f", vdso);
	ROW("sysinfo(2) syscall", ".1f", sys);
	ROW("read+parse /proc/meminfo and /proc/loadavg", ".1f", proc);
	ROW("vDSO clock_gettime(CLOCK_MONOTONIC_COARSE)", ".1f", floor);
	ROW("vDSO sysinfo(), in a time namespace", ".1f", timens);
	ROW("vDSO sysinfo(), clocksource without vDSO mode", ".1f", nomode);
	ROW("vDSO sysinfo(), behind a filter denying it", ".1f", filtered[0]);
	ROW("sysinfo(2) syscall, behind the same filter", ".1f", filtered[1]);
	ROW("ratio syscall / vDSO sysinfo", ".2f", sys / vdso);
	ROW("ratio /proc / vDSO sysinfo", ".2f", proc / vdso);
	ROW("ratio filtered vDSO / filtered syscall", ".2f", filtered[0] / filtered[1]);
	ROW("ratio time namespace vDSO / floor", ".2f", timens / floor);
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
	find_mapping("[vdso]", &vdso_lo, &vdso_hi);
	rewrites_met = mmap(NULL, sizeof(*rewrites_met), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rewrites_met == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	switch (sysctl_get()) {
	case 0:
		opt_out = true;
		break;
	case 1:
		break;
	default:
		ksft_exit_fail_msg("cannot read %s (CONFIG_PROC_SYSCTL?)\n", SYSCTL_PATH);
	}
}

static void kselftest(void)
{
	const char *version = versions[VDSO_VERSION];
	void *alias;

	ksft_print_header();
	vsysinfo_init();
	locate_snapshot();
	/* A 32-bit struct sysinfo has one more case, its compat scaling. */
	ksft_set_plan(COMPAT_LAYOUT ? 33 : 32);
	ksft_print_msg("kernel.vdso_sysinfo = %d: the vDSO must %s the system call\n",
		       !opt_out, opt_out ? "always make" : "never make");

	/*
	 * The 64-bit vDSO exports the weak alias sysinfo; the 32-bit and x32
	 * ones export only __vdso_* names, as for every other function.
	 */
	alias = vdso_sym(version, "sysinfo");
	if (alias != (sizeof(void *) == 8 ? (void *)vdso_sysinfo : NULL))
		ksft_print_msg("sysinfo@%s at %p, %s at %p\n", version, alias,
			       vdso_sysinfo_name, (void *)vdso_sysinfo);
	if (sizeof(void *) == 8)
		ksft_test_result(alias == (void *)vdso_sysinfo,
				 "sysinfo is an alias of __vdso_sysinfo\n");
	else
		ksft_test_result(!alias, "only __vdso_sysinfo is exported, no sysinfo\n");
	test_syscalls();
	test_fields();
	test_follow();
	test_follow_shmem();
	test_follow_swap();
	test_follow_bufferram();
	test_in_child(fork_child_matches, "fields match sysinfo(2) in a forked child");
	test_in_child(exact_child, "writes exactly one struct sysinfo");
	test_traced(null_child, opt_out, "NULL gets -EFAULT as from sysinfo(2)");
	test_threads();
	test_timens("positive", TIMENS_SEC, TIMENS_NSEC);
	test_timens("negative", -(si_uptime() / 2), 300000000L);
	test_in_child(deny_child,
		      "seccomp: a filter that denies sysinfo gets the system call, [vvar] holds zeroes");
	test_in_child(deny_after_use_child,
		      "seccomp: a filter attached after the first call hides the snapshot");
	test_in_child(deny_thread_child,
		      "seccomp: a filter one thread attaches hides the snapshot from every thread");
	test_in_child(deny_fork_exec_child,
		      "seccomp: fork and exec keep the snapshot hidden");
	test_in_child(notif_child,
		      "seccomp: a user notification supervisor answers the vDSO call");
	test_traced(allow_all_child, opt_out,
		    "seccomp: a filter that always allows sysinfo keeps the fast path");
	test_traced(allow_other_child, opt_out,
		    "seccomp: a filter on another system call keeps the fast path");
	test_in_child(tsync_child,
		      "seccomp: a filter attached with TSYNC hides the snapshot from every thread");
	test_in_child(unfiltered_fork_child,
		      "seccomp: an unfiltered child of a process whose thread filtered gets the snapshot");
	test_in_child(fork_race_child,
		      "seccomp: children forked while a thread attaches with TSYNC get their own filters' answer");
	test_vdso32();
	test_in_child(trap_child, "seccomp: SECCOMP_RET_TRAP gets the system call and SIGSYS");
	test_traced(log_child, true, "seccomp: SECCOMP_RET_LOG gets the system call, logged");
	test_killed(enter_kill_filter, SIGSYS,
		    "seccomp: SECCOMP_RET_KILL_PROCESS kills the caller of the vDSO");
	test_killed(enter_strict, SIGKILL,
		    "seccomp strict mode: the system call is made, [vvar] holds zeroes");
	test_switch();
	test_clocksource();
	test_stall();
	test_idle();
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
	/* Run by deny_fork_exec_child() behind its filter: hidden PAGE */
	if (argc == 3 && !strcmp(argv[1], "hidden")) {
		in_child = true;
		vsysinfo_init();
		sysinfo_page_index = atoi(argv[2]);
		sysinfo_page = vvar_sysinfo_page();
		return hidden_check();
	}
	/* Run by test_vdso32() behind its filter: vdso32 PAGE TOTALRAM TOTALSWAP MEM_UNIT */
	if (argc == 6 && !strcmp(argv[1], "vdso32")) {
		in_child = true;
		constants.totalram = strtoull(argv[3], NULL, 0);
		constants.totalswap = strtoull(argv[4], NULL, 0);
		constants.mem_unit = strtoul(argv[5], NULL, 0);
		return vdso32_swap(atoi(argv[2]));
	}
	if (argc != 2 || strcmp(argv[1], "bench")) {
		usage(argv[0]);
		return 1;
	}
	vsysinfo_init();
	locate_snapshot();
	bench();
	return 0;
}
