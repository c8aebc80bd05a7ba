/* Coverage writers: lcov tracefiles, a text summary, drcov (see
 * trawl/coverage.h). */
#include "trawl/coverage.h"

#include <inttypes.h>
#include <string.h>

static enum trawl_status finish(FILE *f, struct trawl_error *err)
{
	if (fflush(f) != 0 || ferror(f))
		return trawl_error_set(err, TRAWL_ERR_IO, "cannot write the coverage");
	return TRAWL_OK;
}

static void lcov_functions(FILE *f, const struct trawl_cov_file *cf)
{
	size_t hit = 0;
	for (size_t i = 0; i < cf->nfuncs; i++)
		fprintf(f, "FN:%" PRIu32 ",%s\n", cf->funcs[i].line, cf->funcs[i].name);
	for (size_t i = 0; i < cf->nfuncs; i++) {
		fprintf(f, "FNDA:%" PRIu64 ",%s\n", cf->funcs[i].count, cf->funcs[i].name);
		hit += cf->funcs[i].count > 0;
	}
	fprintf(f, "FNF:%zu\nFNH:%zu\n", cf->nfuncs, hit);
}

/* Each conditional branch is two lcov branches: 0 taken, 1 not taken
 * ("-" for both when the branch was never reached). */
static void lcov_branches(FILE *f, const struct trawl_cov_file *cf)
{
	size_t hit = 0;
	for (size_t i = 0; i < cf->nbranches; i++) {
		const struct trawl_cov_branch *b = &cf->branches[i];
		if (!b->executed) {
			fprintf(f, "BRDA:%" PRIu32 ",%" PRIu32 ",0,-\nBRDA:%" PRIu32 ",%" PRIu32 ",1,-\n",
				b->line, b->block, b->line, b->block);
			continue;
		}
		fprintf(f, "BRDA:%" PRIu32 ",%" PRIu32 ",0,%" PRIu64 "\n", b->line, b->block, b->taken);
		fprintf(f, "BRDA:%" PRIu32 ",%" PRIu32 ",1,%" PRIu64 "\n", b->line, b->block,
			b->executed - b->taken);
		hit += (b->taken > 0) + (b->executed > b->taken);
	}
	fprintf(f, "BRF:%zu\nBRH:%zu\n", 2 * cf->nbranches, hit);
}

enum trawl_status trawl_coverage_write_lcov(FILE *f, const struct trawl_coverage *cov,
					    const char *test_name, struct trawl_error *err)
{
	for (size_t i = 0; i < cov->nfiles; i++) {
		const struct trawl_cov_file *cf = &cov->files[i];
		size_t hit = 0;
		fprintf(f, "TN:%s\nSF:%s\n", test_name ? test_name : "", cf->path);
		lcov_functions(f, cf);
		lcov_branches(f, cf);
		for (size_t j = 0; j < cf->nlines; j++) {
			fprintf(f, "DA:%" PRIu32 ",%" PRIu64 "\n", cf->lines[j].line, cf->lines[j].count);
			hit += cf->lines[j].count > 0;
		}
		fprintf(f, "LF:%zu\nLH:%zu\nend_of_record\n", cf->nlines, hit);
	}
	return finish(f, err);
}

static void pct(FILE *f, size_t hit, size_t all)
{
	if (all)
		fprintf(f, " %zu/%zu (%.1f%%)", hit, all, 100.0 * (double)hit / (double)all);
	else
		fputs(" -", f);
}

