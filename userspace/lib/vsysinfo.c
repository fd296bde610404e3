// SPDX-License-Identifier: GPL-2.0
/*
 * vsysinfo.c: find __vdso_sysinfo once, call it, or make the system call.
 *
 * The lookup is the kernel's reference vDSO parser,
 * tools/testing/selftests/vDSO/parse_vdso.c, built into the library with
 * hidden symbols. Its vdso_init_from_sysinfo_ehdr() is not thread-safe
 * and keeps its state in one static variable, so it runs exactly once,
 * under pthread_once(). vdso_sym() is thread-safe but slow, so its
 * result is kept. Once the lookup is done, a flag read with acquire
 * semantics (paired with the release store at the end of the lookup)
 * saves the call into libc's pthread_once() on every later call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vsysinfo.h"
#include "parse_vdso.h"

typedef int (*vdso_sysinfo_t)(struct sysinfo *info);

static pthread_once_t vsysinfo_once = PTHREAD_ONCE_INIT;
static vdso_sysinfo_t vdso_sysinfo;
static atomic_bool vsysinfo_ready;

static void vsysinfo_init(void)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR);

	/* base is 0 when no vDSO is mapped (vdso=0, or a kernel without one) */
	if (base) {
		vdso_init_from_sysinfo_ehdr(base);
		vdso_sysinfo = (vdso_sysinfo_t)vdso_sym("LINUX_2.6", "__vdso_sysinfo");
	}
	atomic_store_explicit(&vsysinfo_ready, true, memory_order_release);
}

__attribute__((visibility("default")))
int vsysinfo(struct sysinfo *info)
{
	int ret;

	if (!atomic_load_explicit(&vsysinfo_ready, memory_order_acquire))
		pthread_once(&vsysinfo_once, vsysinfo_init);
	if (!vdso_sysinfo)
		return syscall(SYS_sysinfo, info);
	/* The vDSO returns 0 or -errno (from its own system call) */
	ret = vdso_sysinfo(info);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return 0;
}
