// SPDX-License-Identifier: GPL-2.0
/*
 * vdso_sysinfo_helpers.c: what the sysinfo() vDSO tests share: the vDSO
 * lookup, the sysinfo(2) reference, the comparison with its tolerances,
 * the seccomp filter builder, the ptrace counter of the system calls
 * made from inside the vDSO, and the search for the snapshot in [vvar].
 * See vdso_sysinfo_helpers.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "../kselftest.h"
#include "parse_vdso.h"
#include "vdso_config.h"
#include "vdso_call.h"
#include "vdso_sysinfo_helpers.h"

#define UPTIME_SAMPLES	40
#define UPTIME_STEP_US	37000

vdso_sysinfo_t vdso_sysinfo;
const char *vdso_sysinfo_name;
bool opt_out;
bool in_child;

void fatal(const char *what, long err)
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
struct sysinfo reference;

void sys_sysinfo(struct sysinfo *info)
{
	if (syscall(SYS_sysinfo, &reference))
		fatal("sysinfo(2) failed, errno", errno);
	*info = reference;
}

/* This process's snapshot page, set by locate_snapshot() */
const uint32_t *sysinfo_page;

/*
 * The calls that met the kernel rewriting the snapshot, counted across
 * the processes of the test (a MAP_SHARED page): see vdso_call_sysinfo().
 */
unsigned int *rewrites_met;

/*
 * Whether [vvar]'s sysinfo page holds a snapshot young enough for the
 * vDSO: its clock (words 2 and 3, CLOCK_BOOTTIME's coarse base, seconds
 * in the upper word and nanoseconds in the lower, which the kernel
 * rewrites on every tick) at most MAX_AGE_MS past the publication's
 * (words 4 and 5). The clock is read in 32-bit halves, as a 32-bit
 * reader must: until its upper half is stable.
 */
static bool page_young(const uint32_t *page)
{
	uint32_t sec, nsec, pub_sec, pub_nsec;

	do {
		sec = __atomic_load_n(&page[3], __ATOMIC_ACQUIRE);
		nsec = __atomic_load_n(&page[2], __ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&page[3], __ATOMIC_ACQUIRE) != sec);
	pub_sec = __atomic_load_n(&page[5], __ATOMIC_RELAXED);
	pub_nsec = __atomic_load_n(&page[4], __ATOMIC_RELAXED);
	if (sec < pub_sec || (sec == pub_sec && nsec <= pub_nsec))
		return true;
	return (sec - pub_sec) * NSEC_PER_SEC + nsec - pub_nsec <=
	       (long long)MAX_AGE_MS * 1000000;
}

/*
 * Call the vDSO and tell whether its answer came from the snapshot: the
 * sequence count (the first word of [vvar]'s sysinfo page) odd and the
 * same before and after the call, and the snapshot young enough by the
 * clock next to it (page_young()). A call that meets the kernel
 * rewriting the snapshot, or an old one, makes the system call instead,
 * as the vDSO must: its answer would match sysinfo(2) whatever the
 * snapshot holds, so the field checks only count answers from the
 * snapshot, and the tracer does not count such a call's system call as
 * one the vDSO should not have made. With kernel.vdso_sysinfo at 0 every
 * call makes the system call: true then.
 */
bool vdso_call_sysinfo(struct sysinfo *info)
{
	uint32_t seq = __atomic_load_n(&sysinfo_page[0], __ATOMIC_ACQUIRE);
	bool young = page_young(sysinfo_page);
	long ret = VDSO_CALL(vdso_sysinfo, 1, info);
	bool stable = (seq & 1) && young && page_young(sysinfo_page) &&
		      __atomic_load_n(&sysinfo_page[0], __ATOMIC_ACQUIRE) == seq;

	if (ret == -EVDSO_MARKER)
		fatal("the vDSO made the sysinfo system call, returned", ret);
	if (ret)
		fatal("the vDSO sysinfo() returned", ret);
	if (!stable)
		__atomic_fetch_add(rewrites_met, 1, __ATOMIC_RELAXED);
	return opt_out || stable;
}

