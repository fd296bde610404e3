# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# harness-cases.sh: the host-side cases of the harness's own behaviour:
# bad input refused before anything changes, and runs stopped by a
# signal at any moment. Sourced by host-tests.sh, whose check and
# expect it uses; every case works in folders of its own (a small copy
# of the kernel tree as KSRC, a BUILD and a CACHE in mktemp), never in
# the build folder that make test uses.

# Every script of the harness.
HARNESS_SCRIPTS=(apply bench boot cache deps fixtures glibc host-tests initramfs neighbours
		 kernel patches results run selftests source test)

# What a child run must not inherit from make test's own run: its
# variables, and the signals that make test's background jobs ignore (a
# run a user starts reacts to every one of them).
CHILD_ENV=(env "--default-signal=INT,TERM,HUP" -u VS_TOP -u VS_RUN_ID -u VS_LOCKED
	   -u VS_STAGE_TIMES -u KSRC -u FLAVOUR)

# fake_tools DIR: a folder for the front of PATH whose tools that
# install, unpack, build or boot only write down that they were called
# (in DIR/called).
fake_tools() {
	local t
	mkdir -p "$1"
	for t in apt-get dpkg make tar git gcc qemu-system-x86_64; do
		printf '#!/bin/sh\necho "%s $*" >>"%s/called"\n' "$t" "$1" >"$1/$t"
		chmod +x "$1/$t"
	done
}

# nothing_done DIR WHAT...: no tool of fake_tools DIR was called and
# none of WHAT was created.
nothing_done() {
	local d=$1 w
	shift
	[[ ! -s $d/called ]] || { printf 'it ran:\n%s\n' "$(cat "$d/called")"; return 1; }
	for w in "$@"; do
		[[ ! -e $w ]] || { echo "it created $w"; return 1; }
	done
}

# unknown_option SCRIPT: refused, the option named, nothing done.
unknown_option() {
	local d rc=0
	d=$(mktemp -d)
	fake_tools "$d/bin"
	expect 1 "unknown option.*'--no-such-option'" "${CHILD_ENV[@]}" PATH="$d/bin:$PATH" \
		BUILD="$d/build" CACHE="$d/cache" "$S/$1.sh" --no-such-option || rc=1
	((rc)) || nothing_done "$d/bin" "$d/build" "$d/cache" || rc=1
	rm -rf "$d"
	return "$rc"
}

# bad_knob NAME=VALUE SCRIPT: refused by SCRIPT before it does
# anything, naming the knob and the value.
bad_knob() {
	local kv=$1 d rc=0
	d=$(mktemp -d)
	fake_tools "$d/bin"
	(cd "$d" && expect 1 "${kv%%=*}=${kv#*=} (cannot be used|is not)" "${CHILD_ENV[@]}" \
		PATH="$d/bin:$PATH" BUILD="$d/build" CACHE="$d/cache" "$kv" "$S/$2.sh") || rc=1
	((rc)) || nothing_done "$d/bin" "$d/build" "$d/cache" "$d/relative" || rc=1
	rm -rf "$d"
	return "$rc"
}

bad_input_cases() {
	local s kv
	for s in "${HARNESS_SCRIPTS[@]}"; do
		check "bad input: scripts/$s.sh refuses an unknown option and does nothing" \
			unknown_option "$s"
	done
	for kv in ARCH=sparc ARCH=arm64 KVER=7.2 ACCEL=hvf TIMEOUT=0 TIMEOUT=ten PROBE_TIMEOUT=-1 \
		  GUEST_MEM=5X GUEST_MEM=100M JOBS=0 JOBS=many FLAVOUR=kasan \
		  CACHE=relative BUILD=relative; do
		check "bad input: $kv is refused by make run and make deps before anything" \
			eval 'bad_knob "$kv" run && bad_knob "$kv" deps'
	done
}

