/* Writing and checking the seek file's header and point table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "core/grow.h"
#include "index/format.h" /* the little-endian loads and stores */
#include "text/seek.h"
#include "trawl/input.h"

uint32_t seek_blob_sum(const void *p, size_t n)
{
	return (uint32_t)XXH3_64bits(p, n);
}

enum trawl_status seek_add_point(struct seek_build *b, const struct seek_point *pt,
				 struct trawl_error *err)
{
	struct seek_table *t = b->tab;
	if (!trawl_grow((void **)&t->points, &b->cap, (size_t)t->npoints + 1, sizeof *t->points))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	t->points[t->npoints++] = *pt;
	return TRAWL_OK;
}

static enum trawl_status put(struct seek_sink *s, const void *p, size_t n, struct trawl_error *err)
{
	const uint8_t *q = p;
	while (n) {
		ssize_t k = pwrite(s->fd, q, n, (off_t)s->pos);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return trawl_error_errno(err, k < 0 ? errno : ENOSPC, "cannot write '%s'",
						 s->name);
		q += k;
		n -= (size_t)k;
		s->pos += (uint64_t)k;
	}
	return TRAWL_OK;
}

enum trawl_status seek_add_blob(struct seek_build *b, struct seek_point *pt, const void *p,
				size_t n, struct trawl_error *err)
{
	pt->blob_off = b->sink->pos;
	pt->blob_len = (uint32_t)n;
	pt->blob_sum = seek_blob_sum(p, n);
	enum trawl_status st = put(b->sink, p, n, err);
	/* the next blob starts 8-aligned, as the table does */
	static const uint8_t zero[8];
	if (!st && (b->sink->pos & 7))
		st = put(b->sink, zero, 8 - (b->sink->pos & 7), err);
	return st;
}

static void put_point(uint8_t *r, const struct seek_point *pt)
{
	memset(r, 0, SEEK_REC);
	st64(r, pt->text_off);
	st64(r + 8, pt->src_off);
	st64(r + 16, pt->src_len);
	st64(r + 24, pt->blob_off);
	st64(r + 32, pt->text_sum);
	st32(r + 40, pt->blob_len);
	st32(r + 44, pt->blob_sum);
	r[48] = pt->kind;
	r[49] = pt->bits;
}

static void get_point(const uint8_t *r, struct seek_point *pt)
{
	pt->text_off = ld64(r);
	pt->src_off = ld64(r + 8);
	pt->src_len = ld64(r + 16);
	pt->blob_off = ld64(r + 24);
	pt->text_sum = ld64(r + 32);
	pt->blob_len = ld32(r + 40);
	pt->blob_sum = ld32(r + 44);
	pt->kind = r[48];
	pt->bits = r[49];
}

/* Header layout: docs/index-format.md, "Seek file". */
enum trawl_status seek_file_finish(struct seek_sink *s, const struct seek_table *tab,
				   struct trawl_error *err)
{
	uint64_t table_off = s->pos, n = tab->npoints;
	uint8_t rec[SEEK_REC];
	XXH3_state_t *hs = XXH3_createState();
	if (!hs)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	XXH3_64bits_reset(hs);
	enum trawl_status st = TRAWL_OK;
	for (uint64_t i = 0; i < n && !st; i++) {
		put_point(rec, &tab->points[i]);
		XXH3_64bits_update(hs, rec, SEEK_REC);
		st = put(s, rec, SEEK_REC, err);
	}
	uint64_t table_sum = XXH3_64bits_digest(hs);
	XXH3_freeState(hs);
	if (st)
		return st;
	uint8_t h[SEEK_HEADER];
	memset(h, 0, sizeof h);
	memcpy(h, SEEK_MAGIC, 8);
	st32(h + 8, SEEK_VERSION);
	st32(h + 12, tab->comp);
	st64(h + 16, s->pos);
	st64(h + 24, tab->id.size);
	st64(h + 32, tab->id.mtime_ns);
	st64(h + 40, tab->id.ctime_ns);
	st64(h + 48, tab->id.ino);
	st64(h + 56, tab->id.dev);
	st64(h + 64, tab->id.hash);
	st64(h + 72, tab->id.taken_ns);
	st64(h + 80, tab->text_size);
	st64(h + 88, n);
	st64(h + 96, table_off);
	st64(h + 104, table_sum);
	st64(h + 248, XXH3_64bits(h, 248));
	uint64_t end = s->pos;
	s->pos = 0;
	st = put(s, h, sizeof h, err);
	s->pos = end;
	return st;
}

