#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench-preload.sh: the cost of sysinfo() in an unmodified program, plain
# and with LD_PRELOAD=libvsysinfo-preload.so; one row each on stdout:
#   sysinfo() via glibc (system call)                   <ns per call>
#   sysinfo() via LD_PRELOAD libvsysinfo-preload        <ns per call>
# Runs from the folder 'make install-tests' fills (POSIX sh: the guest
# runs it under busybox).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
"$here/vsysinfo_bench" plain
LD_PRELOAD=$here/lib/libvsysinfo-preload.so "$here/vsysinfo_bench" preload
