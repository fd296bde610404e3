# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034 # opt_out: for the scripts that source this
# compare_output.sh: what the guest tests that run unmodified programs two
# ways (vsysinfo_busybox.sh, the glibc collection's glibc_programs.sh)
# share. Source it; POSIX sh, for the guest's busybox.
#   opt_out              true when kernel.vdso_sysinfo is 0 (booted with
#                        sysctl.kernel.vdso_sysinfo=0, or set since)
#   same_free A B        busybox free outputs A and B agree: same labels
#                        and header, same totals, the rest within 1/64
#                        of its row's total
#   same_uptime A B      busybox uptime outputs A and B agree but for the
#                        time of day (the first word)

opt_out=false
[ "$(cat /proc/sys/kernel/vdso_sysinfo 2>/dev/null)" != 0 ] || opt_out=true

same_free() {
	awk 'NR == FNR { a[FNR] = $0; n = FNR; next }
	     { m = FNR; if (!(FNR in a)) { bad = 1; next }
	       kx = split(a[FNR], x); k = split($0, y)
	       if (FNR == 1 || k != kx || x[1] != y[1] || x[2] != y[2]) {
		       if (a[FNR] != $0) bad = 1
		       next
	       }
	       tol = int(x[2] / 64)
	       for (i = 3; i <= k; i++) {
		       d = x[i] - y[i]
		       if (d < 0) d = -d
		       if (d > tol) bad = 1
	       } }
	     END { exit (bad || m != n || n < 2) }' "$1" "$2"
}

same_uptime() {
	[ -s "$1" ] && [ "$(sed 's/^ *[0-9:]* //' "$1")" = "$(sed 's/^ *[0-9:]* //' "$2")" ]
}
