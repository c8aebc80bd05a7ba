/* Coverage from counted ranges (see trawl/coverage.h): the ranges become
 * a step function of execution count over addresses, then every line
 * span, function entry and conditional branch reads it. */
#include "trawl/coverage.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

/* Execution count per address: seg[i].count holds from seg[i].lo up to
 * seg[i + 1].lo. */
struct seg {
	uint64_t lo;
	uint64_t count;
};

struct step {
	struct seg *segs;
	size_t n;
};

struct edge {
	uint64_t addr;
	int64_t delta;
};

static int cmp_edge(const void *x, const void *y)
{
	const struct edge *a = x, *b = y;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int step_build(struct step *s, const struct trawl_range_count *rg, size_t n)
{
	struct edge *e = malloc((2 * n + 1) * sizeof *e);
	s->segs = malloc((2 * n + 1) * sizeof *s->segs);
	s->n = 0;
	if (!e || !s->segs) {
		free(e);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		e[2 * i] = (struct edge){ rg[i].begin, (int64_t)rg[i].count };
		e[2 * i + 1] = (struct edge){ rg[i].begin + rg[i].bytes, -(int64_t)rg[i].count };
	}
	qsort(e, 2 * n, sizeof *e, cmp_edge);
	int64_t run = 0;
	for (size_t i = 0; i < 2 * n;) {
		uint64_t at = e[i].addr;
		while (i < 2 * n && e[i].addr == at)
			run += e[i++].delta;
		s->segs[s->n++] = (struct seg){ at, run > 0 ? (uint64_t)run : 0 };
	}
	free(e);
	return 1;
}

/* How many of the n leading elements (size bytes each, sorted by the
 * uint64_t each starts with) have a key at most addr (strict: below it).
 * Segments, branches, spans and declarations all start with their
 * address, so one search serves them all. */
static size_t count_upto(const void *base, size_t n, size_t size, uint64_t addr, int strict)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t key;
		memcpy(&key, (const char *)base + mid * size, sizeof key);
		if (key < addr || (!strict && key == addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The segment holding addr, or -1 when addr is below the first. */
static long step_find(const struct step *s, uint64_t addr)
{
	return (long)count_upto(s->segs, s->n, sizeof *s->segs, addr, 0) - 1;
}

static uint64_t step_at(const struct step *s, uint64_t addr)
{
	long i = step_find(s, addr);
	return i < 0 ? 0 : s->segs[i].count;
}

static uint64_t step_max(const struct step *s, uint64_t lo, uint64_t hi)
{
	long i = step_find(s, lo);
	uint64_t best = 0;
	if (i < 0)
		i = 0;
	for (size_t j = (size_t)i; j < s->n && s->segs[j].lo < hi; j++)
		if (s->segs[j].count > best)
			best = s->segs[j].count;
	return best;
}

static uint64_t taken_from(const struct trawl_branch_count *br, size_t n, uint64_t pc)
{
	size_t lo = count_upto(br, n, sizeof *br, pc, 1);
	uint64_t t = 0;
	for (; lo < n && br[lo].from == pc; lo++)
		if (br[lo].to != pc + 4)
			t += br[lo].count;
	return t;
}

#define MAX_LINE_CODE (1u << 20)

/* A64 conditional branches: B.cond, CBZ/CBNZ, TBZ/TBNZ. */
static int is_cond_branch(uint32_t insn)
{
	return (insn & 0xff000010u) == 0x54000000u || (insn & 0x7e000000u) == 0x34000000u ||
	       (insn & 0x7e000000u) == 0x36000000u;
}

struct build {
	struct trawl_coverage *cov;
	struct step step;
	const struct trawl_branch_count *br;
	size_t nbr;
	const struct trawl_image *img;
	struct trawl_lines *lines;
	size_t *cap_lines, *cap_funcs, *cap_branches; /* per file */
};

static int add_line(struct build *b, struct trawl_cov_file *f, size_t fi, uint32_t line,
		    uint64_t count)
{
	if (!trawl_grow((void **)&f->lines, &b->cap_lines[fi], f->nlines + 1, sizeof *f->lines))
		return 0;
	f->lines[f->nlines++] = (struct trawl_cov_line){ line, count };
	return 1;
}

static int add_branches(struct build *b, struct trawl_cov_file *f, size_t fi,
			const struct trawl_line_span *sp, uint32_t *block)
{
	if (trawl_image_machine(b->img) != 183) /* EM_AARCH64 */
		return 1;
	/* no source line compiles to more code than this; a hostile line
	 * table's span of 2^60 bytes is not walked */
	uint64_t hi = sp->hi - sp->lo > MAX_LINE_CODE ? sp->lo + MAX_LINE_CODE : sp->hi;
	for (uint64_t pc = (sp->lo + 3) & ~(uint64_t)3; pc + 4 <= hi && pc >= sp->lo; pc += 4) {
		uint8_t w[4];
		if (trawl_image_read(b->img, pc, w, 4) < 4)
			continue;
		uint32_t insn = (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 |
				(uint32_t)w[3] << 24;
		if (!is_cond_branch(insn))
			continue;
		if (!trawl_grow((void **)&f->branches, &b->cap_branches[fi], f->nbranches + 1,
				sizeof *f->branches))
			return 0;
		uint64_t ex = step_at(&b->step, pc), tk = taken_from(b->br, b->nbr, pc);
		f->branches[f->nbranches++] = (struct trawl_cov_branch){
			sp->line, (*block)++, pc, ex, tk < ex ? tk : ex };
	}
	return 1;
}

static int cmp_line(const void *x, const void *y)
{
	const struct trawl_cov_line *a = x, *b = y;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_branch(const void *x, const void *y)
{
	const struct trawl_cov_branch *a = x, *b = y;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int cmp_func(const void *x, const void *y)
{
	const struct trawl_cov_func *a = x, *b = y;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Lines of a file: one entry per line number, the largest count. */
static void merge_lines(struct trawl_cov_file *f)
{
	if (f->nlines > 1) /* qsort(NULL, 0) is undefined */
		qsort(f->lines, f->nlines, sizeof *f->lines, cmp_line);
	size_t k = 0;
	for (size_t i = 0; i < f->nlines; i++) {
		if (k && f->lines[k - 1].line == f->lines[i].line) {
			if (f->lines[i].count > f->lines[k - 1].count)
				f->lines[k - 1].count = f->lines[i].count;
			continue;
		}
		f->lines[k++] = f->lines[i];
	}
	f->nlines = k;
	if (f->nbranches > 1)
		qsort(f->branches, f->nbranches, sizeof *f->branches, cmp_branch);
	for (size_t i = 0; i < f->nbranches; i++)
		f->branches[i].block = i && f->branches[i - 1].line == f->branches[i].line
					       ? f->branches[i - 1].block + 1
					       : 0;
}

/* Every line span feeds its file's lines and branches. */
static int walk_spans(struct build *b, const struct trawl_line_span *sp, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t fi = sp[i].file;
		struct trawl_cov_file *f = &b->cov->files[fi];
		uint32_t block = 0;
		if (!add_line(b, f, fi, sp[i].line, step_max(&b->step, sp[i].lo, sp[i].hi)) ||
		    !add_branches(b, f, fi, &sp[i], &block))
			return 0;
	}
	return 1;
}

static const struct trawl_line_span *span_at(const struct trawl_line_span *sp, size_t n,
					     uint64_t addr)
{
	size_t lo = count_upto(sp, n, sizeof *sp, addr, 0);
	return lo && addr < sp[lo - 1].hi ? &sp[lo - 1] : NULL;
}

static const struct trawl_line_decl *decl_at(const struct trawl_line_decl *d, size_t n,
					     uint64_t addr)
{
	size_t lo = count_upto(d, n, sizeof *d, addr, 1);
	return lo < n && d[lo].addr == addr ? &d[lo] : NULL;
}

/* Functions: symbols of code the line tables describe, one per address,
 * placed at their declaration line when DWARF gives it (the line counts
 * as executed with the function's entry, as gcov has it). */
static int walk_functions(struct build *b, const struct trawl_line_span *sp, size_t n)
{
	size_t nd;
	const struct trawl_line_decl *decls = trawl_lines_decls(b->lines, &nd);
	size_t nsyms;
	const struct trawl_symbol *syms = trawl_image_symbols(b->img, &nsyms);
	for (size_t i = 0; i < nsyms; i++) {
		const struct trawl_symbol *s = &syms[i];
		const struct trawl_line_span *at = span_at(sp, n, s->addr);
		if (s->type != TRAWL_SYM_FUNC || !at || (i && syms[i - 1].addr == s->addr &&
							 syms[i - 1].type == TRAWL_SYM_FUNC))
			continue;
		const struct trawl_line_decl *d = decl_at(decls, nd, s->addr);
		uint32_t fi = d ? d->file : at->file, line = d ? d->line : at->line;
		uint64_t count = step_at(&b->step, s->addr);
		struct trawl_cov_file *f = &b->cov->files[fi];
		if (!trawl_grow((void **)&f->funcs, &b->cap_funcs[fi], f->nfuncs + 1, sizeof *f->funcs) ||
		    (d && !add_line(b, f, fi, line, count)))
			return 0;
		f->funcs[f->nfuncs++] = (struct trawl_cov_func){ s->raw, line, s->addr, count };
	}
	return 1;
}

static int cmp_file(const void *x, const void *y)
{
	const struct trawl_cov_file *a = x, *b = y;
	return strcmp(a->path, b->path);
}

/* Files without any line are dropped; the rest sorted by path. */
static void finish_files(struct trawl_coverage *cov)
{
	size_t k = 0;
	for (size_t i = 0; i < cov->nfiles; i++) {
		struct trawl_cov_file *f = &cov->files[i];
		merge_lines(f);
		if (f->nfuncs > 1)
			qsort(f->funcs, f->nfuncs, sizeof *f->funcs, cmp_func);
		if (f->nlines)
			cov->files[k++] = *f;
		else {
			free(f->lines);
			free(f->funcs);
			free(f->branches);
		}
	}
	cov->nfiles = k;
	if (cov->nfiles > 1)
		qsort(cov->files, cov->nfiles, sizeof *cov->files, cmp_file);
}

enum trawl_status trawl_coverage_build(struct trawl_coverage *cov, struct trawl_ranges *r,
				       const struct trawl_image *img, struct trawl_lines *lines,
				       struct trawl_error *err)
{
	struct build b = { .cov = cov, .img = img, .lines = lines };
	size_t nr, nsp, nfiles = trawl_lines_file_count(lines);
	memset(cov, 0, sizeof *cov);
	const struct trawl_range_count *rg = trawl_ranges_list(r, &nr);
	b.br = trawl_ranges_branches(r, &b.nbr);
	const struct trawl_line_span *sp = trawl_lines_spans(lines, &nsp);
	int ok = rg && b.br && step_build(&b.step, rg, nr);
	cov->files = calloc(nfiles + 1, sizeof *cov->files);
	b.cap_lines = calloc(3 * (nfiles + 1), sizeof *b.cap_lines);
	if (ok && cov->files && b.cap_lines) {
		cov->nfiles = nfiles;
		b.cap_funcs = b.cap_lines + nfiles + 1;
		b.cap_branches = b.cap_funcs + nfiles + 1;
		for (size_t i = 0; i < nfiles; i++)
			cov->files[i].path = trawl_lines_file(lines, (uint32_t)i);
		ok = walk_spans(&b, sp, nsp) && walk_functions(&b, sp, nsp);
		finish_files(cov);
	} else {
		ok = 0;
	}
	free(b.step.segs);
	free(b.cap_lines);
	if (!ok) {
		trawl_coverage_release(cov);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory computing coverage");
	}
	return TRAWL_OK;
}

void trawl_coverage_release(struct trawl_coverage *cov)
{
	for (size_t i = 0; cov->files && i < cov->nfiles; i++) {
		free(cov->files[i].lines);
		free(cov->files[i].funcs);
		free(cov->files[i].branches);
	}
	free(cov->files);
	memset(cov, 0, sizeof *cov);
}
