#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test initramfs (busybox sh). The mode comes from the
# kernel command line: vsysinfo.mode=test|bench|shell|probe.
#   test   run_kselftest.sh for the vDSO, vsysinfo and glibc collections
#          that are installed (or, with vsysinfo.tests=COLL:TEST,...,
#          only those tests; with vsysinfo.collections=COLL,..., those
#          collections: the neighbours' suites), then the kernel log;
#          vsysinfo.timeout=SECS is the per-test timeout (default 45)
#   bench  the vdso_test_sysinfo benchmarks (64-bit, 32-bit, x32) and,
#          when installed, the preload library's and the patched glibc's
#   shell  an interactive shell on the console
#   probe  print a marker and stop (used to find out whether KVM works)
# Every mode but shell ends with reboot -f, which QEMU's -no-reboot
# turns into an exit. Output between VSYSINFO-* markers is parsed by the
# host (scripts/results.sh).

if [ "$$" != 1 ]; then
	echo "guest-init.sh is the /init of the test initramfs, not a host command" >&2
	exit 1
fi

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm
# kselftest's runner writes its output to /dev/stdout.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr

mode=shell
timeout=45
tests=
collections="vDSO vsysinfo glibc"
# What runs beside the other tests of its collection, on the second CPU:
# vdso_test_chacha checks the vDSO's ChaCha20 assembly, linked into the
# test, against a reference in user space (a minute under TCG), and
# reads nothing that the other tests change or time.
beside="vDSO:vdso_test_chacha"
beside_sel=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	vsysinfo.mode=*) mode=${arg#vsysinfo.mode=} ;;
	vsysinfo.timeout=*) timeout=${arg#vsysinfo.timeout=} ;;
	vsysinfo.tests=*) tests=${arg#vsysinfo.tests=} ;;
	vsysinfo.collections=*) collections=$(echo "${arg#vsysinfo.collections=}" | tr , ' ') ;;
	esac
done

echo "VSYSINFO-INIT mode=$mode kernel=$(uname -r)"

case "$mode" in
test)
	# The sysinfo kselftest's bufferram and freeswap cases read a block
	# device and swap to another: the test kernel's two RAM disks. Named
	# in the environment, a missing one fails those cases.
	export VDSO_SYSINFO_BLKDEV=/dev/ram0 VDSO_SYSINFO_SWAP=/dev/ram1
	mkswap $VDSO_SYSINFO_SWAP >/dev/null && swapon $VDSO_SYSINFO_SWAP ||
		echo "guest-init: no swap on $VDSO_SYSINFO_SWAP"
	echo "VSYSINFO-KTAP-BEGIN"
	if [ -n "$tests" ]; then
		selection=
		for t in $(echo "$tests" | tr , ' '); do
			grep -qx "$t" /kselftest/kselftest-list.txt &&
				selection="$selection -t $t"
		done
	else
		# Each test of the collections, but those that run beside.
		selection=
		for c in $collections; do
			for t in $(grep "^$c:" /kselftest/kselftest-list.txt); do
				case " $beside " in
				*" $t "*) beside_sel="$beside_sel -t $t" ;;
				*) selection="$selection -t $t" ;;
				esac
			done
		done
	fi
	# The tests that only compute in user space run on the second CPU
	# beside the others, their TAP printed after theirs.
	[ -z "$beside_sel" ] ||
		(cd /kselftest && ./run_kselftest.sh -o "$timeout" $beside_sel >/tmp/beside.tap 2>&1) &
	# None of the named tests installed: no plan, which the host fails.
	[ -z "$selection" ] || (cd /kselftest && ./run_kselftest.sh -o "$timeout" $selection)
	wait
	[ -z "$beside_sel" ] || cat /tmp/beside.tap
	echo "VSYSINFO-KTAP-END"
	echo "VSYSINFO-DMESG-BEGIN"
	dmesg
	echo "VSYSINFO-DMESG-END"
	;;
bench)
	echo "VSYSINFO-BENCH-BEGIN"
	for t in vdso_test_sysinfo vdso_test_sysinfo_32 vdso_test_sysinfo_x32; do
		[ -x /kselftest/vDSO/$t ] && /kselftest/vDSO/$t bench
	done
	# The rows that need /proc or another clocksource: the project's
	[ -x /kselftest/vsysinfo/vsysinfo_stress ] && /kselftest/vsysinfo/vsysinfo_stress bench
	[ -x /kselftest/vsysinfo/bench-preload.sh ] && ! grep -q sysctl.kernel.vdso_sysinfo=0 /proc/cmdline &&
		/kselftest/vsysinfo/bench-preload.sh
	[ -x /kselftest/glibc/bench-glibc.sh ] && ! grep -q sysctl.kernel.vdso_sysinfo=0 /proc/cmdline &&
		/kselftest/glibc/bench-glibc.sh
	echo "VSYSINFO-BENCH-END"
	;;
probe)
	echo "VSYSINFO-PROBE-OK"
	;;
*)
	echo "Interactive shell: the tests are in /kselftest, leave with 'reboot -f'."
	setsid cttyhack sh
	;;
esac
echo "VSYSINFO-DONE"
reboot -f
