// SPDX-License-Identifier: GPL-2.0
/*
 * vsysinfo.c: find __vdso_sysinfo once, call it, or make the system call.
 *
 * The lookup is the library's own (vdso_lookup.c, hidden symbols): it
 * keeps no state and allocates nothing, but it walks the vDSO's tables,
 * so it runs once, under pthread_once(), and its result is kept. Once
 * the lookup is done, a flag read with acquire semantics (paired with
 * the release store at the end of the lookup) saves the call into
 * libc's pthread_once() on every later call.
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
#include "vdso_lookup.h"

typedef int (*vdso_sysinfo_t)(struct sysinfo *info);

static pthread_once_t vsysinfo_once = PTHREAD_ONCE_INIT;
static vdso_sysinfo_t vdso_sysinfo;
static atomic_bool vsysinfo_ready;

static void vsysinfo_init(void)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR);

	/* NULL too for base 0: no vDSO mapped (vdso=0, or a kernel without one) */
	vdso_sysinfo = (vdso_sysinfo_t)vdso_lookup(base, "LINUX_2.6", "__vdso_sysinfo");
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
