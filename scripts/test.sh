#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test.sh: everything CI checks (make test).
#
# Usage: scripts/test.sh [-h]
#
# Installs what is missing, prepares the tree, runs the host-side checks
# (scripts/host-tests.sh pre), applies the series, builds every commit of
# it on its own and then HEAD with W=1, builds the kselftests and the
# initramfs, runs the post-build host checks (W=1 warnings, a guest that
# panics or times out), and finally the vDSO kselftests in the guest.
# A stage that fails counts as one failed check and skips what depends
# on it. The last line is "N passed, N failed"; the exit status is 0
# only when nothing failed. SKIP_COMMIT_BUILDS=1 builds only HEAD.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_want_help "${1:-}"

S=$VS_ROOT/scripts
PASSED=0
FAILED=0

# stage NAME CMD...: a stage that must succeed for what follows.
stage() {
	local name=$1
	shift
	if "$@"; then
		return 0
	fi
	printf 'not ok - stage %s failed\n' "$name"
	FAILED=$((FAILED + 1))
	return 1
}

# add_counts FILE: add "PASSED FAILED" from FILE; no file is a failure.
add_counts() {
	local p f
	if [[ ! -s $1 ]]; then
		printf 'not ok - %s produced no counts\n' "$(basename "$1")"
		FAILED=$((FAILED + 1))
		return
	fi
	read -r p f _ <"$1"
	PASSED=$((PASSED + p))
	FAILED=$((FAILED + f))
}

finish() {
	printf '%d passed, %d failed\n' "$PASSED" "$FAILED"
	((FAILED == 0))
	exit
}

main() {
	local each=--each-commit
	vs_init
	[[ -z ${SKIP_COMMIT_BUILDS:-} ]] || each=
	rm -f "$VS_BUILD/host-pre.counts" "$VS_BUILD/host-post.counts" "$VS_BUILD/guest.counts"
	stage deps "$S/deps.sh" || finish
	stage source "$S/source.sh" || finish
	vs_stage "test: host-side checks"
	"$S/host-tests.sh" pre "$VS_BUILD/host-pre.counts" || true
	add_counts "$VS_BUILD/host-pre.counts"
	stage apply "$S/apply.sh" || finish
	stage kernel "$S/kernel.sh" $each || finish
	stage selftests "$S/selftests.sh" || finish
	stage initramfs "$S/initramfs.sh" || finish
	vs_stage "test: post-build host-side checks"
	"$S/host-tests.sh" post "$VS_BUILD/host-post.counts" || true
	add_counts "$VS_BUILD/host-post.counts"
	vs_stage "test: the vDSO kselftests in the guest"
	"$S/boot.sh" test || true
	add_counts "$VS_BUILD/guest.counts"
	finish
}

main "$@"
