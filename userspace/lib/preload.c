// SPDX-License-Identifier: GPL-2.0
/*
 * preload.c: libvsysinfo-preload.so, sysinfo() for unmodified programs.
 *
 *   LD_PRELOAD=libvsysinfo-preload.so prog
 *
 * The dynamic linker binds the program's (and its libraries') sysinfo()
 * to this definition ahead of glibc's, and it goes to vsysinfo(), which
 * is built into this object with hidden visibility. glibc's own internal
 * callers use the hidden __sysinfo and are not reached.
 */
#include "vsysinfo.h"

__attribute__((visibility("default")))
int sysinfo(struct sysinfo *info)
{
	return vsysinfo(info);
}
