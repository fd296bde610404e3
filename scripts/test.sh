#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test.sh: everything CI checks (make test).
#
# Usage: scripts/test.sh [-h]
#
# Runs the stages of VS_STAGES (scripts/lib.sh) in order, building every
# commit of the series on its own in the kernel stage, with the host-side
# checks where what they need is ready: 'host-tests.sh pre' after the
# source stage, 'host-tests.sh post' (W=1, a guest that panics or times
# out) after the initramfs; then the vDSO kselftests in the guest
# (boot.sh test: the test boot, the opt-out boot, the parameter boots),
# the sysinfo kselftest on the sanitizer kernel (FLAVOUR=kcsan: built,
# then booted; SKIP_SANITIZER=1 leaves it out) and a check that the
# judge's recorded console log has this run's tests ('host-tests.sh
# last'). Every check
# prints KTAP; this script counts the 'ok' and 'not ok' lines its
# children print (a '# SKIP' result counts as skipped). A stage that
# fails counts as one failed check and skips what depends on it. The
# last line is "N passed, N failed, N skipped"; the exit status is 0
# only when nothing failed. SKIP_COMMIT_BUILDS=1 builds only HEAD.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_want_help "${1:-}"

S=$VS_ROOT/scripts

# counted CMD...: run CMD; its output is shown and kept in $RESULTS.
counted() {
	"$@" 2>&1 | tee -a "$RESULTS"
	return "${PIPESTATUS[0]}"
}

# stage NAME CMD...: a stage that must succeed for what follows.
stage() {
	local name=$1
	shift
	counted "$@" && return 0
	counted printf 'not ok - stage %s failed\n' "$name"
	return 1
}

finish() {
	local passed failed skipped
	skipped=$(grep -cE '^ok [0-9]+ .*# *SKIP' "$RESULTS" || true)
	passed=$(($(grep -cE '^ok ' "$RESULTS" || true) - skipped))
	failed=$(grep -cE '^not ok ' "$RESULTS" || true)
	printf '%d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
	((failed == 0))
	exit
}

# sanitizer: the sysinfo kselftest on the KCSAN and UBSAN kernel.
sanitizer() {
	if [[ -n ${SKIP_SANITIZER:-} ]]; then
		vs_stage "test: SKIP_SANITIZER is set, no sanitizer kernel"
		return
	fi
	vs_stage "test: the sysinfo kselftest on the sanitizer kernel (KCSAN, UBSAN)"
	stage kernel-kcsan env FLAVOUR=kcsan "$S/kernel.sh" || return 0
	counted env FLAVOUR=kcsan "$S/boot.sh" test || true
}

main() {
	local s args
	vs_init
	RESULTS=$VS_LOGS/test-results.log
	: >"$RESULTS"
	for s in "${VS_STAGES[@]}"; do
		args=()
		[[ $s != kernel || -n ${SKIP_COMMIT_BUILDS:-} ]] || args=(--each-commit)
		stage "$s" "$S/$s.sh" "${args[@]}" || finish
		case "$s" in
		source)
			vs_stage "test: host-side checks"
			counted "$S/host-tests.sh" pre || true ;;
		initramfs)
			vs_stage "test: post-build host-side checks"
			counted "$S/host-tests.sh" post || true ;;
		esac
	done
	vs_stage "test: the vDSO kselftests in the guest"
	counted "$S/boot.sh" test || true
	sanitizer
	counted "$S/host-tests.sh" last || true
	finish
}

main "$@"
