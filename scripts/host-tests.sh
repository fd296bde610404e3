#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-tests.sh: host-side checks of the harness and of the series.
#
# Usage: scripts/host-tests.sh [-h] [pre|post|all] [COUNTS_FILE]
#
#   pre   checks that need only the source tree: shell lint, the TAP judge on the
#         recorded console logs in scripts/testdata/, usage and bad input
#         of the scripts (a KSRC that is not a kernel tree, a corrupted
#         patch, a missing tool), patches/ up to date, checkpatch.pl
#         --strict on every patch, the same benchmark numbers in
#         README.md and in the cover letter
#   post  checks that need the built kernel and initramfs: no W=1
#         warning in the C files the series touches, and a guest that
#         panics or times out makes boot.sh fail with the console tail
#   all   both (default)
#
# Prints "ok N - name" or "not ok N - name" per check, with the output of
# failed checks, and a summary. COUNTS_FILE receives "PASSED FAILED".
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_want_help "${1:-}"

S=$VS_ROOT/scripts
DATA=$S/testdata
N=0
PASSED=0
FAILED=0

# check NAME CMD...: run CMD, which must succeed. (set -e does not act
# inside it: a CMD of several steps must return on each failure.)
check() {
	local name=$1 out
	shift
	N=$((N + 1))
	if out=$("$@" 2>&1); then
		printf 'ok %d - %s\n' "$N" "$name"
		PASSED=$((PASSED + 1))
	else
		printf 'not ok %d - %s\n' "$N" "$name"
		sed 's/^/#   /' <<<"$out" | tail -n 40
		FAILED=$((FAILED + 1))
	fi
}

# expect STATUS PATTERN CMD...: CMD exits with STATUS and prints PATTERN.
expect() {
	local want=$1 pattern=$2 out rc=0
	shift 2
	out=$("$@" 2>&1) || rc=$?
	if [[ $rc != "$want" ]]; then
		printf 'exit status %s, expected %s; output:\n%s\n' "$rc" "$want" "$out"
		return 1
	fi
	if ! grep -qE -- "$pattern" <<<"$out"; then
		printf 'output lacks /%s/:\n%s\n' "$pattern" "$out"
		return 1
	fi
}

results_cases() {
	check "results: all tests pass" \
		expect 0 'guest: 11 passed, 0 failed, 0 skipped' "$S/results.sh" "$DATA/console-pass.log"
	check "results: a failing test fails the run and shows its output" \
		expect 1 'FAIL vDSO: vdso_test_abi.*' "$S/results.sh" "$DATA/console-fail.log"
	check "results: a failing test's own output is printed" \
		expect 1 '\| # not ok 2 ' "$S/results.sh" "$DATA/console-fail.log"
	check "results: a skipped test is counted, not failed" \
		expect 0 'guest: 10 passed, 0 failed, 1 skipped' "$S/results.sh" "$DATA/console-skip.log"
	check "results: a kernel panic fails the run" \
		expect 1 'no KTAP output|Kernel panic' "$S/results.sh" "$DATA/console-panic.log"
	check "results: a truncated run fails" \
		expect 1 'truncated run: the KTAP output stops after 5 results' "$S/results.sh" "$DATA/console-truncated.log"
	check "results: fewer results than the plan fails" \
		expect 1 'the plan announced 10 results, got 9' "$S/results.sh" "$DATA/console-short-plan.log"
	check "results: a WARNING in the kernel log fails a run whose tests pass" \
		expect 1 'FAIL kernel log' "$S/results.sh" "$DATA/console-warning.log"
}

usage_cases() {
	local s
	for s in deps source apply kernel selftests initramfs boot results patches bench host-tests test; do
		check "usage: scripts/$s.sh -h" expect 0 '^Usage: scripts/' "$S/$s.sh" -h
	done
}

bad_ksrc() {
	local d rc=0
	d=$(mktemp -d)
	expect 1 "KSRC=$d is not a Linux kernel source tree" env KSRC="$d" BUILD="$d/build" "$S/source.sh" || rc=1
	expect 1 'is not a directory' env KSRC="$d/missing" BUILD="$d/build" "$S/source.sh" || rc=1
	rm -rf "$d"
	return "$rc"
}

# A patch whose hunk no longer matches: named, and nothing changed.
corrupted_patch() {
	local d head applied p rc=0
	d=$(mktemp -d)
	cp "$VS_PATCHES"/*.patch "$d/"
	p=$(basename "$(vs_series | sed -n 2p)")
	sed -i '0,/^@@ .*/s//@@ -1,3 +1,4 @@ corrupted/' "$d/$p"
	sed -i '0,/^ /s/^ /  garbage/' "$d/$p"
	head=$(git -C "$VS_SRC" rev-parse HEAD)
	applied=$(cat "$VS_BUILD/applied" 2>/dev/null || true)
	expect 1 "patch .*$p does not apply to Linux [0-9.]+" env PATCHES="$d" "$S/apply.sh" || rc=1
	rm -rf "$d"
	((rc == 0)) || return 1
	[[ $(git -C "$VS_SRC" rev-parse HEAD) == "$head" ]] || { echo "src HEAD moved"; return 1; }
	[[ $(cat "$VS_BUILD/applied" 2>/dev/null || true) == "$applied" ]] || { echo "applied record changed"; return 1; }
	[[ -z $(git -C "$VS_SRC" status --porcelain --untracked-files=no) ]] || { echo "src left dirty"; return 1; }
}

