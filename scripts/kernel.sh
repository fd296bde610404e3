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
	[[ $VS_ARCH != arm64 ]] || FRAGMENTS=("$VS_ROOT/scripts/test-kernel-arm64.config")
	for name in config "config.$VS_ARCH"; do
		[[ $name != config.arm64 ]] || continue
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
	# FLAVOUR=stock is the test configuration on the pristine tree.
	[[ -z ${FLAVOUR:-} || $FLAVOUR == stock ]] || FRAGMENTS+=("$VS_ROOT/scripts/$FLAVOUR-kernel.config")
}

# The options the fragments ask for, the last fragment winning, that the
# final .config does not have. An option the tree's Kconfig files do not
# define is left out: the kselftest config serves 6.12 and mainline,
# which renamed some (PROC_SYSCTL is SYSCTL there).
missing_options() {
	local known
	known=$(cd "$VS_SRC" && git grep -hE '^[[:space:]]*(menu)?config [A-Z0-9_]+' -- '*Kconfig*' |
		awk '{ print "CONFIG_" $2 }' | sort -u)
	awk '/^CONFIG_[A-Z0-9_]+=/ { split($0, kv, "="); want[kv[1]] = $0; next }
	     /^# CONFIG_[A-Z0-9_]+ is not set/ { want[$2] = $2 "=n" }
	     END { for (k in want) print want[k] }' "${FRAGMENTS[@]}" |
	while read -r line; do
		grep -qxF -- "${line%%=*}" <<<"$known" || continue
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
	# A commit before the last may not provide yet what the last one's
	# kselftest config asks for (CONFIG_VDSO_SYSINFO before the first
	# architecture selects it); the last commit must.
	if [[ -n $missing && -n ${EARLIER_COMMIT:-} ]]; then
		vs_stage "kernel: not available yet at this commit:$missing"
	elif [[ -n $missing ]]; then
		vs_die "options of ${FRAGMENTS[*]#"$VS_BUILD"/} not as asked in $VS_OBJ/.config (unmet dependencies?):$missing"
	fi
	printf '%s\n' "$stamp" >"$stampfile"
}

build() {
	local log=$VS_LOGS/kernel${FLAVOUR:+-$FLAVOUR}.log
	local image
	image=$(vs_image_target)
	vs_stage "kernel: building $image for $VS_ARCH (W=1, log: ${log#"$VS_ROOT"/})"
	vs_logged "$log" vs_kmake -j"$VS_JOBS" W=1 "$image"
	[[ -f $VS_BZIMAGE && -f $VS_VDSO64 ]] ||
		vs_die "the build did not produce $image and the 64-bit vDSO; see $log"
	vs_stage "kernel: $(cat "$VS_OBJ/include/config/kernel.release") built"
}

# commit_key C: what the build of commit C on its own depends on: the
# trees of C and of the commits before it in the series (every file's
# content, and so what is still waiting to be compiled), the
# configuration fragments, the compiler, and this recipe. Identical
# inputs give the identical build, so a build that passed is not done
# again (the shared cache's commit-builds/).
commit_key() {
	{
		git -C "$VS_SRC" rev-list --format=%T pristine.."$1"
		cat "${FRAGMENTS[@]}" "$0"
		gcc --version | head -n 1
		printf 'W=1 %s %s %s\n' "$(vs_image_target)" "$VS_ARCH" "${FLAVOUR:-}"
	} | sha1sum | cut -c1-40
}

# compiled FILE [STAMP]: a build compiled FILE (a C, assembler or header
# file of the tree): the dependency record (.cmd) of some output in
# $VS_OBJ, written after STAMP when given, names it, by any of the
# spellings kbuild writes (relative to the build folder or absolute,
# through ../ when one file includes another). The last grep reads all
# its input: with -q it could stop first, and under pipefail the writer's
# SIGPIPE would read as "not compiled".
compiled() {
	local want newer=()
	want=$(realpath -m "$VS_SRC/$1")
	[[ -z ${2:-} ]] || newer=(-newer "$2")
	find "$VS_OBJ" -name '.*.cmd' "${newer[@]}" -print0 |
		xargs -0 -r grep -ohE -- "[^ ]*/${1##*/}( |\$)" 2>/dev/null |
		sed 's/ $//' | sort -u | (cd "$VS_OBJ" && xargs -r realpath -m --) |
		grep -xF -- "$want" >/dev/null
}

