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
# record of the neighbours' suites for the tree's version from the
# shared cache to scripts/testdata/neighbours-stock.txt (KVER=7.3:
# neighbours-stock-7.3-x86_64.txt, with ARCH=arm64 -arm64.txt), which
# neighbours.sh uses when its key matches. With KVER=7.3 only that
# record is copied: the judge's console log is 6.12's.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "" "$@"

# stock_record: the newest stock record of the neighbours' suites in the
# shared cache (neighbours.sh stock) made from this tree's version, for a
# fresh clone to use as it is (the name neighbours.sh reads for KVER).
stock_record() {
	local rec version f out=$VS_ROOT/scripts/testdata/neighbours-stock${VS_MAINLINE:+-$KVER-$VS_ARCH}.txt
	local arch=
	[[ $VS_ARCH == x86_64 ]] || arch=", $VS_ARCH"
	version=$(make -s -C "$VS_SRC" kernelversion)
	rec=
	while read -r f; do
		if sed -n 2p "$f" | grep -qF "on Linux $version as released (pristine$arch),"; then
			rec=$f
			break
		fi
	done < <(ls -t "$VS_CACHE"/neighbours-stock/[0-9a-f]* 2>/dev/null)
	[[ -n $rec ]] || return 0
	cp "$rec" "$out.new"
	mv "$out.new" "$out"
	vs_stage "fixtures: ${out#"$VS_ROOT"/} recorded from $rec"
}

main() {
	local log out=$VS_ROOT/scripts/testdata/console-pass.log
	vs_init
	if [[ -n $VS_MAINLINE ]]; then
		stock_record
		return
	fi
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
