/* The timeline of a software-event view (sw.h), aggregated per pixel
 * column by binary searches (docs/serve.md, "Software events"). */
#include "serve/sw.h"

#include <stdlib.h>
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

/* First record of the lane with begin >= t. */
static uint64_t rec_lower(const struct sw_lane *l, uint64_t t)
{
	return spill_lower(&l->r, SW_KEY_BEGIN, t);
}

/* First record whose runmax >= t (runmax does not decrease). */
static uint64_t rec_reach(const struct sw_lane *l, uint64_t t)
{
	return spill_lower(&l->r, SW_KEY_RUNMAX, t);
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

/* One group of a lane: count records from one beginning at `begin`
 * (key, cpu_end: its) to the latest end `reach`. */
static void bar(struct out *o, const struct sw_lane *l, uint64_t c0, uint64_t c1, uint64_t count,
		const struct sw_rec *first, uint64_t reach)
{
	struct trawl_json *j = o->j;
	const struct trawl_defs_activity *d = trawl_act_def(o->s->names, l->act);
	trawl_json_array_begin(j);
	trawl_json_u64(j, l->cpu);
	trawl_json_u64(j, l->act);
	trawl_json_u64(j, c0);
	trawl_json_u64(j, c1);
	trawl_json_u64(j, count);
	if (count == 1) {
		char name[128];
		serve_sw_rec_name(o->s, l->act, first, name, sizeof name);
		trawl_json_cstring(j, name);
	} else {
		trawl_json_null(j);
	}
	trawl_json_u64(j, first->begin);
	trawl_json_u64(j, reach);
	if (d->kind == TRAWL_DEFS_MESSAGE)
		trawl_json_u64(j, first->cpu_end);
	else
		trawl_json_null(j);
	trawl_json_array_end(j);
}

static void dot(struct out *o, unsigned row, uint64_t c, uint64_t count, uint64_t pos)
{
	trawl_json_array_begin(o->j);
	trawl_json_u64(o->j, o->s->cpus[row]);
	trawl_json_u64(o->j, c);
	trawl_json_u64(o->j, count);
	trawl_json_u64(o->j, pos);
	trawl_json_array_end(o->j);
}

/* The column of the latest end among the records beginning before
 * column c + 1. That record is in the block holding the last record
 * beginning before it, so its runmax lies between that block's first
 * key and the next block's: when both are in one column no read is
 * needed (a zoomed-out view, many records a column), else the block is
 * read. */
static uint64_t reach_col(const struct sw_lane *l, const struct span *v, uint64_t c)
{
	uint64_t t = col_start(v, c + 1);
	size_t b = spill_key_rank(&l->r, SW_KEY_BEGIN, t);
	const struct spill_keys *rk = &l->r.keys[SW_KEY_RUNMAX];
	if (b) {
		uint64_t lo = col_of(v, rk->k[b - 1]), hi = col_of(v, b < rk->n ? rk->k[b] : l->maxend);
		if (lo == hi)
			return lo;
	}
	uint64_t k = rec_lower(l, t);
	return k ? col_of(v, sw_rec_get(l, k - 1).runmax) : 0;
}

/* Groups of one lane: the records from the first that reaches `from`, in
 * begin order; a record whose begin column is at most the group's last
 * column (that of the latest end in it) joins the group. So a group ends
 * at the first column c1 (from its first record's) where the records
 * beginning before c1 + 1 all end by c1: c1 <- reach_col(c1) until it
 * stays. Each step is a bisection, mostly in memory, so a lane costs
 * O(cols log n). */
static void lane_items(struct out *o, const struct sw_lane *l, const struct span *v)
{
	uint64_t i = rec_reach(l, v->from);
	struct sw_rec r;
	while (i < l->r.n && (r = sw_rec_get(l, i)).begin < v->to) {
		uint64_t c0 = col_of(v, r.begin), c1 = col_of(v, r.end), e;
		while ((e = reach_col(l, v, c1)) > c1)
			c1 = e;
		/* col_start(cols) is `to`: nothing from `to` on joins */
		uint64_t k = rec_lower(l, col_start(v, c1 + 1));
		if (k <= i)
			return;         /* a read error (counted: the answer is a 500) */
		if (!room(o))
			return;
		bar(o, l, c0, c1, k - i, &r, sw_rec_get(l, k - 1).runmax);
		i = k;
	}
}

/* First of a row's kept events with time >= t. */
static uint64_t ev_lower(const struct serve_sw *s, unsigned row, uint64_t t)
{
	return spill_lower(&s->view.rows[row], SW_KEY_TIME, t);
}

/* Events as dots: per core and column, how many and the list position of
 * the first. A column is found by bisection, empty stretches skipped. */
static void dots(struct out *o, unsigned row, const struct span *v)
{
	const struct serve_sw *s = o->s;
	uint64_t i = ev_lower(s, row, v->from), end = ev_lower(s, row, v->to);
	while (i < end) {
		struct sw_pos p = sw_pos_get(&s->view.rows[row], i);
		uint64_t c = col_of(v, p.time);
		uint64_t k = ev_lower(s, row, col_start(v, c + 1));
		if (k <= i)
			return;         /* a read error (counted: the answer is a 500) */
		if (!room(o))
			return;
		dot(o, row, c, k - i, p.at);
		i = k;
	}
}

/* The overview's answer (sw.h, sw-overview.c): the same groups as
 * lane_items, from the lane's state at the cols + 1 column boundaries of
 * the grid range, read at once. reach(c), the column of the latest end
 * among the records beginning before column c + 1, is entry c + 1's
 * runmax; a group of records i.. ends at the first column c1 >= its
 * first's column where reach(c1) <= c1 (starting from its begin column
 * reaches the same c1 as lane_items' start from its end column: reach of
 * the begin column already covers that end); its records are those
 * before entry c1 + 1's, which is the next group's first. */
static void ov_lane(struct out *o, const struct sw_lane *l, const struct span *v, const struct sw_ov_lane *e)
{
	uint64_t i = rec_reach(l, v->from);
	if (i >= l->r.n)
		return;
	struct sw_rec first = sw_rec_get(l, i);
	while (i < l->r.n && first.begin < v->to) {
		uint64_t c0 = col_of(v, first.begin), c1 = c0, x;
		while ((x = e[c1 + 1].at ? col_of(v, e[c1 + 1].runmax) : 0) > c1)
			c1 = x;
		const struct sw_ov_lane *b = &e[c1 + 1];
		if (b->at <= i)
			return;         /* a read error (counted) */
		if (!room(o))
			return;
		bar(o, l, c0, c1, b->at - i, &first, b->runmax);
		i = b->at;
		first = (struct sw_rec){ .begin = b->begin, .key = b->key, .cpu_end = b->cpu_end };
	}
}

static void ov_dots(struct out *o, unsigned row, const struct span *v, const struct sw_ov_row *e)
{
	for (uint64_t c = 0; c < v->cols; c++)
		if (e[c + 1].at > e[c].at) {
			if (!room(o))
				return;
			dot(o, row, c, e[c + 1].at - e[c].at, e[c].pos);
		}
}

/* Items through the overview: one read of cols + 1 entries per lane and
 * core. */
static void overview_items(struct out *o, const struct span *v, const struct sw_ovspan *g)
{
	const struct serve_sw *s = o->s;
	const struct sw_view *w = &s->view;
	void *e = malloc((size_t)(v->cols + 1) * sizeof(struct sw_ov_lane));
	o->truncated = !e;      /* out of memory: nothing sent, and said */
	trawl_json_key(o->j, "bars");
	trawl_json_array_begin(o->j);
	for (size_t i = 0; i < w->nlanes && !o->truncated; i++)
		if (w->act_on[w->lanes[i].act] &&
		    !serve_sw_overview_read(&w->grid, &w->lanes[i].ov, g->lv, g->j0, v->cols + 1, e))
			ov_lane(o, &w->lanes[i], v, e);
	trawl_json_array_end(o->j);
	trawl_json_key(o->j, "dots");
	trawl_json_array_begin(o->j);
	for (unsigned r = 0; r < s->ncpus && !o->truncated; r++)
		if (!serve_sw_overview_read(&w->grid, &w->ov_rows[r], g->lv, g->j0, v->cols + 1, e))
			ov_dots(o, r, v, e);
	trawl_json_array_end(o->j);
	free(e);
}

void serve_sw_timeline(const struct serve_sw *s, uint64_t from, uint64_t to, uint64_t cols,
		       uint64_t max, struct trawl_json *j)
{
	struct sw_ovspan g;
	int ov = serve_sw_overview_span(s, from, to, cols, &g);
	struct span v = { ov ? g.from : from, ov ? g.to : to, cols };
	struct out o = { s, j, max, 0 };
	trawl_json_key(j, "from");
	trawl_json_u64(j, v.from);
	trawl_json_key(j, "to");
	trawl_json_u64(j, v.to);
	trawl_json_key(j, "cols");
	trawl_json_u64(j, cols);
	trawl_json_key(j, "overview");
	trawl_json_bool(j, ov);
	trawl_json_key(j, "cores");
	trawl_json_array_begin(j);
	for (unsigned r = 0; r < s->ncpus; r++)
		trawl_json_u64(j, s->cpus[r]);
	trawl_json_array_end(j);
	if (ov) {
		overview_items(&o, &v, &g);
	} else {
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
	}
	trawl_json_key(j, "truncated");
	trawl_json_bool(j, o.truncated);
}

uint64_t serve_sw_position(const struct serve_sw *s, uint64_t t)
{
	return spill_lower(&s->view.kept, SW_KEY_TIME, t);
}

void serve_sw_rec_name(const struct serve_sw *s, uint32_t act, const struct sw_rec *r, char *buf, size_t n)
{
	const struct trawl_defs_activity *d = trawl_act_def(s->names, act);
	if (d->kind == TRAWL_DEFS_STATE)
		trawl_act_state_name(s->names, act, r->key, buf, n);
	else
		snprintf(buf, n, "%s", d->name);
}
