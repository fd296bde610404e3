// SPDX-License-Identifier: GPL-2.0
/*
 * vdso_lookup.c: libvsysinfo's own lookup of a versioned function in the
 * vDSO, so that the library needs no kernel tree to build.
 *
 * The vDSO is an ELF shared object that the kernel maps whole: the image
 * at AT_SYSINFO_EHDR holds its ELF header, program headers and dynamic
 * section, so a symbol is found the way the dynamic linker finds one,
 * without the section headers: the first PT_LOAD gives the load bias,
 * PT_DYNAMIC the symbol, string, hash and version tables, and one of the
 * two hash tables (DT_GNU_HASH if there is one, else DT_HASH) the chain
 * of candidates for a name. Each call reads the image afresh and keeps
 * nothing, so it needs no lock and allocates nothing; the library calls
 * it once, under pthread_once(), and keeps the result.
 *
 * tests/vsysinfo_lib.c checks it against the kernel's reference parser,
 * tools/testing/selftests/vDSO/parse_vdso.c.
 */
#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vdso_lookup.h"

/* The vDSO has the process's ELF class: ELF64 on x86-64, ELF32 on i386 and x32 */
#ifdef __LP64__
#define ElfN(type)		Elf64_##type
#define ELFN_ST_TYPE(info)	ELF64_ST_TYPE(info)
#define ELFN_ST_BIND(info)	ELF64_ST_BIND(info)
#define ELFCLASSN		ELFCLASS64
#else
#define ElfN(type)		Elf32_##type
#define ELFN_ST_TYPE(info)	ELF32_ST_TYPE(info)
#define ELFN_ST_BIND(info)	ELF32_ST_BIND(info)
#define ELFCLASSN		ELFCLASS32
#endif

/* DT_HASH words are 64-bit on s390x and alpha, 32-bit everywhere else */
#if defined(__s390x__) || defined(__alpha__)
typedef uint64_t hash_word_t;
#else
typedef uint32_t hash_word_t;
#endif

/* Bit 15 of a DT_VERSYM entry marks a hidden symbol; the rest is the index */
#define VERSYM_INDEX_MASK	0x7fff

struct vdso_image {
	uintptr_t bias;			/* run-time minus link-time address */
	const ElfN(Sym) *symtab;
	const char *strtab;
	const hash_word_t *hash;	/* DT_HASH, or NULL */
	const uint32_t *gnu_hash;	/* DT_GNU_HASH, or NULL */
	const ElfN(Versym) *versym;	/* DT_VERSYM, or NULL */
	const ElfN(Verdef) *verdef;	/* DT_VERDEF, or NULL */
};

/* The hash function of the ELF gABI: DT_HASH buckets and vd_hash */
static uint32_t sysv_hash(const char *s)
{
	uint32_t h = 0, top;

	for (; *s; s++) {
		h = (h << 4) + (unsigned char)*s;
		top = h & 0xf0000000;
		h ^= top >> 24;
		h &= ~top;
	}
	return h;
}

/* The hash function of DT_GNU_HASH (Bernstein's, h * 33 + c) */
static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static const void *image_ptr(const struct vdso_image *img, ElfN(Addr) vaddr)
{
	return (const void *)(img->bias + vaddr);
}

/* Fill in @img from the image at @base; false if it is not usable. */
static bool image_init(struct vdso_image *img, uintptr_t base)
{
	const ElfN(Ehdr) *ehdr = (const ElfN(Ehdr) *)base;
	const ElfN(Phdr) *phdr, *load = NULL, *dynamic = NULL;
	const ElfN(Dyn) *dyn, *dyn_end;
	const void *ptr;
	unsigned int i;

	if (memcmp(ehdr->e_ident, ELFMAG, SELFMAG) ||
	    ehdr->e_ident[EI_CLASS] != ELFCLASSN ||
	    ehdr->e_phentsize != sizeof(*phdr))
		return false;

	phdr = (const ElfN(Phdr) *)(base + ehdr->e_phoff);
	for (i = 0; i < ehdr->e_phnum; i++) {
		if (phdr[i].p_type == PT_LOAD && !load)
			load = &phdr[i];
		else if (phdr[i].p_type == PT_DYNAMIC)
			dynamic = &phdr[i];
	}
	if (!load || !dynamic)
		return false;
	/* base is where file offset 0, the ELF header, was mapped */
	*img = (struct vdso_image){ .bias = base + load->p_offset - load->p_vaddr };

	dyn = image_ptr(img, dynamic->p_vaddr);
	dyn_end = dyn + dynamic->p_memsz / sizeof(*dyn);
	for (; dyn < dyn_end && dyn->d_tag != DT_NULL; dyn++) {
		/* Meaningful for the tags below only, which all hold addresses */
		ptr = image_ptr(img, dyn->d_un.d_ptr);
		switch (dyn->d_tag) {
		case DT_SYMTAB:
			img->symtab = ptr;
			break;
		case DT_STRTAB:
			img->strtab = ptr;
			break;
		case DT_HASH:
			img->hash = ptr;
			break;
		case DT_GNU_HASH:
			img->gnu_hash = ptr;
			break;
		case DT_VERSYM:
			img->versym = ptr;
			break;
		case DT_VERDEF:
			img->verdef = ptr;
			break;
		}
	}
	return img->symtab && img->strtab && (img->hash || img->gnu_hash);
}

