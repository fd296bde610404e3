#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apply.sh: apply the series in patches/ to the pristine tree.
#
# Usage: scripts/apply.sh [-h]         (make apply)
#
# Applies every patches/NNNN-*.patch except the cover letter, in order,
# with git am on the scratch work tree build/<tree>/am, then checks the
# result out in build/<tree>/src. Only files that differ from the last
# applied series are rewritten there, so the kernel build that follows
# stays incremental. An empty series is valid and yields the pristine
# tree. A patch that does not apply is named together with the kernel
# version, and the work tree that gets built is left as it was.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "" "$@"

am_series() {
	local p version from="Debian's linux-source-6.12"
	[[ -z ${KSRC:-} ]] || from="KSRC=$KSRC"
	version=$(make -s -C "$VS_AM" kernelversion)
	p=$(vs_am_series) ||
		vs_die "patch ${p#"$VS_ROOT"/} does not apply to Linux $version ($from); nothing was changed in $VS_SRC"
}

main() {
	local id head n
	vs_init
	vs_require source
	vs_check_no_work ""
	id=$(vs_series_id)
	n=$(vs_series | wc -l)
	if [[ $(vs_applied_id) == "$id" ]]; then
		head=$(vs_applied_head)
		[[ $(git -C "$VS_SRC" rev-parse HEAD) == "$head" ]] || vs_checkout "$head"
		vs_stage "apply: $n patches already applied"
		return
	fi
	am_series
	head=$(git -C "$VS_AM" rev-parse HEAD)
	vs_checkout "$head" "$id"
	vs_stage "apply: $n patches applied, $VS_SRC at $(git -C "$VS_SRC" log -1 --format='%h %s')"
}

vs_main "$@"
