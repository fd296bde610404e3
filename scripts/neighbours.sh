#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# neighbours.sh: the neighbours' suites with the series, against stock.
#
# Usage: scripts/neighbours.sh [-h] judge|stock
#                         (make test: judge; make neighbours-stock: stock)
#
# The neighbours' suites are the kselftests of the code the series
# changes (VS_NEIGHBOURS in lib.sh: seccomp_bpf, the timens collection,
# x86's vDSO tests, /proc's mapping tests). selftests.sh builds them from
# the tree under test and the test boot runs them; this script compares
# their results, case by case, with the stock kernel's: the pristine
# tree built in the same configuration, with the suites built from it.
#
#   judge  read the neighbours' boot's console (logs/console-test-
#          neighbours.log, boot.sh test) and print one KTAP result per
#          suite program: every case that passes on stock passes with the
#          series (a case that passes on stock and is skipped with the
#          series fails too; a program that loses a case runs again,
#          alone, in a boot of its own, and fails if it loses one there
#          too); and one for the kernel log: no WARNING, BUG,
#          Oops or lockdep report that stock's does not have (numbers
#          and addresses aside). The stock
#          record is scripts/testdata/neighbours-stock.txt when it was
#          made from the same pristine tree, configuration, suites and
#          compiler (its KEY line says), else the shared cache's
#          CACHE/neighbours-stock/KEY, else 'stock' runs first.
#          NEIGHBOURS_REPLAY=DIR judges saved logs instead, and boots
#          nothing: DIR/record (the stock record), DIR/console-test-
#          neighbours.log and, for the second look, DIR/console-test-
#          neighbours-again.log (a CI run's logs folder, say).
#   stock  build the pristine tree's kernel and suites (FLAVOUR=stock:
#          build/<tree>/stock/obj from the work tree build/<tree>/stock/src
#          at 'pristine'), boot it with only the neighbours' suites, and
#          record the results in the shared cache as CACHE/
#          neighbours-stock/KEY ('make fixtures' copies it into
#          scripts/testdata/).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "judge stock" "$@"

S=$VS_ROOT/scripts
# The second look's console log.
AGAIN_LOG=${NEIGHBOURS_REPLAY:+$NEIGHBOURS_REPLAY/console-test-neighbours-again.log}
AGAIN_LOG=${AGAIN_LOG:-$VS_LOGS/console-test-neighbours-again.log}
# The stock record made from this tree, kept in the repository: 6.12's
# under the old name, a mainline tree's named after it.
RECORD=$S/testdata/neighbours-stock${VS_MAINLINE:+-$KVER-$VS_ARCH}.txt

# stock_key: what the stock results depend on: the pristine tree, the
# configuration, the suites and the compiler (arm64's is clang-19).
stock_key() {
	local head f config=$S/test-kernel.config cc=gcc files=(config config.x86_64)
	[[ $VS_ARCH != arm64 ]] || { config=$S/test-kernel-arm64.config; cc=clang-19; files=(config); }
	head=$(vs_applied_head)
	{
		git -C "$VS_SRC" rev-parse "pristine^{tree}"
		cat "$config"
		for f in "${files[@]}"; do
			git -C "$VS_SRC" show "$head:tools/testing/selftests/vDSO/$f" 2>/dev/null || true
		done
		printf '%s\n' "${VS_NEIGHBOURS[@]}"
		"$cc" --version | head -n 1
	} | sha1sum | cut -c1-40
}

