// SPDX-License-Identifier: GPL-2.0
/*
 * vsysinfo_lookup.c: the library's vDSO lookup (lib/vdso_lookup.c, hidden
 * inside it, so this test builds in its own copy) against the kernel
 * tree's reference parser, tools/testing/selftests/vDSO/parse_vdso.c
 * (vdso_sym()), and glibc's dlvsym(): in the running vDSO and in copies
 * of it that have only one of the two hash tables, no LINUX_2.6, or
 * symbols of every kind. Part of the vsysinfo_lib test program.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kselftest.h"
#include "parse_vdso.h"
#include "vdso_lookup.h"
#include "vsysinfo_lib.h"

/* The names the library's lookup is checked with, all version LINUX_2.6 */
static const char *const lookup_names[] = {
	"__vdso_sysinfo", "__vdso_clock_gettime", "__vdso_gettimeofday",
	"__vdso_time", "__vdso_getcpu", "__vdso_clock_getres",
	"sysinfo",	/* the series' weak alias of __vdso_sysinfo */
};

/* The name case_lookup_name() checks */
static const char *lookup_name;

static int case_lookup_name(void)
{
	void *ref, *got, *glibc;

	ref = image_sym((unsigned char *)vdso_start, lookup_name);
	got = vdso_lookup(vdso_start, "LINUX_2.6", lookup_name);
	glibc = dlvsym(vdso_handle, lookup_name, "LINUX_2.6");
	ksft_print_msg("%s: vdso_lookup() %p, parse_vdso %p, dlvsym() %p\n",
		       lookup_name, got, ref, glibc);
	if (got != ref)
		child_fail("vdso_lookup() and parse_vdso's vdso_sym() disagree\n");
	/* So that both NULL means that the vDSO has no such function */
	if (!ref != !glibc)
		child_fail("parse_vdso and glibc disagree on whether the vDSO has it\n");
	return KSFT_PASS;
}

static int case_lookup_misses(void)
{
	static const char *const misses[][2] = {
		{ "LINUX_2.6", "__vdso_no_such_function" },
		{ "LINUX_2.6", "" },
		{ "LINUX_9.9", "__vdso_clock_gettime" },
		{ "LINUX_9.9", "__vdso_sysinfo" },
		{ "LINUX_2.", "__vdso_clock_gettime" },
		/* an STT_OBJECT symbol (the version's own, SHN_ABS) */
		{ "LINUX_2.6", "LINUX_2.6" },
		/* the version definition of the vDSO itself (VER_FLG_BASE) */
		{ "linux-vdso.so.1", "__vdso_clock_gettime" },
	};
	unsigned int i;
	void *got, *ref;

	if (!vdso_lookup(vdso_start, "LINUX_2.6", "__vdso_clock_gettime"))
		child_fail("vdso_lookup() does not find __vdso_clock_gettime@LINUX_2.6\n");
	for (i = 0; i < ARRAY_SIZE(misses); i++) {
		got = vdso_lookup(vdso_start, misses[i][0], misses[i][1]);
		ref = ref_sym(vdso_start, misses[i][0], misses[i][1]);
		if (got || ref)
			child_fail("\"%s\"@%s: vdso_lookup() %p, parse_vdso %p, not NULL\n",
				   misses[i][1], misses[i][0], got, ref);
	}
	if (vdso_lookup(0, "LINUX_2.6", "__vdso_clock_gettime"))
		child_fail("vdso_lookup() found something at base 0\n");
	return KSFT_PASS;
}

/* Where the copy @img has what the vDSO has at link-time address @vaddr */
static void *in_copy(unsigned char *img, ElfW(Addr) vaddr)
{
	return img + (vdso_bias + vaddr - vdso_start);
}

/* The dynamic entry @tag of the copy @img (of the vDSO, for vdso_start) */
static ElfW(Dyn) *copy_dynamic(unsigned char *img, ElfW(Sxword) tag)
{
	ElfW(Dyn) *dyn = (ElfW(Dyn) *)(img + ((uintptr_t)vdso_dynamic - vdso_start));

	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == tag)
			return dyn;
	}
	return NULL;
}

