// SPDX-License-Identifier: GPL-2.0
/*
 * vdso_linked_sysinfo: call sysinfo() in the vDSO by linking against the
 * built vdso64.so, as in "gcc -o test test.c vdso64.so".
 *
 * The program's DT_NEEDED entry is the vDSO's soname, linux-vdso.so.1,
 * which the dynamic linker satisfies with the vDSO the kernel mapped.
 * It checks that the call succeeds and agrees with the system call.
 */
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "../kselftest.h"

int __vdso_sysinfo(struct sysinfo *info);

int main(void)
{
	struct sysinfo v, s;
	long ret;

	ksft_print_header();
	ksft_set_plan(3);

	ret = __vdso_sysinfo(&v);
	ksft_print_msg("__vdso_sysinfo() returned %ld\n", ret);
	ksft_test_result(ret == 0, "__vdso_sysinfo() returns 0\n");

	ret = syscall(SYS_sysinfo, &s);
	if (ret)
		ksft_exit_fail_msg("sysinfo(2) failed: %ld\n", ret);

	ksft_print_msg("totalram %lu/%lu mem_unit %u/%u uptime %ld/%ld procs %u\n",
		       v.totalram, s.totalram, v.mem_unit, s.mem_unit, v.uptime,
		       s.uptime, v.procs);
	ksft_test_result(v.totalram == s.totalram && v.mem_unit == s.mem_unit &&
			 v.totalswap == s.totalswap, "totals match sysinfo(2)\n");
	ksft_test_result(v.uptime <= s.uptime && v.uptime + 1 >= s.uptime &&
			 v.procs > 0, "uptime within 1 s of sysinfo(2), procs counted\n");

	ksft_finished();
}
