// SPDX-License-Identifier: GPL-2.0
/*
 * glibc_bench.c: nanoseconds per call of glibc's sysinfo(), getloadavg()
 * and sysconf(_SC_AVPHYS_PAGES), as an unmodified program sees them.
 *
 * Usage: glibc_bench stock|patched
 *
 * The mode names the glibc the caller started it with: the system's
 * (stock), or the patched one through its own ld.so (patched, see
 * bench-glibc.sh). The program checks with dladdr() which libc.so.6 its
 * sysinfo() is bound to, and fails rather than print rows under the
 * wrong label. Each function is called in a loop timed with
 * CLOCK_MONOTONIC; one row per function.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#define WARMUP	10000
#define CALLS	100000

/* The patched libraries are installed in a folder named glibc/lib. */
#define PATCHED_DIR	"/glibc/lib/"

static int call_sysinfo(void)
{
	struct sysinfo s;

	return sysinfo(&s);
}

static int call_getloadavg(void)
{
	double loads[3];

	return getloadavg(loads, 3) == 3 ? 0 : -1;
}

static int call_sysconf(void)
{
	return sysconf(_SC_AVPHYS_PAGES) > 0 ? 0 : -1;
}

static const struct {
	const char *name;
	int (*fn)(void);
} funcs[] = {
	{ "sysinfo()", call_sysinfo },
	{ "getloadavg()", call_getloadavg },
	{ "sysconf(_SC_AVPHYS_PAGES)", call_sysconf },
};

static double per_call(int (*fn)(void), long n)
{
	struct timespec a, b;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		if (fn())
			return -1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
}

int main(int argc, char **argv)
{
	bool patched = argc == 2 && !strcmp(argv[1], "patched");
	char label[64];
	Dl_info info;
	double ns;
	size_t i;

	if (argc != 2 || (!patched && strcmp(argv[1], "stock"))) {
		fprintf(stderr, "usage: %s stock|patched\n", argv[0]);
		return 2;
	}
	/* In a PIE, sysinfo's address comes from the GOT: the bound one */
	if (!dladdr((void *)sysinfo, &info) || !info.dli_fname ||
	    patched != !!strstr(info.dli_fname, PATCHED_DIR)) {
		fprintf(stderr, "%s: mode %s, but sysinfo() is bound to '%s'\n",
			argv[0], argv[1], info.dli_fname ? info.dli_fname : "?");
		return 1;
	}
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		ns = per_call(funcs[i].fn, WARMUP);
		if (ns >= 0)
			ns = per_call(funcs[i].fn, CALLS);
		if (ns < 0) {
			fprintf(stderr, "%s: %s failed\n", argv[0], funcs[i].name);
			return 1;
		}
		snprintf(label, sizeof(label), "%s via %s glibc", funcs[i].name,
			 patched ? "patched" : "Debian's");
		printf("%-46s %10.1f\n", label, ns);
	}
	return 0;
}
