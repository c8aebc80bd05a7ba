/* A view of a software-event trace in trawl serve (sw.h): every event of
 * the records on disk through the filter and the activity engine, as
 * `trawl events activities` runs them; the kept events, each core's and
 * each lane's activities are written to spills (spill.h), so a view of
 * any size costs the same memory. */
#include "serve/sw.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

struct view_build {
	struct serve_sw *s;
	struct sw_view *v;
	struct trawl_swfilter *f;
	int failed;                 /* a spill could not be written */
};

static struct sw_lane *lane_of(struct sw_view *v, uint32_t cpu, uint32_t act)
{
	/* lanes are few (cores x activities): a linear look-up from the end */
	for (size_t i = v->nlanes; i-- > 0;)
		if (v->lanes[i].cpu == cpu && v->lanes[i].act == act)
			return &v->lanes[i];
	if (!trawl_grow((void **)&v->lanes, &v->lanes_cap, v->nlanes + 1, sizeof *v->lanes))
		return NULL;
	struct sw_lane *l = &v->lanes[v->nlanes];
	memset(l, 0, sizeof *l);
	if (spill_open(&l->r, sizeof(struct sw_rec)))
		return NULL;
	v->nlanes++;
	l->cpu = cpu;
	l->act = act;
	return l;
}

/* The engine's sink: an activity whose begin event passed the filter, as
 * `trawl events activities` lists it (events_run_act_kept). */
static void take(void *ctx, const struct trawl_act_record *r)
{
	struct view_build *b = ctx;
	if (!(r->flags & TRAWL_ACT_KEEP) || !trawl_swfilter_time_overlaps(b->f, r->begin, r->end))
		return;
	const struct trawl_defs_activity *d = trawl_act_def(b->s->names, r->act);
	trawl_swstats_record(&b->v->stats, r, d->kind == TRAWL_DEFS_STATE);
	struct sw_lane *l = lane_of(b->v, r->cpu, r->act);
	struct sw_rec rec = { r->begin, r->end, r->key, 0, r->cpu_end, r->flags };
	if (!l || spill_add(&l->r, &rec)) {
		b->v->acts_lost++;
		b->failed = 1;
	}
}

static int rec_cmp(const void *a, const void *b)
{
	const struct sw_rec *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

static int lane_cmp(const void *a, const void *b)
{
	const struct sw_lane *x = a, *y = b;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->act > y->act) - (x->act < y->act);
}

#define CHUNK 4096               /* records read or written at once */

/* Sorted by begin, then each record's runmax: the latest end so far. */
static int finish_lane(struct sw_lane *l)
{
	struct sw_rec buf[256];
	uint64_t m = 0;
	if (spill_sort(&l->r, rec_cmp) || spill_seal(&l->r))
		return -1;
	for (uint64_t at = 0; at < l->r.n; at += 256) {
		size_t n = l->r.n - at < 256 ? (size_t)(l->r.n - at) : 256;
		if (spill_read(&l->r, at, n, buf))
			return -1;
		for (size_t k = 0; k < n; k++)
			buf[k].runmax = m = buf[k].end > m ? buf[k].end : m;
		if (spill_write(&l->r, at, n, buf))
			return -1;
	}
	l->maxend = m;
	return spill_index(&l->r, SW_KEY_BEGIN, offsetof(struct sw_rec, begin)) ||
	       spill_index(&l->r, SW_KEY_RUNMAX, offsetof(struct sw_rec, runmax));
}

static int finish(struct serve_sw *s, struct sw_view *v)
{
	qsort(v->lanes, v->nlanes, sizeof *v->lanes, lane_cmp);
	for (size_t i = 0; i < v->nlanes; i++)
		if (finish_lane(&v->lanes[i]))
			return -1;
	for (unsigned r = 0; r < s->ncpus; r++)
		if (spill_seal(&v->rows[r]) || spill_index(&v->rows[r], SW_KEY_TIME, 0))
			return -1;
	return spill_seal(&v->kept) || spill_index(&v->kept, SW_KEY_TIME, 0) ||
	       serve_sw_overview_build(s, v);
}

/* The events in order, read from the spills a chunk at a time (so the
 * pass never maps them). */
struct ev_cursor {
	const struct serve_sw *s;
	struct sw_ev e[CHUNK];
	uint64_t *v;                /* the chunk's values, from value v0 */
	size_t vcap;
	uint64_t at, v0;            /* first event and value of the chunk */
	size_t n, pos;
};

static int cursor_fill(struct ev_cursor *c)
{
	const struct serve_sw *s = c->s;
	c->at += c->n;
	c->n = s->nev - c->at < CHUNK ? (size_t)(s->nev - c->at) : CHUNK;
	c->pos = 0;
	if (!c->n)
		return 0;
	if (spill_read(&s->ev, c->at, c->n, c->e))
		return -1;
	const struct sw_ev *last = &c->e[c->n - 1];
	c->v0 = c->e[0].vals;
	size_t nv = (size_t)(last->vals + s->run.info.classes[last->cls].nfields - c->v0);
	if (!trawl_grow((void **)&c->v, &c->vcap, nv + 1, sizeof *c->v))
		return -1;
	return nv ? spill_read(&s->vals, c->v0, nv, c->v) : 0;
}

