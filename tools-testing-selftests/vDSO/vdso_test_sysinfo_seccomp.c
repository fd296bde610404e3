// SPDX-License-Identifier: GPL-2.0
/*
 * vdso_test_sysinfo_seccomp.c: sysinfo() in the vDSO behind seccomp.
 *
 * A vDSO call is invisible to seccomp, so a task whose filters do not
 * always allow the sysinfo system call that its vDSO image falls back to
 * must get the system call: the kernel maps a page of
 * zeroes at the snapshot's place in [vvar] for its whole process, which
 * reads as no snapshot. These cases check that for filters that deny
 * sysinfo, trap it, log it, kill for it or hand it to a supervisor, and
 * for strict mode; for a filter attached with TSYNC, by one thread, after
 * the first call, before fork and exec, or while another thread forks;
 * and after the process mapped another vDSO image. A filter that always
 * allows sysinfo keeps the fast path, so does one that kills foreign ABIs
 * only, and so does an unfiltered child of a process whose other thread
 * filtered. [vvar] is read directly: no page
 * of it may hold the snapshot where it is hidden.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "../kselftest_harness.h"
#include "parse_vdso.h"
#include "vdso_call.h"
#include "vdso_sysinfo_helpers.h"

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
	execl("/proc/self/exe", "vdso_test_sysinfo_seccomp", "hidden", index, (char *)NULL);
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

/* Install the filter of @len instructions at @filter */
static void install_filter(struct sock_filter *filter, unsigned short len)
{
	struct sock_fprog prog = {
		.len = len,
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		fatal("installing the seccomp filter failed, errno", errno);
}

static int allow_all_child(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	install_filter(filter, ARRAY_SIZE(filter));
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

/*
 * systemd's SystemCallArchitectures=native, libseccomp's default bad-arch
 * action: every call of a foreign ABI kills the process, every native
 * call is allowed. The vDSO's fallback is a native call, so the fast
 * path stays.
 */
static void enter_native_only(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYSCALL_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	install_filter(filter, ARRAY_SIZE(filter));
}

static int native_only_child(void)
{
	enter_native_only();
	return allow_check();
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
#if defined(__x86_64__) && !defined(__ILP32__)
	static unsigned char buf[4096];
	uintptr_t lo, hi, vlo, vhi;
	int words = 0, page, i;

	find_mapping("[vvar]", &lo, &hi);
	find_mapping("[vdso]", &vlo, &vhi);
	/*
	 * From here on, nothing may call into the vDSO: libc's clocks
	 * included. Everything from [vvar] to the end of [vdso] goes, with
	 * [vvar_vclock] between them where the kernel has one: the kernel
	 * maps a second vDSO only where there is none.
	 */
	if (vlo < hi || munmap((void *)lo, vhi - lo))
		fatal("munmap of [vvar] up to [vdso], errno", vlo < hi ? EINVAL : errno);
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
#else
	return KSFT_SKIP;
#endif
}

/* The child's exit code: 0, 1, or KSFT_SKIP where there is no 32-bit vDSO */
static int vdso32_run(bool native_only)
{
	char index[16], ram[32], swap[32], unit[16];
	int status;
	pid_t pid;

	if (sizeof(void *) != 8)
		return KSFT_SKIP;
	pid = fork_child();
	if (!pid) {
		if (native_only)
			enter_native_only();
		else
			filter_sysinfo(SYSINFO_NR, SECCOMP_RET_ERRNO | EVDSO_MARKER, 0);
		snprintf(index, sizeof(index), "%d", sysinfo_page_index);
		snprintf(ram, sizeof(ram), "%llu", (unsigned long long)constants.totalram);
		snprintf(swap, sizeof(swap), "%llu", (unsigned long long)constants.totalswap);
		snprintf(unit, sizeof(unit), "%u", constants.mem_unit);
		execl("/proc/self/exe", "vdso_test_sysinfo_seccomp", "vdso32", index, ram, swap,
		      unit, (char *)NULL);
		fatal("exec /proc/self/exe, errno", errno);
	}
	if (waitpid(pid, &status, 0) != pid)
		fatal("waitpid, errno", errno);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
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
#if defined(__x86_64__)
	uc->uc_mcontext.gregs[REG_RAX] = -EVDSO_MARKER;
#elif defined(__i386__)
	uc->uc_mcontext.gregs[REG_EAX] = -EVDSO_MARKER;
#elif defined(__aarch64__)
	uc->uc_mcontext.regs[0] = -EVDSO_MARKER;
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

static bool call_kills(void (*enter)(void), int sig)
{
	const char *page_state;
	const uint32_t *page;
	struct sysinfo v;
	int status;
	pid_t pid;
	bool ok;

	killed_shared = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (killed_shared == MAP_FAILED)
		fatal("mmap, errno", errno);
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
		fatal("waitpid, errno", errno);
	page_state = killed_shared[0] == 'Z' ? "zeroes" :
		     killed_shared[0] == 'D' ? "data" : "unread";
	ksft_print_msg("[vvar] page %s, the vDSO call %s, child %s %d\n",
		       page_state, killed_shared[1] == 'R' ? "returned" : "did not return",
		       WIFSIGNALED(status) ? "killed by signal" : "exited with",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	ok = killed_shared[0] == 'Z' && killed_shared[1] != 'R' &&
	     WIFSIGNALED(status) && WTERMSIG(status) == sig;
	munmap(killed_shared, getpagesize());
	return ok;
}

/*
 * Nobody else reads the snapshot through this process's mapping: [vvar]
 * has no access method, so process_vm_readv() and /proc/PID/mem (what a
 * debugger or a supervisor uses) get nothing from it, even from a parent
 * that may trace the child. Who may read the snapshot is decided for the
 * task that maps it, nowhere else.
 */
static int remote_read_child(void)
{
	static char buf[4096];
	struct iovec local = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct iovec remote[2];
	uintptr_t lo, hi, vlo, vhi;
	int fds[2], fd, i, bad = 0;
	char path[64], c = 0;
	ssize_t n[2], m[2];
	pid_t pid;

	find_mapping("[vvar]", &lo, &hi);
	find_mapping("[vdso]", &vlo, &vhi);
	if (pipe(fds))
		fatal("pipe, errno", errno);
	pid = fork();
	if (pid < 0)
		fatal("fork, errno", errno);
	if (!pid) {
		close(fds[1]);
		_exit(read(fds[0], &c, 1) < 0);
	}
	close(fds[0]);
	/*
	 * The child's mappings are where this process's are: fork copies
	 * them. [vdso] is the control: the same methods read it.
	 */
	remote[0].iov_base = (void *)(lo + (uintptr_t)sysinfo_page_index * getpagesize());
	remote[1].iov_base = (void *)vlo;
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		fatal("open /proc/PID/mem, errno", errno);
	for (i = 0; i < 2; i++) {
		remote[i].iov_len = sizeof(buf);
		n[i] = process_vm_readv(pid, &local, 1, &remote[i], 1, 0);
		m[i] = pread64(fd, buf, sizeof(buf), (off64_t)(uintptr_t)remote[i].iov_base);
	}
	close(fd);
	close(fds[1]);
	/* Without CONFIG_CROSS_MEMORY_ATTACH only /proc/PID/mem is checked */
	if (n[1] < 0) {
		ksft_print_msg("process_vm_readv() reads no [vdso] either: not checked\n");
		n[0] = 0;
		n[1] = 1;
	}
	if (n[0] > 0 || m[0] > 0 || n[1] <= 0 || m[1] <= 0) {
		ksft_print_msg("[vvar]: process_vm_readv() %zd, /proc/PID/mem %zd bytes\n",
			       n[0], m[0]);
		ksft_print_msg("[vdso]: process_vm_readv() %zd, /proc/PID/mem %zd bytes\n",
			       n[1], m[1]);
		bad++;
	}
	return child_passed(pid) && !bad ? 0 : 1;
}

/* Each case runs in a process of its own, which finds the snapshot first. */
FIXTURE(sysinfo) {};

FIXTURE_SETUP(sysinfo)
{
	in_child = true;
	vsysinfo_init();
	locate_snapshot();
}

FIXTURE_TEARDOWN(sysinfo)
{
}

TEST_F(sysinfo, deny_gets_syscall_and_zeroes)
{
	ASSERT_EQ(0, deny_child());
}

TEST_F(sysinfo, deny_after_first_call_hides)
{
	ASSERT_EQ(0, deny_after_use_child());
}

TEST_F(sysinfo, one_thread_filter_hides_from_all)
{
	ASSERT_EQ(0, deny_thread_child());
}

TEST_F(sysinfo, fork_and_exec_keep_hidden)
{
	ASSERT_EQ(0, deny_fork_exec_child());
}

TEST_F(sysinfo, user_notif_supervisor_answers)
{
	ASSERT_EQ(0, notif_child());
}

TEST_F(sysinfo, allow_all_keeps_fast_path)
{
	ASSERT_TRUE(traced_as_expected(allow_all_child, opt_out));
}

TEST_F(sysinfo, filter_on_other_call_keeps_fast_path)
{
	ASSERT_TRUE(traced_as_expected(allow_other_child, opt_out));
}

TEST_F(sysinfo, tsync_hides_from_all_threads)
{
	ASSERT_EQ(0, tsync_child());
}

TEST_F(sysinfo, unfiltered_child_of_hidden_gets_snapshot)
{
	ASSERT_EQ(0, unfiltered_fork_child());
}

TEST_F(sysinfo, fork_during_tsync_gets_own_answer)
{
	ASSERT_EQ(0, fork_race_child());
}

TEST_F(sysinfo, native_only_filter_keeps_fast_path)
{
	ASSERT_TRUE(traced_as_expected(native_only_child, opt_out));
}

TEST_F(sysinfo, arch_map_vdso_32_finds_no_snapshot)
{
	int ret = vdso32_run(false);

	if (ret == KSFT_SKIP)
		SKIP(return, "no 32-bit vDSO to map in place of this one");
	ASSERT_EQ(0, ret);
}

/*
 * Behind a native-only filter, the 32-bit image's fallback (an ia32
 * call) kills: mapping that image hides the snapshot.
 */
TEST_F(sysinfo, native_only_then_vdso_32_finds_no_snapshot)
{
	int ret = vdso32_run(true);

	if (ret == KSFT_SKIP)
		SKIP(return, "no 32-bit vDSO to map in place of this one");
	ASSERT_EQ(0, ret);
}

TEST_F(sysinfo, remote_reads_get_nothing)
{
	if (sysinfo_page_index < 0)
		SKIP(return, "no snapshot page (kernel.vdso_sysinfo is 0)");
	ASSERT_EQ(0, remote_read_child());
}

TEST_F(sysinfo, trap_gets_syscall_and_sigsys)
{
	ASSERT_EQ(0, trap_child());
}

TEST_F(sysinfo, log_gets_syscall)
{
	ASSERT_TRUE(traced_as_expected(log_child, true));
}

TEST_F(sysinfo, kill_process_kills_caller)
{
	ASSERT_TRUE(call_kills(enter_kill_filter, SIGSYS));
}

TEST_F(sysinfo, strict_mode_kills_caller)
{
	ASSERT_TRUE(call_kills(enter_strict, SIGKILL));
}

int main(int argc, char **argv)
{
	/* Run by deny_fork_exec_child() behind its filter: hidden PAGE */
	if (argc == 3 && !strcmp(argv[1], "hidden")) {
		in_child = true;
		vsysinfo_init();
		sysinfo_page_index = atoi(argv[2]);
		sysinfo_page = vvar_sysinfo_page();
		return hidden_check();
	}
	/* Run by vdso32_run() behind its filter: vdso32 PAGE TOTALRAM TOTALSWAP MEM_UNIT */
	if (argc == 6 && !strcmp(argv[1], "vdso32")) {
		in_child = true;
		constants.totalram = strtoull(argv[3], NULL, 0);
		constants.totalswap = strtoull(argv[4], NULL, 0);
		constants.mem_unit = strtoul(argv[5], NULL, 0);
		return vdso32_swap(atoi(argv[2]));
	}
	return test_harness_run(argc, argv);
}
