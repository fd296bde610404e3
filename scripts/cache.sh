#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cache.sh: show or empty the shared build cache.
#
# Usage: scripts/cache.sh [-h] show|clean    (make cache, make cache-clean)
#
#   show   where the cache is (CACHE; default $XDG_CACHE_HOME/vsysinfo
#          or ~/.cache/vsysinfo), its size, and what it holds: ccache's
#          statistics, the commits built and checked on their own, the
#          glibc builds
#   clean  remove it; the next run builds everything again. make clean
#          leaves it, as it leaves every other clone's builds alone.
#
# The cache lives outside the clone so that a second clone, a second
# run and CI on the same machine reuse what was built; lib.sh says what
# each part is keyed by.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "show clean" "$@"

show() {
	if [[ ! -d $VS_CACHE ]]; then
		vs_stage "cache: $VS_CACHE is empty (nothing built yet)"
		return
	fi
	vs_stage "cache: $VS_CACHE, $(du -sh "$VS_CACHE" | cut -f1)"
	printf '  commits built and checked on their own: %s\n' \
		"$(find "$VS_CACHE/commit-builds" -maxdepth 1 -type f ! -name '.tmp.*' 2>/dev/null | wc -l)"
	printf '  glibc builds: %s\n' \
		"$(find "$VS_CACHE/glibc" -mindepth 1 -maxdepth 1 -type d ! -name '.tmp.*' 2>/dev/null | wc -l)"
	if command -v ccache >/dev/null 2>&1 && [[ -d $VS_CACHE/ccache ]]; then
		CCACHE_DIR=$VS_CACHE/ccache ccache -s | sed 's/^/  ccache: /'
	fi
}

main() {
	case "${1:-}" in
	show) show ;;
	clean)
		rm -rf "$VS_CACHE"
		vs_stage "cache: $VS_CACHE removed" ;;
	*) vs_usage; vs_die "cache.sh needs show or clean" ;;
	esac
}

vs_main "$@"
