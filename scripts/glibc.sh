#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# glibc.sh: build glibc with glibc/'s patch and install it for the guest.
#
# Usage: scripts/glibc.sh [-h] [build|install]
#                  (make glibc: build; make glibc-install: install;
#                   no argument: both, as make run and make test do)
#
# build    unpacks the glibc 2.36 tarball of Debian's glibc-source
#          package (/usr/src/glibc, Debian's patches already applied)
#          into build/glibc/src as branch 'pristine', applies
#          glibc/*.patch with git am in the scratch tree build/glibc/am
#          and copies only the files that changed into src, so that the
#          out-of-tree build in build/glibc/obj (configure --prefix=/usr
#          --disable-werror) stays incremental; then builds the libraries
#          the guest loads (GLIBC_LIBS) and the
#          patch's test, tst-sysinfo-vdso. A patch that does not apply
#          is named with the glibc version. Log: build/glibc/logs/.
# install  copies the patched ld.so and libraries (from the cache entry
#          of the current KEY) into the kselftest
#          install as collection 'glibc' (lib/ of build/<tree>/kselftest/
#          glibc, with tst-sysinfo-vdso, glibc/tests/*.sh and the
#          benchmark glibc/bench/), so that the guest runs programs
#          through them by naming that ld.so and library path; the
#          guest's own /lib stays the host's glibc.
#          make glibc-install then repacks the initramfs.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "build install" "$@"

GLIBC_TARBALL=${GLIBC_TARBALL:-/usr/src/glibc/glibc-2.36.tar.xz}
G=${BUILD:-$VS_ROOT/build}/glibc
GLIBC_PATCHES=$VS_ROOT/glibc
GLIBC_TEST=misc/tst-sysinfo-vdso
CONFIGURE_ARGS=(--prefix=/usr --disable-werror --disable-profile
		--disable-nscd --disable-build-nscd --disable-timezone-tools
		--disable-mathvec --disable-crypt)
# The libraries the guest's programs load (python3, sort, busybox), as
# build-tree path and soname.
GLIBC_LIBS=(elf/ld.so:ld-linux-x86-64.so.2 libc.so:libc.so.6
	    math/libm.so:libm.so.6 nptl/libpthread.so:libpthread.so.0
	    dlfcn/libdl.so:libdl.so.2 rt/librt.so:librt.so.1
	    login/libutil.so:libutil.so.1)

glibc_git() { vs_git -C "$1" "${@:2}"; }

glibc_lock() {
	mkdir -p "$G/logs"
	exec 8>"$G/lock"
	flock -n 8 || vs_die "another run is building glibc in $G (it holds $G/lock); wait for it to finish"
}

# The pristine tree, as branch 'pristine' of src and of the scratch am.
unpack() {
	local id
	id="tarball $GLIBC_TARBALL $(stat -c '%s %Y' "$GLIBC_TARBALL")"
	[[ -d $G/src/.git && $(cat "$G/source.id" 2>/dev/null) == "$id" ]] && return
	vs_stage "glibc: unpacking $GLIBC_TARBALL"
	rm -rf "$G/src" "$G/am" "$G/obj" "$G/applied" "$G/source.id"
	mkdir -p "$G/src"
	tar -C "$G/src" --strip-components=1 -xf "$GLIBC_TARBALL"
	glibc_git "$G/src" init -q -b pristine
	glibc_git "$G/src" add -A -f
	glibc_git "$G/src" commit -q -m "glibc 2.36 as Debian's glibc-source ships it"
	glibc_git "$G/src" clone -q "$G/src" "$G/am"
	printf '%s\n' "$id" >"$G/source.id"
}

