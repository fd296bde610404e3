// SPDX-License-Identifier: GPL-2.0
/*
 * vsysinfo_lib.c: kselftest of libvsysinfo.so and libvsysinfo-preload.so,
 * the libraries as installed, and of the library's vDSO lookup.
 *
 * Every case runs in a forked child, so that each sees the library's
 * first call (its one-time lookup). The test is linked against
 * libvsysinfo.so and changes nothing in it; it steers the library from
 * outside in two ways that only this program uses:
 *
 * - It defines getauxval(), which the dynamic linker binds the library's
 *   call to ahead of glibc's: with fake_auxv set, AT_SYSINFO_EHDR is
 *   fake_ehdr, a copy of the running vDSO's image whose __vdso_sysinfo
 *   is renamed (a kernel without the symbol), or whose __vdso_sysinfo
 *   jumps to a function of this test, or 0 (no vDSO mapped). It also
 *   counts the lookups of AT_SYSINFO_EHDR (the lookup happens once), and
 *   can make them slow, so that concurrent first calls overlap it.
 *
 * - A seccomp filter fails every sysinfo system call with MARK_ERRNO but
 *   the test's own reference call (ref_sysinfo below, whose return
 *   address the filter knows) and those made from inside the real vDSO
 *   (its fallback under sysctl.kernel.vdso_sysinfo=0, the kernel's business). So a
 *   system call the library makes itself returns -1 with errno
 *   MARK_ERRNO: the vDSO path must never see that, the fallback path
 *   must.
 *
 * The fields are compared by the kselftests' own compare() (the kernel
 * tree's tools/testing/selftests/vDSO/vdso_sysinfo_helpers.c, built in):
 * totals and mem_unit exactly, uptime, procs and loads within the
 * interval of two sysinfo(2) calls around the call (uptime may trail by
 * one second), free/shared/buffer memory within 1/64 of totalram of it,
 * retried while counters move.
 *
 * The library's vDSO lookup is checked in vsysinfo_lookup.c. The
 * preload's functions are reached with dlopen() and dlsym() and
 * compared with glibc's.
 *
 * x86-64 only (the reference system call is written in assembly).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
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
#include <sys/wait.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "vsysinfo.h"
#include "kselftest.h"
#include "parse_vdso.h"
#include "vdso_lookup.h"
#include "vdso_sysinfo_helpers.h"
#include "vsysinfo_lib.h"

#if !defined(__x86_64__) || defined(__ILP32__)
#error "vsysinfo_lib is written for x86-64"
#endif

#define THREADS		32
#define THREAD_CALLS	1000
#define CHILD_ATTEMPTS	3
/* errno of a sysinfo system call made by neither the test nor the vDSO */
#define MARK_ERRNO	4001
/* what the jump-patched __vdso_sysinfo returns on its second call */
#define FAKE_ERRNO	EOWNERDEAD
/* a child's exit status: moving counters did not match, run it again */
#define CHILD_RETRY	10

#define STR(x)		#x
#define XSTR(x)		STR(x)

/* The reference: sysinfo(2) from one known instruction. */
long ref_sysinfo(struct sysinfo *info);
extern const char ref_sysinfo_ret[];
asm(".pushsection .text\n"
	".globl ref_sysinfo\n"
	".hidden ref_sysinfo\n"
	".type ref_sysinfo, @function\n"
	"ref_sysinfo:\n"
	"	movl $" XSTR(SYS_sysinfo) ", %eax\n"
	"	syscall\n"
	".globl ref_sysinfo_ret\n"
	".hidden ref_sysinfo_ret\n"
	"ref_sysinfo_ret:\n"
	"	ret\n"
	".size ref_sysinfo, .-ref_sysinfo\n"
	".popsection\n");

static unsigned long (*real_getauxval)(unsigned long type);
static atomic_int ehdr_lookups;
static bool fake_auxv;
static uintptr_t fake_ehdr;
static bool slow_lookup;

