/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vdso_lookup.h: libvsysinfo's own vDSO symbol lookup (internal).
 */
#ifndef VDSO_LOOKUP_H
#define VDSO_LOOKUP_H

#include <stdint.h>

/*
 * vdso_lookup - the address of @name, version @version, in a mapped vDSO
 * @base: the vDSO's ELF header, getauxval(AT_SYSINFO_EHDR); 0 for none
 * @version: the version name, e.g. "LINUX_2.6"
 * @name: the symbol name, e.g. "__vdso_sysinfo"
 *
 * Reads the image at @base in place: it keeps no state and allocates
 * nothing, so any number of threads may call it at once.
 *
 * Return: the symbol's address, or NULL when @base is 0, is not a vDSO
 * image of this process's ELF class, or defines no such function.
 */
__attribute__((visibility("hidden")))
void *vdso_lookup(uintptr_t base, const char *version, const char *name);

#endif /* VDSO_LOOKUP_H */
