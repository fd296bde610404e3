// SPDX-License-Identifier: GPL-2.0
/*
 * vsysinfo_bench.c: nanoseconds per sysinfo() call, as a program that
 * knows nothing of the vDSO sees them.
 *
 * Usage: vsysinfo_bench plain|preload
 *
 * It calls glibc's sysinfo() in a loop timed with CLOCK_MONOTONIC and
 * prints one row. The mode names what the caller arranged (run plain,
 * or with LD_PRELOAD=libvsysinfo-preload.so); the program checks, with
 * dladdr(), which object its sysinfo() was bound to, and fails rather
 * than print a row under the wrong label.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>

#define WARMUP	10000
#define CALLS	200000

static const char *bound_to(void)
{
	Dl_info info;

	/* In a PIE, sysinfo's address comes from the GOT: the bound one */
	if (!dladdr((void *)sysinfo, &info) || !info.dli_fname)
		return "";
	return info.dli_fname;
}

static double per_call(long n)
{
	struct timespec a, b;
	struct sysinfo s;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		if (sysinfo(&s))
			return -1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
}

int main(int argc, char **argv)
{
	bool preload = argc == 2 && !strcmp(argv[1], "preload");
	const char *obj = bound_to(), *label;
	double ns;

	if (argc != 2 || (!preload && strcmp(argv[1], "plain"))) {
		fprintf(stderr, "usage: %s plain|preload\n", argv[0]);
		return 2;
	}
	if (preload != !!strstr(obj, "libvsysinfo-preload")) {
		fprintf(stderr, "%s: mode %s, but sysinfo() is bound to '%s'\n",
			argv[0], argv[1], obj);
		return 1;
	}
	label = preload ? "sysinfo() via LD_PRELOAD libvsysinfo-preload" :
			  "sysinfo() via glibc (system call)";
	ns = per_call(WARMUP);
	if (ns >= 0)
		ns = per_call(CALLS);
	if (ns < 0) {
		perror("sysinfo");
		return 1;
	}
	printf("%-46s %10.1f\n", label, ns);
	return 0;
}
