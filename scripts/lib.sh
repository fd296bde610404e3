# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers for the vsysinfo scripts. Source it; do not run it.
#
# Every stage script sources this file, calls vs_init, and then uses:
#   vs_stage NAME       print a progress line with the elapsed time
#   vs_die MSG...       print "error: MSG" to stderr and exit 1
#   vs_need TOOL PKG    fail unless TOOL is on PATH, naming the package
#   vs_logged LOG CMD   run CMD with its output in LOG (which starts with
#                       the command); on failure print the log's last
#                       lines and its path, and fail
#   vs_ktap             load kselftest's KTAP helpers (ktap_helpers.sh)
#                       from the source tree: every result is KTAP
#
# The knobs (environment variables), with their defaults, are listed in
# VS_KNOBS below; 'make help' prints them with their current values.
#
# Files of a build folder build/<tree>/, named here and nowhere else:
#   src/ am/            the patched work tree, the scratch tree for git am
#   obj/ obj-bench/ obj-kcsan/
#                       kernel builds (test kernel, FLAVOUR=bench, kcsan)
#   kselftest/          the kselftest install (vDSO/, vsysinfo/)
#   initramfs.cpio.gz   the guest's initramfs
#   logs/               build logs, console-<boot>.log (+ .cmd, the QEMU
#                       command line), apt.log
#   applied             "SERIES_ID HEAD": what src/ is (vs_set_applied,
#                       vs_applied_id, vs_applied_head)
#   source.id           what src/ was unpacked or copied from
#   accel               the KVM probe's verdict (kvm or tcg)
#   lock                held by the run using the folder
#   bench-icount.txt    the latest benchmark table

# Repository root, whatever directory the caller runs from.
VS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VS_START=${VS_START:-$(date +%s)}
export VS_START

vs_log() { printf '%s\n' "$*" >&2; }

vs_die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

vs_stage() {
	local now
	now=$(date +%s)
	printf '[%4ds] %s\n' "$((now - VS_START))" "$*"
}

# vs_need TOOL PACKAGE: the Debian package that provides TOOL.
vs_need() {
	command -v "$1" >/dev/null 2>&1 ||
		vs_die "'$1' not found: install Debian package '$2' (apt-get install $2), or run 'make deps' as root"
}

# vs_logged LOG CMD...: run CMD, keep its output in LOG.
vs_logged() {
	local log=$1
	shift
	mkdir -p "$(dirname "$log")"
	printf '$ %s\n' "$*" >"$log"
	if ! "$@" >>"$log" 2>&1; then
		vs_log "---- last 30 lines of $log ----"
		tail -n 30 "$log" >&2
		vs_log "---- full log: $log ----"
		vs_die "'$*' failed; see $log"
	fi
}

