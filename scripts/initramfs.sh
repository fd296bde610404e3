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
# shared libraries that ldd names for the installed test programs.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_want_help "${1:-}"

BUSYBOX=${BUSYBOX:-/bin/busybox}

populate() {
	local root=$1 applet f lib deps
	mkdir -p "$root"/{bin,dev,proc,sys,tmp,etc,root,usr}
	# run_kselftest.sh calls /usr/bin/timeout: one bin for everything.
	ln -s bin "$root/sbin"
	ln -s ../bin "$root/usr/bin"
	ln -s ../bin "$root/usr/sbin"
	cp "$BUSYBOX" "$root/bin/busybox"
	for applet in $("$BUSYBOX" --list); do
		[[ $applet == busybox ]] && continue
		[[ -e $root/bin/$applet ]] || ln -s busybox "$root/bin/$applet"
	done
	# kselftest's per-test timeout needs coreutils' timeout --foreground.
	rm -f "$root/bin/timeout"
	cp "$(command -v timeout)" "$root/bin/timeout"
	cp "$VS_ROOT/scripts/guest-init.sh" "$root/init"
	chmod 755 "$root/init"
	cp -a "$VS_KST" "$root/kselftest"
	# The dynamically linked tests need their interpreter and libraries.
	while read -r f; do
		deps=$(ldd "$f" 2>/dev/null) || continue	# static or a script
		for lib in $(grep -o '/[^ ]*' <<<"$deps"); do
			cp -L --parents "$lib" "$root/"
		done
	done < <(find "$VS_KST" "$root/bin/timeout" -type f -perm -u+x)
}

main() {
	local root
	vs_init
	[[ -x $VS_KST/run_kselftest.sh ]] ||
		vs_die "no kselftest install in $VS_KST: run 'make selftests' first"
	[[ -x $BUSYBOX ]] ||
		vs_die "$BUSYBOX not found: install Debian package busybox-static"
	vs_need cpio cpio
	vs_need ldd libc-bin
	root=$VS_BUILD/initramfs
	rm -rf "$root"
	populate "$root"
	(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) |
		gzip -1 >"$VS_BUILD/initramfs.cpio.gz.new"
	mv "$VS_BUILD/initramfs.cpio.gz.new" "$VS_BUILD/initramfs.cpio.gz"
	vs_stage "initramfs: $(du -h "$VS_BUILD/initramfs.cpio.gz" | cut -f1) in ${VS_BUILD#"$VS_ROOT"/}/initramfs.cpio.gz"
}

main "$@"
