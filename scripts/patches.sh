#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# patches.sh: regenerate patches/ from the area folders and the work tree.
#
# Usage: scripts/patches.sh [-h] [--check]    (make patches)
#
# The new files of the series live once, in the area folders
# (arch-x86-vdso/, kernel-time/, include/, tools-testing-selftests/,
# mirroring arch/x86/entry/vdso/, kernel/time/, include/ and
# tools/testing/selftests/). Changes to existing kernel files live in
# the series itself: make them in build/<tree>/src and commit them there
# with 'git commit --fixup=<commit>'.
#
# Without --check: starts from build/<tree>/src's HEAD, copies each area
# file over its copy in the tree and commits it as a fixup of the commit
# that added it, folds all fixups (git rebase --autosquash), and writes
# patches/ with git format-patch --cover-letter. The cover letter keeps
# the subject and text of the current patches/0000-cover-letter.patch.
# build/<tree>/src is moved to the result.
#
# With --check: applies patches/ to the pristine tree and fails if an
# area file differs from its copy there, or if regenerating patches/
# would change it. Nothing outside build/<tree>/am is touched.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "--check" "$@"

COVER=0000-cover-letter.patch

# fold_area_files: commit area files that differ as fixups, in $VS_AM.
fold_area_files() {
	local area path commit
	while read -r area path; do
		if [[ -f $VS_AM/$path ]] && cmp -s "$VS_ROOT/$area" "$VS_AM/$path"; then
			continue
		fi
		commit=$(git -C "$VS_AM" log --diff-filter=A --format=%H pristine..HEAD -- "$path" | tail -n 1)
		[[ -n $commit ]] ||
			vs_die "$area is not added by any commit of the series: add $path in a commit in $VS_SRC (git add -f), then run make patches"
		mkdir -p "$(dirname "$VS_AM/$path")"
		cp "$VS_ROOT/$area" "$VS_AM/$path"
		vs_git -C "$VS_AM" add -f "$path"
		vs_git -C "$VS_AM" commit -q --fixup="$commit"
	done < <(vs_area_files)
	return 0
}

# sign_series: the series as whoever runs make patches signs it: when
# this checkout has a git identity (git config user.name and user.email)
# other than the commits' author, every commit gets it as author and in
# place of the old author's Signed-off-by. Without one, the commits keep
# theirs (the project's). The Developer's Certificate of Origin needs a
# person: set yours and run make patches before sending (README).
sign_series() {
	local name email old exec
	name=$(git -C "$VS_ROOT" config user.name || true)
	email=$(git -C "$VS_ROOT" config user.email || true)
	[[ -n $name && -n $email ]] || return 0
	old=$(git -C "$VS_AM" log -1 --format='%an <%ae>' pristine..HEAD)
	[[ -n $old && $old != "$name <$email>" ]] || return 0
	vs_stage "patches: signing the series as $name <$email> (git config user.name, user.email)"
	# shellcheck disable=SC2016 # expanded by the shell git runs
	exec='git log -1 --format=%B | awk "\$0 == ENVIRON[\"OLD\"] { \$0 = ENVIRON[\"NEW\"] } { print }" | git commit -q --amend --allow-empty --author="$IDENT" -F -'
	if ! OLD="Signed-off-by: $old" NEW="Signed-off-by: $name <$email>" IDENT="$name <$email>" \
		GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email \
		git -C "$VS_AM" -c core.hooksPath=/dev/null rebase -q --exec "$exec" pristine; then
		git -C "$VS_AM" rebase --abort >/dev/null 2>&1 || true
		vs_die "signing the series as $name <$email> failed in $VS_AM"
	fi
}

# The author of the series signs the cover letter.
series_git() {
	local name email
	name=$(git -C "$VS_AM" log -1 --format=%an pristine..HEAD)
	email=$(git -C "$VS_AM" log -1 --format=%ae pristine..HEAD)
	GIT_COMMITTER_NAME=${name:-vsysinfo} GIT_COMMITTER_EMAIL=${email:-vsysinfo@localhost} \
	GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' git -c core.abbrev=12 "$@"
}

