#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh: boot the test kernel and initramfs under QEMU.
#
# Usage: scripts/boot.sh [-h] test|bench|shell
#
#   test   run the vDSO kselftests and judge them (make run, make test);
#          then boot again with sysctl.kernel.vdso_sysinfo=0 (the admin
#          opt-out) and run the vdso_test_sysinfo tests there too; then
#          two short boots with that parameter's edge cases (=1, invalid);
#          with FLAVOUR=kcsan, only the sysinfo kselftest on the
#          debug kernel (lockdep, KCSAN and UBSAN); and one boot with
#          the neighbours' suites only (seccomp, timens, x86, proc), whose
#          results neighbours.sh judges against the stock kernel's; with
#          FLAVOUR=stock, only that boot on the pristine tree's kernel;
#          with NEIGHBOURS_AGAIN=COLL:PROG,..., only those programs, in a
#          boot of their own (the judge's second look)
#   bench  run the benchmark under TCG with -icount (make bench), and
#          again with sysctl.kernel.vdso_sysinfo=0 for the cost of the fallback
#   shell  interactive shell on the serial console (make boot)
#
# KVM is used when /dev/kvm works, which a short probe boot decides (the
# result is cached in build/<tree>/accel); TCG otherwise. ACCEL=kvm or
# ACCEL=tcg skips the probe. Every run has a hard timeout (TIMEOUT,
# seconds) and the kernel is booted with panic=-1 and QEMU with
# -no-reboot, so a panic ends the run. A run that does not finish prints
# the last 30 console lines and fails. The guest has GUEST_MEM of RAM
# (5G). Console: build/<tree>/logs/console-<mode>.log.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "test bench shell" "$@"

# GUEST_MEM is over 4 GiB, so that the 32-bit sysinfo() must scale its
# sizes as compat_sys_sysinfo() does (TCG and KVM allocate RAM lazily).
# arm64 boots QEMU's virt machine (its console is the PL011, ttyAMA0).
qemu_base() {
	[[ $VS_ARCH != arm64 ]] || printf '%s\n' -M virt
	printf '%s\n' -kernel "$VS_BZIMAGE" -initrd "$VS_INITRAMFS" \
		-m "$GUEST_MEM" -no-reboot
}

console() {
	[[ $VS_ARCH == arm64 ]] && echo ttyAMA0 || echo ttyS0
}

# run_qemu TIMEOUT LOG APPEND QEMU_ARGS...: non-interactive boot.
run_qemu() {
	local timeout=$1 log=$2 append=$3 rc=0 base
	shift 3
	mapfile -t base < <(qemu_base)
	local cmd=("$(vs_qemu_system)" "${base[@]}" "$@" -display none -monitor none
		   -serial "file:$log" -append "console=$(console) panic=-1 quiet $append")
	# No stale console may pass for this run's.
	rm -f "$log" "$log.qemu"
	printf '%q ' timeout --foreground -k 5 "$timeout" "${cmd[@]}" >"$log.cmd"
	printf '\n' >>"$log.cmd"
	timeout --foreground -k 5 "$timeout" "${cmd[@]}" </dev/null >"$log.qemu" 2>&1 || rc=$?
	return "$rc"
}

