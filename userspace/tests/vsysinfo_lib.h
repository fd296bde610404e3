/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vsysinfo_lib.h: what vsysinfo_lib.c (the library's cases) and
 * vsysinfo_lookup.c (its vDSO lookup's) share inside the test program.
 */
#ifndef VSYSINFO_LIB_TEST_H
#define VSYSINFO_LIB_TEST_H

#include <link.h>
#include <stdbool.h>
#include <stdint.h>

/* The running vDSO, from /proc/self/maps */
extern uintptr_t vdso_start, vdso_end;
/* glibc's handle of the vDSO, its load bias and where its dynamic section is */
extern void *vdso_handle;
extern uintptr_t vdso_bias;
extern const ElfW(Dyn) *vdso_dynamic;

/* A case's fatal error: report it and end the child. */
__noreturn __printf(1, 2) void child_fail(const char *fmt, ...);
/* A private, writable copy of the running vDSO's image */
unsigned char *copy_vdso(void);
/* @name@@@version in the image at @base, by the kernel tree's parser */
void *ref_sym(uintptr_t base, const char *version, const char *name);
void *image_sym(unsigned char *img, const char *name);
/* One result: @fn run in a child, as its process's first use of the library */
void run(const char *name, int (*fn)(void), bool needs_symbol);

/* vsysinfo_lookup.c: its cases, and how many results they give */
unsigned int lookup_results(void);
void run_lookup_cases(void);

#endif /* VSYSINFO_LIB_TEST_H */
