/* The timeline of a software-event view (sw.h), aggregated per pixel
 * column by binary searches (docs/serve.md, "Software events"). */
#include "serve/sw.h"

#include <string.h>

struct span {
	uint64_t from, to, cols;
};

/* Time t's column: t < from is 0, t >= to is cols - 1. */
static uint64_t col_of(const struct span *v, uint64_t t)
{
	if (t <= v->from)
		return 0;
	if (t >= v->to)
		return v->cols - 1;
	return (uint64_t)((unsigned __int128)(t - v->from) * v->cols / (v->to - v->from));
}

/* The first time in column c (c <= cols): from + ceil(c * width / cols). */
static uint64_t col_start(const struct span *v, uint64_t c)
{
	unsigned __int128 w = (unsigned __int128)c * (v->to - v->from);
	return v->from + (uint64_t)((w + v->cols - 1) / v->cols);
}

/* The first i in [0, n) for which below(ctx, i, t) is false (below is
 * true then false over the range): one bisection for every search here. */
static size_t bisect(size_t n, int (*below)(const void *, size_t, uint64_t), const void *ctx, uint64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (below(ctx, m, t))
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

static int begin_below(const void *l, size_t i, uint64_t t)
{
	return sw_rec_at(l, i)->begin < t;
}

static int reach_below(const void *l, size_t i, uint64_t t)
{
	return sw_rec_at(l, i)->runmax < t;
}

/* First record of the lane with begin >= t. */
static size_t rec_lower(const struct sw_lane *l, uint64_t t)
{
	return bisect((size_t)l->r.n, begin_below, l, t);
}

/* First record whose runmax >= t (runmax does not decrease). */
static size_t rec_reach(const struct sw_lane *l, uint64_t t)
{
	return bisect((size_t)l->r.n, reach_below, l, t);
}

struct out {
	const struct serve_sw *s;
	struct trawl_json *j;
	uint64_t left;
	int truncated;
};

static int room(struct out *o)
{
	if (!o->left) {
		o->truncated = 1;
		return 0;
	}
	o->left--;
	return 1;
}

static void bar(struct out *o, const struct sw_lane *l, size_t i, size_t k, uint64_t c0, uint64_t c1)
{
	struct trawl_json *j = o->j;
	const struct trawl_defs_activity *d = trawl_act_def(o->s->names, l->act);
	trawl_json_array_begin(j);
	trawl_json_u64(j, l->cpu);
	trawl_json_u64(j, l->act);
	trawl_json_u64(j, c0);
	trawl_json_u64(j, c1);
	trawl_json_u64(j, k - i);
	if (k - i == 1) {
		char name[128];
		serve_sw_rec_name(o->s, l->act, sw_rec_at(l, i), name, sizeof name);
		trawl_json_cstring(j, name);
	} else {
		trawl_json_null(j);
	}
	trawl_json_u64(j, sw_rec_at(l, i)->begin);
	trawl_json_u64(j, sw_rec_at(l, k - 1)->runmax);
	if (d->kind == TRAWL_DEFS_MESSAGE)
		trawl_json_u64(j, sw_rec_at(l, i)->cpu_end);
	else
		trawl_json_null(j);
	trawl_json_array_end(j);
}

/* Groups of one lane: the records from the first that reaches `from`, in
 * begin order; a record whose begin column is at most the group's last
 * column (that of the latest end in it) joins the group. Each step is a
 * bisection, so a lane costs O(cols log n). */
static void lane_items(struct out *o, const struct sw_lane *l, const struct span *v)
{
	size_t i = rec_reach(l, v->from);
	while (i < l->r.n && sw_rec_at(l, i)->begin < v->to) {
		uint64_t c0 = col_of(v, sw_rec_at(l, i)->begin);
		uint64_t c1 = col_of(v, sw_rec_at(l, i)->end);
		size_t k = i + 1;
		for (;;) {
			/* col_start(cols) is `to`: nothing from `to` on joins */
			size_t next = rec_lower(l, col_start(v, c1 + 1));
			if (next <= k)
				break;
			k = next;
			uint64_t e = col_of(v, sw_rec_at(l, k - 1)->runmax);
			if (e <= c1)
				break;
			c1 = e;
		}
		if (!room(o))
			return;
		bar(o, l, i, k, c0, c1);
		i = k;
	}
}

static int pos_below(const void *row, size_t i, uint64_t t)
{
	return ((const struct sw_pos *)spill_at(row, i))->time < t;
}

/* First of a row's kept events with time >= t. */
static size_t ev_lower(const struct serve_sw *s, unsigned row, uint64_t t)
{
	const struct spill *r = &s->view.rows[row];
	return bisect((size_t)r->n, pos_below, r, t);
}

/* Events as dots: per core and column, how many and the list position of
 * the first. A column is found by bisection, empty stretches skipped. */
static void dots(struct out *o, unsigned row, const struct span *v)
{
	const struct serve_sw *s = o->s;
	const struct spill *r = &s->view.rows[row];
	size_t i = ev_lower(s, row, v->from), end = ev_lower(s, row, v->to);
	while (i < end) {
		const struct sw_pos *p = spill_at(r, i);
		uint64_t c = col_of(v, p->time);
		size_t k = ev_lower(s, row, col_start(v, c + 1));
		if (!room(o))
			return;
		trawl_json_array_begin(o->j);
		trawl_json_u64(o->j, s->cpus[row]);
		trawl_json_u64(o->j, c);
		trawl_json_u64(o->j, k - i);
		trawl_json_u64(o->j, p->pos);
		trawl_json_array_end(o->j);
		i = k;
	}
}

void serve_sw_timeline(const struct serve_sw *s, uint64_t from, uint64_t to, uint64_t cols,
		       uint64_t max, struct trawl_json *j)
{
	struct span v = { from, to, cols };
	struct out o = { s, j, max, 0 };
	trawl_json_key(j, "cores");
	trawl_json_array_begin(j);
	for (unsigned r = 0; r < s->ncpus; r++)
		trawl_json_u64(j, s->cpus[r]);
	trawl_json_array_end(j);
	trawl_json_key(j, "bars");
	trawl_json_array_begin(j);
	for (size_t i = 0; i < s->view.nlanes && !o.truncated; i++)
		if (s->view.act_on[s->view.lanes[i].act])
			lane_items(&o, &s->view.lanes[i], &v);
	trawl_json_array_end(j);
	trawl_json_key(j, "dots");
	trawl_json_array_begin(j);
	for (unsigned r = 0; r < s->ncpus && !o.truncated; r++)
		dots(&o, r, &v);
	trawl_json_array_end(j);
	trawl_json_key(j, "truncated");
	trawl_json_bool(j, o.truncated);
}

static int kept_below(const void *sw, size_t i, uint64_t t)
{
	const struct serve_sw *s = sw;
	return sw_ev_at(s, *(const uint64_t *)spill_at(&s->view.kept, i))->time < t;
}

uint64_t serve_sw_position(const struct serve_sw *s, uint64_t t)
{
	return bisect((size_t)s->view.nkept, kept_below, s, t);
}

void serve_sw_rec_name(const struct serve_sw *s, uint32_t act, const struct sw_rec *r, char *buf, size_t n)
{
	const struct trawl_defs_activity *d = trawl_act_def(s->names, act);
	if (d->kind == TRAWL_DEFS_STATE)
		trawl_act_state_name(s->names, act, r->key, buf, n);
	else
		snprintf(buf, n, "%s", d->name);
}