/* The running vDSO, from /proc/self/maps, and whether it has the symbol */
uintptr_t vdso_start, vdso_end;
static bool vdso_has_sysinfo;
/* glibc's handle of the vDSO, its load bias and where its dynamic section is */
void *vdso_handle;
uintptr_t vdso_bias;
const ElfW(Dyn) *vdso_dynamic;

/* The library's call of getauxval() lands here. */
unsigned long getauxval(unsigned long type)
{
	if (type == AT_SYSINFO_EHDR) {
		atomic_fetch_add(&ehdr_lookups, 1);
		if (slow_lookup)
			usleep(50 * 1000);
		if (fake_auxv)
			return fake_ehdr;
	}
	return real_getauxval(type);
}

/* A case's fatal error: report it and end the child. */
__noreturn __printf(1, 2) void child_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	_exit(KSFT_FAIL);
}

static void sys_ref(struct sysinfo *s)
{
	long ret = ref_sysinfo(s);

	if (ret)
		child_fail("sysinfo(2) failed: %ld\n", ret);
}

static void call_ok(struct sysinfo *v)
{
	errno = 0;
	if (vsysinfo(v)) {
		if (errno == MARK_ERRNO)
			child_fail("vsysinfo() made the sysinfo system call itself\n");
		child_fail("vsysinfo() failed: %s\n", strerror(errno));
	}
}