# vs_init: resolve the source tree and the build folder for it.
#   KSRC unset: Debian's linux-source-6.12, build folder build/debian
#   KSRC set:   a copy of that tree, build folder build/ksrc-<name>-<hash>
# Exports VS_BUILD (build folder), VS_SRC (patched work tree),
# VS_AM (scratch work tree for git am), VS_OBJ (kernel O= folder),
# VS_LOGS, VS_KST (kselftest install), VS_PATCHES.
vs_init() {
	local id
	VS_BUILD_ROOT=${BUILD:-$VS_ROOT/build}
	if [[ -n ${KSRC:-} ]]; then
		[[ -d $KSRC ]] || vs_die "KSRC=$KSRC is not a directory"
		KSRC=$(cd "$KSRC" && pwd)
		id=$(basename "$KSRC")
		id="ksrc-${id//[^A-Za-z0-9._-]/_}-$(printf '%s' "$KSRC" | sha1sum | cut -c1-8)"
	else
		id=debian
	fi
	VS_BUILD=$VS_BUILD_ROOT/$id
	VS_SRC=$VS_BUILD/src
	VS_AM=$VS_BUILD/am
	# FLAVOUR=bench or kcsan: the benchmark or the sanitizer kernel, built
	# in its own folder.
	case ${FLAVOUR:-} in
	'' | bench | kcsan) ;;
	*) vs_die "FLAVOUR=$FLAVOUR is not a kernel flavour: use bench or kcsan, or leave it unset" ;;
	esac
	VS_OBJ=$VS_BUILD/obj${FLAVOUR:+-$FLAVOUR}
	VS_LOGS=$VS_BUILD/logs
	VS_KST=$VS_BUILD/kselftest
	VS_PATCHES=${PATCHES:-$VS_ROOT/patches}
	# The artifacts that one stage makes and the next uses.
	VS_BZIMAGE=$VS_OBJ/arch/x86/boot/bzImage
	VS_VMLINUX=$VS_OBJ/vmlinux
	VS_VDSO64=$VS_OBJ/arch/x86/entry/vdso/vdso64.so
	VS_INITRAMFS=$VS_BUILD/initramfs.cpio.gz
	export VS_BUILD VS_SRC VS_AM VS_OBJ VS_LOGS VS_KST VS_PATCHES \
		VS_BZIMAGE VS_VMLINUX VS_VDSO64 VS_INITRAMFS
	# Kbuild refuses spaces and colons in its folders, QEMU commas.
	[[ $VS_BUILD != *[\ :,]* ]] ||
		vs_die "the build folder '$VS_BUILD' contains a space, colon or comma, which Kbuild or QEMU cannot take: clone the repository to a plain path or set BUILD="
	[[ -d $VS_PATCHES ]] || vs_die "the patch folder $VS_PATCHES does not exist (PATCHES=)"
	mkdir -p "$VS_LOGS"
	vs_lock
}

# One run at a time per build folder; the scripts a run starts share its lock.
vs_lock() {
	[[ ${VS_LOCKED:-} != "$VS_BUILD" ]] || return 0
	exec 9>"$VS_BUILD/lock"
	flock -n 9 || vs_die "another run is using $VS_BUILD (it holds $VS_BUILD/lock); wait for it to finish"
	export VS_LOCKED=$VS_BUILD
}

# Fixed identity and dates for the pristine commit and git am, so that
# the same series always yields the same commits and patches.
vs_git() {
	GIT_AUTHOR_NAME=vsysinfo GIT_AUTHOR_EMAIL=vsysinfo@localhost \
	GIT_COMMITTER_NAME=vsysinfo GIT_COMMITTER_EMAIL=vsysinfo@localhost \
	GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' \
		git -c core.hooksPath=/dev/null -c advice.detachedHead=false "$@"
}

# vs_am_reset REV: put the scratch work tree $VS_AM at REV, whatever
# state an earlier, interrupted git am left it in.
vs_am_reset() {
	git -C "$VS_AM" am --abort >/dev/null 2>&1 || true
	git -C "$VS_AM" rebase --abort >/dev/null 2>&1 || true
	vs_git -C "$VS_AM" reset -q --hard "$1"
	vs_git -C "$VS_AM" clean -q -fdx
}

# vs_am_series: git am the series onto pristine in $VS_AM. On failure,
# resets $VS_AM, prints git's errors to stderr and the failing patch to
# stdout, and returns 1.
vs_am_series() {
	local p out
	vs_am_reset pristine
	while read -r p; do
		if ! out=$(vs_git -C "$VS_AM" am -q --keep-cr "$p" 2>&1); then
			vs_am_reset pristine
			grep -E '^(error|Patch failed)' <<<"$out" >&2 || printf '%s\n' "$out" >&2
			printf '%s\n' "$p"
			return 1
		fi
	done < <(vs_series)
}

# The series: every patch in patches/ except the cover letter, in order.
vs_series() {
	find "$VS_PATCHES" -maxdepth 1 -name '[0-9]*.patch' ! -name '0000-*' | sort
}

# The area folders of this repository and the kernel folders they mirror.
VS_AREAS=(arch-x86-vdso:arch/x86/entry/vdso
	  arch-x86-include-asm-vdso:arch/x86/include/asm/vdso
	  kernel-time:kernel/time lib-vdso:lib/vdso include:include
	  tools-testing-selftests:tools/testing/selftests)

