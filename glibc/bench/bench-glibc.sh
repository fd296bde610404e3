#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench-glibc.sh: the cost of sysinfo(), getloadavg() and
# sysconf(_SC_AVPHYS_PAGES) in an unmodified program, through the
# system's glibc and through the patched one (its own ld.so, with
# --library-path naming lib/ next to this script): three rows each (see
# glibc_bench.c), then for each function the ratio of the two. POSIX sh:
# the guest runs it under busybox.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
stock=$("$here/glibc_bench" stock)
patched=$("$here/lib/ld-linux-x86-64.so.2" --library-path "$here/lib" \
	"$here/glibc_bench" patched)
printf '%s\n%s\n' "$stock" "$patched"
printf '%s\n%s\n' "$stock" "$patched" | awk '
	{ ns = $NF; sub(/ via .*/, ""); if (!($0 in s)) { s[$0] = ns; order[n++] = $0 } else p[$0] = ns }
	END { for (i = 0; i < n; i++) if (p[f = order[i]] > 0) {
		name = f; sub(/\(.*\)/, "()", name)
		printf "%-46s %10.2f\n", "ratio Debian'"'"'s / patched glibc, " name, s[f] / p[f] } }'
