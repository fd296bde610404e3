#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host-tests.sh: host-side checks of the harness and of the series.
#
# Usage: scripts/host-tests.sh [-h] [pre|post|last|series|all]
#
#   pre   checks that need only the source tree: shell lint, the TAP judge on the
#         recorded console logs in scripts/testdata/, the neighbours'
#         judge on made-up ones (NEIGHBOURS_REPLAY), usage and bad input
#         of the scripts (a KSRC that is not a kernel tree, a corrupted
#         patch, a missing tool, an unknown option to every script, a
#         bad value of every knob), runs of make source and make apply
#         stopped by signals at many points (harness-cases.sh; each next
#         run must succeed and leave src clean), patches/ up to date, checkpatch.pl
#         --strict on every patch, the same benchmark numbers in
#         README.md and in the cover letter, userspace/'s library test
#         on this machine's kernel (which has no __vdso_sysinfo: the
#         fallback path; skipped with the reason on a host that cannot
#         run it), a 32-bit program's loader found without running it
#   post  checks that need the built kernel and initramfs: no W=1
#         warning in the C files the series touches, every program of
#         the initramfs has its interpreter and libraries, and a guest that
#         panics or times out makes boot.sh fail with the console tail
#   last  after a guest run: the recorded console log that the judge's
#         tests start from (scripts/testdata/console-pass.log) has the
#         tests and plans of that run
#   series  the checks of the series and build of KVER and ARCH, named
#         after them (make test runs it for the mainline legs):
#         patches/<tree>/ up to date, checkpatch, clang-19 and W=1
#   all   pre, post and last (default)
#
# Prints one KTAP document (kselftest's ktap_helpers.sh): a result per
# check, the output of a failed check before it as "# " lines, the plan
# and the totals at the end. Exit status: 0 only if every check passed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
vs_args "pre post last series all" "$@"

S=$VS_ROOT/scripts
DATA=$S/testdata
# shellcheck source=scripts/harness-cases.sh
. "$S/harness-cases.sh"

# check NAME CMD...: one result, CMD must succeed. (set -e does not act
# inside it: a CMD of several steps must return on each failure.)
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ktap_test_pass "$name"
	else
		sed 's/^/#   /' <<<"$out" | tail -n 40
		ktap_test_fail "$name"
	fi
}

# check_if NEED NAME CMD...: like check, but a check that runs a program
# on this host first asks NEED (a function) whether the host can do what
# it needs; when not, the check is skipped with NEED's reason.
check_if() {
	local need=$1 name=$2 why
	shift 2
	if ! why=$("$need" 2>&1); then
		ktap_print_msg "$name: this host cannot run it: $why"
		ktap_test_skip "$name"
		return
	fi
	check "$name" "$@"
}

# expect STATUS PATTERN CMD...: CMD exits with STATUS and prints PATTERN.
expect() {
	local want=$1 pattern=$2 out rc=0
	shift 2
	out=$("$@" 2>&1) || rc=$?
	if [[ $rc != "$want" ]]; then
		printf 'exit status %s, expected %s; output:\n%s\n' "$rc" "$want" "$out"
		return 1
	fi
	if ! grep -qE -- "$pattern" <<<"$out"; then
		printf 'output lacks /%s/:\n%s\n' "$pattern" "$out"
		return 1
	fi
}

# A recorded console log of a real passing run, cut to what the judge
# reads ('make fixtures' records it anew); the failure kinds are made
# from it here, so that each differs from it in one way only.
PASS_LOG=$DATA/console-pass.log

