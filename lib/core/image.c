/* Program images from ELF files (libelf): symbols and loaded bytes. */
#include "trawl/image.h"
#include "trawl/file.h"
#include "trawl/number.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct segment {
	uint64_t addr;
	uint64_t memsz;
	uint64_t filesz;
	uint8_t *bytes;       /* filesz bytes from the file; the rest reads as zero
	                         (not materialised: a hostile memsz costs nothing) */
};

struct trawl_image {
	struct trawl_symbol *syms;
	size_t nsyms, cap_syms;
	char **names;         /* owned symbol name strings (raw and demangled) */
	size_t nnames;
	struct segment *segs;
	size_t nsegs;
	unsigned machine;
	int sorted;
	struct trawl_image_module *mods;
	size_t nmods;
};

enum trawl_status trawl_image_create(struct trawl_image **out, struct trawl_error *err)
{
	struct trawl_image *img = calloc(1, sizeof *img);
	if (!img)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	*out = img;
	return TRAWL_OK;
}

void trawl_image_destroy(struct trawl_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->nnames; i++)
		free(img->names[i]);
	for (size_t i = 0; i < img->nsegs; i++)
		free(img->segs[i].bytes);
	for (size_t i = 0; i < img->nmods; i++)
		free((char *)img->mods[i].path);
	free(img->mods);
	free(img->names);
	free(img->segs);
	free(img->syms);
	free(img);
}

/* ARM ELF mapping symbols ($a, $t, $d, $x, optionally ".suffix") mark code
 * and data regions; they are not names a person wants to see. */
static int is_mapping_symbol(const char *name)
{
	return name[0] == '$' && strchr("atdx", name[1]) && name[1] &&
	       (name[2] == 0 || name[2] == '.');
}

static int cmp_sym(const void *a, const void *b)
{
	const struct trawl_symbol *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* functions first at the same address, then larger sizes */
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->raw, y->raw);
}

/* Longer mangled names are shown as they are: the demangler's time and
 * stack grow with the name, and a hostile ELF chooses its names. */
#define DEMANGLE_MAX 1024

/* The name to show for a raw ELF symbol name: a malloc'ed demangled C++
 * name, or NULL (keep the raw one). */
static char *demangled(const char *raw)
{
	if (raw[0] != '_' || raw[1] != 'Z' || strnlen(raw, DEMANGLE_MAX + 1) > DEMANGLE_MAX)
		return NULL;
	return cplus_demangle(raw, DMGL_PARAMS | DMGL_ANSI);
}

static enum trawl_status add_symbol(struct trawl_image *img, const char *name, uint64_t addr,
				    uint64_t size, uint8_t type, uint8_t thumb,
				    struct trawl_error *err)
{
	if (img->nsyms == img->cap_syms) {
		size_t cap = img->cap_syms ? img->cap_syms * 2 : 256;
		struct trawl_symbol *s = realloc(img->syms, cap * sizeof *s);
		char **n = realloc(img->names, 2 * cap * sizeof *n); /* raw + shown */
		if (s)
			img->syms = s;
		if (n)
			img->names = n;
		if (!s || !n)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory reading symbols");
		img->cap_syms = cap;
	}
	char *copy = strdup(name);
	if (!copy)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory reading symbols");
	img->names[img->nnames++] = copy;
	char *shown = demangled(copy);
	if (shown)
		img->names[img->nnames++] = shown;
	img->syms[img->nsyms++] =
		(struct trawl_symbol){ addr, size, shown ? shown : copy, copy, type, thumb };
	img->sorted = 0;
	return TRAWL_OK;
}

/* The full symbol table when there is one, else the dynamic one; a stripped
 * file is not an error, since its bytes are still usable. Symbols that name
 * no code or data (undefined, absolute, section, file, Arm mapping symbols)
 * are left out so lookups only ever answer with a real function or object;
 * the Thumb bit is moved out of the address into its own field. */