/* Fail the library's own sysinfo system calls with MARK_ERRNO. */
static void mark_library_syscalls(void)
{
	uint64_t ret_ip = (uintptr_t)ref_sysinfo_ret;
	struct sock_filter filter[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sysinfo, 0, 10),
		/* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(struct seccomp_data, instruction_pointer) + 4),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)(ret_ip >> 32), 0, 2),
		/* 4 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(struct seccomp_data, instruction_pointer)),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)ret_ip, 6, 0),
		/* 6 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(struct seccomp_data, instruction_pointer) + 4),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)((uint64_t)vdso_start >> 32),
				 0, 3),
		/* 8 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
				 offsetof(struct seccomp_data, instruction_pointer)),
		/* 9 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)vdso_start, 0, 1),
		/* 10 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)vdso_end, 0, 1),
		/* 11 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | MARK_ERRNO),
		/* 12 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = ARRAY_SIZE(filter),
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		child_fail("installing the seccomp filter: %s\n", strerror(errno));
}

/* vsysinfo() against sysinfo(2), retried while counters move. */
static void fields_match(void)
{
	struct sysinfo s1, v, s2;
	int try;

	for (try = 0; try < RETRIES; try++) {
		sys_ref(&s1);
		call_ok(&v);
		sys_ref(&s2);
		if (!compare(&v, &s1, &s2, 0, false))
			return;
		usleep(2000);
	}
	compare(&v, &s1, &s2, 0, true);
	child_fail("the fields still differ after %d tries\n", RETRIES);
}

/* A call that must make the library's own system call. */
static void call_makes_syscall(void)
{
	struct sysinfo v;

	mark_library_syscalls();
	errno = 0;
	if (vsysinfo(&v) != -1 || errno != MARK_ERRNO)
		child_fail("vsysinfo() did not make the sysinfo system call (errno %d)\n",
			   errno);
}

/* A private, writable copy of the running vDSO's image. */
unsigned char *copy_vdso(void)
{
	size_t len = vdso_end - vdso_start;
	unsigned char *img;

	img = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (img == MAP_FAILED)
		child_fail("mmap: %s\n", strerror(errno));
	memcpy(img, (void *)vdso_start, len);
	return img;
}

/* Look @name@@@version up in the image at @base with the kernel tree's parser. */
void *ref_sym(uintptr_t base, const char *version, const char *name)
{
	vdso_init_from_sysinfo_ehdr(base);
	return vdso_sym(version, name);
}

void *image_sym(unsigned char *img, const char *name)
{
	return ref_sym((uintptr_t)img, "LINUX_2.6", name);
}

static int case_fields(void)
{
	fields_match();
	return KSFT_PASS;
}

static int case_no_syscall(void)
{
	struct sysinfo v;
	int i;

	mark_library_syscalls();
	for (i = 0; i < THREAD_CALLS; i++)
		call_ok(&v);
	fields_match();
	if (ehdr_lookups != 1)
		child_fail("AT_SYSINFO_EHDR looked up %d times\n", atomic_load(&ehdr_lookups));
	return KSFT_PASS;
}

static int case_no_symbol(void)
{
	unsigned char *img = copy_vdso(), *p;
	size_t len = vdso_end - vdso_start;
	static const char name[] = "__vdso_sysinfo";
	int renamed = 0;

	/* Rename every "__vdso_sysinfo" string (dynstr, symtab strings) */
	for (p = img; (p = memmem(p, img + len - p, name, sizeof(name)));) {
		p[sizeof(name) - 2] = 'X';
		renamed++;
	}
	ksft_print_msg("renamed __vdso_sysinfo %d times in a copy of the vDSO\n", renamed);
	if (vdso_has_sysinfo != !!renamed)
		child_fail("the vDSO %s the symbol, but the copy had %d names\n",
			   vdso_has_sysinfo ? "exports" : "does not export", renamed);
	if (image_sym(img, "__vdso_sysinfo") || !image_sym(img, "__vdso_clock_gettime"))
		child_fail("the copy does not look like a vDSO without the symbol\n");
	fake_ehdr = (uintptr_t)img;
	fake_auxv = true;
	fields_match();
	call_makes_syscall();
	return KSFT_PASS;
}

static int case_no_vdso(void)
{
	fake_ehdr = 0;
	fake_auxv = true;
	fields_match();
	call_makes_syscall();
	return KSFT_PASS;
}

/* What the copy's __vdso_sysinfo jumps to */
static int (*real_vdso_sysinfo)(struct sysinfo *info);
static int fake_calls;
static bool fake_fail;
static struct sysinfo *fake_arg;

static int fake_vdso_sysinfo(struct sysinfo *info)
{
	fake_calls++;
	fake_arg = info;
	if (fake_fail)
		return -FAKE_ERRNO;
	return real_vdso_sysinfo(info);
}

static int case_returns(void)
{
	unsigned char *img = copy_vdso(), *p;
	uint64_t target = (uintptr_t)fake_vdso_sysinfo;
	struct sysinfo v;
	int ret;

	real_vdso_sysinfo = image_sym((unsigned char *)vdso_start, "__vdso_sysinfo");
	p = image_sym(img, "__vdso_sysinfo");
	if (!p || !real_vdso_sysinfo)
		child_fail("__vdso_sysinfo not found in the vDSO or its copy\n");
	/* movabs $target, %rax; jmp *%rax */
	p[0] = 0x48;
	p[1] = 0xb8;
	memcpy(p + 2, &target, sizeof(target));
	p[10] = 0xff;
	p[11] = 0xe0;
	if (mprotect(img, vdso_end - vdso_start, PROT_READ | PROT_EXEC))
		child_fail("mprotect: %s\n", strerror(errno));
	fake_ehdr = (uintptr_t)img;
	fake_auxv = true;

	fields_match();
	if (!fake_calls)
		child_fail("vsysinfo() did not call the __vdso_sysinfo of AT_SYSINFO_EHDR\n");
	call_ok(&v);
	if (fake_arg != &v)
		child_fail("__vdso_sysinfo got another pointer than vsysinfo()\n");
	fake_fail = true;
	errno = 0;
	ret = vsysinfo(&v);
	if (ret != -1 || errno != FAKE_ERRNO)
		child_fail("__vdso_sysinfo returned %d, vsysinfo() %d with errno %d\n",
			   -FAKE_ERRNO, ret, errno);
	if (atomic_load(&ehdr_lookups) != 1)
		child_fail("AT_SYSINFO_EHDR looked up %d times\n", atomic_load(&ehdr_lookups));
	return KSFT_PASS;
}

static pthread_barrier_t start;
static struct sysinfo results[THREADS];
static int rets[THREADS], errnos[THREADS];

static void *first_call(void *arg)
{
	long i = (long)arg;

	pthread_barrier_wait(&start);
	rets[i] = vsysinfo(&results[i]);
	errnos[i] = errno;
	return NULL;
}

static int case_threads(void)
{
	pthread_t tids[THREADS];
	struct sysinfo s1, s2;
	int i, err, bad = 0;

	/* With the symbol, a thread that fell back would get MARK_ERRNO */
	if (vdso_has_sysinfo)
		mark_library_syscalls();
	/* The other threads' first calls come while the lookup runs */
	slow_lookup = true;
	pthread_barrier_init(&start, NULL, THREADS);
	sys_ref(&s1);
	for (i = 0; i < THREADS; i++) {
		err = pthread_create(&tids[i], NULL, first_call, (void *)(long)i);
		if (err)
			child_fail("pthread_create: %s\n", strerror(err));
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(tids[i], NULL);
	sys_ref(&s2);

	for (i = 0; i < THREADS; i++) {
		/* The first failure in full, then only how many */
		if (rets[i] && !bad++)
			ksft_print_msg("thread %d: vsysinfo() returned %d, errno %d%s\n", i,
				       rets[i], errnos[i],
				       errnos[i] == MARK_ERRNO ? " (it made the system call)" : "");
	}
	if (bad)
		child_fail("%d threads failed\n", bad);
	if (ehdr_lookups != 1)
		child_fail("AT_SYSINFO_EHDR looked up %d times\n", atomic_load(&ehdr_lookups));
	/* They agree with each other: the totals exactly, uptime within 1 s */
	for (i = 1; i < THREADS; i++) {
		bad += check_eq("totalram", results[i].totalram, results[0].totalram, true);
		bad += check_eq("totalswap", results[i].totalswap, results[0].totalswap, true);
		bad += check_eq("mem_unit", results[i].mem_unit, results[0].mem_unit, true);
		bad += check_in("uptime", results[i].uptime, results[0].uptime,
				results[0].uptime, 1, 0, true);
	}
	if (bad)
		child_fail("the threads disagree (%d mismatches)\n", bad);
	/* And with sysinfo(2) around them; counters may have moved */
	for (i = 0; i < THREADS; i++) {
		if (compare(&results[i], &s1, &s2, THREADS, false)) {
			ksft_print_msg("thread %d:\n", i);
			compare(&results[i], &s1, &s2, THREADS, true);
			return CHILD_RETRY;
		}
	}
	return KSFT_PASS;
}

/* The preload, from lib/ next to this program (its RUNPATH) */
#define PRELOAD		"libvsysinfo-preload.so"

static int (*preload_getloadavg)(double loadavg[], int nelem);
static long (*preload_get_phys_pages)(void);
static long (*preload_get_avphys_pages)(void);

static void load_preload(void)
{
	void *handle = dlopen(PRELOAD, RTLD_NOW | RTLD_LOCAL);

	if (!handle)
		child_fail("dlopen: %s\n", dlerror());
	preload_getloadavg = (int (*)(double *, int))dlsym(handle, "getloadavg");
	preload_get_phys_pages = (long (*)(void))dlsym(handle, "get_phys_pages");
	preload_get_avphys_pages = (long (*)(void))dlsym(handle, "get_avphys_pages");
	/* dlsym() would fall back to glibc's, a dependency of the preload */
	if (preload_getloadavg == getloadavg || preload_get_phys_pages == get_phys_pages ||
	    preload_get_avphys_pages == get_avphys_pages)
		child_fail("%s lacks getloadavg(), get_phys_pages() or get_avphys_pages()\n",
			   PRELOAD);
}

/* getloadavg(@nelem) must return @expect and write loadavg[0..@expect) only */
static void check_nelem(int nelem, int expect)
{
	double loads[5] = { -1, -1, -1, -1, -1 };
	int ret, i;

	ret = preload_getloadavg(loads, nelem);
	if (ret != expect)
		child_fail("getloadavg(loadavg, %d) returned %d, not %d\n", nelem, ret, expect);
	for (i = 0; i < (int)ARRAY_SIZE(loads); i++) {
		if ((i < expect) == (loads[i] == -1))
			child_fail("getloadavg(loadavg, %d) %s loadavg[%d]\n", nelem,
				   i < expect ? "did not write" : "wrote", i);
	}
}

/* Mismatches of the preload's loads and free pages against glibc's */
static int compare_preload(const double *loads, long avphys, const struct sysinfo *s1,
			   const struct sysinfo *s2, long av1, long av2, long phys,
			   bool report)
{
	int bad = 0, i;

	/* loads[i] * 2^SI_LOAD_SHIFT is exact: the value sysinfo() gave */
	for (i = 0; i < 3; i++)
		bad += check_in("getloadavg() * 65536",
				(unsigned long long)(loads[i] * (1 << SI_LOAD_SHIFT)),
				s1->loads[i], s2->loads[i], 0, 0, report);
	bad += check_in("get_avphys_pages()", avphys, av1, av2,
			(unsigned long long)phys >> TOLERANCE_SHIFT, 0, report);
	return bad;
}

static int case_preload(void)
{
	long phys, avphys, av1, av2;
	struct sysinfo s1, s2;
	double loads[3];
	int try, ret;

	load_preload();
	for (try = 0; try < RETRIES; try++) {
		av1 = get_avphys_pages();
		sys_ref(&s1);
		ret = preload_getloadavg(loads, 3);
		avphys = preload_get_avphys_pages();
		sys_ref(&s2);
		av2 = get_avphys_pages();
		if (ret != 3)
			child_fail("getloadavg(loadavg, 3) returned %d\n", ret);
		/* The total does not move: exactly glibc's */
		phys = preload_get_phys_pages();
		if (phys != get_phys_pages())
			child_fail("get_phys_pages() %ld, glibc's %ld\n", phys, get_phys_pages());
		if (!compare_preload(loads, avphys, &s1, &s2, av1, av2, phys, false))
			break;
		usleep(2000);
	}
	if (try == RETRIES) {
		compare_preload(loads, avphys, &s1, &s2, av1, av2, phys, true);
		child_fail("the values still differ after %d tries\n", RETRIES);
	}
	check_nelem(5, 3);
	check_nelem(3, 3);
	check_nelem(1, 1);
	check_nelem(0, 0);
	check_nelem(-1, 0);
	check_nelem(INT_MIN, 0);
	/* They went through the preload's vsysinfo(), which looked up once */
	if (atomic_load(&ehdr_lookups) != 1)
		child_fail("AT_SYSINFO_EHDR looked up %d times\n", atomic_load(&ehdr_lookups));
	return KSFT_PASS;
}

static int case_preload_errors(void)
{
	double loads[3] = { -1, -1, -1 };
	long phys, avphys;
	int ret;

	load_preload();
	/* No vDSO, and the preload's own system call fails */
	fake_ehdr = 0;
	fake_auxv = true;
	mark_library_syscalls();
	errno = 0;
	ret = preload_getloadavg(loads, 3);
	if (ret != -1 || errno != MARK_ERRNO || loads[0] != -1)
		child_fail("getloadavg() returned %d, errno %d, after a failed sysinfo()\n",
			   ret, errno);
	phys = preload_get_phys_pages();
	avphys = preload_get_avphys_pages();
	if (phys || avphys)
		child_fail("get_phys_pages() %ld, get_avphys_pages() %ld, sysinfo() failing\n",
			   phys, avphys);
	return KSFT_PASS;
}

/* Run @fn in a child, as its process's first use of the library. */
static int run_in_child(int (*fn)(void))
{
	int status, attempt, rc = KSFT_FAIL;
	pid_t pid;

	for (attempt = 0; attempt < CHILD_ATTEMPTS; attempt++) {
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		if (!pid) {
			alarm(60);
			rc = fn();
			fflush(stdout);
			_exit(rc);
		}
		if (waitpid(pid, &status, 0) != pid)
			ksft_exit_fail_msg("waitpid: %s\n", strerror(errno));
		if (WIFSIGNALED(status)) {
			ksft_print_msg("child killed by signal %d\n", WTERMSIG(status));
			return KSFT_FAIL;
		}
		rc = WEXITSTATUS(status);
		if (rc != CHILD_RETRY)
			return rc;
		ksft_print_msg("counters moved, running the case again\n");
	}
	return KSFT_FAIL;
}

void run(const char *name, int (*fn)(void), bool needs_symbol)
{
	if (needs_symbol && !vdso_has_sysinfo) {
		ksft_test_result_skip("%s\n", name);
		return;
	}
	switch (run_in_child(fn)) {
	case KSFT_PASS:
		ksft_test_result_pass("%s\n", name);
		break;
	case KSFT_SKIP:
		ksft_test_result_skip("%s\n", name);
		break;
	default:
		ksft_test_result_fail("%s\n", name);
	}
}

static void find_vdso(void)
{
	struct link_map *map;
	char line[512];
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		ksft_exit_fail_msg("/proc/self/maps: %s\n", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &vdso_start, &vdso_end) != 2)
			ksft_exit_fail_msg("cannot parse %s", line);
	}
	fclose(f);
	if (!vdso_start || vdso_start != real_getauxval(AT_SYSINFO_EHDR))
		ksft_exit_fail_msg("no [vdso] mapping at AT_SYSINFO_EHDR\n");
	/* The filter compares the low halves: no 4 GiB boundary inside. */
	if ((vdso_start >> 32) != ((vdso_end - 1) >> 32))
		ksft_exit_fail_msg("the vDSO straddles a 4 GiB boundary\n");
	/* glibc's own view of the vDSO decides what the kernel exports */
	vdso_handle = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!vdso_handle)
		ksft_exit_fail_msg("dlopen(linux-vdso.so.1): %s\n", dlerror());
	vdso_has_sysinfo = dlvsym(vdso_handle, "__vdso_sysinfo", "LINUX_2.6");
	ksft_print_msg("the vDSO %s __vdso_sysinfo\n",
		       vdso_has_sysinfo ? "exports" : "does not export");
	if (!dlinfo(vdso_handle, RTLD_DI_LINKMAP, &map) &&
	    (uintptr_t)map->l_ld >= vdso_start && (uintptr_t)map->l_ld < vdso_end) {
		vdso_bias = map->l_addr;
		vdso_dynamic = map->l_ld;
	}
}

