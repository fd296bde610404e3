#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# glibc_tst_sysinfo.sh: glibc's own test of the patch, tst-sysinfo-vdso,
# run as glibc's test suite runs it (testrun.sh: the build's ld.so with
# --library-path naming the build's libraries), here the patched
# libraries in lib/ next to this script. Its exit status is glibc's
# convention: 0 passes, 77 is unsupported (KTAP SKIP), anything else
# fails. The test compares sysinfo() and glibc's callers of __sysinfo
# with the system call, checks sysinfo(NULL)'s EFAULT, and checks that a
# process behind a seccomp filter that answers sysinfo with EPERM,
# ENOSYS or 0 gets that answer. KTAP through the kernel tree's
# ktap_helpers.sh (in ../kselftest/). POSIX sh, for the guest's busybox.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
. "$here/../kselftest/ktap_helpers.sh"

LDSO=$here/lib/ld-linux-x86-64.so.2
TEST=$here/tst-sysinfo-vdso
NAME="glibc misc/tst-sysinfo-vdso through the patched glibc"

ktap_print_header
{ [ -x "$LDSO" ] && [ -x "$TEST" ]; } || ktap_exit_fail_msg "no patched glibc or no $TEST"
ktap_set_plan 1
status=0
out=$("$LDSO" --library-path "$here/lib" "$TEST" 2>&1) || status=$?
[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/# /'
case $status in
0) ktap_test_pass "$NAME" ;;
77) ktap_test_skip "$NAME" ;;
*) ktap_print_msg "exit status $status"; ktap_test_fail "$NAME" ;;
esac
ktap_finished
