#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh: pack the test initramfs.
#
# Usage: scripts/initramfs.sh [-h]     (make initramfs)
#
# Packs build/<tree>/initramfs.cpio.gz from: busybox (Debian package
# busybox-static) and its applet links, coreutils' timeout (which
# run_kselftest.sh needs), scripts/guest-init.sh as /init,
# the kselftest install as /kselftest, and the ELF interpreter and
# shared libraries of every program in it (read from the ELF files with
# readelf, vs_elf_deps in lib.sh: a 32-bit test gets its loader even on
# a host that cannot run 32-bit programs, where ldd says "not a dynamic
# executable").
# When userspace/'s vsysinfo_busybox.sh is installed, it also adds what
# that test runs: Debian's dynamically linked busybox (package busybox,
# which conflicts with busybox-static: fetched with apt-get download into
# build/<tree>/busybox-dynamic and unpacked there, never installed) as
# /bin/busybox-dynamic, and strace as /bin/strace. When glibc.sh installed
# the patched glibc (collection 'glibc'), it adds the other programs its
# tests run: Debian's python3 (/usr/bin/python3.11, with the standard
# library modules that 'import os' loads, as the host's Debian python3
# lists them) and coreutils' sort as /bin/sort.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "" "$@"

# BUSYBOX_DYNAMIC: the unpacked dynamic busybox, fetched once per build
# folder.
dynamic_busybox() {
	local dir=$VS_BUILD/busybox-dynamic log=$VS_LOGS/busybox-dynamic.log
	if [[ ! -x $dir/root/bin/busybox ]]; then
		vs_need apt-get apt
		vs_need dpkg-deb dpkg
		rm -rf "$dir"
		mkdir -p "$dir"
		if ! (cd "$dir" && apt-get download busybox) >"$log" 2>&1; then
			tail -n 5 "$log" >&2
			vs_die "'apt-get download busybox' failed (log: $log): the package lists may be missing or stale; run 'apt-get update' as root and try again"
		fi
		vs_logged "$log" dpkg-deb -x "$(find "$dir" -maxdepth 1 -name 'busybox_*.deb' | head -n 1)" "$dir/root"
		[[ -x $dir/root/bin/busybox ]] ||
			vs_die "the busybox package in $dir has no bin/busybox"
	fi
	BUSYBOX_DYNAMIC=$dir/root/bin/busybox
}

# python3 ROOT: Debian's python3 and the modules its start-up and 'import
# os' load, listed by the same python3 on this host (Debian's, not a
# program built here); lib-dynload must exist or python3 complains.
python3_into() {
	local root=$1 py=/usr/bin/python3.11 files
	[[ -x $py ]] || vs_die "$py not found: install Debian package python3 (apt-get install python3)"
	files=$("$py" -S -c 'import sys, os, site, encodings.utf_8, encodings.aliases
print("\n".join(sorted({m.__file__ for m in list(sys.modules.values())
      if getattr(m, "__file__", None) and m.__file__.startswith("/usr/lib/python3.11/")})))') ||
		vs_die "$py could not list its modules"
	cp "$py" "$root/bin/python3"
	mkdir -p "$root/usr/lib/python3.11/lib-dynload"
	# shellcheck disable=SC2086 # one path per line, no spaces
	cp -L --parents $files "$root/"
}

populate() {
	local root=$1 applet lib deps progs extra=()
	mkdir -p "$root"/{bin,dev,proc,sys,tmp,etc,root,usr}
	# run_kselftest.sh calls /usr/bin/timeout: one bin for everything.
	ln -s bin "$root/sbin"
	ln -s ../bin "$root/usr/bin"
	ln -s ../bin "$root/usr/sbin"
	cp "$GUEST_BUSYBOX" "$root/bin/busybox"
	# The applets of the host's busybox: the same Debian version as the
	# guest's, which the host may not be able to run.
	for applet in $("$BUSYBOX" --list); do
		[[ $applet == busybox ]] && continue
		[[ -e $root/bin/$applet ]] || ln -s busybox "$root/bin/$applet"
	done
	# kselftest's per-test timeout needs coreutils' timeout --foreground,
	# busybox's has no --foreground. The arm64 guest has no coreutils:
	# without /usr/bin/timeout its tests run without their own timeout,
	# the guest's (TIMEOUT) bounding them.
	rm -f "$root/bin/timeout"
	[[ $VS_ARCH != x86_64 ]] || cp "$(command -v timeout)" "$root/bin/timeout"
	cp "$VS_ROOT/scripts/guest-init.sh" "$root/init"
	chmod 755 "$root/init"
	cp -a "$VS_KST" "$root/kselftest"
	if [[ -x $VS_KST/vsysinfo/vsysinfo_busybox.sh ]]; then
		vs_need strace strace
		dynamic_busybox
		cp "$BUSYBOX_DYNAMIC" "$root/bin/busybox-dynamic"
		cp "$(command -v strace)" "$root/bin/strace"
		extra=("$root/bin/busybox-dynamic" "$root/bin/strace")
	fi
	if [[ -d $VS_KST/glibc ]]; then
		python3_into "$root"
		rm -f "$root/bin/sort"
		cp "$(command -v sort)" "$root/bin/sort"
		extra+=("$root/bin/python3" "$root/bin/sort")
	fi
	# The dynamically linked programs need their interpreter and
	# libraries; those the tests bring themselves ($ORIGIN) are there.
	[[ ! -f $root/bin/timeout ]] || extra+=("$root/bin/timeout")
	mapfile -t progs < <(find "$VS_KST" "${extra[@]}" -type f -perm -u+x)
	deps=$(vs_elf_deps "${progs[@]}") || vs_die "cannot find what the programs of the initramfs need (above)"
	for lib in $deps; do
		[[ $lib == "$VS_KST"/* ]] || cp -L --parents "$lib" "$root/"
	done
}

main() {
	local root
	vs_init
	vs_require selftests
	[[ -x $BUSYBOX ]] ||
		vs_die "$BUSYBOX not found: install Debian package busybox-static"
	# arm64's is Debian's arm64 busybox-static, which make deps downloads.
	GUEST_BUSYBOX=$BUSYBOX
	if [[ $VS_ARCH == arm64 ]]; then
		GUEST_BUSYBOX=$VS_CACHE/debs/busybox-static/bin/busybox
		[[ -x $GUEST_BUSYBOX ]] ||
			vs_die "$GUEST_BUSYBOX not found: run 'ARCH=arm64 KVER=$KVER make deps', which downloads Debian's arm64 busybox-static"
	fi
	vs_need cpio cpio
	root=${VS_INITRAMFS%.cpio.gz}
	rm -rf "$root"
	populate "$root"
	(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) |
		gzip -1 >"$VS_INITRAMFS.new"
	mv "$VS_INITRAMFS.new" "$VS_INITRAMFS"
	vs_stage "initramfs: $(du -h "$VS_INITRAMFS" | cut -f1) in ${VS_INITRAMFS#"$VS_ROOT"/}"
}

vs_main "$@"