int main(void)
{
	real_getauxval = (unsigned long (*)(unsigned long))dlsym(RTLD_NEXT, "getauxval");
	if (!real_getauxval)
		ksft_exit_fail_msg("dlsym(getauxval): %s\n", dlerror());
	ksft_print_header();
	find_vdso();
	ksft_set_plan(6 + lookup_results() + 2);
	run("vsysinfo() fields match sysinfo(2)", case_fields, false);
	run("vsysinfo() makes no system call when the vDSO has __vdso_sysinfo",
	    case_no_syscall, true);
	run("vsysinfo() returns what __vdso_sysinfo returns, negative as -1 and errno",
	    case_returns, true);
	run("vsysinfo() falls back to sysinfo(2) when the vDSO lacks __vdso_sysinfo",
	    case_no_symbol, false);
	run("vsysinfo() falls back to sysinfo(2) when no vDSO is mapped", case_no_vdso, false);
	run("concurrent first calls from many threads succeed and agree", case_threads, false);
	run_lookup_cases();
	run("the preload's getloadavg(), get_phys_pages(), get_avphys_pages() match glibc's",
	    case_preload, false);
	run("the preload's getloadavg() fails, get_*phys_pages() give 0, when sysinfo fails",
	    case_preload_errors, false);
	ksft_finished();
}
