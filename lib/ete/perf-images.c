/* Program images for a perf.data: the mapped files, found by build id,
 * symfs or recorded path, at the addresses the MMAP records give; and the
 * kernel's vmlinux where it ran. Shared by `trawl ete` and the reader
 * backend; problems are handed to the caller's warn function. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "trawl/image.h"
#include "trawl/perf.h"

static void hex_of(const uint8_t *id, unsigned n, char *hex, size_t cap)
{
	size_t k = 0;
	hex[0] = 0;
	for (unsigned i = 0; i < n && k + 3 <= cap; i++)
		k += (size_t)snprintf(hex + k, cap - k, "%02x", id[i]);
}

static void note(trawl_warn_fn warn, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(trawl_warn_fn warn, void *ctx, const char *fmt, ...)
{
	if (!warn)
		return;
	struct trawl_error w;
	va_list ap;
	trawl_error_clear(&w);
	va_start(ap, fmt);
	vsnprintf(w.message, sizeof w.message, fmt, ap);
	va_end(ap);
	warn(ctx, &w);
}

void trawl_perf_build_id_hex(const struct trawl_perf_file *pf, const struct trawl_perf_mmap *m,
			     char *hex, size_t cap)
{
	if (m->build_id_size) {
		hex_of(m->build_id, m->build_id_size, hex, cap);
		return;
	}
	hex[0] = 0;
	for (size_t i = 0; i < pf->nbids; i++)
		if (!strcmp(pf->bids[i].filename, m->filename)) {
			unsigned n = pf->bids[i].size;
			/* ids padded with zeros to 20 bytes: drop the padding */
			while (n > 0 && !pf->bids[i].id[n - 1])
				n--;
			hex_of(pf->bids[i].id, n, hex, cap);
			return;
		}
}

int trawl_perf_mmap_has_file(const struct trawl_perf_mmap *m)
{
	/* kernel, [vdso], [anon:...], //anon: no file to read */
	return m->cpumode != 1 && m->filename[0] == '/' && m->len;
}

/* The GNU build id of the ELF file at path as hex, "" when it has none
 * (or is no ELF file: a memory dump). */
static void file_build_id(const char *path, char *hex, size_t cap)
{
	hex[0] = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	while (e && elf_kind(e) == ELF_K_ELF && !hex[0] && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		while (!hex[0] && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name_off, "GNU", 4))
				hex_of((const uint8_t *)d->d_buf + desc_off, nh.n_descsz, hex, cap);
	}
	if (e)
		elf_end(e);
	close(fd);
}

/* The recording's id (zero padding dropped) against the file's: another
 * build only when both are known and differ. */
static int other_build(const char *want, const char *path)
{
	char have[144];
	if (!want[0])
		return 0;
	file_build_id(path, have, sizeof have);
	size_t n = strlen(want);
	return have[0] && (strncmp(have, want, n) || strspn(have + n, "0") != strlen(have + n));
}

/* check_id: a file whose build id is not the recording's is passed over
 * (perf finds files by build id too: another build decodes to wrong
 * instructions without a word). */
static int find_file(const struct trawl_perf_file *pf, const struct trawl_perf_mmap *m,
		     const char *symfs, const char *bindir, char *out, size_t cap, int check_id)
{
	char hex[48];
	trawl_perf_build_id_hex(pf, m, hex, sizeof hex);
	const char *base = strrchr(m->filename, '/');
	base = base ? base + 1 : m->filename;
#define TAKE() if (!access(out, R_OK) && !(check_id && other_build(hex, out))) return 1
	if (bindir && hex[0]) {
		snprintf(out, cap, "%s/%s", bindir, hex);
		TAKE();
		snprintf(out, cap, "%s/.build-id/%.2s/%s", bindir, hex, hex + 2);
		TAKE();
	}
	if (symfs) {
		snprintf(out, cap, "%s/%s", symfs, m->filename);
		TAKE();
		snprintf(out, cap, "%s/%s", symfs, base);
		TAKE();
	}
	snprintf(out, cap, "%s", m->filename);
	TAKE();
#undef TAKE
	return 0;
}

