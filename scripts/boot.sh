#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh: boot the test kernel and initramfs under QEMU.
#
# Usage: scripts/boot.sh [-h] test|bench|shell
#
#   test   run the vDSO kselftests and judge them (make run, make test)
#   bench  run the benchmark under TCG with -icount (make bench)
#   shell  interactive shell on the serial console (make boot)
#
# KVM is used when /dev/kvm works, which a short probe boot decides (the
# result is cached in build/<tree>/accel); TCG otherwise. ACCEL=kvm or
# ACCEL=tcg skips the probe. Every run has a hard timeout (TIMEOUT,
# seconds) and the kernel is booted with panic=-1 and QEMU with
# -no-reboot, so a panic ends the run. A run that does not finish prints
# the last 30 console lines and fails. Console: build/<tree>/logs/console-<mode>.log.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_want_help "${1:-}"

PROBE_TIMEOUT=${PROBE_TIMEOUT:-15}

qemu_base() {
	printf '%s\n' -kernel "$VS_OBJ/arch/x86/boot/bzImage" \
		-initrd "$VS_BUILD/initramfs.cpio.gz" -m 1G -no-reboot
}

# run_qemu TIMEOUT LOG APPEND QEMU_ARGS...: non-interactive boot.
run_qemu() {
	local timeout=$1 log=$2 append=$3 rc=0 base
	shift 3
	mapfile -t base < <(qemu_base)
	# No stale console may pass for this run's.
	rm -f "$log" "$log.qemu"
	timeout --foreground -k 5 "$timeout" qemu-system-x86_64 "${base[@]}" "$@" \
		-display none -monitor none -serial "file:$log" \
		-append "console=ttyS0 panic=-1 quiet $append" \
		</dev/null >"$log.qemu" 2>&1 || rc=$?
	return "$rc"
}

# Does a KVM guest boot here? Nested virtualization can hang forever.
pick_accel() {
	local cache=$VS_BUILD/accel
	if [[ -n ${ACCEL:-} ]]; then
		printf '%s\n' "$ACCEL"
		return
	fi
	if [[ -f $cache ]]; then
		cat "$cache"
		return
	fi
	if [[ -r /dev/kvm && -w /dev/kvm ]] &&
	   run_qemu "$PROBE_TIMEOUT" "$VS_LOGS/console-probe.log" \
		"vsysinfo.mode=probe" -accel kvm -cpu host -smp 1 &&
	   grep -q VSYSINFO-PROBE-OK "$VS_LOGS/console-probe.log"; then
		echo kvm >"$cache"
	else
		echo tcg >"$cache"
	fi
	cat "$cache"
}

# accel_args ACCEL: the QEMU options; ACCEL was checked by check_accel.
accel_args() {
	case "$1" in
	kvm) printf '%s\n' -accel kvm -cpu host ;;
	*) printf '%s\n' -accel tcg -cpu max ;;
	esac
}

check_accel() {
	case "$1" in
	kvm|tcg) ;;
	*) vs_die "unknown accelerator '$1' (ACCEL or $VS_BUILD/accel): use kvm or tcg" ;;
	esac
}

# A run that did not reach its end: say why and show the console.
report_unfinished() {
	local log=$1 rc=$2 timeout=$3
	[[ -f $log ]] || : >"$log"
	if grep -q 'Kernel panic' "$log"; then
		vs_log "error: the guest kernel panicked"
	elif ((rc == 124 || rc == 137)); then
		vs_log "error: the guest did not finish within ${timeout}s (TIMEOUT=$timeout)"
	else
		vs_log "error: QEMU exited with status $rc before the guest finished"
		sed 's/^/  qemu: /' "$log.qemu" >&2
	fi
	vs_log "---- last 30 console lines ($log) ----"
	tr -d '\r' <"$log" | tail -n 30 >&2
	vs_log "----"
}

mode_test() {
	local accel log=$VS_LOGS/console-test.log timeout=${TIMEOUT:-900} rc=0 a
	local per_test=45
	rm -f "$VS_BUILD/guest.counts"
	accel=$(pick_accel)
	check_accel "$accel"
	mapfile -t a < <(accel_args "$accel")
	vs_stage "boot: running the vDSO kselftests under ${accel^^} (timeout ${timeout}s)"
	# kselftest's 45 s per test is for hardware; TCG is 10-50x slower.
	[[ $accel == kvm ]] || per_test=300
	run_qemu "$timeout" "$log" "${GUEST_APPEND:-} vsysinfo.mode=test vsysinfo.timeout=$per_test" \
		"${a[@]}" -smp 2 || rc=$?
	if ((rc != 0)) || ! grep -q VSYSINFO-DONE "$log"; then
		report_unfinished "$log" "$rc" "$timeout"
		"$VS_ROOT/scripts/results.sh" "$log" "$VS_BUILD/guest.counts" >/dev/null || true
		exit 1
	fi
	vs_stage "boot: guest finished, console log ${log#"$VS_ROOT"/}"
	"$VS_ROOT/scripts/results.sh" "$log" "$VS_BUILD/guest.counts"
}

# bench_run LOG ACCEL_ARGS...: one benchmark boot; prints the table.
bench_run() {
	local log=$1 timeout=${TIMEOUT:-900} rc=0
	shift
	run_qemu "$timeout" "$log" "vsysinfo.mode=bench" "$@" -smp 1 || rc=$?
	if ((rc != 0)) || ! grep -q VSYSINFO-DONE "$log"; then
		report_unfinished "$log" "$rc" "$timeout"
		exit 1
	fi
	tr -d '\r' <"$log" | sed -n '/VSYSINFO-BENCH-BEGIN/,/VSYSINFO-BENCH-END/{/VSYSINFO-/d;p}'
}

mode_bench() {
	vs_stage "bench: TCG, -icount shift=0,sleep=off, 1 CPU (guest ns = instructions)"
	bench_run "$VS_LOGS/console-bench.log" -accel tcg -cpu max \
		-icount shift=0,sleep=off >"$VS_BUILD/bench-icount.txt"
	cat "$VS_BUILD/bench-icount.txt"
	if [[ $(pick_accel) == kvm ]]; then
		vs_stage "bench: KVM, wall-clock nanoseconds (not instructions)"
		bench_run "$VS_LOGS/console-bench-kvm.log" -accel kvm -cpu host |
			sed 's/^per call  /per call (KVM, wall clock)/'
	else
		vs_stage "bench: no working KVM here, so no wall-clock run"
	fi
}

mode_shell() {
	local accel a base
	accel=$(pick_accel)
	check_accel "$accel"
	mapfile -t a < <(accel_args "$accel")
	mapfile -t base < <(qemu_base)
	vs_stage "boot: interactive shell under ${accel^^}; 'reboot -f' or Ctrl-a x leaves"
	exec qemu-system-x86_64 "${base[@]}" "${a[@]}" -smp 2 -nographic \
		-append "console=ttyS0 panic=-1 vsysinfo.mode=shell"
}

main() {
	local mode=${1:-}
	vs_init
	vs_need qemu-system-x86_64 qemu-system-x86
	vs_need timeout coreutils
	[[ -f $VS_OBJ/arch/x86/boot/bzImage ]] || vs_die "no kernel in $VS_OBJ: run 'make kernel' first"
	[[ -f $VS_BUILD/initramfs.cpio.gz ]] || vs_die "no initramfs in $VS_BUILD: run 'make initramfs' first"
	case "$mode" in
	test) mode_test ;;
	bench) mode_bench ;;
	shell) mode_shell ;;
	*) vs_usage; vs_die "unknown mode '$mode': use test, bench or shell" ;;
	esac
}

main "$@"
