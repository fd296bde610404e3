#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh: the whole loop, as make run runs it.
#
# Usage: scripts/run.sh [-h]           (make run)
#
# Runs the stages of VS_STAGES in scripts/lib.sh in order (deps, source,
# apply, kernel, selftests, initramfs), then boots the guest and runs
# the vDSO kselftests there (scripts/boot.sh test). Stops at the first
# stage that fails.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "" "$@"

main() {
	local stage
	vs_init
	for stage in "${VS_STAGES[@]}"; do
		"$VS_ROOT/scripts/$stage.sh"
	done
	"$VS_ROOT/scripts/boot.sh" test
}

vs_main "$@"
