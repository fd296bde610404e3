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
# the neighbours' suites of that test boot compared with the stock
# kernel's (neighbours.sh judge, which builds and boots the stock kernel
# once when no record of it matches),
# the sysinfo kselftest on the debug kernel (FLAVOUR=kcsan: built
# beside the guest boots, booted beside the shorter ones and the first
# mainline leg's builds, its results shown before that leg's checks;
# SKIP_SANITIZER=1 leaves it out), a check that the
# judge's recorded console log has this run's tests ('host-tests.sh
# last'), and the mainline legs (mainline_leg). Every check
# prints KTAP; this script counts the 'ok' and 'not ok' lines its
# children print (a '# SKIP' result counts as skipped). A stage that
# fails counts as one failed check and skips what depends on it. The
# last line is "N passed, N failed, N skipped"; the exit status is 0
# only when nothing failed. SKIP_COMMIT_BUILDS=1 builds only HEAD.
# Before that line, a table of every stage and its minutes.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "" "$@"

S=$VS_ROOT/scripts

# counted CMD...: run CMD; its output is shown and kept in $RESULTS.
counted() {
	"$@" 2>&1 | tee -a "$RESULTS"
	return "${PIPESTATUS[0]}"
}

# timed NAME CMD...: counted, with CMD's time in the closing table.
timed() {
	local name=$1 t0=$SECONDS rc=0 failed
	shift
	failed=$(grep -c '^not ok ' "$RESULTS" || true)
	counted "$@" || rc=$?
	vs_time_log "$name" "$((SECONDS - t0))"
	# A failure must be counted even when CMD died before saying so (a
	# stage says it itself, below).
	if ((rc != 0)) && [[ -z ${TIMED_STAGE:-} ]] &&
	   (($(grep -c '^not ok ' "$RESULTS" || true) == failed)); then
		counted printf 'not ok - %s failed without a result (exit status %s; see above)\n' "$name" "$rc"
	fi
	return "$rc"
}

# stage NAME CMD...: a stage that must succeed for what follows.
stage() {
	local name=$1
	shift
	TIMED_STAGE=1 timed "$name" "$@" && return 0
	counted printf 'not ok - stage %s failed\n' "$name"
	return 1
}

# time_table: each stage and its minutes, the parts of a stage (rows
# named "STAGE: PART", from kernel.sh and boot.sh) under it, and the
# whole run; as KTAP comments, so that a slow stage is named in every
# log.
time_table() {
	printf '# %-58s %7s\n' "stage" "minutes"
	awk -F'\t' '
	{ name[NR] = $1; secs[NR] = $2 }
	END {
		for (i = 1; i <= NR; i++) {
			if (index(name[i], ": ")) continue
			printf "# %-58s %7.1f\n", name[i], secs[i] / 60
			for (j = 1; j <= NR; j++)
				if (index(name[j], name[i] ": ") == 1)
					printf "#   %-56s %7.1f\n", substr(name[j], length(name[i]) + 3), secs[j] / 60
		}
	}' "$VS_STAGE_TIMES"
	printf '# %-58s %7.1f\n' "the whole run" "$(bc <<<"scale=1; $(($(date +%s) - VS_START)) / 60")"
}

finish() {
	local passed failed skipped
	skipped=$(grep -cE '^ok [0-9]+ .*# *SKIP' "$RESULTS" || true)
	passed=$(($(grep -cE '^ok ' "$RESULTS" || true) - skipped))
	failed=$(grep -cE '^not ok ' "$RESULTS" || true)
	time_table
	printf '%d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
	((failed == 0))
	exit
}