static enum trawl_status read_symbols(struct trawl_image *img, Elf *elf, uint64_t offset,
				      const char *path, struct trawl_error *err)
{
	Elf_Scn *scn = NULL, *dyn = NULL, *use = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			use = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dyn = scn;
	}
	if (!use)
		use = dyn;
	if (!use)
		return TRAWL_OK; /* stripped: no names, still usable for bytes */
	if (!gelf_getshdr(use, &sh) || sh.sh_entsize == 0)
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "%s: bad symbol table header", path);
	Elf_Data *data = elf_getdata(use, NULL);
	if (!data)
		return TRAWL_OK;
	size_t n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
		int t = GELF_ST_TYPE(sym.st_info);
		if (!name || !*name || sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS ||
		    t == STT_SECTION || t == STT_FILE || is_mapping_symbol(name))
			continue;
		uint8_t type = t == STT_FUNC ? TRAWL_SYM_FUNC
			     : t == STT_OBJECT ? TRAWL_SYM_OBJECT : TRAWL_SYM_OTHER;
		uint8_t thumb = 0;
		uint64_t addr = sym.st_value;
		if (type == TRAWL_SYM_FUNC && img->machine == EM_ARM && (addr & 1)) {
			thumb = 1;
			addr &= ~(uint64_t)1;
		}
		enum trawl_status st = add_symbol(img, name, addr + offset, sym.st_size, type,
						  thumb, err);
		if (st)
			return st;
	}
	return TRAWL_OK;
}

static enum trawl_status read_segments(struct trawl_image *img, Elf *elf, uint64_t offset,
				       const char *path, const unsigned char *file,
				       size_t file_len, struct trawl_error *err)
{
	size_t phnum;
	if (elf_getphdrnum(elf, &phnum) != 0)
		return TRAWL_OK;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_memsz == 0)
			continue;
		/* a segment of bss alone (filesz 0) may name an offset past the
		 * end of a small file: ld writes such files */
		if (ph.p_filesz > ph.p_memsz ||
		    (ph.p_filesz && (ph.p_offset > file_len || ph.p_filesz > file_len - ph.p_offset)) ||
		    ph.p_memsz > (1ull << 48) ||
		    ph.p_vaddr + offset < ph.p_vaddr)
			return trawl_error_set(err, TRAWL_ERR_FORMAT,
					       "%s: program header %zu is out of bounds", path, i);
		struct segment *segs = realloc(img->segs, (img->nsegs + 1) * sizeof *segs);
		if (!segs)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory loading %s", path);
		img->segs = segs;
		uint8_t *bytes = malloc(ph.p_filesz ? ph.p_filesz : 1);
		if (!bytes)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory loading %s", path);
		if (ph.p_filesz)
			memcpy(bytes, file + ph.p_offset, ph.p_filesz);
		segs[img->nsegs++] = (struct segment){ ph.p_vaddr + offset, ph.p_memsz, ph.p_filesz,
						       bytes };
	}
	return TRAWL_OK;
}

/* The GNU build id (NT_GNU_BUILD_ID, type 3, owner "GNU") from the
 * file's note sections. */
static void read_build_id(Elf *elf, struct trawl_image_module *m)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == 3 && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0 &&
			    nh.n_descsz <= sizeof m->build_id) {
				memcpy(m->build_id, (char *)d->d_buf + desc_off, nh.n_descsz);
				m->build_id_len = nh.n_descsz;
				return;
			}
		}
	}
}

static enum trawl_status add_module(struct trawl_image *img, Elf *elf, uint64_t offset,
				    const char *path, struct trawl_error *err)
{
	struct trawl_image_module m = { .offset = offset, .lo = UINT64_MAX, .text_lo = UINT64_MAX };
	size_t phnum;
	int have_text = 0;
	for (size_t i = 0; elf_getphdrnum(elf, &phnum) == 0 && i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_memsz == 0)
			continue;
		uint64_t lo = ph.p_vaddr + offset, hi = lo + ph.p_memsz;
		m.lo = lo < m.lo ? lo : m.lo;
		m.hi = hi > m.hi ? hi : m.hi;
		if (!(ph.p_flags & PF_X))
			continue;
		if (!have_text)
			m.text_base = lo & ~(uint64_t)0xfff;
		have_text = 1;
		m.text_lo = lo < m.text_lo ? lo : m.text_lo;
		m.text_hi = hi > m.text_hi ? hi : m.text_hi;
	}
	if (!have_text)
		m.text_lo = m.text_hi = 0;
	if (m.lo > m.hi)
		m.lo = m.hi = 0;
	m.load_base = m.lo & ~(uint64_t)0xfff;
	read_build_id(elf, &m);
	struct trawl_image_module *mods = realloc(img->mods, (img->nmods + 1) * sizeof *mods);
	if (!mods || !(m.path = strdup(path))) {
		if (mods)
			img->mods = mods;
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory loading %s", path);
	}
	img->mods = mods;
	mods[img->nmods++] = m;
	return TRAWL_OK;
}

