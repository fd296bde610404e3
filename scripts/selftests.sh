#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests.sh: build and install the vDSO kselftests and the neighbours'.
#
# Usage: scripts/selftests.sh [-h]     (make selftests)
#
# Installs the kernel's uapi headers into the kernel build (make
# headers), then runs kselftest's own build and install step for
# TARGETS="vDSO seccomp timens x86 proc" into build/<tree>/kselftest
# (run_kselftest.sh, kselftest-list.txt, one folder per collection),
# keeping in the list the vDSO tests and the neighbours' tests that
# VS_NEIGHBOURS in lib.sh names.
# When the built vdso64.so exports __vdso_sysinfo, it also links
# scripts/vdso_linked_sysinfo.c directly against that vdso64.so and
# installs it as collection 'vsysinfo', and builds userspace/ (the
# library, its LD_PRELOAD drop-in and their tests) into the same
# collection, with proofs/ (the project's own follow and stress cases)
# and scripts/vdso_sysinfo_param.sh (the guest side of the boots that
# try vdso_sysinfo= edge cases). Logs:
# build/<tree>/logs/selftests.log, userspace.log, proofs.log.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "" "$@"

# kselftest_make ARGS...: kselftest's make for $VS_ARCH: arm64's programs
# are built with clang-19, static (the guest has no arm64 C library),
# seccomp_bpf with the arm64 libcap.a that make deps downloads.
kselftest_make() {
	local cross=() libcap=$VS_CACHE/debs/libcap-dev/usr/lib/aarch64-linux-gnu
	if [[ $VS_ARCH == arm64 ]]; then
		[[ -f $libcap/libcap.a ]] ||
			vs_die "$libcap/libcap.a not found: run 'ARCH=arm64 KVER=$KVER make deps', which downloads Debian's arm64 libcap-dev"
		cross=(ARCH=arm64 "CC=clang-19 --target=aarch64-linux-gnu -fuse-ld=lld -static -L$libcap")
	fi
	# x86's take their architecture from uname, not from the ARCH knob.
	env -u ARCH make "${cross[@]}" "$@"
}

# Mainline's vdso_test_correctness uses __kernel_old_time_t without the
# header that declares it, which Debian 12's C library does not include
# for it: build that program alone first, with the header forced in (a
# global USERCFLAGS would reach the assembler files too).
prebuild_correctness() {
	[[ -n $VS_MAINLINE ]] || return 0
	mkdir -p "$VS_OBJ/kselftest/vDSO"
	vs_logged "$VS_LOGS/selftests-correctness.log" \
		kselftest_make -C "$VS_SRC/tools/testing/selftests/vDSO" \
		OUTPUT="$VS_OBJ/kselftest/vDSO" KHDR_INCLUDES="-isystem $VS_OBJ/usr/include" \
		USERCFLAGS="-include linux/types.h" "$VS_OBJ/kselftest/vDSO/vdso_test_correctness"
}

build_kselftest() {
	local targets n
	targets="vDSO $(printf '%s\n' "${VS_NEIGHBOURS[@]%%:*}" | sort -u | tr '\n' ' ')"
	vs_stage "selftests: building TARGETS=\"${targets% }\" for $VS_ARCH"
	vs_logged "$VS_LOGS/headers.log" vs_kmake -s headers
	rm -rf "$VS_KST" "$VS_OBJ/kselftest"
	prebuild_correctness
	vs_logged "$VS_LOGS/selftests.log" \
		kselftest_make -C "$VS_SRC/tools/testing/selftests" TARGETS="${targets% }" \
		O="$VS_OBJ" install INSTALL_PATH="$VS_KST"
	[[ -x $VS_KST/run_kselftest.sh && -s $VS_KST/kselftest-list.txt ]] ||
		vs_die "kselftest install in $VS_KST is incomplete; see $VS_LOGS/selftests.log"
	keep_listed >"$VS_KST/kselftest-list.new"
	mv "$VS_KST/kselftest-list.new" "$VS_KST/kselftest-list.txt"
	for n in "${VS_NEIGHBOURS[@]}"; do
		[[ $n == *'*' ]] || grep -qxF "$n" "$VS_KST/kselftest-list.txt" ||
			vs_die "the neighbours' suite has no $n in $VS_KST/kselftest-list.txt; see $VS_LOGS/selftests.log"
	done
	# kselftest's install leaves a program that failed to build out of
	# the list without failing: the series' own must be there.
	[[ ! -f $VS_SRC/tools/testing/selftests/vDSO/vdso_test_sysinfo.c ]] && return
	for n in vdso_test_sysinfo vdso_test_sysinfo_seccomp; do
		grep -qxF "vDSO:$n" "$VS_KST/kselftest-list.txt" ||
			vs_die "the series' kselftest $n was not built (see $VS_LOGS/selftests.log): fix its build error"
	done
}

