#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vsysinfo_busybox.sh: libvsysinfo-preload.so under programs nobody here
# wrote, Debian's dynamically linked busybox 'free' and 'uptime'.
#
# For each applet: the output is the same with and without the preload
# apart from values that move (free: the totals exactly, every other
# column within 1/64 of its row's total; uptime: all but the time of
# day exactly, retried a few times across a minute or load-average
# update), and strace -f -e trace=sysinfo sees sysinfo system calls
# without the preload and none with it. Booted with sysctl.kernel.vdso_sysinfo=0
# the vDSO makes the system call itself, so strace must see it with
# the preload too.
#
# KTAP through the kernel tree's ktap_helpers.sh, which the kselftest
# install puts in ../kselftest/. POSIX sh: the guest runs it under
# busybox. Environment: VSYSINFO_BUSYBOX (default /bin/busybox-dynamic),
# VSYSINFO_STRACE (default strace).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
. "$here/../kselftest/ktap_helpers.sh"

BB=${VSYSINFO_BUSYBOX:-/bin/busybox-dynamic}
STRACE=${VSYSINFO_STRACE:-strace}
PRELOAD=$here/lib/libvsysinfo-preload.so
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ATTEMPTS=5

# shellcheck source=userspace/tests/compare_output.sh
. "$here/compare_output.sh"

ktap_print_header
[ -x "$BB" ] || { ktap_skip_all "no dynamically linked busybox at $BB"; exit "$KSFT_SKIP"; }
command -v "$STRACE" >/dev/null || { ktap_skip_all "no $STRACE"; exit "$KSFT_SKIP"; }
[ -r "$PRELOAD" ] || ktap_exit_fail_msg "no $PRELOAD"
ktap_set_plan 6

# run NAME APPLET [PRELOAD]: the applet's stdout into $TMP/NAME
run() {
	if ! env ${3:+LD_PRELOAD="$3"} "$BB" "$2" >"$TMP/$1" 2>"$TMP/$1.err"; then
		ktap_print_msg "$2${3:+ with the preload} failed:"
		sed 's/^/#   /' "$TMP/$1.err"
		return 1
	fi
	if [ -s "$TMP/$1.err" ]; then
		ktap_print_msg "$2${3:+ with the preload} wrote to stderr:"
		sed 's/^/#   /' "$TMP/$1.err"
		return 1
	fi
}

show() {
	ktap_print_msg "without the preload:"
	sed 's/^/#   /' "$TMP/$1"
	ktap_print_msg "with the preload:"
	sed 's/^/#   /' "$TMP/$2"
}

same_output() {
	applet=$1
	i=0
	while [ $i -lt $ATTEMPTS ]; do
		i=$((i + 1))
		run plain "$applet" || return 1
		run preload "$applet" "$PRELOAD" || return 1
		"same_$applet" "$TMP/plain" "$TMP/preload" && return 0
	done
	show plain preload
	return 1
}

# count_calls APPLET [PRELOAD]: the sysinfo system calls strace sees, in
# $calls (-1 when strace failed)
count_calls() {
	calls=-1
	if ! "$STRACE" -f -e trace=sysinfo -o "$TMP/trace" ${2:+-E LD_PRELOAD="$2"} \
	     "$BB" "$1" >/dev/null 2>"$TMP/trace.err"; then
		ktap_print_msg "strace $1 failed:"
		sed 's/^/#   /' "$TMP/trace.err"
		return
	fi
	calls=$(grep -c 'sysinfo(' "$TMP/trace" || true)
}

plain_calls() {
	count_calls "$1"
	ktap_print_msg "$1: strace saw $calls sysinfo system calls"
	[ "$calls" -ge 1 ]
}

preload_calls() {
	# The kernel publishes the snapshot while somebody makes the system
	# call (until 2 s after the last one): make it once, as a program
	# that polls would have, so that the traced run finds it published.
	$opt_out || "$BB" "$1" >/dev/null 2>&1 || true
	count_calls "$1" "$PRELOAD"
	ktap_print_msg "$1 with the preload: strace saw $calls sysinfo system calls"
	[ "$calls" -ge 0 ] || return 1
	if $opt_out; then
		[ "$calls" -ge 1 ]
	else
		[ "$calls" -eq 0 ]
	fi
}

for applet in free uptime; do
	ktap_test_result "$applet: same output with and without the preload" \
		same_output "$applet"
	ktap_test_result "$applet: strace sees sysinfo system calls without the preload" \
		plain_calls "$applet"
	if $opt_out; then
		ktap_test_result "$applet: strace sees the vDSO's system call with the preload (sysctl.kernel.vdso_sysinfo=0)" \
			preload_calls "$applet"
	else
		ktap_test_result "$applet: strace sees no sysinfo system call with the preload" \
			preload_calls "$applet"
	fi
done
ktap_finished
