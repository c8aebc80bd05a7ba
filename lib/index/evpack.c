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

/* The block's header (bases and widths), then its records: each field's
 * difference written as 8 bytes and the position advanced by its width
 * (out has 8 bytes of slack), so packing costs one store per field. */
enum trawl_status idx_evpack_flush(struct idx_evpack *p, struct idx_file *ev,
				   struct idx_file *blk, struct trawl_error *err)
{
	if (!p->n)
		return TRAWL_OK;
	uint8_t *h = p->out;
	memset(h, 0, EVB_HDR);
	uint64_t base[EVF_N];
	uint8_t w[EVF_N];
	unsigned rs = 0;
	for (unsigned f = 0; f < EVF_N; f++) {
		const uint64_t *c = p->col[f];
		/* four independent chains, in registers: one compare-and-select
		 * after another was most of the packing time */
		uint64_t l0 = c[0], l1 = c[0], l2 = c[0], l3 = c[0];
		uint64_t h0 = c[0], h1 = c[0], h2 = c[0], h3 = c[0];
		unsigned j = 0;
		for (; j + 4 <= p->n; j += 4) {
			uint64_t a0 = c[j], a1 = c[j + 1], a2 = c[j + 2], a3 = c[j + 3];
			l0 = a0 < l0 ? a0 : l0;
			l1 = a1 < l1 ? a1 : l1;
			l2 = a2 < l2 ? a2 : l2;
			l3 = a3 < l3 ? a3 : l3;
			h0 = a0 > h0 ? a0 : h0;
			h1 = a1 > h1 ? a1 : h1;
			h2 = a2 > h2 ? a2 : h2;
			h3 = a3 > h3 ? a3 : h3;
		}
		for (; j < p->n; j++) {
			l0 = c[j] < l0 ? c[j] : l0;
			h0 = c[j] > h0 ? c[j] : h0;
		}
		l0 = l1 < l0 ? l1 : l0;
		l2 = l3 < l2 ? l3 : l2;
		h0 = h1 > h0 ? h1 : h0;
		h2 = h3 > h2 ? h3 : h2;
		uint64_t lo = l2 < l0 ? l2 : l0, hi = h2 > h0 ? h2 : h0;
		base[f] = lo;
		w[f] = (uint8_t)width_of(hi - lo);
		rs += w[f];
		st64(h + 8 * f, lo);
		h[EVB_WIDTH + f] = w[f];
	}
	/* only the fields that vary in the block take bytes: a decoded trace
	 * has half of them constant */
	unsigned act[EVF_N], na = 0;
	for (unsigned f = 0; f < EVF_N; f++)
		if (w[f])
			act[na++] = f;
	uint8_t *o = h + EVB_HDR;
	for (unsigned j = 0; j < p->n; j++)
		for (unsigned a = 0; a < na; a++) {
			unsigned f = act[a];
			st64(o, p->col[f][j] - base[f]);
			o += w[f];
		}
	size_t len = (size_t)(o - p->out);
	if (p->off > EV_MAX48)
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "trace too large for an index");
	uint8_t rec[EVB_REC];
	st64(rec, p->off | (uint64_t)rs << 48);
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

/* Block b's place, from EVBLK (mapped: it is small, so its pages stay
 * mapped in a process that queries often). */
static enum trawl_status blk_place(const struct trawl_index *ix, uint64_t b,
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
	uint64_t e = ld64(r);
	k->off = e & EV_MAX48;
	k->rs = (uint32_t)(e >> 48);
	k->first = b * EVB_EVENTS;
	k->n = (uint32_t)(ix->nev - k->first < EVB_EVENTS ? ix->nev - k->first : EVB_EVENTS);
	uint64_t len = ix->sec[SEC_EVENTS].len;
	if (k->rs > 8 * EVF_N || k->off > len || EVB_HDR + (uint64_t)k->n * k->rs > len - k->off)
		return CORRUPT(ix, "event block place");
	return TRAWL_OK;
}

/* The header and records [0, cnt) of the block, in one read; the widths
 * must add up to the record size EVBLK gave. */
static enum trawl_status blk_read(const struct trawl_index *ix, struct idx_evblk *k,
				  uint32_t cnt, struct trawl_error *err)
{
	uint64_t len = EVB_HDR + (uint64_t)cnt * k->rs;
	enum trawl_status st = idx_sec_read(ix, SEC_EVENTS, k->off, k->hdr, (size_t)len, err);
	if (st)
		return st;
	memset(k->hdr + len, 0, 8);
	uint32_t at = 0;
	for (unsigned f = 0; f < EVF_N; f++) {
		k->base[f] = ld64(k->hdr + 8 * f);
		k->w[f] = k->hdr[EVB_WIDTH + f];
		k->at[f] = (uint8_t)at;
		at += k->w[f];
		if (k->w[f] > 8)
			return CORRUPT(ix, "event block layout");
	}
	if (at != k->rs)
		return CORRUPT(ix, "event block layout");
	k->rec = k->hdr + EVB_HDR;
	return TRAWL_OK;
}

enum trawl_status idx_evblk_get(const struct trawl_index *ix, uint64_t b, struct idx_evblk *k,
				struct trawl_error *err)
{
	enum trawl_status st = blk_place(ix, b, k, err);
	return st ? st : blk_read(ix, k, k->n, err);
}

enum trawl_status idx_evblk_one(const struct trawl_index *ix, uint64_t ev, struct idx_evblk *k,
				struct trawl_error *err)
{
	if (ev >= ix->nev)
		return CORRUPT(ix, "event outside the table");
	enum trawl_status st = blk_place(ix, ev / EVB_EVENTS, k, err);
	return st ? st : blk_read(ix, k, (uint32_t)(ev % EVB_EVENTS) + 1, err);
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
	struct idx_evblk k;
	enum trawl_status st = blk_place(ix, b, &k, err);
	if (st)
		return st;
	const struct idx_sec *s = &ix->sec[SEC_EVENTS];
	if (s->z) {
		const uint8_t *p = idx_z_span(s, k.off + 8 * f, 8);
		*out = p ? ld64(p) : 0;
	} else {
		idx_touch(ix, s->p + k.off + 8 * f, 8);
		*out = ld64(s->p + k.off + 8 * f);
	}
	return idx_result(ix, TRAWL_OK, err);
}
