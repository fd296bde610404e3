// SPDX-License-Identifier: GPL-2.0
/*
 * vsysinfo_stress.c: sysinfo() in the vDSO under load, on another
 * clocksource, with a stalled and an idle publisher.
 *
 * Part of the vsysinfo project's own proof, not of the kernel series: it
 * depends on timing, sysfs and debugfs.
 *  - Reader threads compare every answer with the one before while other
 *    threads fork and fault memory, until MIN_READS reads have seen
 *    MIN_CHANGES changes of the snapshot (at most MAX_SECONDS).
 *  - On a clocksource without a vDSO mode (acpi_pm or hpet, switched to
 *    through sysfs, or the one booted on) no call makes the system call
 *    (counted by ptrace) and the fields and uptime are right.
 *  - A publisher whose irq_work cannot run (debugfs vdso_sysinfo/stall)
 *    leaves a snapshot that the vDSO refuses once it is MAX_AGE_MS old;
 *    the system call it then makes publishes again at once.
 *  - The kernel publishes only while somebody makes the system call: it
 *    stops LINGER_MS after the last one (its debugfs count of
 *    publications stands still), and the first vDSO call after that
 *    makes the system call, the next ones do not.
 *  - After the publisher restarts (switched off and on, or after it
 *    stopped), the next vDSO call takes the fast path and its uptime is
 *    not below the coarse boot time read before it.
 *  - CPU 1 taken offline and back while a reader polls on CPU 0: the
 *    fast path goes on.
 * "vsysinfo_stress bench" prints the benchmark rows that depend on the
 * machine: /proc, and a clocksource without a vDSO mode.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
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

#define MIN_READS	100000
#define MIN_CHANGES	20
#define MAX_SECONDS	30
#define READERS		4

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
 * A publisher that cannot run (its irq_work pending on a CPU that went
 * offline, on PREEMPT_RT): with vdso_sysinfo/stall set the irq_work does
 * nothing. Once the snapshot is MAX_AGE_MS old (plus a tick) the vDSO
 * refuses it and makes the system call, which must publish again at
 * once, whatever the irq_work's state: of each ten calls after the
 * snapshot aged, one makes the system call, and every answer is right.
 * Once the stall ends the fast path comes back without a system call.
 */