# The interruption cases share one small copy of the kernel tree: the
# top Makefile and Kconfig, the parts of scripts/ that tell the version,
# arch/x86/Makefile and the files the series changes, as the pristine
# tree has them. The series applies
# to it as it applies to the whole tree, in seconds.
mini_tree() {
	local dest=$1
	mkdir -p "$dest"
	{
		# The files the patches change (read from the patches: this
		# runs before make apply on a fresh clone).
		vs_series | xargs sed -n 's|^--- a/||p' | sort -u |
			while read -r f; do
				if git -C "$VS_SRC" cat-file -e "pristine:$f" 2>/dev/null; then
					printf '%s\n' "$f"
				fi
			done
		printf '%s\n' Makefile Kconfig arch/x86/Makefile arch/x86/Makefile_32.cpu \
			scripts/checkpatch.pl
		# What the top Makefile reads to tell the kernel's version.
		git -C "$VS_SRC" ls-tree --name-only pristine scripts/ | grep -E '\.include$|/Makefile'
	} | xargs git -C "$VS_SRC" archive pristine | tar -C "$dest" -xf -
}

# in_tree ENV... SCRIPT: run SCRIPT on the small tree, as a user would.
in_tree() {
	"${CHILD_ENV[@]}" KSRC="$MINI" BUILD="$IB" CACHE="$IB/cache" "$@"
}