patch_id() { cat "$GLIBC_PATCHES"/*.patch | sha1sum | cut -c1-40; }

apply() {
	local id p out
	id=$(patch_id)
	[[ $(cat "$G/applied" 2>/dev/null) == "$id" ]] && return
	# Only this script works in the scratch tree, under its lock: a
	# lock file there is a killed git's.
	rm -f "$G/am/.git/index.lock" "$G/am/.git/HEAD.lock"
	glibc_git "$G/am" am --abort >/dev/null 2>&1 || rm -rf "$G/am/.git/rebase-apply"
	glibc_git "$G/am" reset -q --hard origin/pristine
	for p in "$GLIBC_PATCHES"/*.patch; do
		if ! out=$(glibc_git "$G/am" am -q "$p" 2>&1); then
			# Only this script works in the scratch tree, under its lock: a
	# lock file there is a killed git's.
	rm -f "$G/am/.git/index.lock" "$G/am/.git/HEAD.lock"
	glibc_git "$G/am" am --abort >/dev/null 2>&1 || rm -rf "$G/am/.git/rebase-apply"
			printf '%s\n' "$out" >&2
			vs_die "patch ${p#"$VS_ROOT"/} does not apply to glibc 2.36 ($GLIBC_TARBALL); nothing was changed in $G/src"
		fi
	done
	# Only what differs gets a new time stamp: the build stays incremental.
	rsync -rlc --delete --exclude=/.git "$G/am/" "$G/src/"
	printf '%s\n' "$id" >"$G/applied"
	vs_stage "glibc: $(find "$GLIBC_PATCHES" -name '*.patch' | wc -l) patch(es) applied to $G/src"
}

configure() {
	local want="${CONFIGURE_ARGS[*]} CFLAGS=-O2"
	[[ -f $G/obj/config.make && $(cat "$G/configured" 2>/dev/null) == "$want" ]] && return
	vs_stage "glibc: configuring in $G/obj"
	rm -rf "$G/obj"
	mkdir -p "$G/obj"
	(cd "$G/obj" && vs_logged "$G/logs/configure.log" \
		../src/configure "${CONFIGURE_ARGS[@]}" CFLAGS=-O2)
	printf '%s\n' "$want" >"$G/configured"
}

build() {
	vs_need gcc gcc
	vs_need make make
	vs_need gawk gawk
	vs_need bison bison
	vs_need python3 python3
	vs_need rsync rsync
	[[ -f $GLIBC_TARBALL ]] ||
		vs_die "$GLIBC_TARBALL not found: install Debian package glibc-source (apt-get install glibc-source), or run 'make deps' as root"
	glibc_lock
	unpack
	apply
	configure
	vs_stage "glibc: building (log: ${G#"$VS_ROOT"/}/logs/build.log; about 4 minutes the first time)"
	# What the guest loads and nothing more: 'make lib' builds every
	# library's objects, libc.so and ld.so (not the programs, locales
	# and iconv modules of a full 'make', which take 8 more minutes);
	# each other library is then linked in its own folder, as a subdir
	# make of glibc's does, and so is the patch's test ('make test
	# t=misc/...' builds it the same way, with libsupport).
	vs_logged "$G/logs/build.log" make -C "$G/obj" -j"$VS_JOBS" lib
	for l in "${GLIBC_LIBS[@]}" support/libsupport_nonshared.a "$GLIBC_TEST"; do
		l=${l%%:*}
		[[ $l != elf/ld.so && $l != libc.so ]] || continue
		vs_logged "$G/logs/build-${l%%/*}.log" make -C "$G/src/${l%%/*}" -j"$VS_JOBS" \
			..=../ objdir="$G/obj" subdir="${l%%/*}" "$G/obj/$l"
	done
	vs_stage "glibc: built in ${G#"$VS_ROOT"/}/obj"
}

# cache_key: what the libraries and the test are made from (see -h).
cache_key() {
	{
		sha1sum <"$GLIBC_TARBALL"
		cat "$GLIBC_PATCHES"/*.patch
		printf '%s\n' "${CONFIGURE_ARGS[@]}" "${GLIBC_LIBS[@]}" "$GLIBC_TEST"
		gcc --version | head -n 1
		declare -f unpack apply configure build
	} | sha1sum | cut -c1-40
}

# ENTRY: the cache entry of the current key; entry_ok: it is complete
# and every file matches its sum (a corrupt entry is removed).
entry_ok() {
	local l
	[[ -f $ENTRY/SHA256SUMS ]] || return 1
	for l in "${GLIBC_LIBS[@]}"; do
		grep -q " lib/${l#*:}\$" "$ENTRY/SHA256SUMS" || break
	done &&
		grep -q " ${GLIBC_TEST##*/}\$" "$ENTRY/SHA256SUMS" &&
		(cd "$ENTRY" && sha256sum --quiet --strict -c SHA256SUMS) >/dev/null 2>&1 && return 0
	vs_stage "glibc: the cache entry $ENTRY does not match its sums: removing it, building again"
	rm -rf "$ENTRY"
	return 1
}

