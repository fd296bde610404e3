#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh: benchmark the vDSO sysinfo() (make bench).
#
# Usage: scripts/bench.sh [-h] [--write]
#
# --write only writes the last run's numbers (build/<tree>/
# bench-icount.txt and the built benchmark vmlinux) into the files below.
#
# Builds the benchmark kernel (FLAVOUR=bench: the test configuration, in
# build/<tree>/obj-bench; mainline's test kernel) and boots it under QEMU TCG
# with -icount shift=0,sleep=off on one CPU, where a guest nanosecond is
# one guest instruction, so every run gives the same numbers. In the
# guest, 'vdso_test_sysinfo bench' times the vDSO sysinfo(), sysinfo(2),
# reading and parsing /proc/meminfo and /proc/loadavg, and the vDSO
# clock_gettime(CLOCK_MONOTONIC_COARSE). Where KVM works, a second run
# under KVM prints wall-clock nanoseconds. The writer's cost is counted
# in the built vmlinux (static instruction counts): the checks that
# update_vsyscall() runs inside the timekeeper's write section on every
# update, what it runs there while the publisher runs, and the
# publication that runs outside it.
#
# The table and the writer's cost are written into README.md (between
# the bench markers) and into the cover letter patches/6.12/0000-cover-letter.patch.
# With KVER=7.3 (and ARCH=arm64), the table goes under the line
# "bench 7.3 ARCH" in README.md and in patches/7.3/'s cover letter; the
# writer's cost, the same code as 6.12's, is counted there.
# This is a benchmark, not a test: nothing here asserts a number.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "--write" "$@"

S=$VS_ROOT/scripts
# bench-kernel.config adds nothing to the test configuration: mainline
# benchmarks its test kernel rather than build a second one.
[[ -n $VS_MAINLINE ]] || export FLAVOUR=bench

# count_insns FUNCTION: instructions in FUNCTION's disassembly ($DIS).
count_insns() {
	awk -v fn="$1" '$0 ~ "^[0-9a-f]+ <" fn ">:$" { f = 1; next }
		f && /^$/ { exit } f && /^ *[0-9a-f]+:\t/ { n++ } END { print n + 0 }' <<<"$DIS"
}

# callees FUNCTION: the functions FUNCTION calls, one level deep.
callees() {
	awk -v fn="$1" '$0 ~ "^[0-9a-f]+ <" fn ">:$" { f = 1; next }
		f && /^$/ { exit }
		f && ($2 == "call" || $2 == "jmp") && /<[^+>]*>$/ {
			sub(/.*</, ""); sub(/>.*/, ""); print }' <<<"$DIS" | sort -u
}

# cost FUNCTION: "N (FUNCTION() n, callee() m, ...)", static counts.
cost() {
	local fn n total own list=""
	own=$(count_insns "$1")
	((own > 0)) || vs_die "$1() not found in $VS_VMLINUX"
	total=$own
	for fn in $(callees "$1"); do
		n=$(count_insns "$fn")
		total=$((total + n))
		list+=", $fn() $n"
	done
	printf '%d (%s() %d%s)' "$total" "$1" "$own" "$list"
}

# The check in update_vsyscall() that every update runs, in its
# disassembly: the load of the publisher's flag (the first reference to
# vdso_sysinfo_publisher) to the conditional jump after it.
idle_check() {
	awk '/^[0-9a-f]+ <update_vsyscall>:$/ { f = 1; next } f && /^$/ { exit }
		!f || !/^ *[0-9a-f]+:\t/ { next }
		/<vdso_sysinfo_publisher[+>]/ && !refs { refs = 1; part = 1 }
		part { n++; if ($2 ~ /^j/ && $2 != "jmp") part = 0 }
		END { print n + 0 }' <<<"$DIS"
}

