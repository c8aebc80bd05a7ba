/* Android simpleperf's own feature sections (numbers 128 and up,
 * simpleperf's record_file_format.h): meta_info (129), "key\0value\0"
 * pairs, is kept; init_map (134), the MMAP/MMAP2/COMM records of the
 * processes that ran before the recording began (newer simpleperf writes
 * them there instead of in the data section), is walked like the data
 * section. The others (file, file2, debug_unwind, etm_branch_list) are
 * skipped by their size. */
#include <stdlib.h>
#include <string.h>

#include "ete/perf-int.h"

#define FEAT_META_INFO 129
#define FEAT_INIT_MAP 134

/* The mappings init_map added (from index n0 on) go before those of the
 * data section: they are older, and later mappings win where they overlap. */
static int put_first(struct trawl_perf_file *f, size_t n0)
{
	size_t k = f->nmmaps - n0;
	if (!k || !n0)
		return 1;
	struct trawl_perf_mmap *tmp = malloc(k * sizeof *tmp);
	if (!tmp)
		return 0;
	memcpy(tmp, f->mmaps + n0, k * sizeof *tmp);
	memmove(f->mmaps + k, f->mmaps, n0 * sizeof *tmp);
	memcpy(f->mmaps, tmp, k * sizeof *tmp);
	free(tmp);
	return 1;
}

enum trawl_status trawl_perf__simpleperf_feature(struct trawl_perf_file *f, unsigned bit,
						 uint64_t off, uint64_t size)
{
	if (bit == FEAT_META_INFO) {
		f->meta = (const char *)f->mem + off;
		f->meta_len = (size_t)size;
		return TRAWL_OK;
	}
	if (bit != FEAT_INIT_MAP)
		return TRAWL_OK;
	size_t n0 = f->nmmaps;
	uint64_t stop;
	struct trawl_error err;
	trawl_error_clear(&err);
	enum trawl_status st = trawl_perf__walk(f, f->mem, off, off + size, 0, &stop, &err);
	if (st == TRAWL_OK && stop != off + size)
		trawl_perf__warn(f, "%s: offset %llu: %llu stray bytes at the end of the init_map "
				 "feature", f->path, (unsigned long long)stop,
				 (unsigned long long)(off + size - stop));
	if (st == TRAWL_OK && !put_first(f, n0))
		st = TRAWL_ERR_NOMEM;
	return st;
}

const char *trawl_perf_meta(const struct trawl_perf_file *f, const char *key)
{
	const char *p = f->meta, *end = f->meta ? f->meta + f->meta_len : NULL;
	while (p && p < end) {
		const char *k = p, *ke = memchr(k, 0, (size_t)(end - k));
		if (!ke || ke + 1 >= end)
			return NULL;
		const char *v = ke + 1, *ve = memchr(v, 0, (size_t)(end - v));
		if (!ve)
			return NULL; /* a value cut by the end of the section */
		if (!strcmp(k, key))
			return v;
		p = ve + 1;
	}
	return NULL;
}

int trawl_perf_meta_next(const struct trawl_perf_file *f, size_t *pos, const char **key,
			 const char **value)
{
	const char *end = f->meta ? f->meta + f->meta_len : NULL;
	const char *p = f->meta ? f->meta + *pos : NULL;
	if (!p || p >= end)
		return 0;
	const char *ke = memchr(p, 0, (size_t)(end - p));
	if (!ke || ke + 1 >= end || !*p)
		return 0;
	const char *ve = memchr(ke + 1, 0, (size_t)(end - ke - 1));
	if (!ve)
		return 0;
	*key = p;
	*value = ke + 1;
	*pos = (size_t)(ve + 1 - f->meta);
	return 1;
}
