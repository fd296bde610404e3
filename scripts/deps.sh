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
# libcap-dev for seccomp's kselftest, one of the neighbours' suites).
# With KVER=7.3 also clang-19, lld-19 and llvm-19 (mainline's minimum clang is
# 17), and with ARCH=arm64 qemu-system-arm and what clang-19 needs to
# build for arm64: libc6-dev-arm64-cross, libgcc-12-dev-arm64-cross
# (crtbegin.o, libgcc) and binutils-aarch64-linux-gnu. arm64 is built
# with clang-19 (LLVM=-19), kernel and tests alike: Debian 12's
# gcc-aarch64-linux-gnu conflicts with gcc-multilib, which the x86
# kselftests' 32-bit and x32 builds need. As root it runs apt-get update and apt-get
# install; as any other user it prints the exact command to run and
# fails.
#
# KVER=7.3 needs two packages of another Debian suite, which are only
# downloaded, never installed: linux-source-7.3 (trixie-backports) and,
# for ARCH=arm64, the arm64 busybox-static and libcap-dev (libcap.a, for
# seccomp_bpf) of the system's own suite.
# They come through a temporary apt configuration in the shared cache
# (CACHE/debs/), naming the archive the system's own apt sources name,
# so that the system's apt configuration is never touched; each .deb is
# unpacked once into CACHE/debs/<package>/.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "" "$@"

PACKAGES=(gcc make flex bison bc libelf-dev libssl-dev cpio busybox-static
	  qemu-system-x86 linux-source-6.12 git xz-utils perl binutils
	  libc6-dev rsync python3-ply python3-git shellcheck gcc-multilib
	  strace ccache clang lld llvm glibc-source gawk python3 libcap-dev)

# The packages this tree and architecture need beyond PACKAGES.
[[ -z $VS_MAINLINE ]] || PACKAGES+=(clang-19 lld-19 llvm-19)
[[ $VS_ARCH != arm64 ]] || PACKAGES+=(clang-19 lld-19 llvm-19 libc6-dev-arm64-cross
				       libgcc-12-dev-arm64-cross binutils-aarch64-linux-gnu qemu-system-arm)

missing_packages() {
	local p
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || printf '%s\n' "$p"
	done
}

# archive_uri: the Debian archive the system's apt sources name.
archive_uri() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] || continue
		uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
		[[ -z $uri ]] || { printf '%s\n' "$uri"; return; }
	done
	if [[ -f /etc/apt/sources.list ]]; then
		uri=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list)
		[[ -z $uri ]] || { printf '%s\n' "$uri"; return; }
	fi
	vs_die "no Debian archive found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list: add the system's Debian archive there"
}

# fetch_deb PACKAGE SUITE [ARCH]: download PACKAGE from SUITE through a
# temporary apt configuration and unpack it into $VS_CACHE/debs/PACKAGE.
fetch_deb() {
	local pkg=$1 suite=$2 deb_arch=${3:-} dest=$VS_CACHE/debs/${1%%:*} tmp log deb opts
	[[ ! -f $dest/.done ]] || return 0
	vs_need apt-get apt
	vs_need dpkg-deb dpkg
	tmp=$(vs_cache_tmp debs)
	log=$VS_LOGS/apt-download.log
	vs_stage "deps: downloading $pkg from $suite (temporary apt configuration in $tmp)"
	mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/etc"
	{
		printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\n' "$(archive_uri)" "$suite"
		[[ -z $deb_arch ]] || printf 'Architectures: %s\n' "$deb_arch"
		printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
	} >"$tmp/etc/vsysinfo.sources"
	opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$tmp/etc"
	      -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache"
	      -o Dir::State::status=/dev/null -o APT::Sandbox::User=root)
	[[ -z $deb_arch ]] || opts+=(-o "APT::Architectures::=$deb_arch")
	if ! { apt-get "${opts[@]}" update && (cd "$tmp" && apt-get "${opts[@]}" download "$pkg"); } >"$log" 2>&1; then
		tail -n 5 "$log" >&2
		rm -rf "$tmp"
		vs_die "downloading $pkg from $suite failed (log: $log): check the network and the archive in the system's apt sources"
	fi
	deb=$(find "$tmp" -maxdepth 1 -name "${pkg%%:*}_*.deb" | head -n 1)
	[[ -n $deb ]] || vs_die "apt-get download $pkg left no .deb in $tmp (log: $log)"
	mkdir -p "$tmp/root"
	vs_logged "$log" dpkg-deb -x "$deb" "$tmp/root"
	rm -rf "${tmp:?}/lists" "${tmp:?}/cache" "${tmp:?}/etc" "$deb"
	touch "$tmp/root/.done"
	vs_cache_put "$tmp/root" "debs/${pkg%%:*}"
	rmdir "$tmp"
}

main() {
	local missing suite
	vs_need dpkg-query dpkg
	vs_init
	if [[ -n $VS_MAINLINE && -z ${KSRC:-} ]]; then
		fetch_deb "linux-source-$KVER" trixie-backports
	fi
	if [[ $VS_ARCH == arm64 ]]; then
		suite=$(. /etc/os-release && printf '%s' "$VERSION_CODENAME")
		fetch_deb busybox-static:arm64 "$suite" arm64
		fetch_deb libcap-dev:arm64 "$suite" arm64
	fi
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
	vs_logged "$VS_LOGS/apt.log" apt-get update
	DEBIAN_FRONTEND=noninteractive vs_logged "$VS_LOGS/apt.log" \
		apt-get install -y --no-install-recommends "${missing[@]}"
}

vs_main "$@"