/* A copy of the vDSO whose dynamic entry @tag is made a DT_DEBUG one */
static unsigned char *copy_without(ElfW(Sxword) tag)
{
	unsigned char *img = copy_vdso();
	ElfW(Dyn) *dyn = copy_dynamic(img, tag);

	if (!dyn)
		return NULL;
	dyn->d_tag = DT_DEBUG;
	return img;
}

/* A copy of the vDSO whose version definition @version is flagged VER_FLG_BASE */
static unsigned char *copy_as_base_version(const char *version)
{
	unsigned char *img = copy_vdso();
	ElfW(Dyn) *verdef = copy_dynamic(img, DT_VERDEF), *strtab = copy_dynamic(img, DT_STRTAB);
	ElfW(Verdef) *def;
	ElfW(Verdaux) *aux;

	if (!verdef || !strtab)
		return NULL;
	def = in_copy(img, verdef->d_un.d_ptr);
	while (def) {
		aux = (ElfW(Verdaux) *)((char *)def + def->vd_aux);
		if (!strcmp((char *)in_copy(img, strtab->d_un.d_ptr) + aux->vda_name, version)) {
			def->vd_flags |= VER_FLG_BASE;
			return img;
		}
		def = def->vd_next ? (ElfW(Verdef) *)((char *)def + def->vd_next) : NULL;
	}
	return NULL;
}

/* The copy @img's symbol table entry named @name (any version), or NULL */
static ElfW(Sym) *copy_symbol(unsigned char *img, const char *name)
{
	ElfW(Dyn) *symtab = copy_dynamic(img, DT_SYMTAB), *strtab = copy_dynamic(img, DT_STRTAB);
	ElfW(Dyn) *hash = copy_dynamic(img, DT_HASH);
	ElfW(Sym) *sym;
	uint32_t i, count;

	if (!symtab || !strtab || !hash)
		return NULL;
	/* DT_HASH's nchain is the number of symbols */
	count = ((uint32_t *)in_copy(img, hash->d_un.d_ptr))[1];
	sym = in_copy(img, symtab->d_un.d_ptr);
	for (i = 0; i < count; i++) {
		if (!strcmp((char *)in_copy(img, strtab->d_un.d_ptr) + sym[i].st_name, name))
			return &sym[i];
	}
	return NULL;
}

/*
 * 1 if the lookup of @name in the copy @img (altered as @how says) does
 * not give @ref, an address in the running vDSO, in the copy.
 */
static int copy_mismatch(unsigned char *img, const char *how, const char *name, void *ref)
{
	void *got = vdso_lookup((uintptr_t)img, "LINUX_2.6", name);
	void *want = ref ? img + ((uintptr_t)ref - vdso_start) : NULL;

	if (got == want)
		return 0;
	ksft_print_msg("%s with %s: vdso_lookup() %p, expected %p\n", name, how, got, want);
	return 1;
}

static int case_lookup_copies(void)
{
	unsigned char *sysv_only, *gnu_only, *no_version;
	unsigned int i;
	int bad = 0;
	void *ref;

	if (!vdso_dynamic) {
		ksft_print_msg("glibc does not tell where the vDSO's dynamic section is\n");
		return KSFT_SKIP;
	}
	sysv_only = copy_without(DT_GNU_HASH);
	gnu_only = copy_without(DT_HASH);
	if (!sysv_only || !gnu_only) {
		ksft_print_msg("the vDSO does not have both DT_HASH and DT_GNU_HASH\n");
		return KSFT_SKIP;
	}
	no_version = copy_as_base_version("LINUX_2.6");
	if (!no_version)
		child_fail("the vDSO does not define version LINUX_2.6\n");
	for (i = 0; i < ARRAY_SIZE(lookup_names); i++) {
		ref = image_sym((unsigned char *)vdso_start, lookup_names[i]);
		bad += copy_mismatch(sysv_only, "DT_HASH alone", lookup_names[i], ref);
		bad += copy_mismatch(gnu_only, "DT_GNU_HASH alone", lookup_names[i], ref);
		/* The file's own version names no symbol's, for either parser */
		if (image_sym(no_version, lookup_names[i]))
			child_fail("parse_vdso finds %s of version VER_FLG_BASE\n",
				   lookup_names[i]);
		bad += copy_mismatch(no_version, "LINUX_2.6 flagged VER_FLG_BASE",
				     lookup_names[i], NULL);
	}
	return bad ? KSFT_FAIL : KSFT_PASS;
}