# sanitizer_start: the debug kernel (lockdep, KCSAN, UBSAN) is built
# beside the guest boots, at the lowest priority so that QEMU keeps the
# cores it uses, and booted as soon as it is built and the test kernel's
# first boot (the one with timing-sensitive cases beside a busy second
# CPU) is over: beside the shorter boots that follow, one guest each.
# The output of both waits in files for sanitizer.
sanitizer_start() {
	SAN_PID=
	[[ -z ${SKIP_SANITIZER:-} ]] || return 0
	SAN_OUT=$VS_LOGS/kernel-kcsan.out
	SAN_BOOT=$VS_LOGS/guest-kcsan.out
	GUEST_DONE=$VS_LOGS/guest.done
	rm -f "$SAN_OUT.rc" "$SAN_BOOT.rc" "$GUEST_DONE"
	touch "$SAN_BOOT.start"
	(
		t0=$SECONDS rc=0
		FLAVOUR=kcsan nice -n 19 "$S/kernel.sh" >"$SAN_OUT" 2>&1 || rc=$?
		echo "$rc $((SECONDS - t0))" >"$SAN_OUT.rc"
		((rc == 0)) || exit 0
		main_boot_over
		t0=$SECONDS rc=0
		FLAVOUR=kcsan "$S/boot.sh" test >"$SAN_BOOT" 2>&1 || rc=$?
		echo "$rc $((SECONDS - t0))" >"$SAN_BOOT.rc"
	) &
	SAN_PID=$!
}

# sanitizer_once: sanitizer, waited for once: after 6.12's checks, while
# the first mainline leg builds (the debug kernel's build and boot fill
# the cores that its unpacking, links and checks leave idle), and before
# that leg's boots, so that no other guest runs beside its timing-
# sensitive first boot; at the end when there is no mainline leg.
SAN_WAITED=
sanitizer_once() {
	[[ -z $SAN_WAITED ]] || return 0
	SAN_WAITED=1
	sanitizer
}

# main_boot_over: wait until the test kernel's first boot of this run
# has finished (its console log, newer than this run's start, says so)
# or the guest stage is over.
main_boot_over() {
	local log=$VS_LOGS/console-test.log
	until [[ -f $GUEST_DONE ]] ||
	      { [[ $log -nt $SAN_BOOT.start ]] && grep -q VSYSINFO-DONE "$log"; }; do
		sleep 2
	done
}

# sanitizer: the debug kernel's build and boot (sanitizer_start), their
# output shown and counted here, in the order of the stages.
sanitizer() {
	local rc secs failed t0=$SECONDS
	if [[ -z $SAN_PID ]]; then
		vs_stage "test: SKIP_SANITIZER is set, no sanitizer kernel"
		return
	fi
	vs_stage "test: the sysinfo kselftest on the sanitizer kernel (KCSAN, UBSAN)"
	wait "$SAN_PID" || true
	vs_time_log "kernel-kcsan and its boot, waited for after the other boots" "$((SECONDS - t0))"
	read -r rc secs <"$SAN_OUT.rc" || { rc=1 secs=0; }
	counted cat "$SAN_OUT"
	vs_time_log kernel-kcsan "$secs"
	if ((rc != 0)); then
		counted printf 'not ok - stage kernel-kcsan failed\n'
		return 0
	fi
	read -r rc secs <"$SAN_BOOT.rc" || { rc=1 secs=0; }
	failed=$(grep -c '^not ok ' "$RESULTS" || true)
	counted cat "$SAN_BOOT"
	vs_time_log "guest (kcsan)" "$secs"
	if ((rc != 0)) && (($(grep -c '^not ok ' "$RESULTS" || true) == failed)); then
		counted printf 'not ok - guest (kcsan) failed without a result (exit status %s; see above)\n' "$rc"
	fi
}

# ARM64_STAGES: the arm64 leg's stages up to its kernel, which
# arm64_start runs beside the x86-64 leg.
ARM64_STAGES=(deps source apply kernel)

# arm64_start: once the x86-64 leg's commit builds are over (the tree
# stays at the series' head from then on), the arm64 leg's first stages
# and its kernel (8 minutes under clang-19) run in the background at
# the lowest priority: beside that leg's checks and boots, whose guests
# leave a core idle most of the time. Each stage's exit status and time
# go to a file, its output to another, for arm64_wait.
arm64_start() {
	ARM64_PID=
	ARM64_OUT=$VS_LOGS/arm64-kernel.out
	: >"$ARM64_OUT"
	: >"$ARM64_OUT.rc"
	(
		export KVER=7.3 ARCH=arm64
		for s in "${ARM64_STAGES[@]}"; do
			t0=$SECONDS rc=0
			nice -n 19 "$S/$s.sh" >>"$ARM64_OUT" 2>&1 || rc=$?
			echo "$s $rc $((SECONDS - t0))" >>"$ARM64_OUT.rc"
			((rc == 0)) || break
		done
	) &
	ARM64_PID=$!
}