# boot.sh without QEMU on PATH must name the package.
missing_tool() {
	local d f rc=0
	d=$(mktemp -d)
	for f in /usr/bin/* /bin/*; do
		[[ $(basename "$f") == qemu-system-x86_64 ]] && continue
		ln -sf "$f" "$d/" 2>/dev/null || true
	done
	expect 1 "install Debian package 'qemu-system-x86'" env PATH="$d" "$S/boot.sh" test || rc=1
	rm -rf "$d"
	return "$rc"
}

checkpatch() {
	local p out rc=0
	while read -r p; do
		# Debian's python3 has ply and git for scripts/spdxcheck.py.
		out=$(cd "$VS_SRC" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict "$p" 2>&1) || true
		if ! grep -q 'total: 0 errors, 0 warnings, 0 checks' <<<"$out"; then
			printf '%s:\n%s\n' "$(basename "$p")" "$out"
			rc=1
		fi
	done < <(vs_series)
	return "$rc"
}

# The benchmark numbers in README.md and in the cover letter are the
# same run's (make bench writes both).
bench_block() {
	awk '/^ *per call +ns$/ { f = 1 } f { print } /ratio vDSO sysinfo \/ floor/ { f = 0 }
	     /^The writer adds / { print }' "$1"
}

bench_numbers_agree() {
	local readme cover
	readme=$(bench_block "$VS_ROOT/README.md")
	cover=$(bench_block "$VS_PATCHES/0000-cover-letter.patch")
	[[ -n $readme ]] || { echo "README.md has no benchmark table"; return 1; }
	[[ $readme == "$cover" ]] || {
		printf 'README.md:\n%s\ncover letter:\n%s\nrun make bench\n' "$readme" "$cover"
		return 1
	}
}

# Shell lint: every script parses, and shellcheck finds no warning.
lint() {
	local f rc=0
	for f in "$S"/*.sh "$VS_ROOT/.ci/run"; do
		bash -n "$f" || rc=1
	done
	(cd "$VS_ROOT" && shellcheck -x -S warning scripts/*.sh .ci/run) || rc=1
	return "$rc"
}

pre() {
	check "lint: bash -n and shellcheck -S warning on every script" lint
	results_cases
	usage_cases
	check "the benchmark numbers in README.md and the cover letter agree" bench_numbers_agree
	check "bad input: a KSRC that is not a kernel tree is refused" bad_ksrc
	check "bad input: a missing tool names its Debian package" missing_tool
	if [[ -d $VS_SRC/.git ]]; then
		check "bad input: a corrupted patch is named and changes nothing" corrupted_patch
		check "patches/ is up to date with the area folders" "$S/patches.sh" --check
		check "checkpatch.pl --strict: 0 errors, 0 warnings, 0 checks" checkpatch
	else
		check "source tree present for the series checks" false
	fi
}

# Compile the series' C files again with W=1; keep the old objects when
# the result is identical so that the next build does not relink.
w1_clean() {
	local f o out rc=0 sources=0 checked=0
	while read -r f; do
		[[ $f == *.c && $f != tools/* ]] || continue
		sources=$((sources + 1))
		o=${f%.c}.o
		[[ -f $VS_OBJ/$o ]] || continue
		checked=$((checked + 1))
		cp -p "$VS_OBJ/$o" "$VS_OBJ/$o.w1-saved"
		rm -f "$VS_OBJ/$o"
		out=$(make -s -C "$VS_SRC" O="$VS_OBJ" W=1 "$o" 2>&1) || rc=1
		if cmp -s "$VS_OBJ/$o" "$VS_OBJ/$o.w1-saved"; then
			mv "$VS_OBJ/$o.w1-saved" "$VS_OBJ/$o"
		else
			rm -f "$VS_OBJ/$o.w1-saved"
		fi
		if [[ -n $out ]]; then
			printf '%s:\n%s\n' "$f" "$out"
			rc=1
		fi
	done < <(git -C "$VS_SRC" diff --name-only pristine HEAD)
	# A series with C files that the test kernel does not build would
	# pass this check without checking anything.
	if ((sources > 0 && checked == 0)); then
		printf 'none of the %d C files the series touches is built in %s\n' "$sources" "$VS_OBJ"
		rc=1
	fi
	return "$rc"
}

guest_panic() {
	local out rc=0 pattern
	out=$(ACCEL=tcg GUEST_APPEND="rdinit=/vsysinfo-no-such-init" "$S/boot.sh" test 2>&1) || rc=$?
	[[ $rc == 1 ]] || { printf 'exit status %s, expected 1:\n%s\n' "$rc" "$out"; return 1; }
	for pattern in 'the guest kernel panicked' 'last 30 console lines' 'Kernel panic - not syncing'; do
		grep -qF -- "$pattern" <<<"$out" || { printf 'output lacks "%s":\n%s\n' "$pattern" "$out"; return 1; }
	done
}

guest_timeout() {
	expect 1 'did not finish within 2s' env ACCEL=tcg TIMEOUT=2 "$S/boot.sh" test
}

post() {
	check "W=1: no warning in the C files the series touches" w1_clean
	check "guest failure: a kernel panic fails boot.sh with the console tail" guest_panic
	check "guest failure: a timeout fails boot.sh with the console tail" guest_timeout
}

main() {
	local what=${1:-all} counts=${2:-}
	vs_init
	case "$what" in
	pre) pre ;;
	post) post ;;
	all) pre; post ;;
	*) vs_usage; vs_die "unknown group '$what': use pre, post or all" ;;
	esac
	printf 'host: %d passed, %d failed\n' "$PASSED" "$FAILED"
	[[ -z $counts ]] || printf '%s %s\n' "$PASSED" "$FAILED" >"$counts"
	((FAILED == 0))
}

main "$@"