/* Copies in which __vdso_clock_gettime is no longer a global function, or is another kind */
static int case_lookup_symbols(void)
{
	static const struct {
		const char *how;
		unsigned char bind, type;
		bool undef, found;
	} changes[] = {
		{ "it made STB_LOCAL", STB_LOCAL, STT_FUNC, false, false },
		{ "it made STB_WEAK", STB_WEAK, STT_FUNC, false, true },
		{ "it made STT_OBJECT", STB_GLOBAL, STT_OBJECT, false, false },
		{ "it made SHN_UNDEF", STB_GLOBAL, STT_FUNC, true, false },
		/* parse_vdso wants STT_FUNC; the library takes STT_NOTYPE too */
		{ "it made STT_NOTYPE", STB_GLOBAL, STT_NOTYPE, false, true },
	};
	static const char name[] = "__vdso_clock_gettime";
	unsigned char *img;
	ElfW(Sym) *sym;
	unsigned int i;
	void *ref, *ref_img;
	int bad = 0;

	if (!vdso_dynamic || !copy_dynamic((unsigned char *)vdso_start, DT_HASH)) {
		ksft_print_msg("glibc does not tell where the vDSO's DT_HASH table is\n");
		return KSFT_SKIP;
	}
	ref = image_sym((unsigned char *)vdso_start, name);
	for (i = 0; i < ARRAY_SIZE(changes); i++) {
		img = copy_vdso();
		sym = copy_symbol(img, name);
		if (!sym || !ref)
			child_fail("%s is not in the vDSO's symbol table\n", name);
		sym->st_info = ELF64_ST_INFO(changes[i].bind, changes[i].type);
		if (changes[i].undef)
			sym->st_shndx = SHN_UNDEF;
		bad += copy_mismatch(img, changes[i].how, name, changes[i].found ? ref : NULL);
		/*
		 * The kernel's parse_vdso agrees but where it is stricter
		 * (STT_FUNC only) or, since 6.15, laxer (st_shndx unread).
		 */
		if (changes[i].type == STT_NOTYPE || changes[i].undef)
			continue;
		ref_img = image_sym(img, name);
		if (ref_img != (changes[i].found ? img + ((uintptr_t)ref - vdso_start) : NULL))
			child_fail("parse_vdso finds %p for %s with %s\n", ref_img, name,
				   changes[i].how);
	}
	return bad ? KSFT_FAIL : KSFT_PASS;
}

unsigned int lookup_results(void)
{
	return ARRAY_SIZE(lookup_names) + 3;
}

void run_lookup_cases(void)
{
	char name[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lookup_names); i++) {
		lookup_name = lookup_names[i];
		snprintf(name, sizeof(name),
			 "vdso_lookup() agrees with parse_vdso's vdso_sym() on %s@LINUX_2.6",
			 lookup_name);
		run(name, case_lookup_name, false);
	}
	run("vdso_lookup() finds no missing name, wrong version or base 0",
	    case_lookup_misses, false);
	run("vdso_lookup() agrees with parse_vdso in copies with one hash table, without LINUX_2.6",
	    case_lookup_copies, false);
	run("vdso_lookup() takes defined global and weak functions, and untyped symbols, only",
	    case_lookup_symbols, false);
}
