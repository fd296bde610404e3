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
#   obj/ obj-bench/ obj-kcsan/ obj-rt/
#                       kernel builds (test kernel, FLAVOUR=bench, kcsan, rt)
#   kselftest/          the kselftest install (vDSO/, vsysinfo/)
#   initramfs.cpio.gz   the guest's initramfs
#   logs/               build logs, console-<boot>.log (+ .cmd, the QEMU
#                       command line), apt.log
#   applied             "SERIES_ID HEAD": what src/ is (vs_set_applied,
#                       vs_applied_id, vs_applied_head)
#   source.id           what src/ was unpacked or copied from
#   accel               the KVM probe's verdict (kvm or tcg)
#   lock                held by the run using the folder
#   checkout            the journal of a checkout in src/ under way
#                       (vs_checkout): "FROM TO"
#   bench-icount.txt    the latest benchmark table
#
# The shared build cache, outside every clone (CACHE, default
# $XDG_CACHE_HOME/vsysinfo or ~/.cache/vsysinfo), named here and nowhere
# else; every entry is keyed by what it was built from, written under a
# temporary name and renamed into place, so that two clones can share
# it and an interrupted run leaves no half-written entry:
#   ccache/             the compiler cache of every kernel build
#   commit-builds/KEY   one commit of the series built on its own and
#                       checked: KEY hashes the commit's tree, the
#                       configuration fragments, the compiler and the
#                       recipe (kernel.sh)
#   glibc/KEY/          the patched glibc's libraries and test, with
#                       their SHA256SUMS (glibc.sh)

# Repository root, whatever directory the caller runs from.
VS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VS_START=${VS_START:-$(date +%s)}
export VS_START
# Read-only git commands (status, diff) take no lock: one stopped by a
# signal must leave nothing behind that the next run trips over.
export GIT_OPTIONAL_LOCKS=0

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

# vs_build_dir: the build folder of KSRC (an absolute path) or of
# Debian's tree of KVER (VS_MAINLINE set for a mainline KVER).
vs_build_dir() {
	local id
	if [[ -n ${KSRC:-} ]]; then
		id=$(basename "$KSRC")
		id="ksrc-${id//[^A-Za-z0-9._-]/_}-$(printf '%s' "$KSRC" | sha1sum | cut -c1-8)"
	else
		id=debian${VS_MAINLINE:+-$KVER}
	fi
	printf '%s/%s\n' "${BUILD:-$VS_ROOT/build}" "$id"
}

# vs_init: resolve the source tree and the build folder for it.
#   KSRC unset: Debian's linux-source-6.12, build folder build/debian
#   KSRC set:   a copy of that tree, build folder build/ksrc-<name>-<hash>
# Exports VS_BUILD (build folder), VS_SRC (patched work tree),
# VS_AM (scratch work tree for git am), VS_OBJ (kernel O= folder),
# VS_LOGS, VS_KST (kselftest install), VS_PATCHES.
vs_init() {
	local stock='' arch=''
	if [[ -n ${KSRC:-} ]]; then
		[[ -d $KSRC ]] || vs_die "KSRC=$KSRC is not a directory"
		KSRC=$(cd "$KSRC" && pwd)
	fi
	VS_BUILD=$(vs_build_dir)
	VS_SRC=$VS_BUILD/src
	VS_AM=$VS_BUILD/am
	# The architectures of one tree share its source; each has its
	# builds, kselftests, initramfs and logs.
	[[ $VS_ARCH == x86_64 ]] || arch=-$VS_ARCH
	# FLAVOUR=bench or kcsan: the benchmark or the sanitizer kernel, built
	# in its own folder (the value is checked by vs_check_knobs).
	VS_OBJ=$VS_BUILD/obj${FLAVOUR:+-$FLAVOUR}$arch
	VS_LOGS=$VS_BUILD/logs$arch
	# The debug and benchmark kernels boot the test kernel's kselftests;
	# the stock kernel has its own, built from the pristine tree.
	[[ ${FLAVOUR:-} != stock ]] || stock=-stock
	VS_KST=$VS_BUILD/kselftest$stock$arch
	VS_PATCHES=${PATCHES:-$VS_ROOT/patches/$KVER}
	# The artifacts that one stage makes and the next uses.
	vs_arch_artifacts
	VS_INITRAMFS=$VS_BUILD/initramfs$stock$arch.cpio.gz
	VS_BENCH_TXT=$VS_BUILD/bench-icount$arch.txt
	export VS_BENCH_TXT VS_BUILD VS_SRC VS_AM VS_OBJ VS_LOGS VS_KST VS_PATCHES \
		VS_BZIMAGE VS_VMLINUX VS_VDSO64 VS_INITRAMFS
	# Kbuild refuses spaces and colons in its folders, QEMU commas.
	[[ $VS_BUILD != *[\ :,]* ]] ||
		vs_die "the build folder '$VS_BUILD' contains a space, colon or comma, which Kbuild or QEMU cannot take: clone the repository to a plain path or set BUILD="
	[[ -d $VS_PATCHES ]] || vs_die "the patch folder $VS_PATCHES does not exist (PATCHES=)"
	mkdir -p "$VS_LOGS"
	vs_lock "$VS_BUILD"
	[[ ! -f $VS_BUILD/checkout || ! -d $VS_SRC/.git ]] || vs_recover_checkout
	# FLAVOUR=stock: the pristine tree, in a work tree of its own at the
	# same depth as src/ and obj/, so that ccache finds the objects of
	# every file the series does not change (neighbours.sh).
	if [[ ${FLAVOUR:-} == stock ]]; then
		VS_SRC=$VS_BUILD/stock/src
		VS_OBJ=$VS_BUILD/stock/obj$arch
		vs_arch_artifacts
		export VS_SRC VS_OBJ VS_BZIMAGE VS_VMLINUX VS_VDSO64
	fi
}

