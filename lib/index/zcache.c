/* Reading the compact kind (format.h, kind 2): the block table is checked
 * once at open; a query that needs a record decodes its block (the frame
 * read with the checked pread, so a damaged block is an error, never a
 * wrong answer) into a small per-section cache. Searches touch the same
 * few blocks over and over (the top of a bisection, the current epoch's
 * delta log), so a handful of slots per section keeps a warm query to
 * one decode at most. Not for concurrent use of one handle. */
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "index/index-int.h"
#include "index/zblock.h"

#define ZC_SLOTS 8u

struct zslot {
	uint64_t blk, used;     /* used = 0: empty */
	uint8_t *buf;
	uint32_t len;
};

struct idx_zcache {
	struct zslot slot[SEC_COUNT_ + 1][ZC_SLOTS];
	uint64_t tick;
	ZSTD_DCtx *dctx;
	uint8_t *cbuf, *tbuf;
	size_t ccap;
	uint8_t *bounce;
	size_t bcap;
	uint8_t zero[SNAP_REC];
};

#define CORRUPT(ix, what) TRAWL_CORRUPT(err, "'%s': damaged index: %s", (ix)->path, what)

/* One section's run of block-table entries: consecutive, offsets rising
 * inside its compressed bytes, every block full but the last. */
static enum trawl_status zsec_check(struct trawl_index *ix, struct idx_sec *s,
				    const uint8_t *tab, uint64_t first, uint64_t n,
				    struct trawl_error *err)
{
	uint64_t len = 0, prev = s->zoff;
	for (uint64_t k = 0; k < n; k++) {
		const uint8_t *e = tab + (first + k) * ZBLK_REC;
		uint32_t bytes = ld32(e + 4);
		uint64_t off = ld64(e + 8);
		if ((k == 0 ? off != s->zoff : off <= prev) || off >= s->zoff + s->zlen ||
		    bytes == 0 || bytes > s->zbb || (k + 1 < n && bytes != s->zbb) ||
		    (s->rec && bytes % s->rec))
			return CORRUPT(ix, "compressed block table");
		len += bytes;
		prev = off;
	}
	if (!n && s->zlen)
		return CORRUPT(ix, "compressed block table");
	s->zfirst = first;
	s->znb = n;
	s->len = len;
	s->n = s->rec ? len / s->rec : len;
	return TRAWL_OK;
}