/* The next event as the library's readers give it: 1, 0 at the end, -1. */
static int cursor_next(struct ev_cursor *c, struct trawl_sw_event *ev, uint64_t *i)
{
	if (c->pos == c->n && cursor_fill(c))
		return -1;
	if (c->pos == c->n)
		return 0;
	const struct sw_ev *e = &c->e[c->pos];
	memset(ev, 0, sizeof *ev);
	ev->time = e->time;
	ev->cpu = e->cpu;
	ev->tid = e->tid;
	ev->cls = &c->s->run.info.classes[e->cls];
	memcpy(ev->vals, c->v + (e->vals - c->v0), ev->cls->nfields * sizeof *ev->vals);
	*i = c->at + c->pos++;
	return 1;
}

static int keep_event(struct view_build *b, uint64_t i, const struct trawl_sw_event *ev)
{
	struct sw_view *v = b->v;
	unsigned row = b->s->row_of[ev->cpu] - 1u;
	struct sw_pos p = { ev->time, v->nkept }, k = { ev->time, i };
	if (spill_add(&v->kept, &k) || spill_add(&v->rows[row], &p))
		return -1;
	v->nkept++;
	trawl_swstats_event(&v->stats, ev->time);
	return 0;
}

/* acts= names the activities shown ("" or absent: all). */
static int acts_shown(struct serve_sw *s, struct sw_view *v, const char *acts, char *why, size_t n)
{
	size_t na = s->names ? trawl_act_count(s->names) : 0;
	v->act_on = calloc(na ? na : 1, 1);
	if (!v->act_on)
		return -1;
	for (size_t i = 0; i < na; i++)
		v->act_on[i] = !acts || !*acts;
	for (const char *p = acts; p && *p;) {
		size_t len = strcspn(p, ",");
		size_t i = 0;
		while (i < na && (strlen(trawl_act_def(s->names, i)->name) != len ||
				  memcmp(trawl_act_def(s->names, i)->name, p, len)))
			i++;
		if (i == na) {
			snprintf(why, n, "acts: no activity '%.*s' in the definitions", (int)(len > 60 ? 60 : len), p);
			return -1;
		}
		v->act_on[i] = 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

static char *filter_key(const struct sw_filter_args *f)
{
	const char *p[] = { f->cpus, f->threads, f->subsys, f->events, f->where, f->acts };
	size_t n = 1;
	for (size_t i = 0; i < 6; i++)
		n += (p[i] ? strlen(p[i]) : 0) + 2;
	char *k = malloc(n), *o = k;
	for (size_t i = 0; k && i < 6; i++)
		o += sprintf(o, "%s%c", p[i] ? p[i] : "", p[i] ? '\1' : '\2');
	return k;
}

static int view_open(struct serve_sw *s, struct sw_view *v)
{
	v->rows = calloc(s->ncpus ? s->ncpus : 1, sizeof *v->rows);
	if (!v->rows || spill_open(&v->kept, sizeof(struct sw_pos)))
		return -1;
	for (unsigned r = 0; r < s->ncpus; r++)
		if (spill_open(&v->rows[r], sizeof(struct sw_pos)))
			return -1;
	return 0;
}

/* Every event through the filter and the engine, as `trawl events
 * activities` runs them (events_run_next: the engine sees every event, the
 * filter decides what is kept). */
static int view_fill(struct serve_sw *s, struct view_build *b)
{
	struct ev_cursor *c = calloc(1, sizeof *c);
	struct trawl_sw_event ev;
	uint64_t i;
	int got = -1;
	if (!c || view_open(s, b->v))
		goto done;
	c->s = s;
	while ((got = cursor_next(c, &ev, &i)) > 0) {
		int but_time, keep = trawl_swfilter_keep_ex(b->f, &ev, &but_time);
		if (keep && keep_event(b, i, &ev)) {
			got = -1;
			break;
		}
		if (s->names)
			trawl_act_feed(s->names, &ev, but_time);
	}
	if (!got && s->names && s->nev)
		trawl_act_finish(s->names, s->last);
	if (!got && (b->failed || finish(s, b->v)))
		got = -1;
done:
	if (c)
		free(c->v);
	free(c);
	return got;
}

int serve_sw_view(struct serve_sw *s, const struct sw_filter_args *f, char *why, size_t n)
{
	char *key = filter_key(f);
	if (key && s->view.key && !strcmp(key, s->view.key)) {
		free(key);
		return 0;
	}
	struct sw_view v = { .key = key };
	struct view_build b = { s, &v, NULL, 0 };
	struct trawl_swfilter_spec spec = { f->cpus, f->threads, f->subsys, f->events, NULL, f->where };
	struct trawl_error err;
	struct trawl_act *old = s->names;
	trawl_error_clear(&err);
	snprintf(why, n, "out of memory or temporary space (TMPDIR)");
	const struct trawl_defs *d = s->run.defs;
	if (!key || trawl_swfilter_create(&b.f, &spec, s->run.info.classes, s->run.info.nclasses, &err) ||
	    (d && d->nactivities &&
	     trawl_act_create(&s->names, d, s->run.info.classes, s->run.info.nclasses, 0, take, &b, &err)) ||
	    trawl_swstats_init(&v.stats, s->names ? trawl_act_count(s->names) : 0, &err) ||
	    acts_shown(s, &v, f->acts, why, n) || view_fill(s, &b)) {
		if (err.status)
			snprintf(why, n, "%s", err.message);
		if (s->names != old)
			trawl_act_destroy(s->names);
		s->names = old;
		trawl_swfilter_destroy(b.f);
		serve_sw_view_release(s, &v);
		return -1;
	}
	trawl_swfilter_destroy(b.f);
	trawl_act_destroy(old);
	serve_sw_view_release(s, &s->view);
	s->view = v;
	return 0;
}