# vs_area_files: print "AREA_FILE TREE_PATH" for every file of the areas.
vs_area_files() {
	local a dir kdir f
	for a in "${VS_AREAS[@]}"; do
		dir=${a%%:*}
		kdir=${a#*:}
		[[ -d $VS_ROOT/$dir ]] || continue
		(cd "$VS_ROOT/$dir" && find . -type f | sort) | while read -r f; do
			printf '%s %s\n' "$dir/${f#./}" "$kdir/${f#./}"
		done
	done
}

# vs_check_no_work PREFIX: refuse to move or replace $VS_SRC when that
# would lose work done in it: uncommitted changes, or commits that make
# patches has not folded. Pristine, the applied series, or one of its
# commits (an interrupted 'kernel.sh --each-commit') are safe. PREFIX
# starts the error messages.
vs_check_no_work() {
	local head applied
	[[ -z $(git -C "$VS_SRC" status --porcelain --untracked-files=no) ]] ||
		vs_die "$1$VS_SRC has uncommitted changes: commit them (git commit --fixup=<commit>) and run 'make patches', or discard them with 'git -C $VS_SRC checkout -- .'"
	head=$(git -C "$VS_SRC" rev-parse HEAD)
	applied=$(vs_applied_head)
	[[ $head == "$(git -C "$VS_SRC" rev-parse pristine)" ]] && return
	[[ -n $applied ]] && git -C "$VS_SRC" merge-base --is-ancestor "$head" "$applied" && return
	vs_die "$1$VS_SRC has commits that are not in patches/ (HEAD $head): run 'make patches' to fold them into the series first"
}

# vs_set_applied ID HEAD: record (atomically) that $VS_SRC is to be at
# HEAD, the series ID applied to the pristine tree. Written before the
# checkout, so that an interrupted checkout is redone by the next apply.
vs_set_applied() {
	printf '%s %s\n' "$1" "$2" >"$VS_BUILD/applied.new"
	mv "$VS_BUILD/applied.new" "$VS_BUILD/applied"
}

# The applied record's two fields; empty when nothing was applied yet.
vs_applied_id() { cut -d' ' -f1 "$VS_BUILD/applied" 2>/dev/null || true; }
vs_applied_head() { cut -d' ' -f2 "$VS_BUILD/applied" 2>/dev/null || true; }

# vs_series_id: identifies the pristine tree plus the series in patches/.
vs_series_id() {
	local p
	{
		git -C "$VS_SRC" rev-parse pristine
		while read -r p; do
			printf '%s ' "$(basename "$p")"
			sha1sum <"$p"
		done < <(vs_series)
	} | sha1sum | cut -c1-40
}

# vs_require WHAT: what an earlier stage makes is there, or say which
# stage makes it. WHAT: source, kernel, selftests or initramfs.
vs_require() {
	case "$1" in
	source) [[ -d $VS_SRC/.git && -d $VS_AM ]] ||
		vs_die "no source tree in $VS_BUILD: run 'make source' first" ;;
	kernel) [[ -f $VS_BZIMAGE && -f $VS_VDSO64 ]] ||
		vs_die "no kernel build in $VS_OBJ: run '${FLAVOUR:+FLAVOUR=$FLAVOUR }make kernel' first" ;;
	selftests) [[ -x $VS_KST/run_kselftest.sh ]] ||
		vs_die "no kselftest install in $VS_KST: run 'make selftests' first" ;;
	initramfs) [[ -f $VS_INITRAMFS ]] ||
		vs_die "no initramfs in $VS_BUILD: run 'make initramfs' first" ;;
	*) vs_die "vs_require: unknown '$1'" ;;
	esac
}