/* One point against the file, the trace and its neighbours. */
static int point_ok(const struct seek_table *t, uint64_t i, uint64_t blobs_end,
		    uint64_t trace_size)
{
	const struct seek_point *pt = &t->points[i];
	uint64_t end = i + 1 < t->npoints ? t->points[i + 1].text_off : t->text_size;
	if (end <= pt->text_off || end - pt->text_off > SEEK_MAX_SPAN)
		return 0;
	if (i == 0 && pt->text_off != 0)
		return 0;
	int blob = pt->kind == SEEK_GZ_RAW || pt->kind == SEEK_ZST_COPY;
	if (blob && (pt->blob_off < SEEK_HEADER || pt->blob_off > blobs_end ||
		     pt->blob_len > blobs_end - pt->blob_off))
		return 0;
	if (pt->bits > 7 || (pt->bits && pt->src_off == 0))
		return 0;
	switch (pt->kind) {
	case SEEK_GZ_MEMBER:
	case SEEK_GZ_RAW:
		return t->comp == TRAWL_COMPRESSION_GZIP && pt->src_off <= trace_size;
	case SEEK_ZST_TRACE:
		return t->comp == TRAWL_COMPRESSION_ZSTD && pt->src_off <= trace_size &&
		       pt->src_len <= trace_size - pt->src_off;
	case SEEK_ZST_COPY:
		return t->comp == TRAWL_COMPRESSION_ZSTD;
	default:
		return 0;
	}
}

static enum trawl_status parse_header(const uint8_t *p, uint64_t size, uint64_t trace_size,
				      const char *name, struct seek_table *tab,
				      uint64_t *table_off, struct trawl_error *err)
{
	if (size < SEEK_HEADER || memcmp(p, SEEK_MAGIC, 8) != 0)
		return TRAWL_CORRUPT(err, "'%s' is not a seek file", name);
	if (ld32(p + 8) != SEEK_VERSION)
		return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
				       "'%s': seek file version %u (this trawl writes %u)", name,
				       ld32(p + 8), SEEK_VERSION);
	if (ld64(p + 248) != XXH3_64bits(p, 248))
		return TRAWL_CORRUPT(err, "'%s': the header checksum does not match", name);
	tab->comp = ld32(p + 12);
	tab->id.size = ld64(p + 24);
	tab->id.mtime_ns = ld64(p + 32);
	tab->id.ctime_ns = ld64(p + 40);
	tab->id.ino = ld64(p + 48);
	tab->id.dev = ld64(p + 56);
	tab->id.hash = ld64(p + 64);
	tab->id.hashed = 1;
	tab->id.source = 1;
	tab->id.taken_ns = ld64(p + 72);
	tab->text_size = ld64(p + 80);
	tab->npoints = ld64(p + 88);
	*table_off = ld64(p + 96);
	if (ld64(p + 16) != size)
		return TRAWL_CORRUPT(err, "'%s' is %llu bytes, its header says %llu", name,
				     (unsigned long long)size, (unsigned long long)ld64(p + 16));
	if ((tab->comp != TRAWL_COMPRESSION_GZIP && tab->comp != TRAWL_COMPRESSION_ZSTD) ||
	    *table_off < SEEK_HEADER || *table_off > size ||
	    tab->npoints != (size - *table_off) / SEEK_REC ||
	    (size - *table_off) % SEEK_REC || (tab->text_size && !tab->npoints))
		return TRAWL_CORRUPT(err, "'%s': bad header fields", name);
	if (ld64(p + 104) != XXH3_64bits(p + *table_off, (size_t)(size - *table_off)))
		return TRAWL_CORRUPT(err, "'%s': the point table's checksum does not match", name);
	return TRAWL_OK;
}

enum trawl_status seek_file_parse(const uint8_t *p, uint64_t size, uint64_t trace_size,
				  const char *name, struct seek_table *tab,
				  struct trawl_error *err)
{
	uint64_t table_off = 0;
	memset(tab, 0, sizeof *tab);
	enum trawl_status st = parse_header(p, size, trace_size, name, tab, &table_off, err);
	if (st)
		return st;
	tab->points = calloc(tab->npoints ? tab->npoints : 1, sizeof *tab->points);
	if (!tab->points)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	for (uint64_t i = 0; i < tab->npoints; i++)
		get_point(p + table_off + i * SEEK_REC, &tab->points[i]);
	for (uint64_t i = 0; i < tab->npoints; i++)
		if (!point_ok(tab, i, table_off, trace_size))
			return TRAWL_CORRUPT(err, "'%s': restart point %llu is out of bounds", name,
					     (unsigned long long)i);
	return TRAWL_OK;
}
