#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel.sh: configure and build the test kernel out of tree.
#
# Usage: scripts/kernel.sh [-h]        (make kernel)
#
# Configures build/<tree>/obj from tinyconfig plus the fragment
# scripts/test-kernel.config (merged with the tree's own
# scripts/kconfig/merge_config.sh), checks that every option of the
# fragment made it into .config, and builds bzImage with W=1. The
# build is incremental: the configuration is only redone when the
# fragment or the applied series changed. Log: build/<tree>/logs/kernel.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
vs_want_help "${1:-}"

FRAGMENT=$VS_ROOT/scripts/test-kernel.config

configure() {
	local stamp missing
	stamp="$(sha1sum <"$FRAGMENT") $(git -C "$VS_SRC" rev-parse HEAD)"
	if [[ -f $VS_OBJ/.config && -f $VS_BUILD/config.stamp &&
	      $(cat "$VS_BUILD/config.stamp") == "$stamp" ]]; then
		return
	fi
	vs_stage "kernel: configuring tinyconfig + ${FRAGMENT#"$VS_ROOT"/}"
	mkdir -p "$VS_OBJ"
	vs_logged "$VS_LOGS/config.log" make -C "$VS_SRC" O="$VS_OBJ" tinyconfig
	vs_logged "$VS_LOGS/config.log" "$VS_SRC/scripts/kconfig/merge_config.sh" \
		-m -O "$VS_OBJ" "$VS_OBJ/.config" "$FRAGMENT"
	vs_logged "$VS_LOGS/config.log" make -C "$VS_SRC" O="$VS_OBJ" olddefconfig
	missing=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$FRAGMENT" | while read -r line; do
		grep -qxF "$line" "$VS_OBJ/.config" || printf ' %s' "$line"
	done)
	[[ -z $missing ]] ||
		vs_die "options of ${FRAGMENT#"$VS_ROOT"/} missing from $VS_OBJ/.config (unmet dependencies?):$missing"
	printf '%s\n' "$stamp" >"$VS_BUILD/config.stamp"
}

build() {
	vs_stage "kernel: building bzImage (W=1, log: ${VS_LOGS#"$VS_ROOT"/}/kernel.log)"
	vs_logged "$VS_LOGS/kernel.log" \
		make -C "$VS_SRC" O="$VS_OBJ" -j"$(nproc)" W=1 bzImage
	[[ -f $VS_OBJ/arch/x86/boot/bzImage && -f $VS_OBJ/arch/x86/entry/vdso/vdso64.so ]] ||
		vs_die "the build did not produce bzImage and vdso64.so; see $VS_LOGS/kernel.log"
	vs_stage "kernel: $(cat "$VS_OBJ/include/config/kernel.release") built"
}

main() {
	vs_init
	[[ -d $VS_SRC/.git ]] || vs_die "no source tree in $VS_BUILD: run 'make source' first"
	vs_need flex flex
	vs_need bison bison
	vs_need bc bc
	vs_need gcc gcc
	[[ -f /usr/include/libelf.h || -f /usr/include/gelf.h ]] ||
		vs_die "libelf headers not found: install Debian package libelf-dev"
	[[ -f /usr/include/openssl/ssl.h ]] ||
		vs_die "OpenSSL headers not found: install Debian package libssl-dev"
	configure
	build
}

main "$@"