# arm64_wait: the stages arm64_start ran, shown, timed and counted as
# the leg's own (a stage that failed or never ran is 'not ok'); fails
# when they did not all pass.
arm64_wait() {
	local tag="7.3 arm64" t0=$SECONDS s rc secs st
	wait "$ARM64_PID" || true
	ARM64_PID=
	vs_time_log "$tag: its kernel, built beside the x86-64 leg, waited for" "$((SECONDS - t0))"
	counted cat "$ARM64_OUT"
	for s in "${ARM64_STAGES[@]}"; do
		st=$(grep "^$s " "$ARM64_OUT.rc" || true)
		read -r _ rc secs <<<"${st:-$s 1 0}"
		vs_time_log "$tag: $s" "$secs"
		if ((rc != 0)); then
			counted printf 'not ok - stage %s: %s failed\n' "$tag" "$s"
			return 1
		fi
	done
}

# mainline_leg ARCH: the series on mainline (KVER=7.3) for ARCH, after
# 6.12's: every stage as above (each commit built on its own on x86-64,
# the series' head on arm64, whose first stages arm64_start runs beside
# the x86-64 leg), the checks of that series and build (host-tests.sh
# series), and the test boot, every result named after the tree and
# architecture. A stage that fails ends the leg.
mainline_leg() {
	local arch=$1 s args tag="7.3 $1" t0=$SECONDS built=1
	vs_stage "test: the series on Linux 7.3, $arch"
	export KVER=7.3 ARCH=$arch
	if [[ $arch == arm64 && -n ${ARM64_PID:-} ]]; then
		arm64_wait || built=
	fi
	for s in "${VS_STAGES[@]}"; do
		[[ -n $built ]] || break
		[[ $arch != arm64 || -z ${ARM64_OUT:-} || " ${ARM64_STAGES[*]} " != *" $s "* ]] || continue
		args=()
		[[ $s != kernel || -n ${SKIP_COMMIT_BUILDS:-} || $arch != x86_64 ]] || args=(--each-commit)
		stage "$tag: $s" "$S/$s.sh" "${args[@]}" || { built=; break; }
		[[ $s != kernel || $arch != x86_64 ]] || arm64_start
	done
	if [[ -n $built ]]; then
		sanitizer_once
		timed "$tag: host checks" "$S/host-tests.sh" series || true
		timed "$tag: guest" "$S/boot.sh" test || true
		timed "$tag: neighbours" "$S/neighbours.sh" judge || true
	fi
	export KVER=6.12 ARCH=x86_64
	vs_time_log "$tag" "$((SECONDS - t0))"
}

main() {
	local s args
	vs_init
	RESULTS=$VS_LOGS/test-results.log
	: >"$RESULTS"
	export VS_STAGE_TIMES=$VS_LOGS/stage-times.tsv
	: >"$VS_STAGE_TIMES"
	for s in "${VS_STAGES[@]}"; do
		args=()
		[[ $s != kernel || -n ${SKIP_COMMIT_BUILDS:-} ]] || args=(--each-commit)
		stage "$s" "$S/$s.sh" "${args[@]}" || finish
		case "$s" in
		source)
			vs_stage "test: host-side checks"
			timed "host checks (pre)" "$S/host-tests.sh" pre || true ;;
		initramfs)
			vs_stage "test: post-build host-side checks"
			timed "host checks (post)" "$S/host-tests.sh" post || true ;;
		esac
	done
	sanitizer_start
	vs_stage "test: the vDSO kselftests in the guest"
	timed guest "$S/boot.sh" test || true
	[[ -z $SAN_PID ]] || touch "$GUEST_DONE"
	vs_stage "test: the neighbours' suites against the stock kernel's"
	timed neighbours "$S/neighbours.sh" judge || true
	timed "host checks (last)" "$S/host-tests.sh" last || true
	if [[ -z ${SKIP_MAINLINE:-} ]]; then
		# Both legs' stages share the mainline build folder.
		vs_lock "$(KVER=7.3 VS_MAINLINE=1 vs_build_dir)"
		mainline_leg x86_64
		mainline_leg arm64
	fi
	sanitizer_once
	finish
}

vs_main "$@"