# vs_elf_deps FILE...: print, once each, the ELF interpreter and the
# shared libraries (DT_NEEDED, recursively) of FILE... as paths on this
# host, resolved as the guest's dynamic loader resolves them: RUNPATH or
# RPATH ($ORIGIN expanded), then the default directories of the
# program's ABI (i386, x86-64 or x32, from the ELF header), taking the
# first file of the same ABI. It only reads the files (readelf), never
# runs them: the host may not be able to execute a 32-bit program while
# the guest can. Static programs and scripts print nothing. Fails naming
# the program and the library when one cannot be found. With
# VS_ELF_ROOT set, the interpreter and the default directories are
# looked up under that folder (an unpacked initramfs) instead of /.
vs_elf_deps() {
	local -A seen=() given=()
	local queue=("$@") f deps
	vs_need readelf binutils
	for f in "$@"; do given[$f]=1; done
	while ((${#queue[@]})); do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		[[ -z ${seen[$f]:-} ]] || continue
		seen[$f]=1
		vs_elf_abi "$f" >/dev/null || continue
		deps=$(vs_elf_direct_deps "$f") || return 1
		[[ -z $deps ]] || mapfile -t -O "${#queue[@]}" queue <<<"$deps"
		# The programs themselves are the caller's; print what they need.
		[[ -n ${given[$f]:-} ]] || printf '%s\n' "$f"
	done
}

# vs_elf_abi FILE: i386, x86-64 or x32; fails for a file that is not ELF.
vs_elf_abi() {
	local hdr
	hdr=$(LC_ALL=C readelf -hW "$1" 2>/dev/null) || return 1
	case "$(grep -E '^ *(Class|Machine):' <<<"$hdr" | awk -F: '{ gsub(/^ +/, "", $2); printf "%s;", $2 }')" in
	"ELF32;Intel 80386;") echo i386 ;;
	"ELF64;Advanced Micro Devices X86-64;") echo x86-64 ;;
	"ELF32;Advanced Micro Devices X86-64;") echo x32 ;;
	*) return 1 ;;
	esac
}

# The directories the Debian dynamic loader of each ABI searches when it
# has no ld.so.cache, which the guest does not have.
vs_elf_libdirs() {
	case "$1" in
	i386) echo /lib/i386-linux-gnu /usr/lib/i386-linux-gnu /lib32 /usr/lib32 /lib /usr/lib ;;
	x86-64) echo /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64 /lib /usr/lib ;;
	x32) echo /lib/x86_64-linux-gnux32 /usr/lib/x86_64-linux-gnux32 /libx32 /usr/libx32 /lib /usr/lib ;;
	esac
}

# vs_elf_direct_deps FILE: FILE's interpreter and its DT_NEEDED libraries.
vs_elf_direct_deps() {
	local f=$1 abi dyn interp lib dir found origin
	local -a dirs
	abi=$(vs_elf_abi "$f")
	interp=$(LC_ALL=C readelf -lW "$f" | sed -nE 's/.*\[Requesting program interpreter: (.*)\]$/\1/p')
	if [[ -n $interp ]]; then
		[[ -e ${VS_ELF_ROOT:-}$interp ]] || vs_die "$f needs the ELF interpreter $interp, which ${VS_ELF_ROOT:-this host} does not have (for an i386 program: install gcc-multilib)"
		printf '%s\n' "${VS_ELF_ROOT:-}$interp"
	fi
	dyn=$(LC_ALL=C readelf -dW "$f")
	origin=$(cd "$(dirname "$f")" && pwd)
	mapfile -t dirs < <(sed -nE 's/.*\((RUNPATH|RPATH)\).*\[(.*)\]$/\2/p' <<<"$dyn" |
		tr ':' '\n' | sed "s|\\\$ORIGIN|$origin|; s|\\\${ORIGIN}|$origin|")
	for dir in $(vs_elf_libdirs "$abi"); do
		dirs+=("${VS_ELF_ROOT:-}$dir")
	done
	for lib in $(sed -nE 's/.*\(NEEDED\).*\[(.*)\]$/\1/p' <<<"$dyn"); do
		# The kernel's vDSO, which the loader takes from AT_SYSINFO_EHDR.
		[[ $lib != linux-vdso.so.1 && $lib != linux-gate.so.1 ]] || continue
		found=
		for dir in "${dirs[@]}"; do
			if [[ -f $dir/$lib && $(vs_elf_abi "$dir/$lib") == "$abi" ]]; then
				found=$dir/$lib
				break
			fi
		done
		[[ -n $found ]] || vs_die "$f needs $lib ($abi), found in none of: ${dirs[*]}"
		printf '%s\n' "$found"
	done
}