const struct trawl_image_module *trawl_image_modules(const struct trawl_image *img, size_t *count)
{
	*count = img->nmods;
	return img->mods;
}

const struct trawl_image_module *trawl_image_module_at(const struct trawl_image *img,
						       uint64_t addr)
{
	for (size_t i = 0; i < img->nmods; i++)
		if (addr >= img->mods[i].text_lo && addr < img->mods[i].text_hi)
			return &img->mods[i];
	return NULL;
}

enum trawl_status trawl_image_add_elf(struct trawl_image *img, const char *path,
				      uint64_t offset, struct trawl_error *err)
{
	uint8_t *file = NULL;
	size_t len = 0;
	Elf *elf = NULL;
	enum trawl_status st = trawl_file_read(path, &file, &len, err);
	if (st)
		return st;
	if (len == 0) {
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s' is not an ELF file (empty)", path);
		goto out;
	}
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)file, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s' is not an ELF file", path);
		goto out;
	}
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh)) {
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s': bad ELF header: %s", path,
				     elf_errmsg(-1));
		goto out;
	}
	if (!img->machine)
		img->machine = eh.e_machine;
	st = read_segments(img, elf, offset, path, file, len, err);
	if (!st)
		st = read_symbols(img, elf, offset, path, err);
	if (!st)
		st = add_module(img, elf, offset, path, err);
out:
	if (elf)
		elf_end(elf);
	free(file);
	return st;
}

enum trawl_status trawl_image_spec_parse(const char *spec, char *path, size_t size,
					 uint64_t *offset, struct trawl_error *err)
{
	const char *at = strrchr(spec, '@');
	*offset = 0;
	/* a file whose name holds '@' is taken whole when it exists */
	if (at && access(spec, F_OK) == 0)
		at = NULL;
	size_t n = at ? (size_t)(at - spec) : strlen(spec);
	if (n >= size)
		return trawl_error_set(err, TRAWL_ERR_USAGE, "image path too long");
	if (at) {
		if (at[1] == '-')
			return trawl_error_set(err, TRAWL_ERR_USAGE,
					       "image '%s': the load offset is added to the ELF's link "
					       "addresses and cannot be negative (an image loaded below "
					       "its link address cannot be described)", spec);
		if (!trawl_u64_parse(at + 1, offset))
			return trawl_error_set(err, TRAWL_ERR_USAGE,
					       "bad load offset '%s' in image '%s' (expected "
					       "PATH@OFFSET, OFFSET decimal or 0x hex)", at + 1, spec);
	}
	memcpy(path, spec, n);
	path[n] = 0;
	return TRAWL_OK;
}

enum trawl_status trawl_image_add_spec(struct trawl_image *img, const char *spec,
				       struct trawl_error *err)
{
	char path[4096];
	uint64_t offset;
	enum trawl_status st = trawl_image_spec_parse(spec, path, sizeof path, &offset, err);
	return st ? st : trawl_image_add_elf(img, path, offset, err);
}

static void ensure_sorted(const struct trawl_image *cimg)
{
	struct trawl_image *img = (struct trawl_image *)cimg; /* lazily sorted cache */
	if (img->sorted)
		return;
	if (img->nsyms)
		qsort(img->syms, img->nsyms, sizeof *img->syms, cmp_sym);
	img->sorted = 1;
}

