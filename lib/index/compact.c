/* Writing the compact kind (format.h, kind 2) as the sections stream out:
 * while a compressed section is being written, its output file's writes
 * go to a sink that gathers one block of decoded bytes, transforms and
 * compresses it (zblock.h), appends the frame to the file and notes it in
 * the block table, written last as SEC_ZBLOCKS. The builder writes every
 * section the same way for both kinds; only the sink is in between, so
 * the offsets inside the sections (delta offsets in event and write
 * records) are those of the full kind, and no full-size copy of the index
 * is ever written. */
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "core/grow.h"
#include "index/format.h"
#include "index/spool.h"
#include "index/zblock.h"

/* zstd level: 1 is fast (about 1 GB/s here with the transform); higher
 * levels gained a few percent on the bench trace, not worth the time. */
#define ZB_LEVEL 1

struct idx_zsink {
	ZSTD_CCtx *cc;
	uint8_t *blk, *tbuf, *cbuf;
	size_t n, most, ccap;
	uint32_t sid, rec, bb;
	uint8_t *tab;           /* ZBLOCKS records */
	size_t ntab, captab;
};

enum trawl_status idx_zsink_create(struct idx_zsink **out, struct trawl_error *err)
{
	struct idx_zsink *z = calloc(1, sizeof *z);
	*out = z;
	if (!z)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	z->most = ZB_BYTES;
	static const uint32_t recs[] = { EVB_REC, MEMW_REC, SNAP_REC, CLOB_REC, BD_REC, REGW_REC,
					 PCS_REC };
	for (size_t i = 0; i < sizeof recs / sizeof *recs; i++)
		if (zb_block_bytes(recs[i]) > z->most)
			z->most = zb_block_bytes(recs[i]);
	z->ccap = ZSTD_compressBound(z->most);
	z->cc = ZSTD_createCCtx();
	z->blk = malloc(z->most);
	z->tbuf = malloc(z->most);
	z->cbuf = malloc(z->ccap);
	if (!z->cc || !z->blk || !z->tbuf || !z->cbuf)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	return TRAWL_OK;
}

void idx_zsink_destroy(struct idx_zsink *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->cc);
	free(z->blk);
	free(z->tbuf);
	free(z->cbuf);
	free(z->tab);
	free(z);
}

void idx_zsink_start(struct idx_file *f, struct idx_zsink *z, uint32_t sid, uint32_t rec)
{
	z->sid = sid;
	z->rec = rec;
	z->bb = zb_block_bytes(rec);
	z->n = 0;
	f->z = z;
}

/* The gathered block: transformed, compressed, appended, noted. */
static enum trawl_status flush_block(struct idx_file *f, struct idx_zsink *z,
				     struct trawl_error *err)
{
	if (!z->n)
		return TRAWL_OK;
	zb_forward(z->blk, z->n, z->rec, z->tbuf);
	size_t c = ZSTD_compressCCtx(z->cc, z->cbuf, z->ccap, z->tbuf, z->n, ZB_LEVEL);
	if (ZSTD_isError(c))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "cannot compress the index: %s",
				       ZSTD_getErrorName(c));
	void *tab = z->tab;
	if (!trawl_grow(&tab, &z->captab, z->ntab + 1, ZBLK_REC))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	z->tab = tab;
	uint8_t *r = z->tab + z->ntab++ * ZBLK_REC;
	st32(r, z->sid);
	st32(r + 4, (uint32_t)z->n);
	st64(r + 8, f->pos);
	z->n = 0;
	return idx_file_write_raw(f, z->cbuf, c, err);
}

enum trawl_status idx_zsink_write(struct idx_file *f, const void *data, size_t len,
				  struct trawl_error *err)
{
	struct idx_zsink *z = f->z;
	const uint8_t *p = data;
	while (len) {
		size_t k = z->bb - z->n < len ? z->bb - z->n : len;
		memcpy(z->blk + z->n, p, k);
		z->n += k;
		p += k;
		len -= k;
		enum trawl_status st;
		if (z->n == z->bb && (st = flush_block(f, z, err)))
			return st;
	}
	return TRAWL_OK;
}

enum trawl_status idx_zsink_end(struct idx_file *f, struct trawl_error *err)
{
	struct idx_zsink *z = f->z;
	enum trawl_status st = flush_block(f, z, err);
	f->z = NULL;
	return st;
}

enum trawl_status idx_zsink_table(struct idx_file *f, struct idx_zsink *z, struct idx_secent *s,
				  struct trawl_error *err)
{
	enum trawl_status st = idx_sec_begin(f, s, SEC_ZBLOCKS, ZBLK_REC, err);
	if (!st && !(st = idx_file_write(f, z->tab, z->ntab * ZBLK_REC, err)))
		idx_sec_end(f, s);
	return st;
}
