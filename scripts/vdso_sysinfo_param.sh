#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vdso_sysinfo_param.sh: the kernel's answer to its vdso_sysinfo=
# parameter, run in the guest by boots with that parameter's edge cases.
#
# The host says on the kernel command line what the kernel must have
# made of the boot's vdso_sysinfo parameter: vsysinfo.expect=0|1, the
# value of /proc/sys/kernel/vdso_sysinfo, and vsysinfo.expect_warning=1
# when the kernel must have warned that the option was malformed (an
# invalid value, which keeps the default). Without vsysinfo.expect the
# test SKIPs.
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
param=$(tr ' ' '\n' </proc/cmdline | grep '^vdso_sysinfo' || true)

ktap_print_header
[ -n "$expect" ] || ktap_skip_all "no vsysinfo.expect= on the kernel command line"
ktap_set_plan 2
ktap_print_msg "command line: '${param:-no vdso_sysinfo}', expected kernel.vdso_sysinfo = $expect"

got=$(cat /proc/sys/kernel/vdso_sysinfo 2>/dev/null || echo unreadable)
ktap_print_msg "kernel.vdso_sysinfo = $got"
if [ "$got" = "$expect" ]; then
	ktap_test_pass "kernel.vdso_sysinfo follows the vdso_sysinfo parameter"
else
	ktap_test_fail "kernel.vdso_sysinfo follows the vdso_sysinfo parameter"
fi

if dmesg | grep -q "Malformed early option 'vdso_sysinfo'"; then
	warned=1
else
	warned=0
fi
if [ "$warned" = "$warning" ]; then
	ktap_test_pass "a malformed vdso_sysinfo value is warned about, no other"
else
	ktap_print_msg "warning expected: $warning, printed: $warned"
	ktap_test_fail "a malformed vdso_sysinfo value is warned about, no other"
fi
ktap_finished
