#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# results.sh: judge a guest console log from a test run.
#
# Usage: scripts/results.sh [-h] CONSOLE_LOG [COUNTS_FILE [LABEL]]
#
# Reads the TAP that run_kselftest.sh printed between the VSYSINFO-KTAP
# markers (one TAP document per collection; their plans add up) and the
# kernel log dumped between the VSYSINFO-DMESG markers, and prints one
# line per test (PASS, FAIL, SKIP) with the output of each failed test. The run fails when:
#   - a test is 'not ok' (and not '# SKIP'),
#   - the plan (1..N) is missing or the number of results differs from it,
#     or the KTAP end marker is missing (a truncated run),
#   - the kernel panicked,
#   - the kernel log holds a WARNING, BUG, Oops or lockdep report, or the
#     guest did not dump it.
# The kernel log check counts as one more test. COUNTS_FILE, if given,
# receives "PASSED FAILED SKIPPED". LABEL, if given, starts every result
# name ("LABEL: vDSO: vdso_test_sysinfo"), to tell boots apart. Exit
# status: 0 only if nothing failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_want_help "${1:-}"

# Lines of a kernel log that mean the kernel is broken even when every
# test passed.
KERNEL_BAD='(WARNING:|BUG:|kernel BUG at|Oops|general protection fault|Kernel panic|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|Invalid wait context|Call Trace:|UBSAN:|INFO: task .* blocked)'

parse_ktap() {
	tr -d '\r' <"$1" | awk -v label="$LABEL" '
	/VSYSINFO-KTAP-BEGIN/ { inside = 1; seen_begin = 1; next }
	/VSYSINFO-KTAP-END/   { inside = 0; seen_end = 1; next }
	!inside { next }
	/^TAP version/ { next }
	/^1\.\.[0-9]+/ { plan += substr($1, 4); planned = 1; next }
	/^(not )?ok [0-9]+/ {
		notok = ($1 == "not")
		line = $0
		skip = (line ~ /# *[Ss][Kk][Ii][Pp]/)
		sub(/^(not )?ok [0-9]+ /, "", line)
		sub(/^selftests: /, "", line)
		if (label != "")
			line = label ": " line
		name = line
		sub(/ #.*/, "", name)
		n++
		if (skip) {
			printf "SKIP %s\n", line; skipped++
		} else if (notok) {
			printf "FAIL %s\n", line; failed++
			printf "%s", out
		} else {
			printf "PASS %s\n", name; passed++
		}
		out = ""
		next
	}
	/^#/ { out = out "     | " $0 "\n"; next }
	END {
		if (!seen_begin) {
			print "FAIL no KTAP output: the tests never started"
			failed++
		} else if (!seen_end) {
			printf "FAIL truncated run: the KTAP output stops after %d results\n", n
			failed++
		}
		if (seen_begin && !planned) {
			print "FAIL no KTAP plan (1..N)"
			failed++
		} else if (seen_begin && n != plan) {
			printf "FAIL the plan announced %d results, got %d\n", plan, n
			failed++
		}
		printf "COUNTS %d %d %d\n", passed, failed, skipped
	}'
}

# The kernel log that the guest dumped after the tests, and any panic on
# the console (a panicking kernel dumps nothing).
check_kernel_log() {
	local dmesg bad
	dmesg=$(tr -d '\r' <"$1" | sed -n '/^VSYSINFO-DMESG-BEGIN/,/^VSYSINFO-DMESG-END/p')
	bad=$({ grep -E -- "$KERNEL_BAD" <<<"$dmesg" || true
		tr -d '\r' <"$1" | grep -F 'Kernel panic' || true; } | sort -u)
	if [[ -n $bad ]]; then
		printf 'FAIL %skernel log: warnings or errors reported\n' "$PREFIX"
		sed 's/^/     | /' <<<"$bad" | head -n 40
		return 1
	fi
	if ! grep -q '^VSYSINFO-DMESG-END' <<<"$dmesg" || (($(wc -l <<<"$dmesg") < 10)); then
		printf 'FAIL %skernel log: the guest did not dump its kernel log\n' "$PREFIX"
		return 1
	fi
	printf 'PASS %skernel log: no WARNING, BUG, Oops or lockdep report\n' "$PREFIX"
}

main() {
	local log=${1:-} counts=${2:-} out passed failed skipped
	LABEL=${3:-}
	PREFIX=${LABEL:+$LABEL: }
	[[ -n $log ]] || { vs_usage; exit 2; }
	[[ -f $log ]] || vs_die "console log $log not found"
	out=$(parse_ktap "$log")
	grep -v '^COUNTS ' <<<"$out" || true
	read -r _ passed failed skipped < <(grep '^COUNTS ' <<<"$out")
	if check_kernel_log "$log"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	[[ -z $counts ]] || printf '%s %s %s\n' "$passed" "$failed" "$skipped" >"$counts"
	printf 'guest%s: %d passed, %d failed, %d skipped\n' "${LABEL:+ ($LABEL)}" \
		"$passed" "$failed" "$skipped"
	((failed == 0))
}

main "$@"
