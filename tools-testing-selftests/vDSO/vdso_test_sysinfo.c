// SPDX-License-Identifier: GPL-2.0
/*
 * vdso_test_sysinfo.c: sysinfo() in the vDSO against sysinfo(2).
 *
 * The function must be exported (__vdso_sysinfo, with the weak alias
 * sysinfo in x86's 64-bit vDSO; __kernel_sysinfo on arm64), fill in
 * what sysinfo(2) fills in, within the tolerances of
 * vdso_sysinfo_helpers.h, with the uptime CLOCK_BOOTTIME's
 * base rounded up, in a forked child too and inside time namespaces with
 * a boottime offset, write exactly one struct (padding zeroed) and return
 * -EFAULT for NULL as sysinfo(2) does. With kernel.vdso_sysinfo = 0 it
 * must make the system call every time, and otherwise never but when the
 * snapshot is not valid: a tracer (ptrace) counts the sysinfo system
 * calls made from inside the vDSO's text. The sysctl works at run time.
 * The sandbox cases are in vdso_test_sysinfo_seccomp.c.
 *
 * Usage: vdso_test_sysinfo [bench]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/seccomp.h>

#include "../kselftest.h"
#include "parse_vdso.h"
#include "vdso_config.h"
#include "vdso_call.h"
#include "vdso_sysinfo_helpers.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

#define TIMENS_SEC	(10 * 86400L)
#define TIMENS_NSEC	700000000L
#define GUARD_BYTES	64

static void test_fields(void)
{
	ksft_test_result(matches_syscall(true) && uptime_exact(),
			 "fields match sysinfo(2), uptime is CLOCK_BOOTTIME rounded up\n");
}

/* One result: @child run in a forked child, passing when it returns 0. */
static void test_in_child(int (*child)(void), const char *name)
{
	pid_t pid = fork_child();

	if (!pid)
		_exit(child());
	ksft_test_result(child_passed(pid), "%s\n", name);
}

/* @child passes, traced, and makes system calls from the vDSO or none. */
static void test_traced(int (*child)(void), bool syscalls, const char *name)
{
	ksft_test_result(traced_as_expected(child, syscalls), "%s\n", name);
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
	double vdso, sys, floor, filtered[2], timens;
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
	floor = per_call(bench_floor, 1000000);
	bench_child(bench_filtered, filtered, 2);
	bench_child(bench_timens, &timens, 1);

	ROW("per call", "s", "ns");
	ROW("vDSO sysinfo()", ".1f", vdso);
	ROW("sysinfo(2) syscall", ".1f", sys);
	ROW("vDSO clock_gettime(CLOCK_MONOTONIC_COARSE)", ".1f", floor);
	ROW("vDSO sysinfo(), in a time namespace", ".1f", timens);
	ROW("vDSO sysinfo(), behind a filter denying it", ".1f", filtered[0]);
	ROW("sysinfo(2) syscall, behind the same filter", ".1f", filtered[1]);
	ROW("ratio syscall / vDSO sysinfo", ".2f", sys / vdso);
	ROW("ratio filtered vDSO / filtered syscall", ".2f", filtered[0] / filtered[1]);
	ROW("ratio time namespace vDSO / floor", ".2f", timens / floor);
	ROW("ratio vDSO sysinfo / floor", ".2f", vdso / floor);
}

static void kselftest(void)
{
	const char *version = versions[VDSO_VERSION];
	bool want_alias;
	void *alias;

	ksft_print_header();
	vsysinfo_init();
	locate_snapshot();
	ksft_set_plan(9);
	ksft_print_msg("kernel.vdso_sysinfo = %d: the vDSO must %s the system call\n",
		       !opt_out, opt_out ? "always make" : "never make");

	/*
	 * x86's 64-bit vDSO exports the weak alias sysinfo; its 32-bit and
	 * x32 ones export only __vdso_* names, and arm64's only __kernel_*
	 * names, as for every other function.
	 */
	want_alias = VDSO_NAMES && sizeof(void *) == 8;
	alias = vdso_sym(version, "sysinfo");
	if (alias != (want_alias ? (void *)vdso_sysinfo : NULL))
		ksft_print_msg("sysinfo@%s at %p, %s at %p\n", version, alias,
			       vdso_sysinfo_name, (void *)vdso_sysinfo);
	if (want_alias)
		ksft_test_result(alias == (void *)vdso_sysinfo,
				 "sysinfo is an alias of __vdso_sysinfo\n");
	else
		ksft_test_result(!alias, "only %s is exported, no sysinfo\n", vdso_sysinfo_name);
	test_syscalls();
	test_fields();
	test_in_child(fork_child_matches, "fields match sysinfo(2) in a forked child");
	test_in_child(exact_child, "writes exactly one struct sysinfo");
	test_traced(null_child, opt_out, "NULL gets -EFAULT as from sysinfo(2)");
	test_timens("positive", TIMENS_SEC, TIMENS_NSEC);
	test_timens("negative", -(si_uptime() / 2), 300000000L);
	test_switch();
	ksft_print_msg("the follow, thread and clocksource cases are the vsysinfo project's\n");
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
	locate_snapshot();
	bench();
	return 0;
}
