#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh: install the Debian packages the harness needs.
#
# Usage: scripts/deps.sh [-h]
#
# Installs whatever is missing of: gcc make flex bison bc libelf-dev
# libssl-dev cpio busybox-static qemu-system-x86 linux-source-6.12
# (plus git, xz-utils, perl, binutils and libc6-dev, which the kernel
# build uses; rsync, which kselftest's install step uses;
# python3-ply and python3-git for checkpatch.pl's SPDX check; the lint
# of these scripts uses shellcheck; gcc-multilib builds the 32-bit and
# x32 kselftests; strace is copied into the initramfs for the
# userspace/ tests; ccache keeps the per-commit builds incremental;
# clang, lld and llvm build the series with LLVM=1 too; glibc-source and
# gawk build the patched glibc, and python3 runs in the guest;
# libcap-dev for seccomp's kselftest, one of the neighbours' suites). As
# root it runs apt-get update and apt-get install; as any other user it
# prints the exact command to run and fails.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "" "$@"

PACKAGES=(gcc make flex bison bc libelf-dev libssl-dev cpio busybox-static
	  qemu-system-x86 linux-source-6.12 git xz-utils perl binutils
	  libc6-dev rsync python3-ply python3-git shellcheck gcc-multilib
	  strace ccache clang lld llvm glibc-source gawk python3 libcap-dev)

missing_packages() {
	local p
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || printf '%s\n' "$p"
	done
}

main() {
	local missing
	vs_need dpkg-query dpkg
	mapfile -t missing < <(missing_packages)
	if ((${#missing[@]} == 0)); then
		vs_stage "deps: all packages present"
		return
	fi
	if [[ $(id -u) != 0 ]]; then
		vs_log "missing Debian packages: ${missing[*]}"
		vs_die "run as root: apt-get update && apt-get install -y ${missing[*]}"
	fi
	vs_stage "deps: installing ${missing[*]}"
	vs_init
	vs_logged "$VS_LOGS/apt.log" apt-get update
	DEBIAN_FRONTEND=noninteractive vs_logged "$VS_LOGS/apt.log" \
		apt-get install -y --no-install-recommends "${missing[@]}"
}

vs_main "$@"