static void test_stall(void)
{
	const char *name = "a snapshot older than the age bound is refused, then renewed";
	int round, made, stale_made = 0, fresh_made = -1;
	bool ok = true;

	if (opt_out) {
		ksft_test_result_skip("%s: kernel.vdso_sysinfo is 0\n", name);
		return;
	}
	sys_sysinfo(&reference);
	if (!debugfs_set("stall", "1")) {
		ksft_test_result_skip("%s: no %sstall (CONFIG_DEBUG_FS)\n", name, DEBUGFS_PATH);
		return;
	}
	for (round = 0; round < 5; round++) {
		usleep((MAX_AGE_MS + 2 * PERIOD_MS) * 1000);
		made = -1;
		ok = ok && traced(ten_calls, &made) && made == 1 && matches_syscall(false);
		stale_made += made;
	}
	debugfs_set("stall", "0");
	usleep(3 * PERIOD_MS * 1000);
	ok = ok && traced(ten_calls, &fresh_made) && !traced_stray && matches_syscall(true);
	ksft_print_msg("stalled: %d of %d calls in 5 rounds made the system call (5 expected); renewed: %d\n",
		       stale_made, 5 * CALLS, fresh_made);
	ksft_test_result(ok && fresh_made == 0, "%s\n", name);
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

/* CLOCK_BOOTTIME's coarse base: the coarse monotonic clock plus the boot offset */
static long long boot_offset_ns;

static long coarse_boot_ceil(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
	return ceil_sec(&t, -boot_offset_ns);
}

/*
 * Restart the publisher ROUNDS times (switched off and on, and once after
 * it stopped for LINGER_MS), each time with the system call, and then
 * call the vDSO: traced, no call may make the system call, and no uptime
 * may be below CLOCK_BOOTTIME's coarse base read before the call (the
 * snapshot's clock is written before the coarse clock is visible), above
 * sysinfo(2)'s after it, or below the answer before.
 */
#define ROUNDS	12
static int restarts(void)
{
	long floor_s, last = 0;
	struct sysinfo v;
	int i, bad = 0;

	for (i = 0; i < ROUNDS; i++) {
		if (i == ROUNDS - 1) {
			usleep((LINGER_MS + 500) * 1000);
		} else if (!sysctl_set(0) || !sysctl_set(1)) {
			return 1;
		}
		usleep((i % 4) * 1000);
		sys_sysinfo(&reference);
		floor_s = coarse_boot_ceil();
		vdso_call_sysinfo(&v);
		sys_sysinfo(&reference);
		if (v.uptime < floor_s || v.uptime > reference.uptime || v.uptime < last) {
			ksft_print_msg("restart %d: uptime %lld, coarse boot time %ld, sysinfo(2) %ld, before %ld\n",
				       i, (long long)v.uptime, floor_s, (long)reference.uptime, last);
			bad++;
		}
		last = v.uptime;
	}
	return bad;
}

static void test_restart(void)
{
	const char *name = "after a restart the next call is fast and the uptime never goes back";
	struct timespec b, m;
	int was = sysctl_get(), made = -1;
	bool ok;

	if (opt_out || was != 1 || !sysctl_set(1)) {
		ksft_test_result_skip("%s: kernel.vdso_sysinfo is not 1 or not writable\n", name);
		return;
	}
	clock_gettime(CLOCK_BOOTTIME, &b);
	clock_gettime(CLOCK_MONOTONIC, &m);
	/* No suspend in a guest, but whole milliseconds of it would show */
	boot_offset_ns = ((b.tv_sec - m.tv_sec) * 1000000000LL + b.tv_nsec - m.tv_nsec) /
			 1000000 * 1000000;
	ok = traced(restarts, &made);
	sysctl_set(was);
	ksft_print_msg("%d restarts, %d vDSO calls after them made the system call\n",
		       ROUNDS, made);
	/* A call that met the next publication may make it: a rewrite */
	ksft_test_result(ok && !traced_stray, "%s\n", name);
}

static atomic_bool stop, stop_readers;
static atomic_long violations, total_reads, total_changes;

/* Every snapshot must be internally consistent, uptime never go back. */
/*
 * An answer is consistent with the first one and with @snap_uptime, the
 * uptime of the last answer that came from the snapshot: no uptime is
 * smaller. The snapshot's uptime is CLOCK_BOOTTIME's coarse base rounded
 * up and so never decreases; a call that met a rewrite gets sysinfo(2)'s
 * precise uptime, which may be one second ahead of the snapshot's during
 * the first tick of a second, so only snapshot answers set the bound.
 */
static bool consistent(const struct sysinfo *v, long snap_uptime,
		       const struct sysinfo *first)
{
	return v->totalram == first->totalram &&
	       v->totalswap == first->totalswap &&
	       v->mem_unit == first->mem_unit &&
	       v->uptime >= snap_uptime &&
	       v->freeram <= v->totalram && v->sharedram <= v->totalram &&
	       v->bufferram <= v->totalram && v->freeswap <= v->totalswap &&
	       v->freehigh <= v->totalhigh && v->procs > 0;
}

static void *reader(void *arg)
{
	struct sysinfo first, v, prev;
	long reads = 0, changes = 0, snap_uptime = 0;
	bool fresh;

	vdso_call_sysinfo(&first);
	prev = first;
	while (!atomic_load(&stop_readers)) {
		fresh = vdso_call_sysinfo(&v);
		if (!consistent(&v, snap_uptime, &first)) {
			if (atomic_fetch_add(&violations, 1) < 5)
				ksft_print_msg("inconsistent: uptime %lld after %ld (%s), %s\n",
					       (long long)v.uptime, snap_uptime,
					       fresh ? "snapshot" : "system call",
					       "or a field out of range");
		}
		if (fresh)
			snap_uptime = v.uptime;
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

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

static atomic_bool hotplug_stop;
static atomic_long hotplug_reads, hotplug_fast;

/* Pinned to CPU 0: read until told to stop, counting the fast answers */
static void *hotplug_reader(void *arg)
{
	struct sysinfo v;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!atomic_load(&hotplug_stop)) {
		atomic_fetch_add(&hotplug_fast, vdso_call_sysinfo(&v));
		atomic_fetch_add(&hotplug_reads, 1);
		usleep(100);
	}
	return NULL;
}

/*
 * CPU 1 goes offline and comes back three times while a reader on CPU 0
 * polls: whichever CPU had the publication's irq_work queued, the
 * publisher goes on (on PREEMPT_RT a lazy irq_work left pending on the
 * dead CPU never runs again, and the system call must publish in its
 * place): most answers come from the snapshot, and once CPU 1 is back
 * the fast path makes no system call.
 */
static void test_hotplug(void)
{
	const char *name = "the publisher survives CPU hotplug";
	char buf[8];
	pthread_t t;
	int round, made = -1;
	long reads, fast;
	bool ok = true;

	if (opt_out || !read_line(CPU1_ONLINE, buf, sizeof(buf)) || buf[0] != '1') {
		ksft_test_result_skip("%s: no CPU 1 to take offline, or kernel.vdso_sysinfo is 0\n",
				      name);
		return;
	}
	sys_sysinfo(&reference);
	if (pthread_create(&t, NULL, hotplug_reader, NULL))
		ksft_exit_fail_msg("pthread_create failed\n");
	for (round = 0; round < 3 && ok; round++) {
		usleep(100 * 1000);
		ok = write_line(CPU1_ONLINE, "0");
		usleep(200 * 1000);
		ok = write_line(CPU1_ONLINE, "1") && ok;
	}
	usleep(100 * 1000);
	atomic_store(&hotplug_stop, true);
	pthread_join(t, NULL);
	reads = atomic_load(&hotplug_reads);
	fast = atomic_load(&hotplug_fast);
	ok = ok && traced(ten_calls, &made) && !traced_stray && matches_syscall(true);
	ksft_print_msg("%d rounds: %ld of %ld answers from the snapshot; then %d of %d calls made the system call\n",
		       round, fast, reads, made, CALLS);
	ksft_test_result(ok && reads > 0 && fast * 10 >= reads * 9, "%s\n", name);
}

static void bench_vdso(void)
{
	struct sysinfo v;

	vdso_sysinfo(&v);
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

/* The rows of the benchmark that need /proc or a clocksource switch */
static void bench(void)
{
	double vdso, proc, nomode;

	per_call(bench_vdso, 10000);
	vdso = per_call(bench_vdso, 1000000);
	proc = per_call(bench_proc, 2000);
	nomode = bench_no_vdso_mode();
	ROW("read+parse /proc/meminfo and /proc/loadavg", ".1f", proc);
	ROW("vDSO sysinfo(), clocksource without vDSO mode", ".1f", nomode);
	ROW("ratio /proc / vDSO sysinfo", ".2f", proc / vdso);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "bench")) {
		vsysinfo_init();
		locate_snapshot();
		if (!opt_out && sizeof(void *) == 8 && !COMPAT_LAYOUT)
			bench();
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "Usage: %s [bench]\n", argv[0]);
		return 1;
	}
	ksft_print_header();
	vsysinfo_init();
	locate_snapshot();
	ksft_set_plan(6);
	test_threads();
	test_clocksource();
	test_stall();
	test_idle();
	test_restart();
	test_hotplug();
	ksft_finished();
}
