/* AutoFDO text profiles (see trawl/autofdo.h). */
#include "trawl/autofdo.h"

#include <inttypes.h>
#include <string.h>

/* The part of the profile one binary owns: its text addresses, shifted. */
struct block {
	uint64_t lo, hi, base; /* lo == hi == 0 with base 0: everything */
	const struct trawl_image_module *mod;
};

static int in_block(const struct block *b, uint64_t addr)
{
	return !b->mod || (addr >= b->lo && addr < b->hi);
}

static size_t count_ranges(const struct block *b, const struct trawl_range_count *rg, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += in_block(b, rg[i].begin);
	return k;
}

static size_t count_branches(const struct block *b, const struct trawl_branch_count *br, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += in_block(b, br[i].from);
	return k;
}

static void write_comments(FILE *f, const struct trawl_image_module *m)
{
	if (m->build_id_len) {
		fputs("// build_id: 0x", f);
		for (size_t i = 0; i < m->build_id_len || i < 20; i++)
			fprintf(f, "%02x", i < m->build_id_len ? m->build_id[i] : 0);
		fputc('\n', f);
	}
	fprintf(f, "// %s\n", m->path);
}

static void write_block(FILE *f, const struct block *b, const struct trawl_range_count *rg,
			size_t nr, const struct trawl_branch_count *br, size_t nb,
			enum trawl_autofdo_format fmt)
{
	fprintf(f, "%zu\n", count_ranges(b, rg, nr));
	for (size_t i = 0; i < nr; i++)
		if (in_block(b, rg[i].begin))
			fprintf(f, "%" PRIx64 "-%" PRIx64 ":%" PRIu64 "\n", rg[i].begin - b->base,
				rg[i].last - b->base, rg[i].count);
	if (fmt == TRAWL_AUTOFDO_TEXT)
		fputs("0\n", f);
	fprintf(f, "%zu\n", count_branches(b, br, nb));
	for (size_t i = 0; i < nb; i++) {
		if (!in_block(b, br[i].from))
			continue;
		uint64_t to = in_block(b, br[i].to) ? br[i].to - b->base : 0;
		fprintf(f, "%" PRIx64 "->%" PRIx64 ":%" PRIu64 "\n", br[i].from - b->base, to,
			br[i].count);
	}
	if (fmt == TRAWL_AUTOFDO_TEXT && b->mod)
		write_comments(f, b->mod);
}

static int module_named(const struct trawl_image_module *m, const char *name)
{
	const char *slash = strrchr(m->path, '/');
	return strcmp(m->path, name) == 0 || (slash && strcmp(slash + 1, name) == 0);
}

enum trawl_status trawl_autofdo_check(const struct trawl_image *img,
				      const struct trawl_autofdo_options *opt,
				      struct trawl_error *err)
{
	size_t nmods = 0, chosen = 0;
	const struct trawl_image_module *mods = img ? trawl_image_modules(img, &nmods) : NULL;
	for (size_t i = 0; i < nmods; i++)
		chosen += !opt->binary || module_named(&mods[i], opt->binary);
	if (opt->binary && !chosen && opt->damaged)
		return trawl_error_set(err, TRAWL_ERR_CORRUPT, "no image named '%s': the input is "
				       "damaged, the records that mapped it may be lost", opt->binary);
	if (opt->binary && !chosen)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "no image named '%s'", opt->binary);
	if (opt->format == TRAWL_AUTOFDO_PROFGEN && chosen > 1)
		return trawl_error_set(err, TRAWL_ERR_USAGE,
				       "llvm-profgen's input holds one binary: choose one of the "
				       "%zu images with --binary", chosen);
	return TRAWL_OK;
}

enum trawl_status trawl_autofdo_write(FILE *f, struct trawl_ranges *r,
				      const struct trawl_image *img,
				      const struct trawl_autofdo_options *opt,
				      struct trawl_autofdo_stats *stats, struct trawl_error *err)
{
	size_t nr, nb, nmods = 0;
	const struct trawl_range_count *rg = trawl_ranges_list(r, &nr);
	const struct trawl_branch_count *br = trawl_ranges_branches(r, &nb);
	const struct trawl_image_module *mods = img ? trawl_image_modules(img, &nmods) : NULL;
	memset(stats, 0, sizeof *stats);
	if (!rg || !br)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	enum trawl_status st = trawl_autofdo_check(img, opt, err);
	if (st)
		return st;
	stats->ranges_outside = nmods ? trawl_ranges_outside(rg, nr, img) : 0;
	if (!nmods) {
		struct block b = { 0 };
		write_block(f, &b, rg, nr, br, nb, opt->format);
		stats->blocks = 1;
	}
	for (size_t i = 0; i < nmods; i++) {
		if (opt->binary && !module_named(&mods[i], opt->binary))
			continue;
		/* create_llvm_prof adds the ELF's first load segment's address to a
		 * text profile's (simpleperf's to_offset subtracts it); llvm-profgen's
		 * --use-offset adds its first text segment's page */
		uint64_t base = opt->format == TRAWL_AUTOFDO_TEXT ? mods[i].load_base
								   : mods[i].text_base;
		struct block b = { mods[i].text_lo, mods[i].text_hi, base, &mods[i] };
		write_block(f, &b, rg, nr, br, nb, opt->format);
		stats->blocks++;
	}
	if (fflush(f) != 0 || ferror(f))
		return trawl_error_set(err, TRAWL_ERR_IO, "cannot write the profile");
	return TRAWL_OK;
}