# store: the libraries and the test of the build in $G/obj, as the
# cache entry of the current key.
store() {
	local tmp l
	tmp=$(vs_cache_tmp glibc)
	mkdir -p "$tmp/lib"
	for l in "${GLIBC_LIBS[@]}"; do
		cp "$G/obj/${l%%:*}" "$tmp/lib/${l#*:}"
	done
	cp "$G/obj/$GLIBC_TEST" "$tmp/"
	(cd "$tmp" && sha256sum lib/* "${GLIBC_TEST##*/}" >SHA256SUMS)
	vs_cache_put "$tmp" "glibc/$KEY"
	vs_stage "glibc: kept in the shared cache as ${ENTRY#"$VS_CACHE"/} ($VS_CACHE)"
}

# build_cached: the cache entry of the current key, built when missing.
build_cached() {
	if entry_ok; then
		vs_stage "glibc: built before from the same sources, patch, configuration and compiler: ${ENTRY#"$VS_CACHE"/} in $VS_CACHE"
		return
	fi
	build
	store
}

install_guest() {
	local dest l
	vs_init
	vs_require selftests
	entry_ok || vs_die "no glibc build for glibc/*.patch as it is now in $VS_CACHE/glibc: run 'make glibc' first"
	dest=$VS_KST/glibc
	rm -rf "$dest"
	mkdir -p "$dest/lib"
	for l in "${GLIBC_LIBS[@]}"; do
		install -m 755 "$ENTRY/lib/${l#*:}" "$dest/lib/${l#*:}"
	done
	install -m 755 "$ENTRY/${GLIBC_TEST##*/}" "$VS_ROOT"/glibc/tests/*.sh \
		"$VS_ROOT/glibc/bench/bench-glibc.sh" "$dest/"
	install -m 644 "$VS_ROOT/userspace/tests/compare_output.sh" "$dest/"
	# A program of this host's, which the guest runs through both glibcs.
	vs_logged "$VS_LOGS/glibc-bench.log" gcc -O2 -Wall -Wextra -Werror \
		-o "$dest/glibc_bench" "$VS_ROOT/glibc/bench/glibc_bench.c"
	sed -i '/^glibc:/d' "$VS_KST/kselftest-list.txt"
	for l in "$VS_ROOT"/glibc/tests/*.sh; do
		printf 'glibc:%s\n' "$(basename "$l")" >>"$VS_KST/kselftest-list.txt"
	done
	vs_stage "glibc: installed in ${dest#"$VS_ROOT"/} (collection 'glibc')"
}

# The binding is only tested against a kernel whose vDSO exports it.
vdso_has_sysinfo() {
	vs_init
	vs_require kernel
	nm -D "$VS_VDSO64" | grep -qw __vdso_sysinfo
}

# set_key: KEY and ENTRY for the glibc/ patches as they are now.
set_key() {
	[[ -f $GLIBC_TARBALL ]] ||
		vs_die "$GLIBC_TARBALL not found: install Debian package glibc-source (apt-get install glibc-source), or run 'make deps' as root"
	KEY=$(cache_key)
	ENTRY=$VS_CACHE/glibc/$KEY
}

main() {
	[[ ${1:-all} == all && ( -n ${SKIP_GLIBC:-} || $VS_ARCH != x86_64 ) ]] || set_key
	case "${1:-all}" in
	build) build_cached ;;
	install) install_guest ;;
	all)
		if [[ -n ${SKIP_GLIBC:-} ]]; then
			vs_stage "glibc: SKIP_GLIBC is set, no patched glibc"
		elif [[ $VS_ARCH != x86_64 ]]; then
			vs_stage "glibc: the patched glibc is built for x86-64 only, none for $VS_ARCH"
		elif ! vdso_has_sysinfo; then
			vs_stage "glibc: $VS_VDSO64 has no __vdso_sysinfo (no series applied), no patched glibc"
		else
			build_cached
			install_guest
		fi ;;
	*) vs_die "unknown argument '$1': use build, install or nothing (see -h)" ;;
	esac
}

vs_main "$@"
