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

static void bar(struct out *o, const struct sw_lane *l, uint64_t i, uint64_t k, uint64_t c0, uint64_t c1)
{
	struct trawl_json *j = o->j;
	const struct trawl_defs_activity *d = trawl_act_def(o->s->names, l->act);
	struct sw_rec first = sw_rec_get(l, i), last = sw_rec_get(l, k - 1);
	trawl_json_array_begin(j);
	trawl_json_u64(j, l->cpu);
	trawl_json_u64(j, l->act);
	trawl_json_u64(j, c0);
	trawl_json_u64(j, c1);
	trawl_json_u64(j, k - i);
	if (k - i == 1) {
		char name[128];
		serve_sw_rec_name(o->s, l->act, &first, name, sizeof name);
		trawl_json_cstring(j, name);
	} else {
		trawl_json_null(j);
	}
	trawl_json_u64(j, first.begin);
	trawl_json_u64(j, last.runmax);
	if (d->kind == TRAWL_DEFS_MESSAGE)
		trawl_json_u64(j, first.cpu_end);
	else
		trawl_json_null(j);
	trawl_json_array_end(j);
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
		if (!room(o))
			return;
		bar(o, l, i, k, c0, c1);
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
		if (!room(o))
			return;
		trawl_json_array_begin(o->j);
		trawl_json_u64(o->j, s->cpus[row]);
		trawl_json_u64(o->j, c);
		trawl_json_u64(o->j, k - i);
		trawl_json_u64(o->j, p.at);
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
