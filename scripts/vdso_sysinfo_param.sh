#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vdso_sysinfo_param.sh: the kernel's answer to its
# sysctl.kernel.vdso_sysinfo= parameter, run in the guest by boots with
# that parameter's edge cases.
#
# The host says on the kernel command line what the kernel must have
# made of the boot's parameter: vsysinfo.expect=0|1, the value of
# /proc/sys/kernel/vdso_sysinfo, and vsysinfo.expect_warning=1 when the
# kernel must have said that the value was invalid (which keeps the
# default). Without vsysinfo.expect the test SKIPs.
#
# KTAP through the kernel tree's ktap_helpers.sh, which the kselftest
# install puts in ../kselftest/. POSIX sh: the guest runs it under
# busybox.
set -eu

. "$(dirname "$0")/../kselftest/ktap_helpers.sh"

expect=
warning=0
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	vsysinfo.expect=*) expect=${arg#vsysinfo.expect=} ;;
	vsysinfo.expect_warning=*) warning=${arg#vsysinfo.expect_warning=} ;;
	esac
done
param=$(tr ' ' '\n' </proc/cmdline | grep '^sysctl.kernel.vdso_sysinfo' || true)

ktap_print_header
[ -n "$expect" ] || ktap_skip_all "no vsysinfo.expect= on the kernel command line"
ktap_set_plan 2
ktap_print_msg "command line: '${param:-no sysctl.kernel.vdso_sysinfo}', expected kernel.vdso_sysinfo = $expect"

got=$(cat /proc/sys/kernel/vdso_sysinfo 2>/dev/null || echo unreadable)
ktap_print_msg "kernel.vdso_sysinfo = $got"
if [ "$got" = "$expect" ]; then
	ktap_test_pass "kernel.vdso_sysinfo follows sysctl.kernel.vdso_sysinfo="
else
	ktap_test_fail "kernel.vdso_sysinfo follows sysctl.kernel.vdso_sysinfo="
fi

if dmesg | grep -q "Failed to set sysctl parameter 'kernel.vdso_sysinfo=.*': invalid value"; then
	warned=1
else
	warned=0
fi
if [ "$warned" = "$warning" ]; then
	ktap_test_pass "an invalid value is reported, no other"
else
	ktap_print_msg "warning expected: $warning, printed: $warned"
	ktap_test_fail "an invalid value is reported, no other"
fi
ktap_finished