enum trawl_status idx_zcache_open(struct trawl_index *ix, struct trawl_error *err)
{
	const struct idx_sec *t = &ix->sec[SEC_ZBLOCKS];
	if (!idx_touch(ix, t->p, t->len))
		return idx_result(ix, TRAWL_OK, err);
	struct idx_zcache *zc = calloc(1, sizeof *zc);
	if (!zc || !(zc->dctx = ZSTD_createDCtx())) {
		free(zc);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	ix->zc = zc;
	uint32_t most = ZB_BYTES;
	for (uint32_t sid = 1; sid <= SEC_COUNT_; sid++)
		if (ix->sec[sid].z && ix->sec[sid].zbb > most)
			most = ix->sec[sid].zbb;
	zc->ccap = ZSTD_compressBound(most);
	if (!(zc->cbuf = malloc(zc->ccap)) || !(zc->tbuf = malloc(most)))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	uint64_t i = 0;
	for (uint32_t sid = 1; sid <= SEC_COUNT_; sid++) {
		struct idx_sec *s = &ix->sec[sid];
		if (!s->z)
			continue;
		uint64_t k = i;
		while (k < t->n && ld32(t->p + k * ZBLK_REC) == sid)
			k++;
		enum trawl_status st = zsec_check(ix, s, t->p, i, k - i, err);
		if (st)
			return st;
		i = k;
	}
	if (i != t->n)
		return CORRUPT(ix, "compressed block table");
	return TRAWL_OK;
}

void idx_zcache_close(struct trawl_index *ix)
{
	struct idx_zcache *zc = ix->zc;
	if (!zc)
		return;
	for (unsigned s = 0; s <= SEC_COUNT_; s++)
		for (unsigned j = 0; j < ZC_SLOTS; j++)
			free(zc->slot[s][j].buf);
	ZSTD_freeDCtx(zc->dctx);
	free(zc->cbuf);
	free(zc->tbuf);
	free(zc->bounce);
	free(zc);
	ix->zc = NULL;
}

/* Decode block b of s into a slot (the least recently used one). */
static const uint8_t *zdecode(const struct idx_sec *s, uint64_t b, struct zslot *sl)
{
	const struct trawl_index *ix = s->ix;
	struct idx_zcache *zc = ix->zc;
	const struct idx_sec *t = &ix->sec[SEC_ZBLOCKS];
	const uint8_t *e = t->p + (s->zfirst + b) * ZBLK_REC;
	uint32_t want = ld32(e + 4);
	uint64_t off = ld64(e + 8);
	uint64_t end = b + 1 < s->znb ? ld64(e + ZBLK_REC + 8) : s->zoff + s->zlen;
	if (ix->chk->damaged || end - off > zc->ccap) {
		idx_mark_damaged(ix, off);
		return NULL;
	}
	if (idx_pread(ix, off, zc->cbuf, (size_t)(end - off), NULL))
		return NULL; /* a damaged block: marked by the checked read */
	size_t got = ZSTD_decompressDCtx(zc->dctx, zc->tbuf, s->zbb, zc->cbuf, (size_t)(end - off));
	if (ZSTD_isError(got) || got != want) {
		idx_mark_damaged(ix, off);
		return NULL;
	}
	if (!sl->buf && !(sl->buf = malloc(s->zbb))) {
		idx_mark_damaged(ix, off); /* out of memory: fail, never guess */
		return NULL;
	}
	zb_inverse(zc->tbuf, want, s->rec, sl->buf);
	sl->blk = b;
	sl->len = want;
	sl->used = ++zc->tick;
	return sl->buf;
}

static const uint8_t *zblock(const struct idx_sec *s, uint64_t b, uint32_t *len)
{
	struct idx_zcache *zc = s->ix->zc;
	struct zslot *slots = zc->slot[s->id], *victim = &slots[0];
	if (b >= s->znb) {
		idx_mark_damaged(s->ix, 0);
		return NULL;
	}
	for (unsigned j = 0; j < ZC_SLOTS; j++) {
		if (slots[j].used && slots[j].blk == b) {
			slots[j].used = ++zc->tick;
			*len = slots[j].len;
			return slots[j].buf;
		}
		if (slots[j].used < victim->used)
			victim = &slots[j];
	}
	victim->used = 0;
	const uint8_t *p = zdecode(s, b, victim);
	*len = p ? victim->len : 0;
	return p;
}

const uint8_t *idx_z_rec(const struct idx_sec *s, uint64_t i)
{
	uint32_t len;
	const uint8_t *p = zblock(s, i / ZB_RECS, &len);
	uint64_t at = (i % ZB_RECS) * s->rec;
	if (!p || at + s->rec > len)
		return s->ix->zc->zero;
	return p + at;
}

const uint8_t *idx_z_span(const struct idx_sec *s, uint64_t off, uint64_t len)
{
	struct idx_zcache *zc = s->ix->zc;
	if (off > s->len || len > s->len - off) {
		idx_mark_damaged(s->ix, 0);
		return NULL;
	}
	uint64_t b = off / s->zbb, in = off % s->zbb;
	uint32_t blen;
	const uint8_t *p = zblock(s, b, &blen);
	if (!p)
		return NULL;
	if (in + len <= blen)
		return p + in;
	if (len > zc->bcap) {
		uint8_t *nb = realloc(zc->bounce, (size_t)len);
		if (!nb) {
			idx_mark_damaged(s->ix, 0);
			return NULL;
		}
		zc->bounce = nb;
		zc->bcap = (size_t)len;
	}
	for (uint64_t done = 0; done < len;) {
		if (!(p = zblock(s, (off + done) / s->zbb, &blen)))
			return NULL;
		uint64_t at = (off + done) % s->zbb;
		uint64_t k = blen - at < len - done ? blen - at : len - done;
		memcpy(zc->bounce + done, p + at, (size_t)k);
		done += k;
	}
	return zc->bounce;
}

enum trawl_status idx_sec_read(const struct trawl_index *ix, uint32_t sid, uint64_t off,
			       void *buf, size_t len, struct trawl_error *err)
{
	const struct idx_sec *s = &ix->sec[sid];
	if (off > s->len || len > s->len - off)
		return CORRUPT(ix, "read outside a section");
	if (!s->z)
		return idx_pread(ix, (uint64_t)(s->p - ix->map) + off, buf, len, err);
	uint8_t *o = buf;
	for (uint64_t done = 0; done < len;) {
		uint32_t blen;
		const uint8_t *p = zblock(s, (off + done) / s->zbb, &blen);
		uint64_t at = (off + done) % s->zbb;
		if (!p || at >= blen) {
			enum trawl_status r = idx_result(ix, TRAWL_OK, err);
			return r ? r : CORRUPT(ix, "compressed block");
		}
		uint64_t k = blen - at < len - done ? blen - at : len - done;
		memcpy(o + done, p + at, (size_t)k);
		done += k;
	}
	return TRAWL_OK;
}