# The writer's cost: what runs inside the timekeeper's write section on
# every update and while the publisher runs, and the publication
# outside it (static instruction counts).
writer_cost() {
	local idle
	vs_need objdump binutils
	DIS=$(objdump -d --no-show-raw-insn "$VS_VMLINUX")
	idle=$(idle_check)
	((idle > 0)) || vs_die "no checks of vdso_sysinfo_publisher in update_vsyscall() in $VS_VMLINUX"
	printf 'The writer adds %d instructions to every timekeeping update inside the timekeeper'"'"'s write section (the publisher'"'"'s check in update_vsyscall()), all a machine pays while nobody reads; while the publisher runs, vdso_sysinfo_tick() there on every update, %s, the last only once a period; and outside it, once a period, the publication: %s.\n' \
		"$idle" "$(cost vdso_sysinfo_tick)" "$(cost vdso_sysinfo_publish)"
}

# replace_block FILE: put $TABLE and $WRITER in place of the old ones.
replace_block() {
	FIRST=$VS_BENCH_FIRST LAST=$VS_BENCH_LAST awk '
		skip && index($0, ENVIRON["LAST"]) { skip = 0; done = 1; next }
		skip { next }
		$0 ~ ENVIRON["FIRST"] && !done { print ENVIRON["TABLE"]; skip = 1; next }
		/^The writer adds / { print ENVIRON["WRITER"]; next }
		{ print }' "$1" >"$1.new"
	mv "$1.new" "$1"
}

# replace_tagged FILE: put $TABLE after the line "bench KVER ARCH", in
# place of the lines up to the next blank line or code fence.
replace_tagged() {
	grep -qx "$BENCH_TAG" "$1" || vs_die "$1 has no line '$BENCH_TAG' to write the table after"
	TAG=$BENCH_TAG awk '
		skip && (/^$/ || /^```/) { skip = 0 }
		skip { next }
		$0 == ENVIRON["TAG"] { print; print ENVIRON["TABLE"]; skip = 1; next }
		{ print }' "$1" >"$1.new"
	mv "$1.new" "$1"
}

main() {
	local stage
	vs_init
	case "${1:-}" in
	'')
		for stage in "${VS_STAGES[@]}"; do
			"$S/$stage.sh"
		done
		"$S/boot.sh" bench ;;
	--write) vs_require kernel ;;
	*) vs_usage; vs_die "unknown option '$1'" ;;
	esac
	[[ -s $VS_BENCH_TXT ]] || vs_die "the benchmark printed nothing; see $VS_LOGS/console-bench.log"
	grep -q '^per call ' "$VS_BENCH_TXT" ||
		vs_die "the benchmark output has no header: $VS_BENCH_TXT"
	grep -q 'ratio vDSO sysinfo / floor' "$VS_BENCH_TXT" ||
		vs_die "the benchmark output is incomplete: $VS_BENCH_TXT"
	TABLE=$(sed 's/^/  /' "$VS_BENCH_TXT")
	if [[ -n $VS_MAINLINE ]]; then
		BENCH_TAG="bench $KVER $VS_ARCH"
		export TABLE BENCH_TAG
		replace_tagged "$VS_ROOT/README.md"
		replace_tagged "$VS_PATCHES/0000-cover-letter.patch"
		vs_stage "bench: numbers written to README.md and ${VS_PATCHES#"$VS_ROOT"/}/0000-cover-letter.patch"
		return
	fi
	WRITER=$(writer_cost)
	printf '%s\n' "$WRITER"
	export TABLE WRITER
	replace_block "$VS_ROOT/README.md"
	replace_block "$VS_PATCHES/0000-cover-letter.patch"
	grep -qF "$(sed -n 2p "$VS_BENCH_TXT")" "$VS_ROOT/README.md" ||
		vs_die "README.md has no benchmark table to replace (a line matching $VS_BENCH_FIRST)"
	vs_stage "bench: numbers written to README.md and ${VS_PATCHES#"$VS_ROOT"/}/0000-cover-letter.patch"
}

vs_main "$@"