# changed_sources C: the C, assembler and header files that commit C
# changes and that the kernel build compiles (tools/ is kselftest's;
# another architecture's files are its build's).
changed_sources() {
	local other=arm64
	[[ $VS_ARCH != arm64 ]] || other=x86
	git -C "$VS_SRC" diff --name-only --diff-filter=AMR "$1^" "$1" |
		grep -E '\.[chS]$' | grep -v -e '^tools/' -e "^arch/$other/" || true
}

# check_compiled C STAMP: every file commit C changes was compiled by its
# build (see compiled), or no configuration can compile it yet: a file
# that only a later commit enables (an option nothing selects before it,
# a file only #included by a later one; as upstream series add generic
# code before the architecture that selects it) waits in $PENDING,
# and every later build must compile what waits or keep it waiting.
# Prints the new $PENDING; the caller fails when anything still waits
# after the last commit's build.
check_compiled() {
	local c=$1 stamp=$2 f
	{
		cat "$PENDING"
		changed_sources "$c" | sed "s|\$|	$(git -C "$VS_SRC" log -1 --format=%h "$c")|"
	} | sort -u | while IFS=$'\t' read -r f c; do
		[[ -n $f ]] || continue
		compiled "$f" "$stamp" || printf '%s\t%s\n' "$f" "$c"
	done
}

# Build each commit of the series but the last (main builds that one) in
# turn, oldest first, incrementally in the same folder; a commit already
# built and checked from the same inputs (commit_key) is taken from the
# shared cache. Each commit's time goes into make test's table.
each_commit() {
	local c key entry tmp stamp t0 n=0 subject
	EACH_HEAD=$(git -C "$VS_SRC" rev-parse HEAD)
	trap 'vs_checkout "$EACH_HEAD"' EXIT
	: >"$PENDING"
	for c in $(git -C "$VS_SRC" rev-list --reverse pristine.."$EACH_HEAD"); do
		[[ $c == "$EACH_HEAD" ]] && break
		n=$((n + 1))
		t0=$(date +%s)
		subject=$(git -C "$VS_SRC" log -1 --format='%h %s' "$c")
		key=$(commit_key "$c")
		entry=$VS_CACHE/commit-builds/$key
		if [[ $(head -n 1 "$entry" 2>/dev/null) == "$key" ]]; then
			vs_stage "kernel: commit $subject on its own: built and checked before from the same trees, configuration and compiler (${entry#"$VS_CACHE"/} in $VS_CACHE)"
			sed -n 's/^waiting //p' "$entry" >"$PENDING"
			vs_time_log "kernel${FLAVOUR:+-$FLAVOUR}: commit $n (cached)" "$(($(date +%s) - t0))"
			continue
		fi
		vs_checkout "$c"
		vs_stage "kernel: commit $subject on its own"
		EARLIER_COMMIT=1 configure
		stamp=$VS_OBJ.build-start
		touch "$stamp"
		build
		check_compiled "$c" "$stamp" >"$PENDING.new"
		mv "$PENDING.new" "$PENDING"
		[[ ! -s $PENDING ]] ||
			vs_stage "kernel: no configuration compiles these yet, a later commit must: $(cut -f1 "$PENDING" | paste -sd' ')"
		tmp=$(vs_cache_tmp commit-builds)
		{
			printf '%s\ncommit %s\n' "$key" "$subject"
			sed 's/^/waiting /' "$PENDING"
		} >"$tmp/entry"
		vs_cache_put "$tmp/entry" "commit-builds/$key"
		rmdir "$tmp"
		vs_time_log "kernel${FLAVOUR:+-$FLAVOUR}: commit $n on its own" "$(($(date +%s) - t0))"
	done
	vs_checkout "$EACH_HEAD"
	trap - EXIT
}

# check_head: after the last commit's build, the files that wait for a
# later commit (each_commit) and those the last commit changes are
# compiled in the build folder.
check_head() {
	local left
	[[ -f $PENDING ]] || : >"$PENDING"
	left=$(check_compiled HEAD "" | cut -f1 | paste -sd' ')
	rm -f "$PENDING"
	[[ -z $left ]] ||
		vs_die "the series changes $left, but no build of it compiled it (no dependency record in $VS_OBJ names it): the test configuration does not build it, or nothing in the series enables it"
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
	PENDING=$VS_OBJ.waiting
	[[ ${1:-} != --each-commit ]] || each_commit
	t0=$(date +%s)
	configure
	build
	[[ -n ${FLAVOUR:-} ]] || check_head
	vs_time_log "kernel${FLAVOUR:+-$FLAVOUR}: the series (HEAD)" "$(($(date +%s) - t0))"
}

vs_main "$@"
