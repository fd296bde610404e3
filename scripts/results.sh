#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# results.sh: judge a guest console log from a test run.
#
# Usage: scripts/results.sh [-h] CONSOLE_LOG [LABEL]
#
# Reads the TAP that run_kselftest.sh printed between the VSYSINFO-KTAP
# markers (one TAP document per collection; their plans add up) and the
# kernel log dumped between the VSYSINFO-DMESG markers, and prints one
# KTAP document: one result per test, each failed test followed by its
# own output as "# " lines, plus one result for the kernel log. A result
# fails when:
#   - a test is 'not ok' (and not '# SKIP'),
#   - the plan (1..N) is missing or the number of results differs from it,
#     or the KTAP end marker is missing (a truncated run): "guest run: ...",
#   - the kernel panicked, or the kernel log holds a WARNING, BUG, Oops or
#     lockdep report, or the guest did not dump it: "kernel log: ...".
# LABEL, if given, starts every result name ("LABEL: vDSO: ..."), to tell
# boots apart; with KVER=7.3 the tree and architecture come first
# ("7.3 arm64: vDSO: ..."). The last line is a "# guest: N passed, N failed, N skipped"
# comment. Exit status: 0 only if nothing failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_want_help "${1:-}"


# parse_ktap LOG: one record per line: "P name", "S name", "F name", or
# "D text" (output of the failed test before it).
parse_ktap() {
	tr -d '\r' <"$1" | awk '
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
		name = line
		sub(/ #.*/, "", name)
		n++
		if (skip) {
			printf "S %s\n", name
		} else if (notok) {
			printf "%s", out
			printf "F %s\n", name
		} else {
			printf "P %s\n", name
		}
		out = ""
		next
	}
	/^#/ { out = out "D " $0 "\n"; next }
	END {
		if (!seen_begin) {
			print "F guest run: no KTAP output, the tests never started"
		} else if (!seen_end) {
			printf "D the KTAP output stops after %d results\n", n
			print "F guest run: truncated"
		}
		if (seen_begin && !planned) {
			print "F guest run: no KTAP plan (1..N)"
		} else if (seen_begin && n != plan) {
			printf "D the plan announced %d results, got %d\n", plan, n
			print "F guest run: as many results as the plan announced"
		}
	}'
}

# check_kernel_log LOG: the kernel log that the guest dumped after the
# tests, and any panic on the console (a panicking kernel dumps
# nothing), as records like parse_ktap's.
check_kernel_log() {
	local dmesg bad
	dmesg=$(tr -d '\r' <"$1" | sed -n '/^VSYSINFO-DMESG-BEGIN/,/^VSYSINFO-DMESG-END/p')
	bad=$({ grep -E -- "$VS_KERNEL_BAD" <<<"$dmesg" || true
		tr -d '\r' <"$1" | grep -F 'Kernel panic' || true; } | sort -u)
	if [[ -n $bad ]]; then
		head -n 40 <<<"$bad" | sed 's/^/D /'
		printf 'D decode a trace with: %s\n' \
			"$VS_SRC/scripts/decode_stacktrace.sh $VS_VMLINUX < ${1#"$VS_ROOT"/}"
		printf 'F kernel log: no WARNING, BUG, Oops or lockdep report\n'
	elif ! grep -q '^VSYSINFO-DMESG-END' <<<"$dmesg" || (($(wc -l <<<"$dmesg") < 10)); then
		printf 'D the guest did not dump its kernel log\n'
		printf 'F kernel log: no WARNING, BUG, Oops or lockdep report\n'
	else
		printf 'P kernel log: no WARNING, BUG, Oops or lockdep report\n'
	fi
}

main() {
	local log=${1:-} label=${2:-} records kind text n passed=0 failed=0 skipped=0
	[[ -n $log ]] || { vs_usage; exit 2; }
	(($# <= 2)) || vs_die "too many arguments to results.sh ($*): it takes CONSOLE_LOG [LABEL]"
	[[ $log != -* ]] || vs_die "unknown option '$log' to results.sh: it takes CONSOLE_LOG [LABEL] (see results.sh -h)"
	[[ -f $log ]] || vs_die "console log $log not found"
	vs_init
	# A mainline guest's results carry its tree and architecture.
	[[ -z $VS_MAINLINE ]] || label="$KVER $VS_ARCH${label:+ $label}"
	vs_ktap
	records=$({ parse_ktap "$log"; check_kernel_log "$log"; })
	n=$(grep -c '^[PSF] ' <<<"$records")
	ktap_print_header
	ktap_set_plan "$n"
	while read -r kind text; do
		[[ $kind == D ]] || text=${label:+$label: }$text
		case "$kind" in
		D) printf '#   %s\n' "$text" ;;
		P) ktap_test_pass "$text"; passed=$((passed + 1)) ;;
		S) ktap_test_skip "$text"; skipped=$((skipped + 1)) ;;
		F) ktap_test_fail "$text"; failed=$((failed + 1)) ;;
		esac
	done <<<"$records"
	printf '# guest%s: %d passed, %d failed, %d skipped\n' "${label:+ ($label)}" \
		"$passed" "$failed" "$skipped"
	((failed == 0))
}

vs_main "$@"