# vs_arch_artifacts: the kernel image QEMU boots and the 64-bit vDSO, in
# $VS_OBJ, for $VS_ARCH and the tree (7.3 moved x86's 64-bit vDSO).
vs_arch_artifacts() {
	VS_VMLINUX=$VS_OBJ/vmlinux
	case $VS_ARCH in
	arm64)
		VS_BZIMAGE=$VS_OBJ/arch/arm64/boot/Image
		VS_VDSO64=$VS_OBJ/arch/arm64/kernel/vdso/vdso.so ;;
	*)
		VS_BZIMAGE=$VS_OBJ/arch/x86/boot/bzImage
		VS_VDSO64=$VS_OBJ/arch/x86/entry/vdso/${VS_MAINLINE:+vdso64/}vdso64.so ;;
	esac
}

# vs_lock DIR: one run at a time per build folder; the scripts a run
# starts share its locks (VS_LOCKED, the folders it holds, one per
# line). make test holds the mainline folder for both of its legs,
# whose stages run side by side.
vs_lock() {
	local dir=$1 fd
	! grep -qxF -- "$dir" <<<"${VS_LOCKED:-}" || return 0
	mkdir -p "$dir"
	exec {fd}>"$dir/lock"
	flock -n "$fd" || vs_die "another run is using $dir (it holds $dir/lock); wait for it to finish"
	VS_LOCKED=${VS_LOCKED:+$VS_LOCKED$'\n'}$dir
	export VS_LOCKED
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
	local gd
	# Only the harness works in the scratch tree, and this run holds the
	# build folder's lock: a lock file there is a killed git's.
	gd=$(git -C "$VS_AM" rev-parse --absolute-git-dir)
	rm -f "$gd/index.lock" "$gd/HEAD.lock"
	git -C "$VS_AM" am --abort >/dev/null 2>&1 || rm -rf "$gd/rebase-apply"
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

# The area folders of this repository and the kernel folders they mirror,
# per tree. A file the trees share is in a top-level area folder; one
# that differs on mainline is in linux-7.3/<area>/, which comes first
# and wins (vs_area_files); 6.12's own stay at the top level.
VS_AREAS_MAINLINE=(linux-7.3/arch-x86-vdso:arch/x86/entry/vdso
		   arch-x86-include-asm-vdso:arch/x86/include/asm/vdso
		   linux-7.3/arch-arm64-vdso:arch/arm64/kernel/vdso
		   linux-7.3/arch-arm64-include-asm-vdso:arch/arm64/include/asm/vdso
		   linux-7.3/kernel-time:kernel/time kernel-time:kernel/time
		   linux-7.3/lib-vdso:lib/vdso include:include
		   tools-testing-selftests:tools/testing/selftests)
VS_AREAS_6_12=(arch-x86-vdso:arch/x86/entry/vdso
	       arch-x86-include-asm-vdso:arch/x86/include/asm/vdso
	       kernel-time:kernel/time lib-vdso:lib/vdso include:include
	       tools-testing-selftests:tools/testing/selftests)

# vs_area_files: print "AREA_FILE TREE_PATH" for every file of the
# areas, the first area that has a TREE_PATH winning.
vs_area_files() {
	local a dir kdir f areas=("${VS_AREAS_6_12[@]}")
	[[ -z $VS_MAINLINE ]] || areas=("${VS_AREAS_MAINLINE[@]}")
	for a in "${areas[@]}"; do
		dir=${a%%:*}
		kdir=${a#*:}
		[[ -d $VS_ROOT/$dir ]] || continue
		(cd "$VS_ROOT/$dir" && find . -type f | sort) | while read -r f; do
			printf '%s %s\n' "$dir/${f#./}" "$kdir/${f#./}"
		done
	done | awk '!seen[$2]++'
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

# vs_set_applied ID HEAD: record (atomically) that $VS_SRC is at HEAD,
# the series ID applied to the pristine tree. Only vs_checkout writes
# it, after the checkout it describes.
vs_set_applied() {
	printf '%s %s\n' "$1" "$2" >"$VS_BUILD/applied.new"
	mv "$VS_BUILD/applied.new" "$VS_BUILD/applied"
}

# vs_checkout REV [ID]: check REV out in $VS_SRC (detached) and, with
# ID, record it as the applied series ID. The checkout is journaled in
# $VS_BUILD/checkout first, so that one cut short by a signal is told
# apart from the user's own changes and finished by the next run
# (vs_recover_checkout); the record is written after the checkout.
vs_checkout() {
	local from to
	from=$(git -C "$VS_SRC" rev-parse HEAD)
	to=$(git -C "$VS_SRC" rev-parse "$1^{commit}")
	printf '%s %s %s\n' "$from" "$to" "${2:-}" >"$VS_BUILD/checkout.new"
	mv "$VS_BUILD/checkout.new" "$VS_BUILD/checkout"
	vs_git -C "$VS_SRC" checkout -q --detach "$to"
	[[ -z ${2:-} ]] || vs_set_applied "$2" "$to"
	rm -f "$VS_BUILD/checkout"
}

# vs_blob_matches PATH REV...: the work tree's PATH has the content it
# has in one of REV... (or is absent, as it is there).
vs_blob_matches() {
	local path=$1 rev want have=absent
	shift
	[[ ! -f $VS_SRC/$path && ! -L $VS_SRC/$path ]] ||
		have=$(git -C "$VS_SRC" hash-object --no-filters -- "$path")
	for rev in "$@"; do
		want=$(git -C "$VS_SRC" rev-parse -q --verify "$rev:$path" 2>/dev/null) || want=absent
		[[ $have != "$want" ]] || return 0
	done
	return 1
}

# vs_recover_checkout: a run was stopped during vs_checkout. Every path
# that differs in the work tree must hold what it holds in FROM or in TO
# (the harness's half-done checkout); then the checkout is finished. A
# path that holds anything else is someone's edit: refuse, name the
# paths, and say how to keep or drop them.
vs_recover_checkout() {
	local from to id path bad=()
	read -r from to id <"$VS_BUILD/checkout"
	# A git killed mid-write leaves its lock behind; this run holds the
	# build folder's lock, so no git of the harness is running there.
	rm -f "$VS_SRC/.git/index.lock" "$VS_SRC/.git/HEAD.lock"
	while read -r path; do
		[[ -n $path ]] || continue
		vs_blob_matches "$path" "$from" "$to" || bad+=("$path")
	done < <({ git -C "$VS_SRC" diff --name-only "$from" "$to"
		   git -C "$VS_SRC" status --porcelain --untracked-files=all --no-renames | cut -c4-; } |
		 sort -u)
	if ((${#bad[@]})); then
		vs_die "a run was stopped while it checked out $to in $VS_SRC, and these files hold changes that are neither its nor the commit's, so they are yours: ${bad[*]}; keep them with 'git -C $VS_SRC stash' or drop them with 'git -C $VS_SRC checkout -f $from', then run 'rm $VS_BUILD/checkout' and the command again"
	fi
	vs_stage "resuming the checkout of ${to:0:12} in $VS_SRC that a stopped run left half done"
	vs_git -C "$VS_SRC" checkout -q -f --detach "$to"
	[[ -z $id ]] || vs_set_applied "$id" "$to"
	rm -f "$VS_BUILD/checkout"
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
	source) [[ -e $VS_SRC/.git && -d $VS_AM ]] ||
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
# ccache (Debian package ccache) in the shared cache, so that checking
# out the commits of the series in turn, a second clone and a second
# flavour recompile only what is new. CCACHE_BASEDIR makes the paths
# relative to the build folder: two clones hit the same entries.
vs_kmake() {
	# x86-64 is configured and built with ARCH=x86, whatever the
	# environment says (the ARCH knob, or make test's mainline legs):
	# with ARCH=x86_64, tinyconfig is a 64-bit configuration already and
	# turns off the 64-bit options it may prompt for (vsyscall emulation,
	# IBT, protection keys, VMAP_STACK), which the 64BIT=y of the
	# fragments otherwise leaves at their defaults.
	local cc=${VS_CC:-gcc} archargs=(ARCH=x86)
	# arm64 is built with clang-19 (LLVM=-19), which targets it without
	# a cross gcc (Debian 12's conflicts with gcc-multilib).
	if [[ $VS_ARCH == arm64 ]]; then
		cc=clang-19
		archargs=(ARCH=arm64 LLVM=-19)
	fi
	if command -v ccache >/dev/null 2>&1; then
		vs_ccache_env
		cc="ccache $cc"
	fi
	make -C "$VS_SRC" O="$VS_OBJ" "${archargs[@]}" CC="$cc" "$@"
}

# The make target of the image QEMU boots, and the QEMU of $VS_ARCH.
vs_image_target() {
	[[ $VS_ARCH == arm64 ]] && echo Image || echo bzImage
}

vs_qemu_system() {
	[[ $VS_ARCH == arm64 ]] && echo qemu-system-aarch64 || echo qemu-system-x86_64
}

# ccache in depend mode (CCACHE_DEPEND): the key of an object is its
# command line and the files its dependency list names (Kbuild's
# -Wp,-MMD), so that a miss costs one compiler run. In its default mode
# a miss runs the preprocessor once more to hash its output: measured
# here on 7.3's fs/ and mm/, 35% more time than no ccache at all, 4.5%
# in depend mode; and a run from nothing misses on every object.
vs_ccache_env() {
	export CCACHE_DIR=$VS_CACHE/ccache CCACHE_BASEDIR=$VS_BUILD \
		CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G} \
		CCACHE_DEPEND=1
	mkdir -p "$CCACHE_DIR"
}

# vs_cache_put PATH KEY: move the finished entry PATH (a file or a
# folder) into the shared cache as KEY: one rename, so a reader sees all
# of it or nothing. When another run put a folder there first, that one
# stays and PATH is removed.
vs_cache_put() {
	local path=$1 dest=$VS_CACHE/$2
	mkdir -p "$(dirname "$dest")"
	mv -T "$path" "$dest" 2>/dev/null || rm -rf "$path"
}

# vs_cache_tmp KIND: a new temporary folder beside the entries of KIND,
# on the same file system, so that vs_cache_put is a rename. Those that
# runs stopped by a signal left behind a day ago are removed.
vs_cache_tmp() {
	mkdir -p "$VS_CACHE/$1"
	find "$VS_CACHE/$1" -maxdepth 1 -name '.tmp.*' -mmin +1440 -exec rm -rf {} + 2>/dev/null || true
	mktemp -d "$VS_CACHE/$1/.tmp.XXXXXX"
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

# Lines of a kernel log that mean the kernel is broken even when every
# test passed (results.sh; neighbours.sh compares them with stock's).
# shellcheck disable=SC2034 # for the scripts that source this file
VS_KERNEL_BAD='(WARNING:|BUG:|kernel BUG at|Oops|general protection fault|Kernel panic|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|Invalid wait context|Call Trace:|UBSAN:|INFO: task .* blocked)'

# The neighbours' suites: the kselftests of the code the series changes
# (seccomp, the time namespaces that share the vvar fault path, x86's
# vDSO mapping and [vvar], /proc's view of the mappings), built from the
# tree under test by kselftest's own build and run in the test boot as
# their own collections; COLLECTION:TEST, a TEST of '*' for all of them.
# shellcheck disable=SC2034 # for the scripts that source this file
VS_NEIGHBOURS=(seccomp:seccomp_bpf 'timens:*'
	       x86:test_mremap_vdso_32 x86:test_mremap_vdso_64
	       x86:test_vsyscall_32 x86:test_vsyscall_64 x86:test_syscall_vdso_32
	       x86:unwind_vdso_32 x86:vdso_restorer_32
	       proc:proc-pid-vm proc:proc-empty-vm)

# Neighbours' cases that the kselftest harness's own timeout (30 s a
# case) bounds under TCG, COLLECTION:TEST:CASE. seccomp_bpf's
# user_notification_wait_killable_after_reply makes 100000 notified
# calls under a 1 ms timer: measured here under TCG on 7.3 x86-64, 20.0,
# 22.3 and 25.6 s on stock, 28.1, 24.3 and 21.4 s with the series. The
# judge does not count such a case lost when the harness ended it by
# its timeout in both looks under TCG; any other failure counts.
# shellcheck disable=SC2034 # for the scripts that source this file
VS_NEIGHBOURS_TCG_SLOW=(seccomp:seccomp_bpf:global.user_notification_wait_killable_after_reply)

# The stages that prepare a guest, in order (make run, make test,
# make bench); each is scripts/<stage>.sh.
# shellcheck disable=SC2034 # for the scripts that source this file
VS_STAGES=(deps source apply kernel selftests glibc initramfs)

# The knobs: NAME=DEFAULT, what it does (and what it accepts).
VS_KNOBS=(
	"KSRC=|your kernel tree (a directory), copied to BUILD/ksrc-<name>-<hash>/; unset: Debian's linux-source-6.12"
	"KVER=6.12|the kernel tree and its series: 6.12 (Debian's linux-source-6.12, patches/) or 7.3 (mainline: Debian's linux-source-7.3 from trixie-backports, patches/7.3/); with KSRC, the series for that tree's version"
	"ARCH=|the architecture built and booted: x86_64 (or x86), or arm64 (KVER=7.3 only: cross-built, booted with qemu-system-aarch64); unset: x86_64"
	"BUILD=|the build root, an absolute path (no space, colon or comma); unset: build/ in this repository"
	"CACHE=|the shared build cache (ccache, per-commit builds, glibc) outside the clone, an absolute path; unset: \$XDG_CACHE_HOME/vsysinfo or ~/.cache/vsysinfo; 'make cache-clean' empties it"
	"PATCHES=|the series to apply (a directory); unset: patches/ in this repository"
	"ACCEL=|kvm or tcg; unset: probe KVM once, fall back to TCG"
	"JOBS=|parallel jobs of the kernel and glibc builds (1-256); unset: nproc"
	"TIMEOUT=900|seconds a guest boot may take (1-86400)"
	"PROBE_TIMEOUT=15|seconds the KVM probe may take (1-86400)"
	"GUEST_MEM=5G|guest RAM as QEMU's -m takes it, 256M to 64G (over 4 GiB for the 32-bit scaling)"
	"GUEST_APPEND=|more kernel command line for the test boots"
	"SKIP_COMMIT_BUILDS=|non-empty: make test builds only the series' last commit"
	"SKIP_SANITIZER=|non-empty: make test leaves out the debug kernel (lockdep, KCSAN, UBSAN)"
	"SKIP_MAINLINE=|non-empty: make test leaves out the series on Linux 7.3 (x86-64 and arm64)"
	"SKIP_GLIBC=|non-empty: no patched glibc is built or installed in the guest"
	"FLAVOUR=|bench, kcsan, rt or stock (nothing else): the benchmark kernel (set by make bench), the debug kernel with lockdep, KCSAN and UBSAN (make test's last boot), a PREEMPT_RT kernel (by hand: FLAVOUR=rt make kernel, then FLAVOUR=rt scripts/boot.sh test), or the pristine tree's kernel that the neighbours' suites are compared with (make neighbours-stock)"
	"BUSYBOX=/bin/busybox|the static busybox of the initramfs"
)

# Whether KVER was given (vs_kver reads the tree's version otherwise).
VS_KVER_SET=${VS_KVER_SET:-${KVER:+1}}
export VS_KVER_SET

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

# vs_knob_bad NAME ACCEPTED: refuse the knob's value.
vs_knob_bad() {
	vs_die "$1=${!1} cannot be used: $1 takes $2 (see 'make help')"
}

# vs_check_knobs: every knob has a value it can honour, checked when
# lib.sh is sourced, before any script installs, unpacks or builds.
vs_check_knobs() {
	local n
	case $KVER in
	6.12 | 7.3) ;;
	*) vs_knob_bad KVER "6.12 or 7.3: the trees a series is kept for (patches/, patches/7.3/)" ;;
	esac
	case ${ARCH:-} in
	'' | x86_64 | x86) ;;
	arm64) [[ $KVER == 7.3 ]] ||
		vs_knob_bad ARCH "x86_64 (or x86) on 6.12; arm64 needs KVER=7.3 (the series on 6.12 is x86's only)" ;;
	*) vs_knob_bad ARCH "x86_64 (or x86), or arm64 with KVER=7.3" ;;
	esac
	case ${ACCEL:-} in
	'' | kvm | tcg) ;;
	*) vs_knob_bad ACCEL "kvm or tcg, or nothing to probe" ;;
	esac
	case ${FLAVOUR:-} in
	'' | bench | kcsan | rt | stock) ;;
	*) vs_die "FLAVOUR=$FLAVOUR is not a kernel flavour: use bench, kcsan, rt or stock, or leave it unset" ;;
	esac
	for n in TIMEOUT PROBE_TIMEOUT; do
		[[ ${!n} =~ ^[1-9][0-9]{0,4}$ ]] && ((${!n} <= 86400)) ||
			vs_knob_bad "$n" "a number of seconds from 1 to 86400"
	done
	[[ -z ${JOBS:-} ]] || { [[ $JOBS =~ ^[1-9][0-9]{0,2}$ ]] && ((JOBS <= 256)); } ||
		vs_knob_bad JOBS "a number of jobs from 1 to 256, or nothing for nproc"
	if [[ $GUEST_MEM =~ ^([1-9][0-9]{0,5})([MG]?)$ ]]; then
		n=${BASH_REMATCH[1]}
		[[ ${BASH_REMATCH[2]} != G ]] || n=$((n * 1024))
		((n >= 256 && n <= 65536)) || vs_knob_bad GUEST_MEM "a size from 256M to 64G"
	else
		vs_knob_bad GUEST_MEM "a size from 256M to 64G: a number of MiB, or with M or G after it"
	fi
	[[ -z ${CACHE:-} || $CACHE == /* ]] || vs_knob_bad CACHE "an absolute path"
	[[ -z ${BUILD:-} || $BUILD == /* ]] || vs_knob_bad BUILD "an absolute path"
}
# The tree and architecture, resolved. A KSRC tree newer than 6.14 (no
# asm/vvar.h: the generic vDSO datastore) takes the mainline series.
vs_kver() {
	local v p
	if [[ -n ${KSRC:-} && -f $KSRC/Makefile && -z ${VS_KVER_SET:-} ]]; then
		v=$(sed -n 's/^VERSION = //p' "$KSRC/Makefile")
		p=$(sed -n 's/^PATCHLEVEL = //p' "$KSRC/Makefile")
		if [[ $v =~ ^[0-9]+$ && $p =~ ^[0-9]+$ ]] && ((v > 6 || (v == 6 && p >= 15))); then
			KVER=7.3
		fi
	fi
	VS_MAINLINE=
	[[ $KVER == 6.12 ]] || VS_MAINLINE=1
	VS_ARCH=${ARCH:-x86_64}
	[[ $VS_ARCH != x86 ]] || VS_ARCH=x86_64
	export KVER VS_MAINLINE VS_ARCH
}
vs_kver
[[ -n ${VS_NO_KNOB_CHECK:-} ]] || vs_check_knobs
# The neighbours' suites are judged against the stock kernel of the same
# tree and architecture. arm64 runs seccomp_bpf (linked with Debian's
# arm64 libcap, which make deps downloads) and the timens collection:
# the x86 suites are x86's, and /proc's mapping tests skip on arm64.
# shellcheck disable=SC2034 # for the scripts that source this file
[[ $VS_ARCH == x86_64 ]] || mapfile -t VS_NEIGHBOURS < <(printf '%s\n' "${VS_NEIGHBOURS[@]}" | grep -Ev '^(x86|proc):')


# JOBS, resolved; and the shared cache.
VS_JOBS=${JOBS:-$(nproc)}
VS_CACHE=${CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/vsysinfo}
export VS_JOBS VS_CACHE

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

# vs_args ACCEPTED ARGS...: the script's command line. -h or --help
# prints the usage; otherwise at most one argument, one of the words of
# ACCEPTED; anything else is refused before the script does anything.
vs_args() {
	local accepted=$1
	shift
	case "${1:-}" in
	-h|--help) vs_usage; exit 0 ;;
	esac
	(($# <= 1)) || vs_die "too many arguments to ${0##*/} ($*): it takes ${accepted:+one of: $accepted, or }none (see ${0##*/} -h)"
	(($# == 0)) || [[ " $accepted " == *" $1 "* ]] ||
		vs_die "unknown option or argument '$1' to ${0##*/}: it takes ${accepted:+one of: $accepted, or }none (see ${0##*/} -h)"
}

# The run's own signal handling: the outermost script of a run, on
# SIGINT, SIGTERM or SIGHUP, ends every process it started (make, git,
# QEMU), before it exits, so that no orphan holds the lock or the CPUs.
# They are its descendants, and every process whose environment has the
# run's VS_RUN_ID (so that one whose parent died first, a make whose
# script was killed, is found too). The outermost script runs its main
# in the background and waits for it (vs_main), so that a signal sent
# to it alone is acted on at once: bash runs a trap only between
# commands, and a wait is cut short. What a signal cuts short is finished
# or undone by the next run (vs_recover_checkout, the stamps written
# after what they describe).
# vs_descendants PID SELF: PID's descendants, but SELF (the subshell
# that asks) and what it runs.
vs_descendants() {
	local p
	for p in $(pgrep -P "$1" 2>/dev/null); do
		[[ $p != "$2" ]] || continue
		printf '%s\n' "$p"
		vs_descendants "$p" "$2"
	done
}

vs_run_pids() {
	local e p self=$BASHPID id=$VS_RUN_ID
	# Always called in a subshell: the tools below must not carry the id.
	unset VS_RUN_ID
	{
		vs_descendants "$$" "$self"
		for e in /proc/[0-9]*/environ; do
			p=${e#/proc/}
			p=${p%/environ}
			grep -qzx "VS_RUN_ID=$id" "$e" 2>/dev/null && printf '%s\n' "$p"
		done
	} | sort -u | grep -vx -e "$$" -e "$self" | paste -sd, |
		# Zombies are dead already: only their parent's wait removes them.
		xargs -r ps -o pid=,stat= -p | awk '$2 !~ /^Z/ { print $1 }' || true
}

vs_on_signal() {
	local sig=$1 code=$2 pids i
	trap '' INT TERM HUP
	mapfile -t pids < <(vs_run_pids)
	((${#pids[@]} == 0)) || kill -TERM "${pids[@]}" 2>/dev/null || true
	# Two seconds to end cleanly (make deletes what it left half
	# built), then no choice.
	for ((i = 0; i < 20; i++)); do
		mapfile -t pids < <(vs_run_pids)
		((${#pids[@]} != 0)) || break
		sleep 0.1
	done
	((${#pids[@]} == 0)) || kill -KILL "${pids[@]}" 2>/dev/null || true
	printf 'error: stopped by SIG%s; the next run picks up where this one stopped\n' "$sig" >&2
	exit "$code"
}

if [[ -z ${VS_TOP:-} ]]; then
	VS_RUN_ID=$$-$(date +%s%N)
	export VS_TOP=$$ VS_RUN_ID
	trap 'vs_on_signal INT 130' INT
	trap 'vs_on_signal TERM 143' TERM
	trap 'vs_on_signal HUP 129' HUP
fi

# vs_main ARGS...: the end of every script: main ARGS..., in the
# background (with the terminal as its input) when this script is the
# run's outermost, as said above.
vs_main() {
	if [[ $VS_TOP == "$$" ]]; then
		main "$@" 0<&0 &
		wait "$!"
	else
		main "$@"
	fi
}

# vs_time_log NAME SECONDS: one row of make test's closing table of
# stages and their minutes (kept in $VS_STAGE_TIMES when test.sh set it),
# under the mainline leg's row for KVER=7.3.
vs_time_log() {
	local tag=
	# A mainline leg's rows go under its own ("7.3 arm64: kernel: ...").
	[[ -z $VS_MAINLINE ]] || tag="$KVER $VS_ARCH: "
	[[ -z ${VS_STAGE_TIMES:-} ]] || printf '%s%s\t%s\n' "$tag" "$1" "$2" >>"$VS_STAGE_TIMES"
}

vs_want_help() {
	case "${1:-}" in
	-h|--help) vs_usage; exit 0 ;;
	esac
}
