/* Reading the compact kind (format.h, kind 2): open finds each section's
 * run in the block table by bisection (a few entries, however long the
 * trace); a query that needs a record checks its block's entry and decodes
 * the block (the frame
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

/* One section's run of block-table entries starts at `first`: found by
 * bisection for the first entry of another section (the entries are
 * grouped by section, in id order), so opening touches a few entries of
 * the table, not all of it. Every block but the last is full, so the
 * decoded length follows from the last one; the others are checked as
 * they are decoded (zdecode). */
static enum trawl_status zsec_find(struct trawl_index *ix, struct idx_sec *s,
				   const struct idx_sec *t, uint64_t first, uint64_t *next,
				   struct trawl_error *err)
{
	uint64_t lo = first, hi = t->n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const uint8_t *e = t->p + mid * ZBLK_REC;
		if (!idx_touch(ix, e, ZBLK_REC))
			return idx_result(ix, TRAWL_OK, err);
		if (ld32(e) <= s->id)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint64_t n = lo - first;
	s->zfirst = first;
	s->znb = n;
	*next = lo;
	if (!n) {
		if (s->zlen)
			return CORRUPT(ix, "compressed block table");
		s->len = s->n = 0;
		return TRAWL_OK;
	}
	const uint8_t *a = t->p + first * ZBLK_REC, *z = t->p + (lo - 1) * ZBLK_REC;
	if (!idx_touch(ix, a, ZBLK_REC) || !idx_touch(ix, z, ZBLK_REC))
		return idx_result(ix, TRAWL_OK, err);
	uint32_t last = ld32(z + 4);
	if (ld32(a) != s->id || ld64(a + 8) != s->zoff || last == 0 || last > s->zbb ||
	    (s->rec && last % s->rec) || n > UINT64_MAX / s->zbb)
		return CORRUPT(ix, "compressed block table");
	s->len = (n - 1) * s->zbb + last;
	s->n = s->rec ? s->len / s->rec : s->len;
	return TRAWL_OK;
}

enum trawl_status idx_zcache_open(struct trawl_index *ix, struct trawl_error *err)
{
	const struct idx_sec *t = &ix->sec[SEC_ZBLOCKS];
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
		enum trawl_status st = zsec_find(ix, s, t, i, &i, err);
		if (st)
			return st;
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
	int last = b + 1 == s->znb;
	if (!idx_touch(ix, e, last ? ZBLK_REC : 2 * ZBLK_REC))
		return NULL;
	uint32_t want = ld32(e + 4);
	uint64_t off = ld64(e + 8);
	uint64_t end = last ? s->zoff + s->zlen : ld64(e + ZBLK_REC + 8);
	/* the entry as open did not check it: its section, its size (full but
	 * for the last), its frame inside the section's bytes */
	if (ld32(e) != s->id || (!last && (ld32(e + ZBLK_REC) != s->id || want != s->zbb)) ||
	    (last && (uint64_t)(s->znb - 1) * s->zbb + want != s->len) || off < s->zoff ||
	    end <= off || end > s->zoff + s->zlen || end - off > zc->ccap) {
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
