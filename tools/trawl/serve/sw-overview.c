/* The overview of a software-event view (sw.h, docs/serve.md "Overview"):
 * built from a view's sorted lanes and rows in one sequential pass each,
 * and the grid range a wide request is answered on. */
#include "serve/sw.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Level-0 buckets over the trace: one per 64 records of the view, at
 * least 2^18 and at most 2^21, so the overview takes 1/100 of a 10^8-event
 * trace at 1400 columns (columns of >= 8 buckets) and stays a few percent
 * of the view's disk. */
#define OV_BUCKETS_MIN ((uint64_t)1 << 18)
#define OV_BUCKETS_MAX ((uint64_t)1 << 21)
#define OV_CHUNK 4096                  /* records read at once */

/* Levels: strides m * 2^e, m in [8, 16), up to the first >= n0 (one
 * column holding the whole trace). */
static void grid_init(struct sw_grid *g, uint64_t first, uint64_t last, uint64_t recs)
{
	memset(g, 0, sizeof *g);
	uint64_t span = last - first + 1, nb = recs / 64;
	nb = nb < OV_BUCKETS_MIN ? OV_BUCKETS_MIN : nb > OV_BUCKETS_MAX ? OV_BUCKETS_MAX : nb;
	g->origin = first;
	g->w0 = span / nb + (span % nb != 0);
	g->n0 = span / g->w0 + (span % g->w0 != 0);
	uint64_t off = 0;
	for (uint64_t e = 1; g->nlev < SW_GRID_MAX; e <<= 1) {
		for (uint64_t m = 8; m < 16 && g->nlev < SW_GRID_MAX; m++) {
			uint64_t s = m * e;
			g->stride[g->nlev] = s;
			g->off[g->nlev] = off;
			g->len[g->nlev] = g->n0 / s + (g->n0 % s != 0) + 1;
			off += g->len[g->nlev++];
			if (s >= g->n0)
				return;
		}
	}
}

/* Level-0 entries are made in order, OV_SPAN at a time, and each level's
 * share of them written at its place in the file f: so a build holds
 * about 1 MiB whatever the grid. */
#define OV_SPAN 16384

struct ov_build {
	const struct sw_grid *g;
	struct spill *f;
	uint32_t rec;
	unsigned char *l0;           /* entries of boundaries a .. a + used - 1 */
	unsigned char *out;          /* one level's of them */
	uint64_t a;
	size_t used;
};

static int ov_open(struct ov_build *b, const struct sw_grid *g, struct spill *f, uint32_t rec)
{
	*b = (struct ov_build){ g, f, rec, malloc((size_t)OV_SPAN * rec), malloc((size_t)(OV_SPAN / 8 + 2) * rec), 0, 0 };
	if (!b->l0 || !b->out || spill_open(f, rec) || spill_seal(f))
		return -1;
	return 0;
}

static void ov_close(struct ov_build *b)
{
	free(b->l0);
	free(b->out);
}

/* Level lv's entries among boundaries a .. a + used - 1: j * stride in
 * that range, and after the last chunk the one past n0 (boundary n0's). */
static int ov_flush(struct ov_build *b)
{
	const struct sw_grid *g = b->g;
	uint64_t end = b->a + b->used;
	for (unsigned lv = 0; lv < g->nlev; lv++) {
		uint64_t s = g->stride[lv], j0 = b->a / s + (b->a % s != 0), j = j0;
		size_t k = 0;
		for (; j * s < end; j++)
			memcpy(b->out + k++ * b->rec, b->l0 + (j * s - b->a) * b->rec, b->rec);
		if (end == g->n0 + 1 && j < g->len[lv])
			memcpy(b->out + k++ * b->rec, b->l0 + (g->n0 - b->a) * b->rec, b->rec);
		if (k && spill_write(b->f, g->off[lv] + j0, k, b->out))
			return -1;
	}
	b->a = end;
	b->used = 0;
	if (end == g->n0 + 1)
		b->f->n = g->off[g->nlev - 1] + g->len[g->nlev - 1];
	return 0;
}

/* The entry of the next boundary (0, 1, .. n0 in order). */
static int ov_put(struct ov_build *b, const void *e)
{
	memcpy(b->l0 + b->used++ * b->rec, e, b->rec);
	return b->used == OV_SPAN || b->a + b->used == b->g->n0 + 1 ? ov_flush(b) : 0;
}

/* The time of level-0 boundary j (the last one can lie past 2^64 - 1:
 * saturated, every record is before it but one at that very time, which
 * no trace clock reaches). */
static uint64_t bound(const struct sw_grid *g, uint64_t j)
{
	uint64_t d = j * g->w0;
	return d > UINT64_MAX - g->origin ? UINT64_MAX : g->origin + d;
}