# fixture KIND: print the recorded log turned into a run that fails
# (or skips) in one way.
fixture() {
	tr -d '\r' <"$PASS_LOG" | awk -v kind="$1" '
	function result() { return $0 ~ /^(not )?ok [0-9]+ / }
	kind == "fail" && !result() { buf[nb++] = $0; next }
	kind == "fail" {
		abi = ($0 ~ /vdso_test_abi$/)
		for (k = 0; k < nb; k++) {
			l = buf[k]
			if (abi && !flipped && l ~ /^# ok /) { sub(/^# ok /, "# not ok ", l); flipped = 1 }
			print l
		}
		nb = 0
		print (abi ? "not " $0 " # exit=1" : $0)
		next
	}
	kind == "skip" && result() && /vdso_test_getcpu$/ { print $0 " # SKIP not here"; next }
	kind == "panic" && /^VSYSINFO-INIT/ { print; print "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100"; exit }
	kind == "truncated" && result() && ++n == 5 { print; exit }
	kind == "short-plan" && result() && !dropped { dropped = 1; next }
	kind == "warning" && /^VSYSINFO-DMESG-BEGIN/ { print; print "[    1.000000] WARNING: CPU: 0 PID: 1 at kernel/time/vsysinfo.c:160 vdso_sysinfo_update+0x10/0x100"; next }
	{ print }
	END { for (k = 0; k < nb; k++) print buf[k] }'
}

# judge KIND: results.sh on that fixture.
judge() {
	local f rc=0
	f=$(mktemp)
	fixture "$1" >"$f"
	"$S/results.sh" "$f" || rc=$?
	rm -f "$f"
	return "$rc"
}

results_cases() {
	check "results: all tests pass" \
		expect 0 '^# guest: [0-9]+ passed, 0 failed, 0 skipped' judge pass
	check "results: a failing test fails the run" \
		expect 1 '^not ok [0-9]+ vDSO: vdso_test_abi$' judge fail
	check "results: a failing test's own output is printed" \
		expect 1 '^#   # not ok [0-9]+ ' judge fail
	check "results: a skipped test is counted, not failed" \
		expect 0 '^# guest: [0-9]+ passed, 0 failed, 1 skipped' judge skip
	check "results: a kernel panic fails the run" \
		expect 1 '^not ok [0-9]+ guest run: no KTAP output' judge panic
	check "results: a truncated run fails" \
		expect 1 'the KTAP output stops after 5 results' judge truncated
	check "results: fewer results than the plan fails" \
		expect 1 'the plan announced ([0-9]+) results, got [0-9]+' judge short-plan
	check "results: a WARNING in the kernel log fails a run whose tests pass" \
		expect 1 '^not ok [0-9]+ kernel log' judge warning
}

# neighbours_log LINE...: a console log of the neighbours' boot in
# which seccomp_bpf printed those lines (its cases and its result).
neighbours_log() {
	printf '%s\n' VSYSINFO-KTAP-BEGIN '# selftests: seccomp: seccomp_bpf' "$@" \
		VSYSINFO-KTAP-END VSYSINFO-DMESG-BEGIN VSYSINFO-DMESG-END
}

# neighbours_replay FIRST AGAIN: neighbours.sh judge (NEIGHBOURS_REPLAY)
# on a stock record where seccomp_bpf passes, as on arm64 (a case
# skipped), and two looks in which its TCG-bound case (VS_NEIGHBOURS_
# TCG_SLOW) fails: ended by the kselftest harness's timeout (timeout),
# by an assertion (assert), or by the timeout while the skipped case
# fails (other).
neighbours_replay() {
	local d rc=0 kind suffix="" slow=global.user_notification_wait_killable_after_reply
	d=$(mktemp -d)
	printf '%s\n' '# key replay' "# The neighbours' suites, made up (host-tests.sh)" \
		$'seccomp:seccomp_bpf\tP' $'seccomp:seccomp_bpf:global.KILL_one\tP' \
		"seccomp:seccomp_bpf:$slow"$'\tP' $'seccomp:seccomp_bpf:UPROBE.not_attached\tS' >"$d/record"
	for kind in "$@"; do
		local why="# # ${slow#global.}: Test terminated by timeout" uprobe="# ok 3 UPROBE.not_attached # SKIP"
		[[ $kind != assert ]] || why="# # seccomp_bpf.c:4321:${slow#global.}:Expected 0 (0) == ret (-1)"
		[[ $kind != other ]] || uprobe="# not ok 3 UPROBE.not_attached"
		neighbours_log '# ok 1 global.KILL_one' "$why" "# not ok 2 $slow" "$uprobe" \
			'not ok 1 selftests: seccomp: seccomp_bpf # exit=1' \
			>"$d/console-test-neighbours$suffix.log"
		suffix=-again
	done
	NEIGHBOURS_REPLAY=$d ACCEL=tcg "$S/neighbours.sh" judge || rc=$?
	rm -rf "$d"
	return "$rc"
}

neighbours_cases() {
	local name="^(not )?ok 1 neighbours: seccomp: seccomp_bpf: passes what it passes on stock"
	check "neighbours: a case TCG's timing ends in both looks, the program's only failure, is not counted" \
		expect 0 "${name/(not )?/}" neighbours_replay timeout timeout
	check "neighbours: that case failing by an assertion in one look counts" \
		expect 1 "${name/(not )?/not }" neighbours_replay timeout assert
	check "neighbours: a case skipped on stock that fails beside it counts" \
		expect 1 "lost again:\(the program itself\); its failing cases there: \[UPROBE" \
		neighbours_replay timeout other
}

# The plans and result names of a console log's KTAP, nested ones too.
ktap_shape() {
	tr -d '\r' <"$1" | sed -n '/VSYSINFO-KTAP-BEGIN/,/VSYSINFO-KTAP-END/p' |
		sed -nE 's/^((# )*)(1\.\.[0-9]+).*/\1\3/p; s/^((# )*)(not )?ok [0-9]+ ([^#]*[^ #]).*/\1\4/p'
}

# The recorded log must have the plans and results of this run's guest.
fixture_current() {
	local run=$VS_LOGS/console-test.log
	[[ -f $run ]] || { echo "no guest run yet ($run)"; return 1; }
	diff -u <(ktap_shape "$PASS_LOG") <(ktap_shape "$run") || {
		echo "$PASS_LOG does not match this run's tests: run 'make fixtures'"
		return 1
	}
}

usage_cases() {
	local s
	for s in deps source apply kernel selftests initramfs boot results patches bench host-tests test run fixtures cache glibc neighbours; do
		check "usage: scripts/$s.sh -h" expect 0 '^Usage: scripts/' "$S/$s.sh" -h
	done
}

bad_ksrc() {
	local d rc=0
	d=$(mktemp -d)
	expect 1 "KSRC=$d is not a Linux kernel source tree" env KSRC="$d" BUILD="$d/build" "$S/source.sh" || rc=1
	expect 1 'is not a directory' env KSRC="$d/missing" BUILD="$d/build" "$S/source.sh" || rc=1
	rm -rf "$d"
	return "$rc"
}

# An unknown kernel flavour is refused before anything is built.
bad_flavour() {
	local d rc=0
	d=$(mktemp -d)
	expect 1 'FLAVOUR=kasan is not a kernel flavour' env FLAVOUR=kasan BUILD="$d/build" "$S/kernel.sh" || rc=1
	[[ ! -e $d/build ]] || { echo "# $d/build was created" && rc=1; }
	rm -rf "$d"
	return "$rc"
}

# A patch whose hunk no longer matches: named, and nothing changed.
corrupted_patch() {
	local d head applied p rc=0
	d=$(mktemp -d)
	cp "$VS_PATCHES"/*.patch "$d/"
	p=$(basename "$(vs_series | sed -n 2p)")
	sed -i '0,/^@@ .*/s//@@ -1,3 +1,4 @@ corrupted/' "$d/$p"
	sed -i '0,/^ /s/^ /  garbage/' "$d/$p"
	head=$(git -C "$VS_SRC" rev-parse HEAD)
	applied=$(cat "$VS_BUILD/applied" 2>/dev/null || true)
	expect 1 "patch .*$p does not apply to Linux [0-9.]+" env PATCHES="$d" "$S/apply.sh" || rc=1
	rm -rf "$d"
	((rc == 0)) || return 1
	[[ $(git -C "$VS_SRC" rev-parse HEAD) == "$head" ]] || { echo "src HEAD moved"; return 1; }
	[[ $(cat "$VS_BUILD/applied" 2>/dev/null || true) == "$applied" ]] || { echo "applied record changed"; return 1; }
	[[ -z $(git -C "$VS_SRC" status --porcelain --untracked-files=no) ]] || { echo "src left dirty"; return 1; }
}

# boot.sh without QEMU on PATH must name the package.
missing_tool() {
	local d f rc=0
	d=$(mktemp -d)
	for f in /usr/bin/* /bin/*; do
		[[ $(basename "$f") == qemu-system-x86_64 ]] && continue
		ln -sf "$f" "$d/" 2>/dev/null || true
	done
	expect 1 "install Debian package 'qemu-system-x86'" env PATH="$d" "$S/boot.sh" test || rc=1
	rm -rf "$d"
	return "$rc"
}

# A 32-bit dynamic program gets its interpreter and libc from
# vs_elf_deps (what initramfs.sh packs) without being run: it is not
# executable, and ldd fails as on a host without IA32 emulation.
elf_deps_32bit() {
	local d out rc=0
	d=$(mktemp -d)
	printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' >"$d/t.c"
	gcc -m32 -o "$d/t32" "$d/t.c" || { rm -rf "$d"; echo "gcc -m32 failed: install gcc-multilib"; return 1; }
	chmod a-x "$d/t32"
	printf '#!/bin/sh\necho "\tnot a dynamic executable"; exit 1\n' >"$d/ldd"
	chmod +x "$d/ldd"
	out=$(PATH="$d:$PATH" vs_elf_deps "$d/t32") || rc=1
	rm -rf "$d"
	((rc == 0)) || return 1
	printf '%s\n' "$out"
	grep -qx /lib/ld-linux.so.2 <<<"$out" || { echo "no /lib/ld-linux.so.2"; return 1; }
	grep -q '/libc\.so\.6$' <<<"$out" || { echo "no libc.so.6"; return 1; }
	while read -r f; do
		[[ $(vs_elf_abi "$f") == i386 ]] || { echo "$f is not an i386 ELF file"; return 1; }
	done <<<"$out"
}

# Every ELF program and library in the packed initramfs finds its
# interpreter and libraries inside it (as the guest's loader looks).
initramfs_complete() {
	local root=$VS_BUILD/initramfs progs n32
	[[ -d $root/kselftest ]] || { echo "no unpacked initramfs in $root"; return 1; }
	mapfile -t progs < <(find "$root" -type f \( -perm -u+x -o -name '*.so*' \))
	VS_ELF_ROOT=$root vs_elf_deps "${progs[@]}" >/dev/null || return 1
	# The 32-bit kselftest is there and dynamic: its loader came along.
	n32=$(find "$root/kselftest" -type f -name '*_32' | wc -l)
	if ((n32 > 0)); then
		[[ -f $root/lib/ld-linux.so.2 ]] || { echo "32-bit tests but no /lib/ld-linux.so.2"; return 1; }
	fi
}

# userspace/'s library test runs on this host: an x86-64 program that
# installs a seccomp filter and looks into the vDSO that the host kernel
# maps (AT_SYSINFO_EHDR).
host_runs_userspace_test() {
	[[ $(uname -m) == x86_64 ]] || { echo "it is an x86-64 program and this host is $(uname -m)"; return 1; }
	[[ -e /proc/sys/kernel/seccomp/actions_avail ]] ||
		{ echo "the host kernel has no seccomp filters (CONFIG_SECCOMP_FILTER)"; return 1; }
	LD_SHOW_AUXV=1 /bin/true | grep -q '^AT_SYSINFO_EHDR:' ||
		{ echo "the host kernel maps no vDSO (AT_SYSINFO_EHDR)"; return 1; }
}

# checkpatch.pl --strict on every patch, $VS_JOBS at a time.
checkpatch() {
	local p d n=0 rc=0
	d=$(mktemp -d)
	while read -r p; do
		# Debian's python3 has ply and git for scripts/spdxcheck.py.
		(cd "$VS_SRC" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict "$p" \
			>"$d/$(basename "$p").out" 2>&1) &
		n=$((n + 1))
		((n % VS_JOBS)) || wait
	done < <(vs_series)
	wait
	for p in "$d"/*.out; do
		[[ -e $p ]] || continue
		if ! grep -q 'total: 0 errors, 0 warnings, 0 checks' "$p"; then
			printf '%s:\n%s\n' "$(basename "$p" .out)" "$(cat "$p")"
			rc=1
		fi
	done
	rm -rf "$d"
	return "$rc"
}

# The benchmark numbers in README.md and in the cover letter are the
# same run's (make bench writes both).
bench_block() {
	FIRST=$VS_BENCH_FIRST LAST=$VS_BENCH_LAST awk '
	     $0 ~ ENVIRON["FIRST"] && !done { f = 1 } f { print }
	     f && index($0, ENVIRON["LAST"]) { f = 0; done = 1 }
	     /^The writer adds / { print }' "$1"
}

bench_numbers_agree() {
	local readme cover
	readme=$(bench_block "$VS_ROOT/README.md")
	cover=$(bench_block "$VS_PATCHES/0000-cover-letter.patch")
	grep -qF "$VS_BENCH_LAST" <<<"$readme" || { echo "README.md has no benchmark table"; return 1; }
	[[ $readme == "$cover" ]] || {
		printf 'README.md:\n%s\ncover letter:\n%s\nrun make bench\n' "$readme" "$cover"
		return 1
	}
}

# Shell lint: every script parses, and shellcheck finds no warning; the
# guest's scripts as POSIX sh (busybox runs them).
lint() (
	local f rc=0 guest
	cd "$VS_ROOT"
	guest=(userspace/tests/*.sh userspace/bench/*.sh glibc/tests/*.sh glibc/bench/*.sh)
	for f in scripts/*.sh .ci/run; do
		bash -n "$f" || rc=1
	done
	for f in "${guest[@]}"; do
		sh -n "$f" || rc=1
	done
	shellcheck -x -S warning scripts/*.sh .ci/run || rc=1
	shellcheck -s sh -S warning "${guest[@]}" || rc=1
	return "$rc"
)

# glibc/: one patch as git format-patch writes it, signed off, which
# adds the binding, its test, and touches nothing outside sysdeps/.
glibc_patch_form() {
	local p n
	n=$(find "$VS_ROOT/glibc" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' | wc -l)
	((n >= 1)) || { echo "no NNNN-*.patch in glibc/"; return 1; }
	for p in "$VS_ROOT"/glibc/[0-9][0-9][0-9][0-9]-*.patch; do
		grep -qE '^From [0-9a-f]{40} ' "$p" || { echo "$p: not git format-patch output"; return 1; }
		grep -q '^Signed-off-by: ' "$p" || { echo "$p: no Signed-off-by"; return 1; }
		if grep -E '^\+\+\+ b/' "$p" | grep -v '^+++ b/sysdeps/'; then
			echo "$p: changes files outside sysdeps/ (above)"
			return 1
		fi
	done
	grep -h '^+++ b/' "$VS_ROOT"/glibc/[0-9][0-9][0-9][0-9]-*.patch | sort >"$VS_BUILD/glibc-files"
	for p in sysdeps/unix/sysv/linux/sysinfo.c sysdeps/unix/sysv/linux/dl-vdso-setup.h \
		 sysdeps/unix/sysv/linux/x86_64/sysdep.h sysdeps/unix/sysv/linux/x86/tst-sysinfo-vdso.c; do
		grep -qx "+++ b/$p" "$VS_BUILD/glibc-files" || { echo "the glibc patch does not touch $p"; return 1; }
	done
}

pre() {
	check "lint: sh -n or bash -n and shellcheck -S warning on every script" lint
	results_cases
	neighbours_cases
	usage_cases
	check "the benchmark numbers in README.md and the cover letter agree" bench_numbers_agree
	check "bad input: a KSRC that is not a kernel tree is refused" bad_ksrc
	check "bad input: an unknown FLAVOUR is refused" bad_flavour
	check "bad input: a missing tool names its Debian package" missing_tool
	check "bad input: a corrupted patch is named and changes nothing" corrupted_patch
	bad_input_cases
	interrupt_cases
	check "patches/ is up to date with the area folders" "$S/patches.sh" --check
	check "glibc/: a signed-off git format-patch series of the binding and its test" glibc_patch_form
	check "checkpatch.pl --strict: 0 errors, 0 warnings, 0 checks" checkpatch
	check "initramfs: a 32-bit dynamic program brings its interpreter without being run" elf_deps_32bit
	check "userspace: the libraries build without a kernel tree" \
		make -s -C "$VS_ROOT/userspace" all KDIR=/nonexistent O="$VS_BUILD/userspace-nokdir"
}

# Compile the series' C files again with W=1; keep the old objects when
# the result is identical so that the next build does not relink.
w1_clean() {
	local f o target out rc=0 sources=0 checked=0
	while read -r f; do
		[[ $f == *.c && $f != tools/* ]] || continue
		# arm64's vDSO objects get the reader (-include) only in the
		# vDSO image's build, which the W=1 kernel build itself runs.
		[[ $f != arch/arm64/kernel/vdso/* ]] || continue
		sources=$((sources + 1))
		o=${f%.c}.o
		[[ -f $VS_OBJ/$o ]] || continue
		checked=$((checked + 1))
		cp -p "$VS_OBJ/$o" "$VS_OBJ/$o.w1-saved"
		rm -f "$VS_OBJ/$o"
		# A 32-bit vDSO object gets its flags only as part of vdso32.so.
		target=$o
		[[ $f != arch/x86/entry/vdso/vdso32/* ]] || target=arch/x86/entry/vdso/
		out=$(vs_kmake -s W=1 "$target" 2>&1) || rc=1
		if cmp -s "$VS_OBJ/$o" "$VS_OBJ/$o.w1-saved"; then
			mv "$VS_OBJ/$o.w1-saved" "$VS_OBJ/$o"
		else
			rm -f "$VS_OBJ/$o.w1-saved"
		fi
		if [[ -n $out ]]; then
			printf '%s:\n%s\n' "$f" "$out"
			rc=1
		fi
	done < <(git -C "$VS_SRC" diff --name-only pristine HEAD)
	# A series with C files that the test kernel does not build would
	# pass this check without checking anything.
	if ((sources > 0 && checked == 0)); then
		printf 'none of the %d C files the series touches is built in %s\n' "$sources" "$VS_OBJ"
		rc=1
	fi
	return "$rc"
}

# clang (LLVM=1), W=1: the series' kernel objects and the vDSOs that
# include its reader, built in build/<tree>/obj-clang from the test
# kernel's configuration (clang 14 disables the x32 ABI: llvm-objcopy
# cannot make x32 objects). The vDSO link fails on any undefined symbol,
# such as a libgcc division a 32-bit build may call.
clang_build() {
	local f targets=() out clang=$VS_BUILD/obj-clang cc=clang llvm=1
	# Mainline needs clang 17 or later: Debian 12's clang-19.
	if [[ -n $VS_MAINLINE ]]; then
		cc=clang-19 llvm=-19
		vs_need clang-19 clang-19
		vs_need ld.lld-19 lld-19
	else
		vs_need clang clang
		vs_need ld.lld lld
		vs_need llvm-objcopy llvm
	fi
	mkdir -p "$clang"
	cp "$VS_OBJ/.config" "$clang/.config"
	while read -r f; do
		[[ $f == *.c && $f != tools/* && $f != arch/x86/entry/vdso/* && $f != lib/vdso/* &&
		   $f != arch/arm64/* ]] ||
			continue
		targets+=("${f%.c}.o")
	done < <(git -C "$VS_SRC" diff --name-only pristine HEAD)
	targets+=(arch/x86/entry/vdso/)
	out=$(VS_OBJ=$clang VS_CC=$cc vs_kmake -s LLVM=$llvm olddefconfig 2>&1 &&
		VS_OBJ=$clang VS_CC=$cc vs_kmake -s LLVM=$llvm W=1 -j"$VS_JOBS" "${targets[@]}" 2>&1) || {
		printf '%s\n' "$out"
		return 1
	}
	[[ -z $out ]] || { printf '%s\n' "$out"; return 1; }
	# Mainline builds each vDSO in a folder of its own.
	for f in vdso64.so vdso32.so; do
		[[ -z $VS_MAINLINE ]] || f=${f%.so}/$f
		[[ -s $clang/arch/x86/entry/vdso/$f ]] || { echo "clang built no $f"; return 1; }
	done
	printf 'built with clang: %s\n' "${targets[*]}"
}

# The layout without CONFIG_VDSO_SYSINFO must be the pristine tree's:
# the vDSOs and the kernel's linker script are built in
# build/<tree>/obj-nosysinfo (the test kernel's configuration with the
# option off), and the vDSO's vvar area (vvar_start) and the kernel's
# .vvar (its end in vmlinux.lds) are compared with what the pristine
# sources say; there must be no sysinfo page and no __vdso_sysinfo. The
# result is kept in the cache under what decides it (the vDSO folder,
# the vvar and linker script headers, the Kconfig files, the
# configuration, the compiler), so a change elsewhere costs nothing.
layout_off() {
	local dir=$VS_BUILD/obj-nosysinfo key entry f out want got size tmp
	local deps=(arch/x86/entry/vdso arch/x86/include/asm/vvar.h
		    arch/x86/include/asm/vdso.h arch/x86/kernel/vmlinux.lds.S
		    arch/x86/Kconfig lib/vdso/Kconfig)
	key=$({
		for f in "${deps[@]}"; do git -C "$VS_SRC" rev-parse "HEAD:$f"; done
		grep -v '^#' "$VS_OBJ/.config"
		gcc --version | head -n 1
		declare -f layout_off
	} | sha1sum | cut -c1-40)
	entry=$VS_CACHE/layout-off/$key
	if [[ -f $entry ]]; then
		cat "$entry"
		return 0
	fi
	mkdir -p "$dir"
	cp "$VS_OBJ/.config" "$dir/.config"
	"$VS_SRC/scripts/config" --file "$dir/.config" -d VDSO_SYSINFO
	out=$(VS_OBJ=$dir vs_kmake -s olddefconfig 2>&1 &&
		VS_OBJ=$dir vs_kmake -s -j"$VS_JOBS" arch/x86/entry/vdso/ arch/x86/kernel/vmlinux.lds 2>&1) ||
		{ printf '%s\n' "$out"; return 1; }
	! grep -q '^CONFIG_VDSO_SYSINFO=y' "$dir/.config" ||
		{ echo "CONFIG_VDSO_SYSINFO could not be switched off"; return 1; }
	want=$(git -C "$VS_SRC" show pristine:arch/x86/entry/vdso/vdso-layout.lds.S |
		sed -n 's/.*vvar_start = \. - \([0-9]*\) \* PAGE_SIZE;.*/\1/p')
	got=$(nm "$dir/arch/x86/entry/vdso/vdso64.so.dbg" | awk '$3 == "vvar_start" { print $1 }')
	[[ -n $want && -n $got ]] || { echo "no vvar_start in the pristine layout or the built vDSO"; return 1; }
	# A negative offset from the image, as 64 bits: bash wraps it back.
	got=$((-0x$got / 4096))
	[[ $got == "$want" ]] ||
		{ echo "the vDSO's vvar area is $got pages without the option, $want in the pristine tree"; return 1; }
	if nm "$dir/arch/x86/entry/vdso/vdso64.so.dbg" | grep -qw 'sysinfo_page\|__vdso_sysinfo'; then
		echo "the vDSO built without the option has sysinfo in it"; return 1
	fi
	git -C "$VS_SRC" show pristine:arch/x86/kernel/vmlinux.lds.S | grep -q '__vvar_beginning_hack + PAGE_SIZE;' ||
		{ echo "the pristine vmlinux.lds.S does not end .vvar one page in"; return 1; }
	# The padding's line ends there; the variables' lines go on.
	size=$(sed -n 's/^ *\. = __vvar_beginning_hack + \(.*\);$/\1/p' "$dir/arch/x86/kernel/vmlinux.lds" |
		tail -n 1 | sed 's/\([0-9]\)UL*/\1/g')
	[[ -n $size ]] && (($size == 4096)) ||
		{ echo ".vvar ends at __vvar_beginning_hack + ${size:-?} without the option, one page in the pristine tree"; return 1; }
	tmp=$(vs_cache_tmp layout-off)
	printf 'without CONFIG_VDSO_SYSINFO: [vvar] %s pages and .vvar one page, as in the pristine tree; no sysinfo in the vDSO\n' "$got" >"$tmp/result"
	cat "$tmp/result"
	vs_cache_put "$tmp/result" "layout-off/$key"
	rmdir "$tmp"
}

guest_panic() {
	local out rc=0 pattern
	out=$(env -u VS_STAGE_TIMES ACCEL=tcg GUEST_APPEND="rdinit=/vsysinfo-no-such-init" \
		"$S/boot.sh" test 2>&1) || rc=$?
	[[ $rc == 1 ]] || { printf 'exit status %s, expected 1:\n%s\n' "$rc" "$out"; return 1; }
	for pattern in 'the guest kernel panicked' 'last 30 console lines' 'Kernel panic - not syncing'; do
		grep -qF -- "$pattern" <<<"$out" || { printf 'output lacks "%s":\n%s\n' "$pattern" "$out"; return 1; }
	done
}

guest_timeout() {
	expect 1 'did not finish within 2s' env -u VS_STAGE_TIMES ACCEL=tcg TIMEOUT=2 "$S/boot.sh" test
}

post() {
	# After apply: the test links the series' vdso_sysinfo_helpers.c
	check_if host_runs_userspace_test "userspace: the library's test passes on the host (its fallback path)" \
		make -s -C "$VS_ROOT/userspace" check KDIR="$VS_SRC" O="$VS_BUILD/userspace-host"
	check "W=1: no warning in the C files the series touches" w1_clean
	check "clang (LLVM=1, W=1): the series' objects and the vDSOs build, no warning" clang_build
	check "without CONFIG_VDSO_SYSINFO the vvar layouts are the pristine tree's" layout_off
	check "initramfs: every program finds its interpreter and libraries in it" initramfs_complete
	check "guest failure: a kernel panic fails boot.sh with the console tail" guest_panic
	check "guest failure: a timeout fails boot.sh with the console tail" guest_timeout
}

last() {
	check "the recorded console log has this run's tests and plans" fixture_current
}

# series: the checks of one tree's series and one architecture's build
# (KVER, ARCH), named after them: make test runs it for 7.3 on x86-64,
# after the build, and on arm64, where the build itself is clang-19's.
series() {
	local tag="$KVER $VS_ARCH"
	if [[ $VS_ARCH == x86_64 ]]; then
		check "$tag: patches/$KVER is up to date with the area folders" "$S/patches.sh" --check
		check "$tag: checkpatch.pl --strict: 0 errors, 0 warnings, 0 checks" checkpatch
		check "$tag: clang-19 (LLVM=-19, W=1): the series' objects and the vDSOs build, no warning" \
			clang_build
	fi
	check "$tag: W=1: no warning in the C files the series touches" w1_clean
}

main() {
	local what=${1:-all}
	vs_init
	case "$what" in
	pre|post|last|all|series) ;;
	*) vs_usage; vs_die "unknown group '$what': use pre, post, last, series or all" ;;
	esac
	vs_ktap
	ktap_print_header
	# A check group that stops half way must not pass for a short one.
	trap 'ktap_test_fail "host checks ($what): ran to the end (this script stopped at the check after $((KTAP_TESTNO - 1)))"' EXIT
	case "$what" in
	pre) pre ;;
	post) post ;;
	last) last ;;
	series) series ;;
	all) pre; post; last ;;
	esac
	trap - EXIT
	ktap_set_plan $((KTAP_TESTNO - 1))
	ktap_print_totals
	((KTAP_CNT_FAIL == 0))
}

vs_main "$@"
