#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# source.sh: prepare a pristine kernel tree as a git repository.
#
# Usage: scripts/source.sh [-h]        (make source)
#
# Without KSRC, unpacks Debian's /usr/src/linux-source-6.12.tar.xz
# (package linux-source-6.12) into build/debian/src; with KVER=7.3,
# linux-source-7.3's, which make deps downloaded into the shared cache,
# into build/debian-7.3/src. With KSRC=/path,
# copies that tree into build/ksrc-<name>-<hash>/src; the tree at KSRC
# is only read, never modified. Either way the copy is committed as
# branch 'pristine' (git add -f: Debian's .gitignore ignores every
# top-level entry), and a second work tree 'am' is added for git am.
# Nothing is redone while the source has not changed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "" "$@"

if [[ -n $VS_MAINLINE ]]; then
	TARBALL=${TARBALL:-$VS_CACHE/debs/linux-source-$KVER/usr/src/linux-source-$KVER.tar.xz}
	TARBALL_FROM="run 'make deps' (KVER=$KVER), which downloads Debian package linux-source-$KVER"
else
	TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
	TARBALL_FROM="install Debian package linux-source-6.12 (make deps)"
fi

# What the current source is: a new value means the tree must be redone.
source_id() {
	local g
	if [[ -n ${KSRC:-} ]]; then
		g=(git -c safe.directory="$KSRC" --no-optional-locks -C "$KSRC")
		if "${g[@]}" rev-parse --git-dir >/dev/null 2>&1; then
			# HEAD, the uncommitted changes and the untracked files;
			# read without writing to KSRC's index.
			printf 'ksrc %s %s %s\n' "$KSRC" "$("${g[@]}" rev-parse HEAD)" \
				"$({ "${g[@]}" diff HEAD; "${g[@]}" ls-files -o --exclude-standard; } |
				   sha1sum | cut -c1-12)"
		else
			printf 'ksrc %s %s\n' "$KSRC" \
				"$(find "$KSRC" -path "$KSRC/.git" -prune -o -type f -printf '%P %s %T@\n' |
				   sort | sha1sum | cut -c1-12)"
		fi
	else
		printf 'tarball %s %s\n' "$TARBALL" "$(stat -c '%s %Y' "$TARBALL")"
	fi
}

check_ksrc() {
	[[ -f $KSRC/Makefile && -f $KSRC/Kconfig && -d $KSRC/arch/x86/entry/vdso &&
	   -f $KSRC/scripts/checkpatch.pl ]] ||
		vs_die "KSRC=$KSRC is not a Linux kernel source tree (no Makefile, Kconfig, arch/x86/entry/vdso or scripts/checkpatch.pl)"
	grep -q '^PATCHLEVEL' "$KSRC/Makefile" ||
		vs_die "KSRC=$KSRC/Makefile has no kernel version: not a Linux kernel tree"
	[[ ! -e $KSRC/.config && ! -e $KSRC/include/config ]] ||
		vs_die "KSRC=$KSRC holds an in-tree build (.config, include/config): run 'make mrproper' there, or use a clean tree"
}

# Fill $1 with the kernel source.
fetch_source() {
	local dest=$1
	if [[ -n ${KSRC:-} ]]; then
		vs_stage "source: copying $KSRC"
		mkdir -p "$dest"
		tar -C "$KSRC" --exclude=.git -cf - . | tar -C "$dest" -xf -
	else
		[[ -f $TARBALL ]] ||
			vs_die "$TARBALL not found: $TARBALL_FROM, or set KSRC=/path/to/linux"
		vs_stage "source: unpacking $TARBALL"
		mkdir -p "$dest.unpack"
		tar -C "$dest.unpack" -xf "$TARBALL"
		mv "$dest.unpack"/linux-source-* "$dest"
		rmdir "$dest.unpack"
	fi
}

commit_pristine() {
	local tree=$1 version
	version=$(make -s -C "$tree" kernelversion 2>/dev/null) ||
		vs_die "cannot read the kernel version of $tree"
	git -C "$tree" init -q -b pristine
	# A background 'git gc --auto' would inherit the build folder's lock
	# (vs_lock) and hold it after the stage ends: pack nothing behind
	# the harness's back.
	git -C "$tree" config gc.auto 0
	git -C "$tree" config maintenance.auto false
	vs_git -C "$tree" add -f -A
	vs_git -C "$tree" commit -q -m "Linux $version (pristine)"
	vs_git -C "$tree" worktree add -q --detach ../am pristine
	vs_git -C "$tree" checkout -q --detach pristine
}

main() {
	local id tmp old d
	vs_init
	[[ -z ${KSRC:-} ]] || check_ksrc
	id=$(source_id)
	if [[ -d $VS_SRC/.git && -f $VS_BUILD/source.id &&
	      $(cat "$VS_BUILD/source.id") == "$id" ]] &&
	   git -C "$VS_AM" rev-parse --git-dir >/dev/null 2>&1; then
		vs_stage "source: $VS_SRC is up to date"
		return
	fi
	[[ ! -d $VS_SRC/.git ]] || vs_check_no_work "the source changed ($id), but "
	# Build the new tree beside the old one and swap at the end, so an
	# interrupted run leaves nothing half-done behind.
	rm -f "$VS_BUILD/source.id"
	tmp=$VS_BUILD/new
	old=$VS_BUILD/old
	rm -rf "$tmp" "$old"
	mkdir -p "$tmp"
	fetch_source "$tmp/src"
	commit_pristine "$tmp/src"
	# Renames only, so that a run stopped here leaves either the old
	# tree or none in src/, never half of one; what is replaced is
	# removed last.
	mkdir -p "$old"
	for d in "$VS_SRC" "$VS_AM" "$VS_BUILD"/obj "$VS_BUILD"/obj-* "$VS_BUILD/stock"; do
		[[ ! -e $d ]] || mv "$d" "$old/"
	done
	rm -f "$VS_BUILD"/obj*.config-stamp "$VS_BUILD/applied"
	mv "$tmp/src" "$VS_SRC"
	mv "$tmp/am" "$VS_AM"
	rmdir "$tmp"
	git -C "$VS_SRC" worktree repair "$VS_AM" >/dev/null 2>&1
	printf '%s\n' "$id" >"$VS_BUILD/source.id"
	rm -rf "$old"
	vs_stage "source: $(git -C "$VS_SRC" log -1 --format=%s pristine) in $VS_SRC"
}

vs_main "$@"
