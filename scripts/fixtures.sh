#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fixtures.sh: record the latest passing guest run for the judge's tests.
#
# Usage: scripts/fixtures.sh [-h]      (make fixtures)
#
# Copies build/<tree>/logs/console-test.log, the console of the last
# test boot, to scripts/testdata/console-pass.log, cut to what
# results.sh reads: the init line, the whole KTAP output and the first
# lines of the kernel log. host-tests.sh makes every failure kind from
# it (a failed, a skipped test, a panic, a truncated run, a short plan,
# a WARNING) and fails when its tests and plans are not those of the
# latest run. The run must have passed. Also copies the newest stock
# record of the neighbours' suites from the shared cache to
# scripts/testdata/neighbours-stock.txt, which neighbours.sh uses when
# its key matches.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "" "$@"

# stock_record: the newest stock record of the neighbours' suites in the
# shared cache (neighbours.sh stock), for a fresh clone to use as it is.
stock_record() {
	local rec out=$VS_ROOT/scripts/testdata/neighbours-stock.txt
	rec=$(ls -t "$VS_CACHE"/neighbours-stock/[0-9a-f]* 2>/dev/null | head -n 1) || true
	[[ -n $rec ]] || return 0
	cp "$rec" "$out.new"
	mv "$out.new" "$out"
	vs_stage "fixtures: ${out#"$VS_ROOT"/} recorded from $rec"
}

main() {
	local log out=$VS_ROOT/scripts/testdata/console-pass.log
	vs_init
	log=$VS_LOGS/console-test.log
	[[ -f $log ]] || vs_die "no guest run in $log: run 'make run' first"
	"$VS_ROOT/scripts/results.sh" "$log" >/dev/null ||
		vs_die "the run in $log did not pass ('scripts/results.sh $log' says why): only a passing run is recorded"
	tr -d '\r' <"$log" | awk '
		/^VSYSINFO-INIT/ || /^VSYSINFO-KTAP-BEGIN/,/^VSYSINFO-KTAP-END/ { print; next }
		/^VSYSINFO-DMESG-BEGIN/ { dmesg = 1; print; next }
		/^VSYSINFO-DMESG-END/ { print; dmesg = 0; next }
		dmesg && ++n <= 12 { print }
		/^VSYSINFO-DONE/ { print }' >"$out.new"
	mv "$out.new" "$out"
	vs_stage "fixtures: ${out#"$VS_ROOT"/} recorded from ${log#"$VS_ROOT"/} ($(wc -l <"$out") lines)"
	stock_record
}

vs_main "$@"