int trawl_perf_find_file(const struct trawl_perf_file *pf, const struct trawl_perf_mmap *m,
			 const char *symfs, const char *bindir, char *out, size_t cap)
{
	return find_file(pf, m, symfs, bindir, out, cap, 1);
}

/* Where find_file looked for a mapping's file, in its order, for the
 * message that it is missing: the places themselves say more than advice
 * to give options already given. */
static void searched(const struct trawl_perf_file *pf, const struct trawl_perf_mmap *m,
		     const char *symfs, const char *bindir, char *out, size_t cap)
{
	char hex[48];
	size_t k = 0;
	trawl_perf_build_id_hex(pf, m, hex, sizeof hex);
	const char *base = strrchr(m->filename, '/');
	base = base ? base + 1 : m->filename;
	out[0] = 0;
#define ADD(...) (k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, __VA_ARGS__), \
		  k = k < cap ? k : cap)
	if (bindir && hex[0])
		ADD("%s/%s, %s/.build-id/%.2s/%s, ", bindir, hex, bindir, hex, hex + 2);
	else if (bindir)
		ADD("not in --binary-dir (the recording has no build id for it), ");
	if (symfs)
		ADD("%s/%s, %s/%s, ", symfs, m->filename, symfs, base);
	ADD("%s", m->filename);
#undef ADD
}

unsigned trawl_perf_images_add(const struct trawl_perf_file *pf, struct trawl_ete_image *img,
			       const char *symfs, const char *bindir, trawl_warn_fn warn, void *ctx,
			       unsigned *clashes)
{
	unsigned missing = 0, conflicts = trawl_ete_image_conflicts(img, NULL, 0);
	const char *first = NULL;
	char where[1024] = "";
	/* newest mapping first: the image keeps the bytes added first, and a
	 * later mmap of an address replaces what was mapped there before (as
	 * perf's maps do: the new map cuts the old ones it overlaps) */
	for (size_t i = pf->nmmaps; i-- > 0;) {
		const struct trawl_perf_mmap *m = &pf->mmaps[i];
		char path[4096];
		if (!trawl_perf_mmap_has_file(m))
			continue;
		if (!trawl_perf_find_file(pf, m, symfs, bindir, path, sizeof path)) {
			/* counted once per file, however often it was mapped */
			int seen = 0;
			for (size_t j = 0; j < i; j++)
				seen |= !strcmp(pf->mmaps[j].filename, m->filename);
			missing += !seen;
			/* the earliest in the recording is named (the walk goes back) */
			searched(pf, m, symfs, bindir, where, sizeof where);
			first = m->filename;
			char hex[48], other[144];
			if (!seen && find_file(pf, m, symfs, bindir, path, sizeof path, 0)) {
				trawl_perf_build_id_hex(pf, m, hex, sizeof hex);
				file_build_id(path, other, sizeof other);
				note(warn, ctx, "%s: %s is another build of %s (build id %s, the "
				     "recording's %s): not used", pf->path, path, m->filename, other, hex);
			}
			continue;
		}
		struct trawl_error err;
		trawl_error_clear(&err);
		if (trawl_ete_image_add_file(img, path, m->start, m->pgoff, m->len, &err) != TRAWL_OK) {
			char buf[512];
			trawl_error_format(&err, buf, sizeof buf);
			note(warn, ctx, "%s: mapping at offset %llu: %s", pf->path,
			     (unsigned long long)m->offset, buf);
			missing++;
		}
	}
	/* one image for every process: where two mappings put other bytes at
	 * one address, trace that ran there in the older one decodes with the
	 * newer one's bytes */
	unsigned clash = trawl_ete_image_conflicts(img, NULL, 0) - conflicts;
	if (clashes)
		*clashes = clash;
	if (clash)
		note(warn, ctx, "%s: %u mapping%s put other bytes where a later mapping is (one "
		     "address space for every process): the later mapping's bytes are used, so "
		     "trace that ran in the earlier one may be decoded wrongly",
		     pf->path, clash, clash == 1 ? "" : "s");
	/* a note, not a loss: only trace that runs there is lost, and the
	 * decoder reports that as "no program image" */
	if (first && !symfs && !bindir)
		note(warn, ctx, "%s: %u mapped file%s not found (first: %s); give --symfs DIR or "
		     "--binary-dir DIR; trace in them is reported as no image", pf->path, missing,
		     missing == 1 ? "" : "s", first);
	else if (first)
		note(warn, ctx, "%s: %u mapped file%s not found (first: %s, looked for as %s); "
		     "trace in them is reported as no image", pf->path, missing,
		     missing == 1 ? "" : "s", first, where);
	return missing;
}