static int lane_overview(const struct sw_grid *g, struct sw_lane *l)
{
	struct sw_rec *buf = malloc(OV_CHUNK * sizeof *buf);
	struct ov_build b = { 0 };
	uint64_t j = 0, runmax = 0;
	int rc = -1;
	if (!buf || ov_open(&b, g, &l->ov, sizeof(struct sw_ov_lane)))
		goto done;
	for (uint64_t at = 0; at < l->r.n; at += OV_CHUNK) {
		size_t n = l->r.n - at < OV_CHUNK ? (size_t)(l->r.n - at) : OV_CHUNK;
		if (spill_read(&l->r, at, n, buf))
			goto done;
		for (size_t i = 0; i < n; i++) {
			/* the boundaries up to this record's begin: it is the
			 * first record beginning at or after them */
			for (; j <= g->n0 && bound(g, j) <= buf[i].begin; j++) {
				struct sw_ov_lane e = { at + i, runmax, buf[i].begin, buf[i].key, buf[i].cpu_end, 0 };
				if (ov_put(&b, &e))
					goto done;
			}
			runmax = buf[i].runmax;
		}
	}
	for (; j <= g->n0; j++) {
		struct sw_ov_lane e = { l->r.n, runmax, 0, 0, 0, 0 };
		if (ov_put(&b, &e))
			goto done;
	}
	rc = 0;
done:
	ov_close(&b);
	free(buf);
	return rc;
}

static int row_overview(const struct sw_grid *g, const struct spill *r, struct spill *f)
{
	struct sw_pos *buf = malloc(OV_CHUNK * sizeof *buf);
	struct ov_build b = { 0 };
	uint64_t j = 0;
	int rc = -1;
	if (!buf || ov_open(&b, g, f, sizeof(struct sw_ov_row)))
		goto done;
	for (uint64_t at = 0; at < r->n; at += OV_CHUNK) {
		size_t n = r->n - at < OV_CHUNK ? (size_t)(r->n - at) : OV_CHUNK;
		if (spill_read(r, at, n, buf))
			goto done;
		for (size_t i = 0; i < n; i++)
			for (; j <= g->n0 && bound(g, j) <= buf[i].time; j++) {
				struct sw_ov_row e = { at + i, buf[i].at };
				if (ov_put(&b, &e))
					goto done;
			}
	}
	for (; j <= g->n0; j++) {
		struct sw_ov_row e = { r->n, 0 };
		if (ov_put(&b, &e))
			goto done;
	}
	rc = 0;
done:
	ov_close(&b);
	free(buf);
	return rc;
}

static uint64_t overview_min(void)
{
	const char *v = getenv("TRAWL_SERVE_OVERVIEW_MIN");
	char *end;
	if (v && *v) {
		unsigned long long n = strtoull(v, &end, 10);
		if (!*end)
			return n;
	}
	return (uint64_t)1 << 20;
}

int serve_sw_overview_build(const struct serve_sw *s, struct sw_view *v)
{
	struct timespec t0, t1;
	uint64_t recs = v->nkept;
	for (size_t i = 0; i < v->nlanes; i++)
		recs += v->lanes[i].r.n;
	/* a trace over the whole u64 clock has no span to divide */
	if (!s->nev || recs < overview_min() || s->last - s->first == UINT64_MAX)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	grid_init(&v->grid, s->first, s->last, recs);
	v->ov_rows = calloc(s->ncpus ? s->ncpus : 1, sizeof *v->ov_rows);
	if (!v->ov_rows)
		return -1;
	for (size_t i = 0; i < v->nlanes; i++)
		if (lane_overview(&v->grid, &v->lanes[i]))
			return -1;
	for (unsigned r = 0; r < s->ncpus; r++)
		if (row_overview(&v->grid, &v->rows[r], &v->ov_rows[r]))
			return -1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	v->ov_ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
	v->ov_on = 1;
	return 0;
}

/* The level with the narrowest columns whose grid range [f, f + cols x
 * width) holds [from, to); only when a column is at least 8 level-0
 * buckets (narrower ones are the detailed path's: an overview there
 * would move the range by more than 1/8 of a column). */
int serve_sw_overview_span(const struct serve_sw *s, uint64_t from, uint64_t to, uint64_t cols,
			   struct sw_ovspan *o)
{
	const struct sw_grid *g = &s->view.grid;
	if (!s->view.ov_on || from < g->origin || to <= from ||
	    (unsigned __int128)(to - from) < (unsigned __int128)cols * 8 * g->w0)
		return 0;
	for (unsigned lv = 0; lv < g->nlev; lv++) {
		unsigned __int128 cw = (unsigned __int128)g->stride[lv] * g->w0;
		uint64_t j0 = (uint64_t)((from - g->origin) / cw);
		unsigned __int128 f = g->origin + j0 * cw, t = f + cw * cols;
		if (t < to)
			continue;
		if (t > UINT64_MAX)
			return 0;
		*o = (struct sw_ovspan){ lv, j0, (uint64_t)f, (uint64_t)t };
		return 1;
	}
	return 0;
}

int serve_sw_overview_read(const struct sw_grid *g, const struct spill *f, unsigned lv, uint64_t j0,
			   uint64_t n, void *out)
{
	uint64_t len = g->len[lv], got;
	unsigned char *p = out;
	if (j0 >= len) {
		if (spill_read(f, g->off[lv] + len - 1, 1, p))
			return -1;
		got = 1;
	} else {
		got = len - j0 < n ? len - j0 : n;
		if (spill_read(f, g->off[lv] + j0, got, p))
			return -1;
	}
	for (uint64_t i = got; i < n; i++)
		memcpy(p + i * f->rec, p + (got - 1) * f->rec, f->rec);
	return 0;
}
