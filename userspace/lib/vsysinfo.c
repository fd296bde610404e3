// SPDX-License-Identifier: GPL-2.0
/*
 * vsysinfo.c: find __vdso_sysinfo once, call it, or make the system call.
 *
 * The lookup is the kernel's reference vDSO parser,
 * tools/testing/selftests/vDSO/parse_vdso.c, built into the library with
 * hidden symbols. Its vdso_init_from_sysinfo_ehdr() is not thread-safe
 * and keeps its state in one static variable, so it runs exactly once,
 * under pthread_once(). vdso_sym() is thread-safe but slow, so its
 * result is kept.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vsysinfo.h"
#include "parse_vdso.h"

typedef int (*vdso_sysinfo_t)(struct sysinfo *info);

static pthread_once_t vsysinfo_once = PTHREAD_ONCE_INIT;
static vdso_sysinfo_t vdso_sysinfo;

static void vsysinfo_init(void)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR);

	/* No vDSO mapped (vdso=0, or a kernel without one) */
	if (!base)
		return;
	vdso_init_from_sysinfo_ehdr(base);
	vdso_sysinfo = (vdso_sysinfo_t)vdso_sym("LINUX_2.6", "__vdso_sysinfo");
}

__attribute__((visibility("default")))
int vsysinfo(struct sysinfo *info)
{
	int ret;

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