# write_series DIR: format-patch the commits of $VS_AM into DIR, keeping
# the subject and text of the current cover letter.
write_series() {
	local out=$1 old=$VS_PATCHES/$COVER subject blurb
	mkdir -p "$out"
	series_git -C "$VS_AM" format-patch -q --cover-letter --zero-commit \
		--no-signature --no-numbered-files -o "$out" pristine..HEAD
	[[ -f $old ]] || return 0
	# Subject: the (possibly folded) header without its [PATCH 0/N] tag.
	subject=$(awk '/^Subject:/ { s = $0; f = 1; next }
		f && /^[ \t]/ { s = s $0; next } f { exit } END { print s }' "$old" |
		sed -E 's/^Subject: \[PATCH[^]]*\] //')
	# Text: from the first blank line to the shortlog ("Name (N):").
	blurb=$(awk 'NR > 1 && !body && /^$/ { body = 1; next }
		body && /^[^ ].* \([0-9]+\):$/ { exit } body { print }' "$old")
	SUBJECT=$subject BLURB=$blurb awk '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, ENVIRON["SUBJECT"]) }
		/^\*\*\* BLURB HERE \*\*\*$/ { print ENVIRON["BLURB"]; skip = 1; next }
		skip && /^$/ { skip = 0; print ""; next }
		{ print }' "$out/$COVER" >"$out/$COVER.new"
	mv "$out/$COVER.new" "$out/$COVER"
}

regenerate() {
	local head tmp subjects
	[[ -z $(git -C "$VS_SRC" status --porcelain --untracked-files=no) ]] ||
		vs_die "$VS_SRC has uncommitted changes: commit them with 'git commit --fixup=<commit>' first"
	[[ $(vs_applied_id) == "$(vs_series_id)" ]] ||
		vs_die "patches/ changed since it was last applied to $VS_SRC: run 'make apply' first (and redo your edits on top)"
	head=$(git -C "$VS_SRC" rev-parse HEAD)
	# Fixups on top of the applied series, or a series rewritten with
	# 'git rebase -i pristine' (commits added, reordered, reworded);
	# never an empty one (pristine checked out by mistake).
	if ! git -C "$VS_SRC" merge-base --is-ancestor "$(vs_applied_head)" "$head"; then
		git -C "$VS_SRC" merge-base --is-ancestor pristine "$head" &&
			[[ -n $(git -C "$VS_SRC" rev-list pristine.."$head") ]] ||
			vs_die "$VS_SRC (HEAD $head) holds no series on top of pristine: run 'make apply' first"
		vs_stage "patches: HEAD rewrites the applied series (git rebase -i)"
	fi
	vs_am_reset "$head"
	fold_area_files
	subjects=$(git -C "$VS_AM" log --format=%s pristine..HEAD)
	if grep -q '^\(fixup\|squash\|amend\)! ' <<<"$subjects"; then
		if ! GIT_SEQUENCE_EDITOR=true vs_git -C "$VS_AM" rebase -q -i --autosquash pristine; then
			git -C "$VS_AM" rebase --abort >/dev/null 2>&1 || true
			vs_die "folding the fixups failed (a conflict): fix the fixup commits in $VS_SRC, then run make patches again"
		fi
	fi
	sign_series
	# Write the new series beside the old one and swap: an interrupted
	# run never leaves patches/ empty or half written.
	tmp=$VS_PATCHES.new
	rm -rf "$tmp" "$VS_PATCHES.old"
	write_series "$tmp"
	mv "$VS_PATCHES" "$VS_PATCHES.old"
	mv "$tmp" "$VS_PATCHES"
	rm -rf "$VS_PATCHES.old"
	head=$(git -C "$VS_AM" rev-parse HEAD)
	vs_checkout "$head" "$(vs_series_id)"
	vs_stage "patches: $(vs_series | wc -l) patches written to ${VS_PATCHES#"$VS_ROOT"/}/"
}

check() {
	local area path p tmp stale=0
	p=$(vs_am_series) || vs_die "${p#"$VS_ROOT"/} does not apply to the pristine tree"
	while read -r area path; do
		if ! cmp -s "$VS_ROOT/$area" "$VS_AM/$path"; then
			vs_log "stale: $area differs from $path in patches/"
			stale=1
		fi
	done < <(vs_area_files)
	tmp=$(mktemp -d)
	write_series "$tmp"
	if ! diff -r -u "$VS_PATCHES" "$tmp" >"$VS_LOGS/patches-check.diff"; then
		vs_log "stale: regenerating patches/ changes it (see $VS_LOGS/patches-check.diff)"
		stale=1
	fi
	rm -rf "$tmp"
	((stale == 0)) || vs_die "patches/ is stale: run 'make patches' and commit the result"
	vs_stage "patches: patches/ is up to date with the area folders"
}

main() {
	vs_init
	vs_require source
	case "${1:-}" in
	--check) check ;;
	'') regenerate ;;
	*) vs_usage; vs_die "unknown option '$1'" ;;
	esac
}

vs_main "$@"
