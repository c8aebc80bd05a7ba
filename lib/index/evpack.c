/* Packed event records: writing a block and reading one (evpack.h). */
#include "index/evpack.h"

#include <string.h>

#include "index/index-int.h"

#define CORRUPT(ix, what) TRAWL_CORRUPT(err, "'%s': damaged index: %s", (ix)->path, what)

void idx_evpack_init(struct idx_evpack *p)
{
	p->n = 0;
	p->off = 0;
}

static unsigned width_of(uint64_t range)
{
	return range ? (unsigned)(64 - __builtin_clzll(range) + 7) / 8 : 0;
}

/* The block's bases and widths, then its records: each field's difference
 * written as 8 bytes and the position advanced by its width (out has 8
 * bytes of slack), so packing costs one store per field. */
enum trawl_status idx_evpack_flush(struct idx_evpack *p, struct idx_file *ev,
				   struct idx_file *blk, struct trawl_error *err)
{
	if (!p->n)
		return TRAWL_OK;
	uint8_t rec[EVB_REC];
	memset(rec, 0, sizeof rec);
	st64(rec, p->off);
	uint64_t base[EVF_N];
	uint8_t w[EVF_N];
	for (unsigned f = 0; f < EVF_N; f++) {
		const uint64_t *c = p->col[f];
		uint64_t lo = c[0], hi = c[0];
		for (unsigned j = 1; j < p->n; j++) {
			lo = c[j] < lo ? c[j] : lo;
			hi = c[j] > hi ? c[j] : hi;
		}
		base[f] = lo;
		w[f] = (uint8_t)width_of(hi - lo);
		st64(rec + EVB_BASE + 8 * f, lo);
		rec[EVB_WIDTH + f] = w[f];
	}
	uint8_t *o = p->out;
	for (unsigned j = 0; j < p->n; j++)
		for (unsigned f = 0; f < EVF_N; f++) {
			st64(o, p->col[f][j] - base[f]);
			o += w[f];
		}
	size_t len = (size_t)(o - p->out);
	enum trawl_status st;
	if ((st = idx_file_write(ev, p->out, len, err)) ||
	    (st = idx_file_write(blk, rec, sizeof rec, err)))
		return st;
	p->off += len;
	p->n = 0;
	return TRAWL_OK;
}

enum trawl_status idx_evpack_add(struct idx_evpack *p, const uint64_t v[EVF_N],
				 struct idx_file *ev, struct idx_file *blk,
				 struct trawl_error *err)
{
	for (unsigned f = 0; f < EVF_N; f++)
		p->col[f][p->n] = v[f];
	if (++p->n < EVB_EVENTS)
		return TRAWL_OK;
	return idx_evpack_flush(p, ev, blk, err);
}

/* ---- reading ---- */

/* Block b's EVBLK record, checked: widths of at most 8 bytes, records
 * inside EVENTS. */
static enum trawl_status blk_layout(const struct trawl_index *ix, uint64_t b,
				    struct idx_evblk *k, struct trawl_error *err)
{
	const struct idx_sec *s = &ix->sec[SEC_EVBLK];
	if (b >= s->n)
		return CORRUPT(ix, "event block outside the table");
	const uint8_t *r;
	if (s->z) {
		r = idx_z_rec(s, b);
	} else {
		r = s->p + b * EVB_REC;
		idx_touch(ix, r, EVB_REC);
	}
	enum trawl_status st = idx_result(ix, TRAWL_OK, err);
	if (st)
		return st;
	k->first = b * EVB_EVENTS;
	k->n = (uint32_t)(ix->nev - k->first < EVB_EVENTS ? ix->nev - k->first : EVB_EVENTS);
	uint32_t at = 0;
	for (unsigned f = 0; f < EVF_N; f++) {
		k->base[f] = ld64(r + EVB_BASE + 8 * f);
		k->w[f] = r[EVB_WIDTH + f];
		k->at[f] = (uint8_t)at;
		if (k->w[f] > 8)
			return CORRUPT(ix, "event block layout");
		at += k->w[f];
	}
	k->rs = at;
	uint64_t off = ld64(r), len = ix->sec[SEC_EVENTS].len;
	if (off > len || (uint64_t)k->n * k->rs > len - off)
		return CORRUPT(ix, "event block layout");
	k->off = off;
	k->rec = NULL;
	return TRAWL_OK;
}

/* Point k->rec at records [j0, j0 + cnt) of the block (checked), minus j0
 * records, so that record j is still at rec + j * rs. */
static enum trawl_status blk_records(const struct trawl_index *ix, struct idx_evblk *k,
				     uint32_t j0, uint32_t cnt, struct trawl_error *err)
{
	const struct idx_sec *s = &ix->sec[SEC_EVENTS];
	uint64_t off = k->off + (uint64_t)j0 * k->rs, len = (uint64_t)cnt * k->rs;
	const uint8_t *p;
	if (s->z) {
		p = len ? idx_z_span(s, off, len) : s->p;
	} else {
		p = s->p + off;
		idx_touch(ix, p, len);
	}
	enum trawl_status st = idx_result(ix, TRAWL_OK, err);
	if (st)
		return st;
	if (!p)
		return CORRUPT(ix, "compressed block");
	k->rec = p - (uint64_t)j0 * k->rs;
	return TRAWL_OK;
}

enum trawl_status idx_evblk_get(const struct trawl_index *ix, uint64_t b, struct idx_evblk *k,
				struct trawl_error *err)
{
	enum trawl_status st = blk_layout(ix, b, k, err);
	return st ? st : blk_records(ix, k, 0, k->n, err);
}

enum trawl_status idx_evblk_one(const struct trawl_index *ix, uint64_t ev, struct idx_evblk *k,
				struct trawl_error *err)
{
	if (ev >= ix->nev)
		return CORRUPT(ix, "event outside the table");
	enum trawl_status st = blk_layout(ix, ev / EVB_EVENTS, k, err);
	return st ? st : blk_records(ix, k, (uint32_t)(ev % EVB_EVENTS), 1, err);
}

enum trawl_status idx_ev_field(const struct trawl_index *ix, uint64_t ev, unsigned f,
			       uint64_t *out, struct trawl_error *err)
{
	struct idx_evblk k;
	enum trawl_status st = idx_evblk_one(ix, ev, &k, err);
	if (!st)
		*out = idx_evblk_field(&k, (uint32_t)(ev % EVB_EVENTS), f);
	return st;
}

enum trawl_status idx_evblk_base(const struct trawl_index *ix, uint64_t b, unsigned f,
				 uint64_t *out, struct trawl_error *err)
{
	const struct idx_sec *s = &ix->sec[SEC_EVBLK];
	if (b >= s->n)
		return CORRUPT(ix, "event block outside the table");
	const uint8_t *r;
	if (s->z) {
		r = idx_z_rec(s, b);
	} else {
		r = s->p + b * EVB_REC;
		idx_touch(ix, r + EVB_BASE + 8 * f, 8);
	}
	*out = ld64(r + EVB_BASE + 8 * f);
	return idx_result(ix, TRAWL_OK, err);
}
