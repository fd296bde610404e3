#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel.sh: configure and build the test kernel out of tree.
#
# Usage: scripts/kernel.sh [-h] [--each-commit]    (make kernel)
#
# Configures build/<tree>/obj from tinyconfig plus the fragment
# scripts/test-kernel.config (booting, console, two RAM disks), the
# options the vDSO kselftests need from their own config files,
# tools/testing/selftests/vDSO/config and config.x86_64, as the series'
# last commit has them
# (kselftest's convention; a tree without them gets the copies in
# tools-testing-selftests/vDSO/), and for FLAVOUR=bench or kcsan
# scripts/<flavour>-kernel.config, in build/<tree>/obj-<flavour>; merged with the
# tree's own scripts/kconfig/merge_config.sh. Checks that every option
# of the fragments made it into .config, and builds bzImage with W=1. The
# build is incremental and goes through ccache in the shared cache
# (CACHE): the configuration is only redone when a fragment or a Kconfig
# file of the tree changed. Log: build/<tree>/logs/kernel.log.
#
# --each-commit first builds every commit of the series on its own in
# the same configuration (checked out in turn in build/<tree>/src,
# incrementally), so that a commit that breaks the build is named, and
# checks that each commit's build compiled every C and assembler file
# the commit changes; HEAD is restored afterwards. A commit built and
# checked before from the same tree, fragments, compiler and recipe is
# not built again (CACHE/commit-builds/).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "--each-commit" "$@"

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

# config_stamp: what the configuration is made from: the fragments and
# the tree's Kconfig files. A commit of the series that changes neither
# keeps the configuration (and the build stays incremental); one that
# changes a Kconfig file is configured again.
config_stamp() {
	printf '%s %s\n' "$(cat "${FRAGMENTS[@]}" | sha1sum | cut -c1-40)" \
		"$(git -C "$VS_SRC" ls-tree -r HEAD | grep -E '	(.*/)?Kconfig[^/]*$' | sha1sum | cut -c1-40)"
}

configure() {
	local stamp missing stampfile=$VS_OBJ.config-stamp
	stamp=$(config_stamp)
	if [[ -f $VS_OBJ/.config && -f $stampfile && $(cat "$stampfile") == "$stamp" ]]; then
		return
	fi
	vs_stage "kernel: configuring tinyconfig + ${FRAGMENTS[*]#"$VS_ROOT"/}"
	mkdir -p "$VS_OBJ"
	rm -f "$stampfile"
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
	local log=$VS_LOGS/kernel${FLAVOUR:+-$FLAVOUR}.log
	vs_stage "kernel: building bzImage (W=1, log: ${log#"$VS_ROOT"/})"
	vs_logged "$log" vs_kmake -j"$VS_JOBS" W=1 bzImage
	[[ -f $VS_BZIMAGE && -f $VS_VDSO64 ]] ||
		vs_die "the build did not produce bzImage and vdso64.so; see $log"
	vs_stage "kernel: $(cat "$VS_OBJ/include/config/kernel.release") built"
}

# commit_key C: what the build of commit C on its own depends on: its
# tree (every file's content), the configuration fragments, the
# compiler, and this recipe. Identical inputs give the identical build,
# so a build that passed is not done again (the shared cache's
# commit-builds/).
commit_key() {
	{
		git -C "$VS_SRC" rev-parse "$1^{tree}"
		cat "${FRAGMENTS[@]}" "$0"
		gcc --version | head -n 1
		printf 'W=1 bzImage %s\n' "${FLAVOUR:-}"
	} | sha1sum | cut -c1-40
}

# compiled_changes C STAMP: every C and assembler file that commit C
# changes (tools/ aside: kselftest builds those) was compiled by its
# build, that is, has an output newer than STAMP: an object, a linker
# script or a host program. A changed file that the configuration does
# not build fails the commit. Prints the outputs checked.
compiled_changes() {
	local c=$1 stamp=$2 f out found
	while read -r f; do
		[[ $f == *.[cS] && $f != tools/* && -e $VS_SRC/$f ]] || continue
		found=
		for out in "${f%.[cS]}.o" "${f%.[cS]}" "${f%.c}-x32.o"; do
			if [[ -f $VS_OBJ/$out && $VS_OBJ/$out -nt $stamp ]]; then
				found=$out
				break
			fi
		done
		[[ -n $found ]] ||
			vs_die "commit $(git -C "$VS_SRC" log -1 --format='%h %s' "$c") changes $f, but its build compiled nothing from it (no ${f%.[cS]}.o, linker script or program newer than the build's start in $VS_OBJ): the test configuration does not build it"
		printf '%s\n' "$found"
	done < <(git -C "$VS_SRC" diff --name-only "$c^" "$c")
}

# Build each commit of the series but the last (main builds that one) in
# turn, oldest first, incrementally in the same folder; a commit already
# built and checked from the same inputs (commit_key) is taken from the
# shared cache. Each commit's time goes into make test's table.
each_commit() {
	local head c key entry tmp stamp t0 n=0 subject compiled
	head=$(git -C "$VS_SRC" rev-parse HEAD)
	trap 'vs_checkout "$head"' EXIT
	for c in $(git -C "$VS_SRC" rev-list --reverse pristine.."$head"); do
		[[ $c == "$head" ]] && break
		n=$((n + 1))
		t0=$(date +%s)
		subject=$(git -C "$VS_SRC" log -1 --format='%h %s' "$c")
		key=$(commit_key "$c")
		entry=$VS_CACHE/commit-builds/$key
		if [[ $(head -n 1 "$entry" 2>/dev/null) == "$key" ]]; then
			vs_stage "kernel: commit $subject on its own: built and checked before from the same tree, configuration and compiler (${entry#"$VS_CACHE"/} in $VS_CACHE)"
			vs_time_log "kernel${FLAVOUR:+-$FLAVOUR}: commit $n (cached)" "$(($(date +%s) - t0))"
			continue
		fi
		vs_checkout "$c"
		vs_stage "kernel: commit $subject on its own"
		configure
		stamp=$VS_OBJ.build-start
		touch "$stamp"
		build
		compiled=$(compiled_changes "$c" "$stamp")
		tmp=$(vs_cache_tmp commit-builds)
		printf '%s\ncommit %s\n%s\n' "$key" "$subject" "$(sed 's/^/compiled /' <<<"$compiled")" \
			>"$tmp/entry"
		vs_cache_put "$tmp/entry" "commit-builds/$key"
		rmdir "$tmp"
		vs_time_log "kernel${FLAVOUR:+-$FLAVOUR}: commit $n on its own" "$(($(date +%s) - t0))"
	done
	vs_checkout "$head"
	trap - EXIT
}

main() {
	local t0
	vs_init
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
	t0=$(date +%s)
	configure
	build
	vs_time_log "kernel${FLAVOUR:+-$FLAVOUR}: the series (HEAD)" "$(($(date +%s) - t0))"
}

main "$@"