# stopped SIG DELAY ENV... SCRIPT: start SCRIPT in a process group of its
# own, as a terminal starts a command, and send SIG to the group after
# DELAY seconds (as Ctrl-C or timeout do). Always succeeds.
stopped() {
	local sig=$1 delay=$2 pid
	shift 2
	setsid "${CHILD_ENV[@]}" KSRC="$MINI" BUILD="$IB" CACHE="$IB/cache" "$@" >"$IB.out" 2>&1 &
	pid=$!
	sleep "$delay"
	kill "-$sig" -- "-$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# src_sound PATCHES: source and apply, run plainly, succeed; src is clean
# and at the series applied from PATCHES.
src_sound() {
	local src out
	out=$(in_tree "$S/source.sh" 2>&1 && in_tree PATCHES="$1" "$S/apply.sh" 2>&1) ||
		{ printf 'the next run failed:\n%s\n' "$out"; return 1; }
	SRC_SOUND_OUT=$out
	src=$(echo "$IB/ksrc-${MINI##*/}-"*/src)
	[[ -z $(git -C "$src" status --porcelain --untracked-files=no) ]] ||
		{ echo "src is left with changes:"; git -C "$src" status --short; return 1; }
	[[ $(git -C "$src" rev-parse HEAD) == "$(cut -d' ' -f2 "${src%/src}/applied")" ]] ||
		{ echo "src is not at the applied series"; return 1; }
	[[ $(git -C "$src" log --format=%s pristine..HEAD | wc -l) == "$(find "$1" -name '[0-9]*.patch' ! -name '0000-*' | wc -l)" ]] ||
		{ echo "src does not hold the series of $1"; return 1; }
}

# duration SCRIPT: seconds (as a decimal) of one plain run of SCRIPT.
duration() {
	local t0 t1
	t0=$(date +%s.%N)
	in_tree "$@" >/dev/null 2>&1 || return 1
	t1=$(date +%s.%N)
	bc <<<"$t1 - $t0"
}

# shorter A B: the smaller of two durations.
shorter() {
	bc <<<"if ($1 < $2) $1 else $2"
}

# interrupted STAGE N: N runs of STAGE stopped at points spread over
# its measured duration, SIGINT and SIGTERM in turn (and SIGHUP once),
# each followed by a plain run that must succeed and leave src clean.
# For apply, the runs alternate between the series and the series
# without its last patch, so that every run has a checkout to do.
interrupted() {
	local stage=$1 n=$2 i d sig at series=$VS_PATCHES other=$IB/short stopped_runs
	src_sound "$series" || return 1
	# Measured twice, the shorter kept: a first run with cold caches can
	# take twice as long as the stopped runs, whose late points would
	# then miss them.
	if [[ $stage == source ]]; then
		# Forgetting what src/ was unpacked from makes source.sh do
		# it all again (as a changed KSRC would; KSRC is never written).
		rm -f "$IB"/ksrc-*/source.id
		d=$(duration "$S/source.sh") || return 1
		rm -f "$IB"/ksrc-*/source.id
		d=$(shorter "$d" "$(duration "$S/source.sh")") || return 1
	else
		d=$(duration PATCHES="$other" "$S/apply.sh") || return 1
		d=$(shorter "$d" "$(duration PATCHES="$series" "$S/apply.sh")") || return 1
		src_sound "$series" || return 1
	fi
	stopped_runs=0
	for ((i = 1; i <= n; i++)); do
		sig=TERM
		((i % 2)) || sig=INT
		((i != n)) || sig=HUP
		# Spread over the first 80% of the run: its end is its
		# slowest part to stop and its least certain.
		at=$(bc <<<"scale=2; $d * $i / ($n + 2)")
		if [[ $stage == source ]]; then
			rm -f "$IB"/ksrc-*/source.id
			stopped "$sig" "$at" "$S/source.sh"
		else
			[[ $series == "$VS_PATCHES" ]] && series=$other || series=$VS_PATCHES
			stopped "$sig" "$at" PATCHES="$series" "$S/apply.sh"
		fi
		! grep -q "stopped by SIG$sig" "$IB.out" || stopped_runs=$((stopped_runs + 1))
		src_sound "$series" || { echo "after SIG$sig at ${at}s of ${d}s"; cat "$IB.out"; return 1; }
	done
	echo "$n runs of $stage, $stopped_runs of them stopped by the signal over its ${d}s, each followed by a good run"
	# Most points fall inside the stage: if the signal never stopped it,
	# nothing was tested.
	((stopped_runs * 2 >= n)) || { echo "too few runs were stopped"; return 1; }
}

# A git that, asked to check out in a work tree, first checks out half
# of the files that differ, then waits: a checkout cut short when the
# signal comes, whatever the timing.
slow_git() {
	local d=$1
	mkdir -p "$d"
	printf '#!/bin/bash\nreal=%q\n' "$(command -v git)" >"$d/git"
	cat >>"$d/git" <<'SHIM'
args=("$@")
if [[ " $* " == *" checkout -q --detach "* && -n ${SLOW_GIT_READY:-} ]]; then
	for ((i = 0; i < ${#args[@]}; i++)); do
		[[ ${args[i]} != -C ]] || dir=${args[i + 1]}
	done
	to=${args[-1]}
	mapfile -t files < <("$real" -C "$dir" diff --name-only HEAD "$to")
	"$real" -C "$dir" checkout -q "$to" -- "${files[@]:0:$(((${#files[@]} + 1) / 2))}"
	touch "$SLOW_GIT_READY"
	sleep 30
fi
exec "$real" "$@"
SHIM
	chmod +x "$d/git"
}

# mid_checkout SIG: apply stopped with half of its checkout done, then a
# plain apply, which must finish that checkout and say so.
# slow_apply: from the full series, start applying the short one, with
# slow_git, in a process group of its own (PID), and return once its
# checkout is half done.
slow_apply() {
	local i
	src_sound "$VS_PATCHES" || return 1
	rm -f "$IB/ready"
	setsid "${CHILD_ENV[@]}" KSRC="$MINI" BUILD="$IB" CACHE="$IB/cache" PATH="$IB/slow:$PATH" \
		SLOW_GIT_READY="$IB/ready" PATCHES="$IB/short" "$S/apply.sh" >"$IB.out" 2>&1 &
	PID=$!
	for ((i = 0; i < 300; i++)); do
		[[ ! -e $IB/ready ]] || return 0
		sleep 0.1
	done
	echo "the checkout never started:"
	cat "$IB.out"
	kill -KILL -- "-$PID"
	return 1
}

mid_checkout() {
	local sig=$1 pid series=$IB/short
	slow_apply || return 1
	pid=$PID
	kill "-$sig" -- "-$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	grep -q "stopped by SIG$sig" "$IB.out" || { echo "apply was not stopped by SIG$sig:"; cat "$IB.out"; return 1; }
	src_sound "$series" || return 1
	grep -q "resuming the checkout" <<<"$SRC_SOUND_OUT" ||
		{ printf 'the next run did not say it finished the checkout:\n%s\n' "$SRC_SOUND_OUT"; return 1; }
}

# run_procs PID: the processes of the run whose outermost script was PID.
run_procs() {
	grep -lz "^VS_RUN_ID=$1-" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 || true
}

# top_only SIG: a run's outermost script alone gets SIG (as from kill PID)
# while a child of it works: every process of the run ends within a few
# seconds, the lock is free, and the next run succeeds.
top_only() {
	local sig=$1 i pid left
	slow_apply || return 1
	pid=$PID
	kill "-$sig" "$pid"
	wait "$pid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		left=$(run_procs "$pid")
		[[ -n $left ]] || break
		sleep 0.1
	done
	[[ -z $left ]] || { echo "still running after 5 s:"; ps -o pid,args -p "${left//$'\n'/,}"; kill -KILL $left; return 1; }
	flock -n "$(echo "$IB"/ksrc-*/lock)" true || { echo "the lock is still held"; return 1; }
	grep -q "stopped by SIG$sig" "$IB.out" || { cat "$IB.out"; return 1; }
	src_sound "$IB/short"
}

# committed_edit_survives: a commit made in src (the documented way to
# change the series) stays through interrupted and refused applies.
committed_edit_survives() {
	local src i commit
	src_sound "$VS_PATCHES" || return 1
	src=$(echo "$IB"/ksrc-*/src)
	echo "/* an edit of the user's */" >>"$src/kernel/time/vsyscall.c"
	git -C "$src" -c user.name=u -c user.email=u@localhost commit -q -am "an edit of the user's"
	commit=$(git -C "$src" rev-parse HEAD)
	for ((i = 0; i < 4; i++)); do
		stopped TERM "0.$((i * 2))" PATCHES="$IB/short" "$S/apply.sh"
	done
	in_tree PATCHES="$IB/short" "$S/apply.sh" >"$IB.out" 2>&1 && { echo "apply moved away from an unfolded commit"; return 1; }
	grep -q "has commits that are not in patches/" "$IB.out" || { cat "$IB.out"; return 1; }
	[[ $(git -C "$src" rev-parse HEAD) == "$commit" ]] || { echo "the user's commit is no longer src's HEAD"; return 1; }
	tail -n 1 "$src/kernel/time/vsyscall.c" | grep -qF "an edit of the user's" || { echo "the edit is gone"; return 1; }
	# Leave src as the next case expects it.
	git -C "$src" reset -q --hard HEAD^
}

interrupt_cases() {
	local sum
	IB=$(mktemp -d)
	MINI=$IB/linux-mini
	mini_tree "$MINI"
	mkdir -p "$IB/short"
	vs_series | head -n -1 | xargs cp -t "$IB/short"
	cp "$VS_PATCHES/0000-cover-letter.patch" "$IB/short/"
	slow_git "$IB/slow"
	sum=$(cd "$MINI" && find . -type f -printf '%P %s %T@\n' | sort | sha1sum)
	check "interrupted: make source stopped at 8 points, each next run succeeds" interrupted source 8
	check "interrupted: make apply stopped at 8 points, each next run succeeds" interrupted apply 8
	check "interrupted: apply stopped by SIGTERM halfway through its checkout, the next run finishes it" \
		mid_checkout TERM
	check "interrupted: apply stopped by SIGINT halfway through its checkout, the next run finishes it" \
		mid_checkout INT
	check "interrupted: SIGTERM to a run's top process alone ends all of it and frees the lock" \
		top_only TERM
	check "interrupted: SIGHUP to a run's top process alone ends all of it and frees the lock" \
		top_only HUP
	check "interrupted: an edit committed in src survives interrupted applies" committed_edit_survives
	check "interrupted: the KSRC tree was never written" \
		test "$sum" == "$(cd "$MINI" && find . -type f -printf '%P %s %T@\n' | sort | sha1sum)"
	rm -rf "$IB" "$IB.out"
}