pid_t fork_child(void)
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

bool child_passed(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		ksft_exit_fail_msg("waitpid: %s\n", strerror(errno));
	if (WIFSIGNALED(status))
		ksft_print_msg("child killed by signal %d\n", WTERMSIG(status));
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

/*
 * Where the snapshot lies in [vvar] is not ABI: vsysinfo_init() finds
 * its page by its content (see snapshot_page()). Its first word is the
 * sequence count, odd while the snapshot is valid; a task that must not
 * read it sees a page of zeroes.
 */
bool page_valid(const uint32_t *page)
{
	return __atomic_load_n(&page[0], __ATOMIC_RELAXED) & 1;
}

/* kernel.vdso_sysinfo (0 or 1), the kernel's own answer; -1 if unreadable. */
int sysctl_get(void)
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

bool sysctl_set(int on)
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
int traced_stray;

/* The vDSO's text: its mapping, the image of its one PT_LOAD segment. */
uintptr_t vdso_lo, vdso_hi;

/*
 * Run @fn in a child traced with ptrace and count the sysinfo system
 * calls it enters from inside the vDSO's text, but the reference ones of
 * sys_sysinfo() (a 32-bit libc makes those from the vDSO too), told apart
 * by their buffer. True when the child exits with 0.
 */
bool traced(int (*fn)(void), int *made)
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
	traced_stray = *made - (int)(*rewrites_met < (unsigned int)*made ?
				     *rewrites_met : (unsigned int)*made);
	if (*made)
		ksft_print_msg("%d system calls from the vDSO, %u calls met a rewrite\n",
			       *made, *rewrites_met);
	return ok;
}

/* Where this process maps @name ("[vvar]", "[vdso]"): [*lo, *hi). */
void find_mapping(const char *name, uintptr_t *lo, uintptr_t *hi)
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
struct sysinfo constants;

/* The snapshot's page in [vvar], or -1: with kernel.vdso_sysinfo = 0 */
int sysinfo_page_index = -1;

/* A page of zeroes, which stands for the snapshot's page when it has none */
static const uint32_t no_page[4096 / sizeof(uint32_t)];

/*
 * Copy a page of [vvar] through a pipe: a page the kernel does not back
 * (a pvclock page without pvclock) then fails with EFAULT, not SIGBUS.
 */
bool vvar_read(uintptr_t addr, void *buf)
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
bool holds_snapshot(const unsigned char *page)
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
int snapshot_page(uintptr_t lo, uintptr_t hi)
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
bool snapshot_mapped(void)
{
	uintptr_t lo, hi;

	find_mapping("[vvar]", &lo, &hi);
	return snapshot_page(lo, hi) >= 0;
}