/* The recording's kernel mapping ([kernel.kallsyms]_text, cpumode kernel),
 * or NULL. */
static const struct trawl_perf_mmap *kernel_mmap(const struct trawl_perf_file *pf)
{
	for (size_t i = 0; i < pf->nmmaps; i++)
		if (pf->mmaps[i].cpumode == 1 &&
		    !strncmp(pf->mmaps[i].filename, "[kernel.kallsyms]", 17))
			return &pf->mmaps[i];
	return NULL;
}

/* Where the kernel's _text was at run time: the kernel MMAP's pgoff (perf
 * writes the run-time address of its reference symbol, _text, there), else
 * kallsyms' _text; 0 when neither says. */
static uint64_t runtime_text(const struct trawl_perf_file *pf, const struct trawl_kallsyms *ks)
{
	const struct trawl_perf_mmap *m = kernel_mmap(pf);
	uint64_t a = 0;
	if (m && m->pgoff && !strcmp(m->filename, "[kernel.kallsyms]_text"))
		return m->pgoff;
	if (ks && trawl_kallsyms_named(ks, "_text", &a))
		return a;
	return 0;
}

enum trawl_status trawl_perf_kernel_image_add(const struct trawl_perf_file *pf,
					      struct trawl_ete_image *img, const char *vmlinux,
					      const struct trawl_kallsyms *ks, trawl_warn_fn warn,
					      void *ctx, struct trawl_error *err)
{
	struct trawl_image *syms = NULL;
	/* the link-time _text, from vmlinux's own symbols */
	enum trawl_status st = trawl_image_create(&syms, err);
	if (!st)
		st = trawl_image_add_elf(syms, vmlinux, 0, err);
	if (st) {
		trawl_image_destroy(syms);
		return st;
	}
	const struct trawl_symbol *text = trawl_image_symbol_named(syms, "_text");
	uint64_t run = runtime_text(pf, ks), bias = 0;
	if (text && run)
		bias = run - text->addr; /* KASLR: the same shift for the whole image */
	else
		note(warn, ctx, "%s: %s: placed at its link addresses (%s)", pf->path, vmlinux,
		     text ? "the recording does not say where _text ran; --kallsyms FILE does"
			  : "it has no _text symbol");
	trawl_image_destroy(syms);
	return trawl_ete_image_add_elf(img, vmlinux, bias, err);
}

/* How far above its link addresses a mapping put the ELF at path: the
 * mapping's start less the link address of file offset pgoff (in the
 * loadable segment holding it). */
enum trawl_status trawl_perf_mapping_bias(const struct trawl_perf_mmap *m, const char *path,
					  uint64_t *bias, struct trawl_error *err)
{
	enum trawl_status st = TRAWL_OK;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return trawl_error_errno(err, errno, "cannot open '%s'", path);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t n = 0;
	int found = 0;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &n) != 0)
		n = 0;
	for (size_t i = 0; i < n && !found; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* the segment's page holds pgoff: mappings start on pages */
		uint64_t lo = ph.p_offset & ~(uint64_t)0xfff, hi = ph.p_offset + ph.p_filesz;
		if (m->pgoff >= lo && m->pgoff < hi) {
			*bias = m->start - (m->pgoff - ph.p_offset + ph.p_vaddr);
			found = 1;
		}
	}
	if (!found)
		st = trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s': no loadable segment at file offset "
				     "0x%llx, where the mapping at offset %llu starts", path,
				     (unsigned long long)m->pgoff, (unsigned long long)m->offset);
	if (e)
		elf_end(e);
	close(fd);
	return st;
}