# Does a KVM guest boot here? Nested virtualization can hang forever.
pick_accel() {
	local cache=$VS_BUILD/accel
	if [[ -n ${ACCEL:-} ]]; then
		printf '%s\n' "$ACCEL"
		return
	fi
	# KVM runs a guest of the host's architecture only.
	if [[ $VS_ARCH != x86_64 || $(uname -m) != x86_64 ]]; then
		echo tcg
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

# What the second test boot, with the admin opt-out, runs: the vDSO
# must then make the system call, and still return what it returns, to
# the kselftest and to the programs that the patched glibc binds to it.
PARAM_TEST=vsysinfo:vdso_sysinfo_param.sh
OPT_OUT=sysctl.kernel.vdso_sysinfo=0
SYSINFO_TESTS=$(for t in vDSO:vdso_test_sysinfo vDSO:vdso_test_sysinfo_seccomp vsysinfo:vsysinfo_follow \
	vsysinfo:vsysinfo_stress; do printf '%s,%s_32,%s_x32,' "$t" "$t" "$t"; done)
OPT_OUT_TESTS=$SYSINFO_TESTS$PARAM_TEST,glibc:glibc_tst_sysinfo.sh,glibc:glibc_programs.sh

# The boots with other parameters, each short: what the kernel made of
# sysctl.kernel.vdso_sysinfo= and, with ia32_emulation=0 (no 32-bit
# system calls), the 64-bit kselftest, whose sandbox cases must hold
# there too: "parameters|kernel.vdso_sysinfo|warned[|more tests]". An
# invalid value is warned about and keeps the default. (Nothing and "=0"
# are the two full boots.)
PARAM_CASES=("sysctl.kernel.vdso_sysinfo=1 ia32_emulation=0|1|0|vDSO:vdso_test_sysinfo_seccomp"
	"sysctl.kernel.vdso_sysinfo=maybe|1|1")

# What the pristine tree's kernel (FLAVOUR=stock) runs: the neighbours'
# suites, whose results neighbours.sh compares with the series'.
NEIGHBOURS=$(printf '%s\n' "${VS_NEIGHBOURS[@]%%:*}" | sort -u | paste -sd,)

# What the sanitizer kernel (FLAVOUR=kcsan) runs: the sysinfo kselftests
# and the project's cases, whose readers, forks and seccomp filters race
# with the publication (64-bit and 32-bit).
KCSAN_TESTS=$(tr , '\n' <<<"$SYSINFO_TESTS" | grep -v '_x32$' | paste -sd,)

# What the PREEMPT_RT kernel (FLAVOUR=rt) runs: the sysinfo kselftests and
# the stress cases, among them the publisher under CPU hotplug, where a
# lazy irq_work left on an offline CPU never runs again (64-bit only).
RT_TESTS=vDSO:vdso_test_sysinfo,vDSO:vdso_test_sysinfo_seccomp,vsysinfo:vsysinfo_stress

# test_boot NAME LABEL APPEND: one test boot, console
# logs/console-NAME.log, judged by results.sh (KTAP, LABEL before every
# result name). Returns 2 when the guest did not finish.
test_boot() {
	local t0=$SECONDS rc=0
	test_boot_run "$@" || rc=$?
	vs_time_log "guest${FLAVOUR:+ ($FLAVOUR)}: ${2:-vDSO kselftests}" "$((SECONDS - t0))"
	return "$rc"
}

test_boot_run() {
	local name=$1 label=$2 append=$3 rc=0 log=$VS_LOGS/console-$1.log
	vs_stage "boot: ${label:-the vDSO kselftests} under ${ACCEL_NAME^^} (timeout ${TIMEOUT}s)"
	run_qemu "$TIMEOUT" "$log" \
		"${GUEST_APPEND:-} $append vsysinfo.mode=test vsysinfo.timeout=$PER_TEST" \
		"${ACCEL_ARGS[@]}" -smp 2 || rc=$?
	if ((rc != 0)) || ! grep -q VSYSINFO-DONE "$log"; then
		report_unfinished "$log" "$rc" "$TIMEOUT"
		"$VS_ROOT/scripts/results.sh" "$log" "$label" || true
		return 2
	fi
	vs_stage "boot: guest finished, console log ${log#"$VS_ROOT"/} (QEMU command: console-$name.log.cmd)"
	"$VS_ROOT/scripts/results.sh" "$log" "$label"
}

mode_test() {
	local rc=0
	ACCEL_NAME=$(pick_accel)
	check_accel "$ACCEL_NAME"
	mapfile -t ACCEL_ARGS < <(accel_args "$ACCEL_NAME")
	# kselftest's 45 s per test is for hardware; TCG is 10-50x slower.
	PER_TEST=45
	[[ $ACCEL_NAME == kvm ]] || PER_TEST=300
	if [[ ${FLAVOUR:-} == stock ]]; then
		neighbours_boot test-stock || exit 1
		return
	fi
	if [[ -n ${NEIGHBOURS_AGAIN:-} ]]; then
		neighbours_boot test-neighbours-again "$NEIGHBOURS_AGAIN" || exit 1
		return
	fi
	if [[ ${FLAVOUR:-} == rt ]]; then
		test_boot test-rt "PREEMPT_RT" "vsysinfo.expect=1 vsysinfo.tests=$RT_TESTS" || exit 1
		return
	fi
	if [[ ${FLAVOUR:-} == kcsan ]]; then
		test_boot test-kcsan "KCSAN+UBSAN" "vsysinfo.expect=1 vsysinfo.tests=$KCSAN_TESTS" ||
			exit 1
		return
	fi
	test_boot test "" "vsysinfo.expect=1" || rc=$?
	# A guest that did not finish once will not finish twice.
	if ((rc != 2)) && [[ -x $VS_KST/vDSO/vdso_test_sysinfo ]]; then
		test_boot test-optout "$OPT_OUT" \
			"$OPT_OUT vsysinfo.expect=0 vsysinfo.tests=$OPT_OUT_TESTS" || rc=$?
		param_boots || rc=$?
	fi
	if ((rc != 2)) && grep -q "^seccomp:" "$VS_KST/kselftest-list.txt"; then
		neighbours_boot test-neighbours || rc=1
	fi
	((rc == 0)) || exit 1
}

# neighbours_boot NAME [COLL:PROG,...]: a boot that runs the neighbours'
# suites only (or only those programs), console logs/console-NAME.log.
# Their results are not judged here but against the stock kernel's
# (neighbours.sh judge); this boot only has to finish.
neighbours_boot() {
	local rc=0 log=$VS_LOGS/console-$1.log t0=$SECONDS
	local what=${2:-$NEIGHBOURS} select=vsysinfo.collections=$NEIGHBOURS
	[[ -z ${2:-} ]] || select=vsysinfo.tests=$2
	vs_stage "boot: the neighbours' suites ($what) under ${ACCEL_NAME^^}, judged against stock by neighbours.sh"
	run_qemu "$TIMEOUT" "$log" \
		"${GUEST_APPEND:-} vsysinfo.mode=test vsysinfo.timeout=$PER_TEST $select" \
		"${ACCEL_ARGS[@]}" -smp 2 || rc=$?
	vs_time_log "guest${FLAVOUR:+ ($FLAVOUR)}: the neighbours' suites" "$((SECONDS - t0))"
	if ((rc != 0)) || ! grep -q VSYSINFO-DONE "$log"; then
		report_unfinished "$log" "$rc" "$TIMEOUT"
		return 2
	fi
	vs_stage "boot: guest finished, console log ${log#"$VS_ROOT"/}"
}

# param_boots: one short boot per PARAM_CASES entry.
param_boots() {
	local c param expect warned more label i=0 rc=0
	[[ -x $VS_KST/vsysinfo/vdso_sysinfo_param.sh ]] || return 0
	for c in "${PARAM_CASES[@]}"; do
		IFS='|' read -r param expect warned more <<<"$c"
		label=$param
		i=$((i + 1))
		test_boot "test-param$i" "$label" \
			"$param vsysinfo.expect=$expect vsysinfo.expect_warning=$warned vsysinfo.tests=$PARAM_TEST${more:+,$more}" ||
			rc=$?
		((rc != 2)) || return 2
	done
	return "$rc"
}

# bench_run LOG APPEND ACCEL_ARGS...: one benchmark boot; prints its rows.
bench_run() {
	local log=$1 append=$2 timeout=$TIMEOUT rc=0
	shift 2
	run_qemu "$timeout" "$log" "vsysinfo.mode=bench $append" "$@" -smp 1 || rc=$?
	if ((rc != 0)) || ! grep -q VSYSINFO-DONE "$log"; then
		report_unfinished "$log" "$rc" "$timeout"
		exit 1
	fi
	tr -d '\r' <"$log" | sed -n '/VSYSINFO-BENCH-BEGIN/,/VSYSINFO-BENCH-END/{/VSYSINFO-/d;p}'
}

# bench_table ACCEL_ARGS...: a normal boot and one with sysctl.kernel.vdso_sysinfo=0
# (the fallback's cost), as one table with the ratios last.
bench_table() {
	local normal optout
	normal=$(bench_run "$VS_LOGS/console-bench$SUFFIX.log" "" "$@") || exit 1
	optout=$(bench_run "$VS_LOGS/console-bench$SUFFIX-optout.log" sysctl.kernel.vdso_sysinfo=0 "$@") ||
		exit 1
	grep -v '^ratio ' <<<"$normal" || true
	printf '%s\n' "$optout"
	# The ratios, the one that ends the table in README.md last
	grep '^ratio ' <<<"$normal" | grep -v "$VS_BENCH_LAST" || true
	grep "^$VS_BENCH_LAST" <<<"$normal" || true
}

mode_bench() {
	vs_stage "bench: TCG, -icount shift=0,sleep=off, 1 CPU (guest ns = instructions)"
	SUFFIX="" bench_table -accel tcg -cpu max -icount shift=0,sleep=off \
		>"$VS_BENCH_TXT"
	cat "$VS_BENCH_TXT"
	if [[ $(pick_accel) == kvm ]]; then
		vs_stage "bench: KVM, wall-clock nanoseconds (not instructions)"
		SUFFIX=-kvm bench_table -accel kvm -cpu host |
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
	exec "$(vs_qemu_system)" "${base[@]}" "${a[@]}" -smp 2 -nographic \
		-append "console=$(console) panic=-1 vsysinfo.mode=shell"
}

main() {
	local mode=${1:-}
	vs_init
	if [[ $VS_ARCH == arm64 ]]; then
		vs_need qemu-system-aarch64 qemu-system-arm
	else
		vs_need qemu-system-x86_64 qemu-system-x86
	fi
	vs_need timeout coreutils
	# The benchmark is meaningless on the lock-debugging test kernel.
	[[ $mode != bench || ${FLAVOUR:-} == bench || -n $VS_MAINLINE ]] ||
		vs_die "boot.sh bench runs the benchmark kernel (build/<tree>/obj-bench): use 'make bench', or FLAVOUR=bench for every stage"
	vs_require kernel
	vs_require initramfs
	case "$mode" in
	test) mode_test ;;
	bench) mode_bench ;;
	shell) mode_shell ;;
	*) vs_usage; vs_die "unknown mode '$mode': use test, bench or shell" ;;
	esac
}

vs_main "$@"