# vs_kmake ARGS...: make in the kernel tree, building in $VS_OBJ, with
# ccache (Debian package ccache; cache in BUILD/ccache) so that checking
# out the commits of the series in turn recompiles only what is new.
vs_kmake() {
	local cc=gcc
	if command -v ccache >/dev/null 2>&1; then
		export CCACHE_DIR=${CCACHE_DIR:-$VS_BUILD_ROOT/ccache}
		cc="ccache gcc"
	fi
	make -C "$VS_SRC" O="$VS_OBJ" CC="$cc" "$@"
}

vs_ktap() {
	local h=$VS_SRC/tools/testing/selftests/kselftest/ktap_helpers.sh
	vs_require source
	[[ -f $h ]] || vs_die "$h not found in the source tree"
	# shellcheck source=/dev/null
	. "$h"
}

# The benchmark table in README.md and in the cover letter: from its
# first row (the header, or the vDSO row when the header is left out) to
# its last (make bench writes it, make test compares the two copies).
# shellcheck disable=SC2034 # for the scripts that source this file
VS_BENCH_FIRST='^ *(per call +ns|vDSO sysinfo\(\) +[0-9.]+)$'
# shellcheck disable=SC2034
VS_BENCH_LAST='ratio vDSO sysinfo / floor'

# The stages that prepare a guest, in order (make run, make test,
# make bench); each is scripts/<stage>.sh.
# shellcheck disable=SC2034 # for the scripts that source this file
VS_STAGES=(deps source apply kernel selftests glibc initramfs)

# The knobs: NAME=DEFAULT, what it does.
VS_KNOBS=(
	"KSRC=|your kernel tree, copied to BUILD/ksrc-<name>-<hash>/; unset: Debian's linux-source-6.12"
	"BUILD=|the build root; unset: build/ in this repository"
	"PATCHES=|the series to apply; unset: patches/ in this repository"
	"ACCEL=|kvm or tcg; unset: probe KVM once, fall back to TCG"
	"TIMEOUT=900|seconds a guest boot may take"
	"PROBE_TIMEOUT=15|seconds the KVM probe may take"
	"GUEST_MEM=5G|guest RAM (over 4 GiB for the 32-bit scaling)"
	"GUEST_APPEND=|more kernel command line for the test boots"
	"SKIP_COMMIT_BUILDS=|non-empty: make test builds only the series' last commit"
	"SKIP_SANITIZER=|non-empty: make test leaves out the KCSAN and UBSAN kernel"
	"SKIP_GLIBC=|non-empty: no patched glibc is built or installed in the guest"
	"FLAVOUR=|bench: the benchmark kernel (set by make bench); kcsan: the sanitizer kernel (make test's last boot)"
	"BUSYBOX=/bin/busybox|the static busybox of the initramfs"
)

# Knobs with a plain default get it here, once, for every script.
vs_knob_defaults() {
	local k name def
	for k in "${VS_KNOBS[@]}"; do
		name=${k%%=*}
		def=${k#*=}
		def=${def%%|*}
		[[ -z $def || -n ${!name:-} ]] || export "$name=$def"
	done
}
vs_knob_defaults

# vs_knobs: print the knobs with their defaults and current values.
vs_knobs() {
	local k name def what
	for k in "${VS_KNOBS[@]}"; do
		name=${k%%=*}
		def=${k#*=}
		what=${def#*|}
		def=${def%%|*}
		printf '  %-18s %s%s [now: %s]\n' "$name" "$what" \
			"${def:+ (default $def)}" "${!name:-unset}"
	done
}

# Print usage from the script's leading comment block.
vs_usage() {
	sed -n '3,/^[^#]/{/^#/{s/^# \{0,1\}//;p}}' "$0"
}

vs_want_help() {
	case "${1:-}" in
	-h|--help) vs_usage; exit 0 ;;
	esac
}
