/* Writing the compact kind (format.h, kind 2): the builder assembles the
 * sections of a full index in an anonymous temporary file, and this turns
 * that image into the compact file, section by section: the big ones cut
 * into blocks compressed one by one (zblock.h), the small ones (fences,
 * names, identity) copied as they are, then the block table. The logical
 * offsets inside the sections (delta offsets in event and write records)
 * stay those of the image, so a reader that decodes a block sees exactly
 * the bytes the full kind would have. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zstd.h>

#include "index/format.h"
#include "index/spool.h"
#include "index/zblock.h"

/* zstd level: 1 builds fastest; higher levels gain a few percent here
 * (measured on the bench trace), not worth the build time. */
#define ZB_LEVEL 1

struct zw {
	ZSTD_CCtx *cc;
	uint8_t *tbuf, *cbuf;
	size_t ccap;
	uint8_t *tab;           /* ZBLOCKS records */
	size_t ntab, captab;
};

static enum trawl_status tab_add(struct zw *z, uint32_t sid, uint32_t bytes, uint64_t off,
				 struct trawl_error *err)
{
	if (z->ntab == z->captab) {
		size_t c = z->captab ? z->captab * 2 : 1024;
		uint8_t *t = realloc(z->tab, c * ZBLK_REC);
		if (!t)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		z->tab = t;
		z->captab = c;
	}
	uint8_t *r = z->tab + z->ntab++ * ZBLK_REC;
	st32(r, sid);
	st32(r + 4, bytes);
	st64(r + 8, off);
	return TRAWL_OK;
}

/* Let go of the image's pages below p (read already), so the build's
 * resident memory stays that of the blocks in flight, not of the image. */
static void release_below(const uint8_t *img, const uint8_t *p)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t end = (uintptr_t)p & ~(page - 1);
	if (end > (uintptr_t)img)
		madvise((void *)img, end - (uintptr_t)img, MADV_DONTNEED);
}

/* One section of the image: compressed block by block, or copied. */
static enum trawl_status put_section(struct zw *z, struct idx_file *o, const uint8_t *img,
				     const struct idx_secent *ls, struct idx_secent *out,
				     struct trawl_error *err)
{
	enum trawl_status st;
	int zip = idx_sec_compressed(ls->id);
	if ((st = idx_sec_begin(o, out, ls->id, ls->rec, err)))
		return st;
	const uint8_t *p = img + ls->off;
	if (!zip) {
		if ((st = idx_file_write(o, p, (size_t)ls->len, err)))
			return st;
		idx_sec_end(o, out);
		return TRAWL_OK;
	}
	uint32_t bb = zb_block_bytes(ls->rec);
	for (uint64_t a = 0; a < ls->len; a += bb) {
		size_t n = ls->len - a < bb ? (size_t)(ls->len - a) : bb;
		zb_forward(p + a, n, ls->rec, z->tbuf);
		size_t c = ZSTD_compressCCtx(z->cc, z->cbuf, z->ccap, z->tbuf, n, ZB_LEVEL);
		if (ZSTD_isError(c))
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "cannot compress the index: %s",
					       ZSTD_getErrorName(c));
		if ((st = tab_add(z, ls->id, (uint32_t)n, o->pos, err)) ||
		    (st = idx_file_write(o, z->cbuf, c, err)))
			return st;
		if ((a / bb) % 256 == 255)
			release_below(img, p + a);
	}
	idx_sec_end(o, out);
	return TRAWL_OK;
}

enum trawl_status idx_compact_write(struct idx_file *o, const uint8_t *img,
				    const struct idx_secent *ls, size_t nls,
				    struct idx_secent *out, size_t *nout, struct trawl_error *err)
{
	enum trawl_status st = TRAWL_OK;
	struct zw z;
	memset(&z, 0, sizeof z);
	uint32_t most = zb_block_bytes(SNAP_REC) > ZB_BYTES ? zb_block_bytes(SNAP_REC) : ZB_BYTES;
	if (zb_block_bytes(EV_REC) > most)
		most = zb_block_bytes(EV_REC);
	z.ccap = ZSTD_compressBound(most);
	z.cc = ZSTD_createCCtx();
	z.tbuf = malloc(most);
	z.cbuf = malloc(z.ccap);
	if (!z.cc || !z.tbuf || !z.cbuf) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto out;
	}
	size_t k = 0;
	for (size_t i = 0; i < nls && !st; i++)
		st = put_section(&z, o, img, &ls[i], &out[k++], err);
	if (!st && !(st = idx_sec_begin(o, &out[k], SEC_ZBLOCKS, ZBLK_REC, err)) &&
	    !(st = idx_file_write(o, z.tab, z.ntab * ZBLK_REC, err)))
		idx_sec_end(o, &out[k++]);
	*nout = k;
out:
	ZSTD_freeCCtx(z.cc);
	free(z.tbuf);
	free(z.cbuf);
	free(z.tab);
	return st;
}