# keep_listed: the lines of kselftest-list.txt to run: vDSO's and the
# neighbours' that VS_NEIGHBOURS names.
keep_listed() {
	local line n
	while read -r line; do
		[[ $line != vDSO:* ]] || { printf '%s\n' "$line"; continue; }
		for n in "${VS_NEIGHBOURS[@]}"; do
			# shellcheck disable=SC2053 # a '*' of VS_NEIGHBOURS matches
			if [[ $line == $n ]]; then
				printf '%s\n' "$line"
				break
			fi
		done
	done <"$VS_KST/kselftest-list.txt"
}

# The seed's method: gcc -o test test.c vdso64.so
build_linked() {
	local vdso=$VS_VDSO64
	if ! nm -D "$vdso" | grep -w __vdso_sysinfo >/dev/null; then
		# Only a tree without the series may lack it: its kselftest
		# would SKIP, and a SKIP must not hide a lost export.
		[[ ! -x $VS_KST/vDSO/vdso_test_sysinfo ]] ||
			vs_die "the series adds vdso_test_sysinfo but $vdso does not export __vdso_sysinfo"
		vs_stage "selftests: $vdso has no __vdso_sysinfo (no series applied), not building vdso_linked_sysinfo"
		return
	fi
	mkdir -p "$VS_KST/vsysinfo"
	vs_logged "$VS_LOGS/selftests-linked.log" \
		gcc -O2 -Wall -Werror -I"$VS_SRC/tools/testing/selftests/vDSO" \
		-o "$VS_KST/vsysinfo/vdso_linked_sysinfo" \
		"$VS_ROOT/scripts/vdso_linked_sysinfo.c" "$vdso"
	printf 'vsysinfo:vdso_linked_sysinfo\n' >>"$VS_KST/kselftest-list.txt"
}

# install_collection DIR: DIR's guest tests (make -C DIR install-tests,
# objects in build/<tree>/DIR, log logs/DIR.log), installed in the
# collection 'vsysinfo' and added to kselftest-list.txt.
install_collection() {
	local dir=$1 t
	vs_logged "$VS_LOGS/$dir.log" \
		make -C "$VS_ROOT/$dir" install-tests KDIR="$VS_SRC" \
		O="$VS_BUILD/$dir" DESTDIR="$VS_KST/vsysinfo"
	while read -r t; do
		[[ -x $VS_KST/vsysinfo/$t ]] ||
			vs_die "make -C $dir install-tests did not install $t; see $VS_LOGS/$dir.log"
		printf 'vsysinfo:%s\n' "$t" >>"$VS_KST/kselftest-list.txt"
	done < <(make -s -C "$VS_ROOT/$dir" list-tests)
}

# userspace/: libvsysinfo, libvsysinfo-preload and their guest tests.
build_userspace() {
	nm -D "$VS_VDSO64" | grep -w __vdso_sysinfo >/dev/null || return 0
	vs_stage "selftests: building userspace/ (libvsysinfo, its preload, their tests)"
	install_collection userspace
}

# proofs/: the project's own cases (the machine- and timing-dependent
# proof), built on the series' vdso_sysinfo_helpers.c.
build_proofs() {
	[[ -f $VS_SRC/tools/testing/selftests/vDSO/vdso_sysinfo_helpers.c ]] || return 0
	vs_stage "selftests: building proofs/ (the project's follow and stress cases)"
	install_collection proofs
}

# The guest side of the boots with vdso_sysinfo= edge cases (boot.sh).
install_param_check() {
	# A tree without the series has no kernel.vdso_sysinfo to check.
	readelf --dyn-syms -W "$VS_VDSO64" | grep -E ' (__vdso|__kernel)_sysinfo(@|$)' >/dev/null ||
		return 0
	mkdir -p "$VS_KST/vsysinfo"
	install -m 755 "$VS_ROOT/scripts/vdso_sysinfo_param.sh" "$VS_KST/vsysinfo/"
	printf 'vsysinfo:vdso_sysinfo_param.sh\n' >>"$VS_KST/kselftest-list.txt"
}

main() {
	vs_init
	vs_require kernel
	vs_need gcc gcc
	[[ $VS_ARCH != arm64 ]] || vs_need clang-19 clang-19
	vs_need nm binutils
	vs_need rsync rsync
	[[ -f /usr/include/sys/capability.h ]] ||
		vs_die "libcap headers not found (seccomp_bpf links libcap): install Debian package libcap-dev"
	build_kselftest
	# userspace/, proofs/ and the linked test are x86's (built with
	# gcc for x86-64, i386 and x32).
	if [[ $VS_ARCH == x86_64 ]]; then
		build_linked
		build_userspace
		build_proofs
	fi
	install_param_check
	vs_stage "selftests: $(wc -l <"$VS_KST/kselftest-list.txt") tests installed in ${VS_KST#"$VS_ROOT"/}"
}

vs_main "$@"