# cases LOG: the neighbours' results in a console log, one per line:
# "COLL:PROG<tab>R" for a program and "COLL:PROG:CASE<tab>R" for each of
# its own results (kselftest prints a program's output, its TAP
# included, as "# " lines before the program's result), R being P, F or
# S.
cases() {
	local colls
	colls=$(printf '%s\n' "${VS_NEIGHBOURS[@]%%:*}" | sort -u | paste -sd' ')
	tr -d '\r' <"$1" | sed -n '/VSYSINFO-KTAP-BEGIN/,/VSYSINFO-KTAP-END/p' |
	awk -v colls=" $colls " '
	function res(line) { return line ~ /# *[Ss][Kk][Ii][Pp]/ ? "S" : (line ~ /^(# )?not ok/ ? "F" : "P") }
	/^# (not )?ok [0-9]+ / {
		name = $0
		sub(/^# (not )?ok [0-9]+ /, "", name)
		sub(/ *#.*/, "", name)
		buf[n++] = name "\t" res($0)
		next
	}
	/^(not )?ok [0-9]+ selftests: / {
		split($0, f, "selftests: ")
		name = f[2]
		sub(/ *#.*/, "", name)
		split(name, cp, ": ")
		if (index(colls, " " cp[1] " ")) {
			prog = cp[1] ":" cp[2]
			print prog "\t" res($0)
			for (i = 0; i < n; i++) print prog ":" buf[i]
		}
		n = 0
		next
	}'
}

# program_output LOG COLL:PROG [MAX]: what the program printed in the
# console log (kselftest's "# " lines between its start and its result),
# at most MAX lines (60; 0: all): a lost case is told with the program's
# own words. awk reads to the end: under pipefail, a reader that stops
# early would fail the pipeline by tr's SIGPIPE.
program_output() {
	tr -d '\r' <"$1" | awk -v start="# selftests: ${2/:/: }" -v end="selftests: ${2/:/: }" \
		-v max="${3:-60}" '
	$0 == start && !done { on = 1; next }
	on && $0 ~ /^(not )?ok [0-9]+ selftests: / && index($0, end) { on = 0; done = 1 }
	on && (max == 0 || n++ < max) { print }'
}

# kernel_reports LOG: the kernel log's reports (VS_KERNEL_BAD), without
# time stamps, addresses and numbers, once each.
kernel_reports() {
	tr -d '\r' <"$1" | sed -n '/^VSYSINFO-DMESG-BEGIN/,/^VSYSINFO-DMESG-END/p' |
		{ grep -E -- "$VS_KERNEL_BAD" || true; } |
		sed -E 's/^\[ *[0-9.]+\] //; s/0x[0-9a-f]+/ADDR/g; s/[0-9a-f]{8,}/ADDR/g; s/[0-9]+/N/g' |
		sort -u | sed 's/^/kernel-log\t/'
}

# find_record KEY: the stock record for KEY, or nothing.
find_record() {
	if [[ -f $RECORD && $(sed -n 's/^# key //p' "$RECORD") == "$1" ]]; then
		echo "$RECORD"
	elif [[ $(sed -n 's/^# key //p' "$VS_CACHE/neighbours-stock/$1" 2>/dev/null) == "$1" ]]; then
		echo "$VS_CACHE/neighbours-stock/$1"
	fi
}

# arch_note: how a stock record names an architecture other than x86-64
# (fixtures.sh tells the records of one version apart by it).
arch_note() {
	[[ $VS_ARCH == x86_64 ]] || printf ', %s' "$VS_ARCH"
}

stock() {
	local key log=$VS_LOGS/console-test-stock.log tmp version t0=$SECONDS stage
	key=$(stock_key)
	vs_stage "neighbours: the stock kernel: the pristine tree and its suites, same configuration"
	if ! git -C "$VS_BUILD/stock/src" rev-parse --git-dir >/dev/null 2>&1; then
		rm -rf "$VS_BUILD/stock"
		git -C "$VS_SRC" worktree prune
		vs_git -C "$VS_SRC" worktree add -q --detach "$VS_BUILD/stock/src" pristine
	fi
	rm -f "$(git -C "$VS_BUILD/stock/src" rev-parse --absolute-git-dir)/index.lock"
	vs_git -C "$VS_BUILD/stock/src" checkout -q -f --detach pristine
	for stage in kernel selftests initramfs; do
		FLAVOUR=stock "$S/$stage.sh"
	done
	FLAVOUR=stock "$S/boot.sh" test >"$VS_LOGS/neighbours-stock.log" 2>&1 || true
	grep -q VSYSINFO-DONE "$log" 2>/dev/null || {
		tail -n 30 "$VS_LOGS/neighbours-stock.log" >&2
		vs_die "the stock kernel's boot did not finish; see $VS_LOGS/neighbours-stock.log and $log"
	}
	version=$(make -s -C "$VS_BUILD/stock/src" kernelversion)
	tmp=$(vs_cache_tmp neighbours-stock)
	{
		printf '# key %s\n' "$key"
		printf '# The neighbours'"'"' suites on Linux %s as released (pristine%s), %s\n' \
			"$version" "$(arch_note)" "$(date -u +%Y-%m-%d)"
		cases "$log"
		kernel_reports "$log"
	} >"$tmp/record"
	vs_cache_put "$tmp/record" "neighbours-stock/$key"
	rmdir "$tmp"
	vs_time_log "neighbours: the stock kernel, built and booted" "$((SECONDS - t0))"
	vs_stage "neighbours: stock results recorded in $VS_CACHE/neighbours-stock/$key"
}

# compare RECORD NOW: one line per program of the stock record:
# "PROG|STOCK|NOW|N|LOST|FAILING": its result on stock and with the
# series (- when it did not run), the number of its cases that pass on
# stock, those of them that do not pass with the series, and every case
# that fails with the series (" [CASE]" each, possibly none: read the
# line with IFS='|', which keeps an empty field).
compare() {
	awk -F'\t' '
	NR == FNR {
		now[$1] = $2
		if ($2 == "F" && split($1, q, ":") > 2)
			failing[q[1] ":" q[2]] = failing[q[1] ":" q[2]] " [" substr($1, length(q[1] ":" q[2]) + 2) "]"
		next
	}
	/^#/ || /^kernel-log\t/ { next }
	{
		split($1, p, ":")
		prog = p[1] ":" p[2]
		if (!(prog in order)) { order[prog] = ++np; names[np] = prog }
		if ($1 == prog) { stock[prog] = $2; next }
		if ($2 != "P") next
		total[prog]++
		if (now[$1] != "P") lost[prog] = lost[prog] " [" substr($1, length(prog) + 2) "]"
	}
	END {
		for (i = 1; i <= np; i++) {
			prog = names[i]
			printf "%s|%s|%s|%d|%s|%s\n", prog, stock[prog], (prog in now) ? now[prog] : "-",
				total[prog], lost[prog], failing[prog]
		}
	}' <(printf '%s\n' "$2") "$1"
}

# losses STOCK NOW LOST: a program's losses, the program's own result
# among them when it passes on stock and not with the series.
losses() {
	[[ $1 != P || $2 == P ]] || printf '%s' "(the program itself)"
	printf '%s\n' "$3"
}

# tcg_timeouts PROG LOST LOG: the cases of LOST (" [CASE]..." as
# compare prints them) that are in VS_NEIGHBOURS_TCG_SLOW and that
# PROG's output in LOG says the kselftest harness ended by its timeout,
# when the guests run under TCG; one per line.
tcg_timeouts() {
	local prog=$1 log=$3 c accel=${ACCEL:-}
	[[ -n $accel || $VS_ARCH != x86_64 ]] || accel=$(cat "$VS_BUILD/accel" 2>/dev/null || true)
	[[ ${accel:-tcg} == tcg ]] || return 0
	while read -r c; do
		[[ -n $c ]] || continue
		# grep reads all of its input (no -q): pipefail would count the
		# writer's SIGPIPE as a failure.
		printf '%s\n' "${VS_NEIGHBOURS_TCG_SLOW[@]}" | grep -xF -- "$prog:$c" >/dev/null || continue
		program_output "$log" "$prog" 0 |
			grep -xF -- "# # ${c#*.}: Test terminated by timeout" >/dev/null || continue
		printf '%s\n' "$c"
	done < <(grep -o '\[[^]]*\]' <<<"$2" | tr -d '[]')
}

# without_cases LOST CASES: LOST without the cases CASES names (one per
# line).
without_cases() {
	local lost=$1 c
	while read -r c; do
		[[ -z $c ]] || lost=${lost// \[$c\]/}
	done <<<"$2"
	printf '%s' "$lost"
}

# second_look RECORD COLL:PROG...: those programs, each of which lost a
# case, run again alone in a boot of their own (boot.sh test with
# NEIGHBOURS_AGAIN, console logs/console-test-neighbours-again.log), and
# compared with the stock record (compare's lines; nothing when the
# boot did not finish). A case the series breaks is lost there too; one
# that a guest lost once, the console's program output says how.
second_look() {
	local record=$1 progs
	shift
	progs=$(IFS=,; printf '%s' "$*")
	if [[ -n ${NEIGHBOURS_REPLAY:-} ]]; then
		[[ ! -f $AGAIN_LOG ]] || compare "$record" "$(cases "$AGAIN_LOG")"
		return 0
	fi
	vs_stage "neighbours: $progs lost cases; running them again in a boot of their own" >&2
	if NEIGHBOURS_AGAIN=$progs "$S/boot.sh" test >"$VS_LOGS/neighbours-again.log" 2>&1; then
		compare "$record" "$(cases "$AGAIN_LOG")"
	else
		tail -n 30 "$VS_LOGS/neighbours-again.log" >&2
	fi
}

judge() {
	local key record log=$VS_LOGS/console-test-neighbours.log prog st nw total lost name new line
	local results second="" st2 nw2 lost2 failing2 slow again=()
	# A mainline tree's results are named after it ("7.3 x86_64: neighbours: ...").
	local tag=${VS_MAINLINE:+"$KVER $VS_ARCH: "}
	if [[ -n ${NEIGHBOURS_REPLAY:-} ]]; then
		record=$NEIGHBOURS_REPLAY/record log=$NEIGHBOURS_REPLAY/console-test-neighbours.log
		[[ -f $record ]] || vs_die "NEIGHBOURS_REPLAY: no stock record $record"
	else
		key=$(stock_key)
		record=$(find_record "$key")
		if [[ -z $record ]]; then
			stock >&2
			record=$(find_record "$key")
		fi
	fi
	[[ -f $log ]] || vs_die "no boot of the neighbours' suites in $log: run make run first"
	vs_ktap
	ktap_print_header
	ktap_print_msg "stock reference: $(sed -n '2s/^# //p' "$record") (${record#"$VS_ROOT"/})"
	results=$(compare "$record" "$(cases "$log")")
	while IFS='|' read -r prog st nw total lost _; do
		[[ $nw == - || -z $(losses "$st" "$nw" "$lost") ]] || again+=("$prog")
	done <<<"$results"
	((${#again[@]} == 0)) || second=$(second_look "$record" "${again[@]}")
	while IFS='|' read -r prog st nw total lost _; do
		name="${tag}neighbours: ${prog/:/: }: passes what it passes on stock"
		lost=$(losses "$st" "$nw" "$lost")
		if [[ $nw == - ]]; then
			ktap_print_msg "$prog did not run with the series"
			ktap_test_fail "$name"
		elif [[ -n $lost ]]; then
			ktap_print_msg "$prog passes on stock, not with the series:$lost"
			ktap_print_msg "its output (${log#"$VS_ROOT"/}):"
			program_output "$log" "$prog" | while IFS= read -r line; do
				ktap_print_msg "  ${line#"# "}"
			done
			IFS='|' read -r _ st2 nw2 _ lost2 failing2 < <(awk -F'|' -v p="$prog" '$1 == p' <<<"$second")
			slow=$(tcg_timeouts "$prog" "$lost" "$log")
			slow=$(grep -xF -f <(tcg_timeouts "$prog" "${lost2:-}" "$AGAIN_LOG") <<<"$slow" || true)
			# The program fails when a case does: when the cases
			# not counted are the only ones that failed, so is the
			# program's own failure (on arm64 seccomp_bpf passes on
			# stock, on x86 it does not).
			[[ -z $slow || ${nw2:--} != F || -n $(without_cases "${failing2:-}" "$slow") ]] || nw2=P
			lost2=$(losses "${st2:-}" "${nw2:--}" "$(without_cases "${lost2:-}" "$slow")")
			if [[ ${nw2:--} == - ]]; then
				ktap_print_msg "$prog did not run in the second look (${VS_LOGS#"$VS_ROOT"/}/neighbours-again.log)"
				ktap_test_fail "$name"
			elif [[ -n $lost2 ]]; then
				ktap_print_msg "$prog run again in a boot of its own: lost again:$lost2; its failing cases there:$(without_cases "${failing2:-}" "$slow")"
				ktap_test_fail "$name"
			elif [[ -n $slow ]]; then
				ktap_print_msg "$prog run again in a boot of its own: ended by the kselftest harness's 30 s timeout in both boots, under TCG, where it is timing-bound on stock too (VS_NEIGHBOURS_TCG_SLOW), so not counted: $(paste -sd' ' <<<"$slow"); every other case that passes on stock passes"
				ktap_test_pass "$name"
			else
				ktap_print_msg "$prog run again in a boot of its own: all $total of its cases that pass on stock pass; the first boot's loss did not repeat"
				ktap_test_pass "$name"
			fi
		else
			ktap_print_msg "$prog: all $total of its cases that pass on stock pass (the program: $st on stock, $nw now)"
			ktap_test_pass "$name"
		fi
	done <<<"$results"
	name="${tag}neighbours: kernel log: no report the stock kernel does not make"
	if ! grep -q '^VSYSINFO-DMESG-END' <(tr -d '\r' <"$log"); then
		ktap_print_msg "the guest did not dump its kernel log"
		ktap_test_fail "$name"
	elif new=$(kernel_reports "$log" | grep -vxF -f <(grep '^kernel-log' "$record") | cut -f2-) &&
	     [[ -n $new ]]; then
		ktap_print_msg "reports that stock's kernel log does not have: $(paste -sd'|' <<<"$new")"
		ktap_test_fail "$name"
	else
		ktap_print_msg "stock's own reports, there with the series too: $(grep -c '^kernel-log' "$record" || true)"
		ktap_test_pass "$name"
	fi
	ktap_set_plan $((KTAP_TESTNO - 1))
	ktap_print_totals
	((KTAP_CNT_FAIL == 0))
}

main() {
	vs_init
	vs_require source
	case "${1:-}" in
	judge) judge ;;
	stock) stock ;;
	*) vs_usage; vs_die "neighbours.sh needs judge or stock" ;;
	esac
}

vs_main "$@"
