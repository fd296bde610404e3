// SPDX-License-Identifier: GPL-2.0
/*
 * preload.c: libvsysinfo-preload.so, sysinfo() and glibc's functions
 * built on it, for unmodified programs.
 *
 *   LD_PRELOAD=libvsysinfo-preload.so prog
 *
 * The dynamic linker binds the program's (and its libraries') sysinfo(),
 * getloadavg(), get_phys_pages() and get_avphys_pages() to these
 * definitions ahead of glibc's, and they go to vsysinfo(), which is built
 * into this object with hidden visibility. The last three give what
 * glibc 2.36's Linux versions give. glibc's own internal callers
 * (sysconf(_SC_PHYS_PAGES), ...) use its hidden functions and are not
 * reached.
 */
#include <stdlib.h>
#include <unistd.h>

#include "vsysinfo.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

__attribute__((visibility("default")))
int sysinfo(struct sysinfo *info)
{
	return vsysinfo(info);
}

/* The 1, 5 and 15 minute load averages, the first @nelem of them */
__attribute__((visibility("default")))
int getloadavg(double loadavg[], int nelem)
{
	struct sysinfo info;
	int i;

	if (vsysinfo(&info))
		return -1;
	if (nelem < 0)
		nelem = 0;
	else if (nelem > (int)ARRAY_SIZE(info.loads))
		nelem = ARRAY_SIZE(info.loads);
	for (i = 0; i < nelem; i++)
		loadavg[i] = (double)info.loads[i] / (1 << SI_LOAD_SHIFT);
	return nelem;
}

/*
 * @num units of @mem_unit bytes in pages. Both are powers of two in
 * practice: halve them together while both exceed 1, so that the
 * multiplication overflows as late as it can, then divide by what is
 * left of the page size (glibc's order of operations, same results).
 */
static long mem_pages(unsigned long num, unsigned int mem_unit)
{
	unsigned long page = getpagesize();

	while (mem_unit > 1 && page > 1) {
		mem_unit >>= 1;
		page >>= 1;
	}
	num *= mem_unit;
	while (page > 1) {
		page >>= 1;
		num >>= 1;
	}
	return num;
}

/*
 * glibc ignores sysinfo()'s result here; a failed call (which only a
 * seccomp filter can cause) gives 0 pages instead of stack garbage.
 */
__attribute__((visibility("default")))
long get_phys_pages(void)
{
	struct sysinfo info = { 0 };

	vsysinfo(&info);
	return mem_pages(info.totalram, info.mem_unit);
}

__attribute__((visibility("default")))
long get_avphys_pages(void)
{
	struct sysinfo info = { 0 };

	vsysinfo(&info);
	return mem_pages(info.freeram, info.mem_unit);
}
