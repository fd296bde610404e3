#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel.sh: configure and build the test kernel out of tree.
#
# Usage: scripts/kernel.sh [-h] [--each-commit]    (make kernel)
#
# Configures build/<tree>/obj from tinyconfig plus the fragment
# scripts/test-kernel.config (booting, console, lock debugging), the
# options the vDSO kselftests need from their own config files,
# tools/testing/selftests/vDSO/config and config.x86_64, as the series'
# last commit has them
# (kselftest's convention; a tree without them gets the copies in
# tools-testing-selftests/vDSO/), and for FLAVOUR=bench or kcsan
# scripts/<flavour>-kernel.config, in build/<tree>/obj-<flavour>; merged with the
# tree's own scripts/kconfig/merge_config.sh. Checks that every option
# of the fragments made it into .config, and builds bzImage with W=1. The
# build is incremental: the configuration is only redone when the
# fragment or the applied series changed. Log: build/<tree>/logs/kernel.log.
#
# --each-commit first builds every commit of the series on its own
# (checked out in turn in build/<tree>/src, incrementally), so that a
# commit that breaks the build is named; HEAD is restored afterwards.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_want_help "${1:-}"

SELFTEST_DIR=tools/testing/selftests/vDSO

# fragments: the fragments, in merge order. Every commit of the series
# is configured with the kselftest config files of the last one (config,
# and config.x86_64 for what only x86 needs, as "make kselftest-merge"
# reads them), so that the per-commit builds stay incremental.
fragments() {
	local head name own
	head=$(vs_applied_head)
	FRAGMENTS=("$VS_ROOT/scripts/test-kernel.config")
	for name in config config.x86_64; do
		own=$VS_BUILD/vdso-selftest.$name
		if git -C "$VS_SRC" cat-file -e "$head:$SELFTEST_DIR/$name" 2>/dev/null; then
			git -C "$VS_SRC" show "$head:$SELFTEST_DIR/$name" >"$own.new"
			mv "$own.new" "$own"
			FRAGMENTS+=("$own")
		else
			vs_stage "kernel: the tree has no $SELFTEST_DIR/$name, using tools-testing-selftests/vDSO/$name"
			FRAGMENTS+=("$VS_ROOT/tools-testing-selftests/vDSO/$name")
		fi
	done
	[[ -z ${FLAVOUR:-} ]] || FRAGMENTS+=("$VS_ROOT/scripts/$FLAVOUR-kernel.config")
}

# The options the fragments ask for, the last fragment winning, that the
# final .config does not have.
missing_options() {
	awk '/^CONFIG_[A-Z0-9_]+=/ { split($0, kv, "="); want[kv[1]] = $0; next }
	     /^# CONFIG_[A-Z0-9_]+ is not set/ { want[$2] = $2 "=n" }
	     END { for (k in want) print want[k] }' "${FRAGMENTS[@]}" |
	while read -r line; do
		if [[ $line == *=n ]]; then
			! grep -q "^${line%=n}=" "$VS_OBJ/.config" || printf ' %s' "$line"
		else
			grep -qxF "$line" "$VS_OBJ/.config" || printf ' %s' "$line"
		fi
	done
}

configure() {
	local stamp missing stampfile=$VS_OBJ.config-stamp
	stamp="$(cat "${FRAGMENTS[@]}" | sha1sum) $(git -C "$VS_SRC" rev-parse HEAD)"
	if [[ -f $VS_OBJ/.config && -f $stampfile && $(cat "$stampfile") == "$stamp" ]]; then
		return
	fi
	vs_stage "kernel: configuring tinyconfig + ${FRAGMENTS[*]#"$VS_ROOT"/}"
	mkdir -p "$VS_OBJ"
	vs_logged "$VS_LOGS/config.log" vs_kmake tinyconfig
	vs_logged "$VS_LOGS/config.log" "$VS_SRC/scripts/kconfig/merge_config.sh" \
		-m -O "$VS_OBJ" "$VS_OBJ/.config" "${FRAGMENTS[@]}"
	vs_logged "$VS_LOGS/config.log" vs_kmake olddefconfig
	missing=$(missing_options)
	[[ -z $missing ]] ||
		vs_die "options of ${FRAGMENTS[*]#"$VS_BUILD"/} not as asked in $VS_OBJ/.config (unmet dependencies?):$missing"
	printf '%s\n' "$stamp" >"$stampfile"
}

build() {
	vs_stage "kernel: building bzImage (W=1, log: ${VS_LOGS#"$VS_ROOT"/}/kernel${FLAVOUR:+-$FLAVOUR}.log)"
	vs_logged "$VS_LOGS/kernel${FLAVOUR:+-$FLAVOUR}.log" \
		vs_kmake -j"$(nproc)" W=1 bzImage
	[[ -f $VS_BZIMAGE && -f $VS_VDSO64 ]] ||
		vs_die "the build did not produce bzImage and vdso64.so; see $VS_LOGS/kernel${FLAVOUR:+-$FLAVOUR}.log"
	vs_stage "kernel: $(cat "$VS_OBJ/include/config/kernel.release") built"
}

# Build each commit of the series in turn, oldest first.
each_commit() {
	local head c
	head=$(git -C "$VS_SRC" rev-parse HEAD)
	trap 'vs_git -C "$VS_SRC" checkout -q --detach "$head"' EXIT
	for c in $(git -C "$VS_SRC" rev-list --reverse pristine.."$head"); do
		[[ $c == "$head" ]] && break
		vs_git -C "$VS_SRC" checkout -q --detach "$c"
		vs_stage "kernel: commit $(git -C "$VS_SRC" log -1 --format='%h %s' "$c") on its own"
		configure
		build
	done
	vs_git -C "$VS_SRC" checkout -q --detach "$head"
	trap - EXIT
}

main() {
	vs_init
	case "${1:-}" in
	--each-commit|'') ;;
	*) vs_usage; vs_die "unknown option '$1'" ;;
	esac
	vs_require source
	vs_need flex flex
	vs_need bison bison
	vs_need bc bc
	vs_need gcc gcc
	[[ -f /usr/include/libelf.h || -f /usr/include/gelf.h ]] ||
		vs_die "libelf headers not found: install Debian package libelf-dev"
	[[ -f /usr/include/openssl/ssl.h ]] ||
		vs_die "OpenSSL headers not found: install Debian package libssl-dev"
	fragments
	[[ ${1:-} != --each-commit ]] || each_commit
	configure
	build
}

main "$@"