/* The snapshot's page in [vvar], as this process maps it. */
const uint32_t *vvar_sysinfo_page(void)
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
void locate_snapshot(void)
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
int page_nonzero(const uint32_t *page, int from)
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
long filter_sysinfo(uint32_t nr, uint32_t action, unsigned int flags)
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
long ceil_sec(const struct timespec *t, long long minus_ns)
{
	long long ns = t->tv_sec * NSEC_PER_SEC + t->tv_nsec - minus_ns;

	return (ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
}

/* One tick: the resolution of the coarse clocks, TICK_NSEC */
long long tick_ns(void)
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
bool uptime_exact(void)
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

int check_eq(const char *name, unsigned long long v,
	     unsigned long long s, bool report)
{
	if (v == s)
		return 0;
	if (report)
		ksft_print_msg("%s %llu != %llu\n", name, v, s);
	return 1;
}

/* @v within @tol of the interval that @a and @b span */
/* @v within @tol of the interval that @a and @b span, plus @above */
int check_in(const char *name, unsigned long long v, unsigned long long a,
	     unsigned long long b, unsigned long long tol,
	     unsigned long long above, bool report)
{
	unsigned long long lo = a < b ? a : b, hi = a < b ? b : a;

	if (v + tol >= lo && v <= hi + tol + above)
		return 0;
	if (report)
		ksft_print_msg("%s %llu not within %llu of [%llu, %llu]\n",
			       name, v, tol, lo, hi + above);
	return 1;
}

/*
 * Compare @v from the vDSO with @s1 and @s2 from sysinfo(2) just before
 * and after it; @threads more tasks may have existed meanwhile. Returns
 * the number of mismatches; with @report, each is printed.
 */
int compare(const struct sysinfo *v, const struct sysinfo *s1,
	    const struct sysinfo *s2, unsigned int threads, bool report)
{
	unsigned long long tol = (unsigned long long)s1->totalram >> TOLERANCE_SHIFT;
	int bad = 0, i;

	bad += check_eq("totalram", v->totalram, s1->totalram, report);
	bad += check_eq("totalswap", v->totalswap, s1->totalswap, report);
	bad += check_eq("totalhigh", v->totalhigh, s1->totalhigh, report);
	bad += check_eq("mem_unit", v->mem_unit, s1->mem_unit, report);
	bad += check_eq("pad", v->pad, 0, report);
	/* The uptime may be one tick, and so one second, behind */
	bad += check_in("uptime", v->uptime + 1, s1->uptime, s2->uptime + 1, 0, 0, report);
	bad += check_in("procs", v->procs, s1->procs, s2->procs, 0, threads, report);
	for (i = 0; i < 3; i++)
		bad += check_in("loads[]", v->loads[i], s1->loads[i], s2->loads[i], 0, 0,
				report);
	bad += check_in("freeram", v->freeram, s1->freeram, s2->freeram, tol, 0, report);
	bad += check_in("sharedram", v->sharedram, s1->sharedram, s2->sharedram, tol, 0,
			report);
	bad += check_in("bufferram", v->bufferram, s1->bufferram, s2->bufferram, tol, 0,
			report);
	bad += check_in("freeswap", v->freeswap, s1->freeswap, s2->freeswap, tol, 0, report);
	bad += check_in("freehigh", v->freehigh, s1->freehigh, s2->freehigh, tol, 0, report);
	return bad;
}

/*
 * Compare against sysinfo(2), retrying while counters move. With
 * @snapshot, only answers that came from the snapshot count (where it
 * must be there: not behind a filter or with the switch off).
 */
bool matches_syscall(bool snapshot)
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
		if ((fresh || !snapshot) && !compare(&v, &s1, &s2, 0, false))
			return true;
	}
	compare(&v, &s1, &s2, 0, true);
	return false;
}

/* CALLS vDSO calls, each of which must succeed. */
int ten_calls(void)
{
	struct sysinfo v;
	int i;

	for (i = 0; i < CALLS; i++)
		vdso_call_sysinfo(&v);
	return 0;
}

/* @child passes, traced, and makes system calls from the vDSO or none. */
bool traced_as_expected(int (*child)(void), bool syscalls)
{
	int made;
	bool ok = traced(child, &made);

	if (syscalls ? !made : traced_stray)
		ksft_print_msg("%d system calls from the vDSO, expected %s\n", made,
			       syscalls ? "some" : "none but while the snapshot was rewritten");
	return ok && (syscalls ? made : !traced_stray);
}

/* Nanoseconds per call of @fn over @n calls. */
double per_call(void (*fn)(void), long n)
{
	struct timespec a, b;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		fn();
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
}

long si_uptime(void)
{
	struct sysinfo s;

	sys_sysinfo(&s);
	return s.uptime;
}

void vsysinfo_init(void)
{
	const char *version = versions[VDSO_VERSION];
	unsigned long ehdr = getauxval(AT_SYSINFO_EHDR);

	/* Named like the architecture's other vDSO functions */
	vdso_sysinfo_name = strncmp(names[VDSO_NAMES][0], "__vdso_", 7) ?
			    "__kernel_sysinfo" : "__vdso_sysinfo";
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