const struct trawl_symbol *trawl_image_symbols(const struct trawl_image *img, size_t *count)
{
	ensure_sorted(img);
	*count = img->nsyms;
	return img->syms;
}

/* Whether a and b lie in one loaded segment (an image without segments,
 * symbols only, cannot say: yes). */
static int same_segment(const struct trawl_image *img, uint64_t a, uint64_t b)
{
	if (!img->nsegs)
		return 1;
	for (size_t i = 0; i < img->nsegs; i++) {
		const struct segment *s = &img->segs[i];
		if (a >= s->addr && a - s->addr < s->memsz)
			return b >= s->addr && b - s->addr < s->memsz;
	}
	return 0;
}

int trawl_image_same_segment(const struct trawl_image *img, uint64_t a, uint64_t b)
{
	return same_segment(img, a, b);
}

const struct trawl_symbol *trawl_image_symbol_at(const struct trawl_image *img, uint64_t addr)
{
	ensure_sorted(img);
	size_t lo = 0, hi = img->nsyms;
	while (lo < hi) { /* first symbol with sym.addr > addr */
		size_t mid = lo + (hi - lo) / 2;
		if (img->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* look back a little for a symbol whose extent covers addr: sizes let a
	 * small object sit inside a function without hiding it */
	const struct trawl_symbol *unsized = NULL;
	for (size_t k = lo, steps = 0; k > 0 && steps < 16; k--, steps++) {
		const struct trawl_symbol *s = &img->syms[k - 1];
		if (s->size && addr < s->addr + s->size)
			return s;
		/* a symbol without a size names what follows it in its
		 * segment only: past the image's code is another program */
		if (!s->size && s->type == TRAWL_SYM_FUNC && !unsized &&
		    same_segment(img, s->addr, addr))
			unsized = s;
	}
	return unsized;
}

const struct trawl_symbol *trawl_image_symbol_named(const struct trawl_image *img,
						    const char *name)
{
	/* the shown name first: a demangled name may equal another's raw one */
	for (size_t i = 0; i < img->nsyms; i++)
		if (strcmp(img->syms[i].name, name) == 0)
			return &img->syms[i];
	for (size_t i = 0; i < img->nsyms; i++)
		if (strcmp(img->syms[i].raw, name) == 0)
			return &img->syms[i];
	return NULL;
}

char *trawl_image_describe(const struct trawl_image *img, uint64_t addr, char *buf, size_t size)
{
	const struct trawl_symbol *s = img ? trawl_image_symbol_at(img, addr) : NULL;
	if (!s)
		snprintf(buf, size, "0x%llx", (unsigned long long)addr);
	else if (addr == s->addr)
		snprintf(buf, size, "%s", s->name);
	else
		snprintf(buf, size, "%s+0x%llx", s->name, (unsigned long long)(addr - s->addr));
	return buf;
}

uint64_t trawl_image_next_loaded(const struct trawl_image *img, uint64_t addr)
{
	uint64_t best = UINT64_MAX;
	for (size_t i = 0; i < img->nsegs; i++) {
		const struct segment *s = &img->segs[i];
		if (addr >= s->addr && addr - s->addr < s->memsz)
			return addr;
		if (s->addr > addr && s->addr < best)
			best = s->addr;
	}
	return best;
}

size_t trawl_image_read(const struct trawl_image *img, uint64_t addr, void *buf, size_t len)
{
	for (size_t i = 0; i < img->nsegs; i++) {
		const struct segment *s = &img->segs[i];
		if (addr >= s->addr && addr - s->addr < s->memsz) {
			uint64_t at = addr - s->addr, avail = s->memsz - at;
			size_t n = avail < len ? (size_t)avail : len;
			size_t from_file = at < s->filesz ? (size_t)(s->filesz - at) : 0;
			if (from_file > n)
				from_file = n;
			memcpy(buf, s->bytes + at, from_file);
			memset((uint8_t *)buf + from_file, 0, n - from_file);
			return n;
		}
	}
	return 0;
}

unsigned trawl_image_machine(const struct trawl_image *img)
{
	return img->machine;
}
