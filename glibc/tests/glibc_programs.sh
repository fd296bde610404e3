#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# glibc_programs.sh: unmodified Debian programs through the patched glibc.
#
# Each program runs once through the guest's own glibc (Debian's) and
# once through the patched one in lib/ next to this script, started by
# that glibc's own ld.so (--library-path lib/ first, then Debian's
# library folders for the programs' other libraries). The programs:
# busybox 'free' and 'uptime' (Debian's dynamically linked busybox, which
# call sysinfo()), python3's os.getloadavg() and os.sysconf("SC_PHYS_PAGES")
# (glibc's getloadavg() and __get_phys_pages(), which call the hidden
# __sysinfo) and coreutils' sort on a file (which sizes its buffer with
# sysconf(_SC_PHYS_PAGES) and sysconf(_SC_AVPHYS_PAGES)).
#
# For each program: the output is the same apart from values that move
# (free: the totals exactly, every other column within 1/64 of its row's
# total; uptime: all but the time of day; python3: all but the load
# averages; sort: all of it), retried a few times across a load-average
# update; strace -f -e trace=sysinfo sees sysinfo system calls through
# Debian's glibc (so that the next check can fail) and none through the
# patched one. Booted with sysctl.kernel.vdso_sysinfo=0 the vDSO makes the system
# call itself, so strace must see it through the patched glibc too.
#
# KTAP through the kernel tree's ktap_helpers.sh (in ../kselftest/).
# POSIX sh: the guest runs it under busybox. Environment:
# VSYSINFO_BUSYBOX (default /bin/busybox-dynamic), VSYSINFO_STRACE
# (default strace), VSYSINFO_PYTHON (default /bin/python3), VSYSINFO_SORT
# (default /bin/sort, coreutils'; busybox's shell may take a bare 'sort'
# for its own applet).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
. "$here/../kselftest/ktap_helpers.sh"

BB=${VSYSINFO_BUSYBOX:-/bin/busybox-dynamic}
STRACE=${VSYSINFO_STRACE:-strace}
PYTHON=${VSYSINFO_PYTHON:-/bin/python3}
SORT=${VSYSINFO_SORT:-/bin/sort}
GLIBC=$here/lib
LDSO=$GLIBC/ld-linux-x86-64.so.2
LIBPATH=$GLIBC:/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu
PY_CODE='import os; print(os.getloadavg(), os.sysconf("SC_PHYS_PAGES"))'
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ATTEMPTS=5
PROGRAMS="free uptime python3 sort"

# shellcheck source=userspace/tests/compare_output.sh
. "$here/compare_output.sh"

ktap_print_header
[ -x "$LDSO" ] || ktap_exit_fail_msg "no patched glibc: $LDSO is missing"
for tool in "$BB" "$PYTHON" "$SORT"; do
	[ -x "$tool" ] || ktap_exit_fail_msg "$tool is missing from the initramfs"
done
command -v "$STRACE" >/dev/null || ktap_exit_fail_msg "$STRACE is missing from the initramfs"
ktap_set_plan 12

# The sort input: lines in no order.
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "%08d line\n", (i * 7919) % 20011 }' \
	>"$TMP/input"

# run PROGRAM stock|patched [WRAPPER...]: run PROGRAM through that glibc,
# under WRAPPER (strace and its options) when given.
run() {
	prog=$1 how=$2
	shift 2
	[ "$how" = stock ] || set -- "$@" "$LDSO" --library-path "$LIBPATH"
	case $prog in
	python3) set -- "$@" "$PYTHON" -c "$PY_CODE" ;;
	sort) set -- "$@" "$SORT" "$TMP/input" ;;
	*) set -- "$@" "$BB" "$prog" ;;
	esac
	"$@"
}

# output PROGRAM stock|patched: the program's stdout, no stderr allowed
output() {
	if ! run "$1" "$2" >"$TMP/$1.$2" 2>"$TMP/$1.$2.err" || [ -s "$TMP/$1.$2.err" ]; then
		ktap_print_msg "$1 through the $2 glibc failed or wrote to stderr:"
		sed 's/^/#   /' "$TMP/$1.$2.err"
		return 1
	fi
}

# python3: the physical pages exactly, the load averages as numbers.
same_python3() {
	mask='s/[0-9][0-9]*\.[0-9][0-9]*/L/g'
	sed "$mask" "$1" | grep -Eqx '\(L, L, L\) [1-9][0-9]*' &&
		[ "$(sed "$mask" "$1")" = "$(sed "$mask" "$2")" ]
}

same_sort() {
	[ -s "$1" ] && cmp -s "$1" "$2"
}

same_output() {
	i=0
	while [ $i -lt $ATTEMPTS ]; do
		i=$((i + 1))
		output "$1" stock || return 1
		output "$1" patched || return 1
		"same_$1" "$TMP/$1.stock" "$TMP/$1.patched" && return 0
	done
	for how in stock patched; do
		ktap_print_msg "through the $how glibc:"
		head -n 5 "$TMP/$1.$how" | sed 's/^/#   /'
	done
	return 1
}

# calls PROGRAM stock|patched: the sysinfo system calls strace sees, in
# $n (-1 when strace or the program failed)
calls() {
	n=-1
	if ! run "$1" "$2" "$STRACE" -f -e trace=sysinfo -o "$TMP/trace" \
	     >/dev/null 2>"$TMP/trace.err"; then
		ktap_print_msg "strace of $1 through the $2 glibc failed:"
		sed 's/^/#   /' "$TMP/trace.err"
		return
	fi
	n=$(grep -c 'sysinfo(' "$TMP/trace" || true)
}

stock_calls() {
	calls "$1" stock
	ktap_print_msg "$1 through Debian's glibc: $n sysinfo system calls"
	[ "$n" -ge 1 ]
}

patched_calls() {
	# The kernel publishes the snapshot while somebody makes the system
	# call (until 2 s after the last one): make it once, as a program
	# that polls would have, so that the traced run finds it published.
	$opt_out || run "$1" stock >/dev/null 2>&1 || true
	calls "$1" patched
	ktap_print_msg "$1 through the patched glibc: $n sysinfo system calls"
	[ "$n" -ge 0 ] || return 1
	if $opt_out; then
		[ "$n" -ge 1 ]
	else
		[ "$n" -eq 0 ]
	fi
}

for prog in $PROGRAMS; do
	ktap_test_result "$prog: same output through the patched glibc" \
		same_output "$prog"
	ktap_test_result "$prog: strace sees sysinfo system calls through Debian's glibc" \
		stock_calls "$prog"
	if $opt_out; then
		ktap_test_result "$prog: strace sees the vDSO's system call through the patched glibc (sysctl.kernel.vdso_sysinfo=0)" \
			patched_calls "$prog"
	else
		ktap_test_result "$prog: strace sees no sysinfo system call through the patched glibc" \
			patched_calls "$prog"
	fi
done
ktap_finished