enum trawl_status trawl_coverage_write_text(FILE *f, const struct trawl_coverage *cov,
					    struct trawl_error *err)
{
	size_t tl = 0, tlh = 0, tf = 0, tfh = 0, tb = 0, tbh = 0;
	for (size_t i = 0; i < cov->nfiles; i++) {
		const struct trawl_cov_file *cf = &cov->files[i];
		size_t lh = 0, fh = 0, bh = 0;
		for (size_t j = 0; j < cf->nlines; j++)
			lh += cf->lines[j].count > 0;
		for (size_t j = 0; j < cf->nfuncs; j++)
			fh += cf->funcs[j].count > 0;
		for (size_t j = 0; j < cf->nbranches; j++)
			bh += (cf->branches[j].taken > 0) +
			      (cf->branches[j].executed > cf->branches[j].taken);
		fprintf(f, "%s\n  lines", cf->path);
		pct(f, lh, cf->nlines);
		fputs(", functions", f);
		pct(f, fh, cf->nfuncs);
		fputs(", branches", f);
		pct(f, bh, 2 * cf->nbranches);
		fputc('\n', f);
		for (size_t j = 0; j < cf->nfuncs; j++)
			fprintf(f, "  %12" PRIu64 "  %s (line %" PRIu32 ")\n", cf->funcs[j].count,
				cf->funcs[j].name, cf->funcs[j].line);
		tl += cf->nlines, tlh += lh, tf += cf->nfuncs, tfh += fh;
		tb += 2 * cf->nbranches, tbh += bh;
	}
	fputs("total: lines", f);
	pct(f, tlh, tl);
	fputs(", functions", f);
	pct(f, tfh, tf);
	fputs(", branches", f);
	pct(f, tbh, tb);
	fputc('\n', f);
	return finish(f, err);
}

static void put_bb(FILE *f, uint32_t start, uint16_t size, uint16_t mod)
{
	uint8_t b[8] = { (uint8_t)start, (uint8_t)(start >> 8), (uint8_t)(start >> 16),
			 (uint8_t)(start >> 24), (uint8_t)size, (uint8_t)(size >> 8),
			 (uint8_t)mod, (uint8_t)(mod >> 8) };
	fwrite(b, 1, sizeof b, f);
}

/* Blocks per module: offsets from its lowest load address must fit 32
 * bits, sizes 16 (longer ranges are cut into pieces). */
static size_t drcov_blocks(FILE *f, const struct trawl_range_count *rg, size_t n,
			   const struct trawl_image_module *mods, size_t nmods)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t m = 0; m < nmods; m++) {
			if (rg[i].begin < mods[m].text_lo || rg[i].begin >= mods[m].text_hi ||
			    rg[i].begin - mods[m].lo > UINT32_MAX - rg[i].bytes)
				continue;
			for (uint64_t off = 0; off < rg[i].bytes; off += 0xfffc) {
				uint64_t len = rg[i].bytes - off < 0xfffc ? rg[i].bytes - off : 0xfffc;
				if (f)
					put_bb(f, (uint32_t)(rg[i].begin + off - mods[m].lo),
					       (uint16_t)len, (uint16_t)m);
				k++;
			}
			break;
		}
	}
	return k;
}

enum trawl_status trawl_coverage_write_drcov(FILE *f, struct trawl_ranges *r,
					     const struct trawl_image *img, struct trawl_error *err)
{
	size_t n, nmods;
	const struct trawl_range_count *rg = trawl_ranges_list(r, &n);
	const struct trawl_image_module *mods = trawl_image_modules(img, &nmods);
	if (!rg)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	fprintf(f, "DRCOV VERSION: 2\nDRCOV FLAVOR: drcov\n");
	fprintf(f, "Module Table: version 2, count %zu\n", nmods);
	fprintf(f, "Columns: id, base, end, entry, checksum, timestamp, path\n");
	for (size_t m = 0; m < nmods; m++)
		fprintf(f, "%2zu, 0x%016" PRIx64 ", 0x%016" PRIx64
			", 0x0000000000000000, 0x00000000, 0x00000000, %s\n",
			m, mods[m].lo, mods[m].hi, mods[m].path);
	fprintf(f, "BB Table: %zu bbs\n", drcov_blocks(NULL, rg, n, mods, nmods));
	drcov_blocks(f, rg, n, mods, nmods);
	return finish(f, err);
}