/*
 * Whether symbol @index has version @version (whose sysv_hash() is
 * @version_hash): with DT_VERSYM, its index must name a Verdef, not the
 * file's own (VER_FLG_BASE), whose hash and first name are the version's.
 */
static bool version_matches(const struct vdso_image *img, size_t index,
			    const char *version, uint32_t version_hash)
{
	const ElfN(Verdef) *def = img->verdef;
	const ElfN(Verdaux) *aux;
	unsigned int ndx;

	if (!img->versym)
		return true;
	ndx = img->versym[index] & VERSYM_INDEX_MASK;
	while (def) {
		if (!(def->vd_flags & VER_FLG_BASE) && def->vd_ndx == ndx) {
			aux = (const ElfN(Verdaux) *)((const char *)def + def->vd_aux);
			return def->vd_hash == version_hash &&
			       !strcmp(img->strtab + aux->vda_name, version);
		}
		if (!def->vd_next)
			break;
		def = (const ElfN(Verdef) *)((const char *)def + def->vd_next);
	}
	return false;
}

/* Whether symbol @index is a defined global or weak function @name@@version */
static bool symbol_matches(const struct vdso_image *img, size_t index,
			   const char *name, const char *version,
			   uint32_t version_hash)
{
	const ElfN(Sym) *sym = &img->symtab[index];
	unsigned int type = ELFN_ST_TYPE(sym->st_info);
	unsigned int bind = ELFN_ST_BIND(sym->st_info);

	if (type != STT_FUNC && type != STT_NOTYPE)
		return false;
	if (bind != STB_GLOBAL && bind != STB_WEAK)
		return false;
	if (sym->st_shndx == SHN_UNDEF)
		return false;
	if (strcmp(img->strtab + sym->st_name, name))
		return false;
	return version_matches(img, index, version, version_hash);
}

/*
 * DT_GNU_HASH: nbuckets, symoffset, bloom_size, bloom_shift, the Bloom
 * filter (bloom_size words of the ELF class's size), the buckets, then
 * one hash value a symbol from symoffset on, bit 0 set at a chain's end.
 */
static const ElfN(Sym) *gnu_hash_find(const struct vdso_image *img,
				      const char *name, const char *version,
				      uint32_t version_hash)
{
	const uint32_t *table = img->gnu_hash;
	uint32_t nbuckets = table[0], symoffset = table[1];
	uint32_t bloom_size = table[2], bloom_shift = table[3];
	const ElfN(Addr) *bloom = (const ElfN(Addr) *)&table[4];
	const uint32_t *buckets = (const uint32_t *)&bloom[bloom_size];
	const uint32_t *hashes = &buckets[nbuckets];
	const unsigned int bits = sizeof(*bloom) * 8;
	uint32_t h = gnu_hash(name), i, chain_h;
	ElfN(Addr) mask;

	if (!nbuckets || !bloom_size)
		return NULL;
	/* Two bits of the hash must be set in the filter, or it is absent */
	mask = (ElfN(Addr))1 << (h % bits) |
	       (ElfN(Addr))1 << ((h >> bloom_shift) % bits);
	if ((bloom[(h / bits) % bloom_size] & mask) != mask)
		return NULL;

	i = buckets[h % nbuckets];
	if (!i || i < symoffset)
		return NULL;
	for (;; i++) {
		chain_h = hashes[i - symoffset];
		if ((chain_h | 1) == (h | 1) &&
		    symbol_matches(img, i, name, version, version_hash))
			return &img->symtab[i];
		if (chain_h & 1)
			return NULL;
	}
}

/* DT_HASH: nbucket, nchain, the buckets, then a chain entry a symbol. */
static const ElfN(Sym) *sysv_hash_find(const struct vdso_image *img,
				       const char *name, const char *version,
				       uint32_t version_hash)
{
	const hash_word_t *table = img->hash;
	hash_word_t nbucket = table[0], nchain = table[1];
	const hash_word_t *buckets = &table[2], *chain = &buckets[nbucket];
	hash_word_t i, steps;

	if (!nbucket)
		return NULL;
	/* At most nchain steps, so that a looping chain cannot hang us */
	i = buckets[sysv_hash(name) % nbucket];
	for (steps = 0; i != STN_UNDEF && i < nchain && steps < nchain; steps++) {
		if (symbol_matches(img, i, name, version, version_hash))
			return &img->symtab[i];
		i = chain[i];
	}
	return NULL;
}

void *vdso_lookup(uintptr_t base, const char *version, const char *name)
{
	const ElfN(Sym) *sym;
	struct vdso_image img;
	uint32_t version_hash;

	if (!base || !image_init(&img, base))
		return NULL;
	version_hash = sysv_hash(version);
	/* Both tables index the same symbols: the dynamic linker prefers GNU's */
	if (img.gnu_hash)
		sym = gnu_hash_find(&img, name, version, version_hash);
	else
		sym = sysv_hash_find(&img, name, version, version_hash);
	return sym ? (void *)(img.bias + sym->st_value) : NULL;
}
