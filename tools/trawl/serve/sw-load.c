/* Reading a software-event trace into trawl serve's arrays (sw.h). */
#include "serve/sw.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

static int oom(void)
{
	cli_error("serve", "out of memory reading the trace");
	return EXIT_BAD_INPUT;
}

static int add_event(struct serve_sw *s, const struct trawl_sw_event *ev)
{
	unsigned nf = ev->cls->nfields;
	if (!trawl_grow((void **)&s->ev, &s->ev_cap, s->nev + 1, sizeof *s->ev) ||
	    !trawl_grow((void **)&s->vals, &s->vals_cap, s->nvals + nf, sizeof *s->vals) ||
	    s->nvals + nf > UINT32_MAX)
		return -1;
	struct sw_ev *e = &s->ev[s->nev++];
	e->time = ev->time;
	e->tid = ev->tid;
	e->cpu = (uint16_t)ev->cpu;
	e->cls = (uint16_t)(ev->cls - s->run.info.classes);
	e->vals = (uint32_t)s->nvals;
	memcpy(s->vals + s->nvals, ev->vals, nf * sizeof *ev->vals);
	s->nvals += nf;
	if (!s->row_of[e->cpu])
		s->row_of[e->cpu] = 1;
	return 0;
}

/* Rows: the cpus seen, in order. */
static int make_rows(struct serve_sw *s)
{
	unsigned n = 0;
	for (unsigned c = 0; c < 65536; c++)
		n += s->row_of[c] != 0;
	s->cpus = calloc(n ? n : 1, sizeof *s->cpus);
	if (!s->cpus)
		return -1;
	for (unsigned c = 0; c < 65536; c++)
		if (s->row_of[c]) {
			s->cpus[s->ncpus] = (uint16_t)c;
			s->row_of[c] = ++s->ncpus;
		}
	return 0;
}

int serve_sw_load(struct serve_sw *s, const char *dir, const char *defs)
{
	s->run.cmd = "serve";
	s->run.dir = dir;
	s->run.defs_path = defs;
	int rc = events_run_open(&s->run, NULL, NULL), keep;
	if (rc)
		return rc;
	struct trawl_sw_event ev;
	while (events_run_next(&s->run, &ev, &keep) == TRAWL_OK) {
		if (ev.cpu > 65535) {
			cli_error("serve", "%s: an event on cpu %u: the view takes cpus up to 65535", dir, ev.cpu);
			return EXIT_BAD_INPUT;
		}
		if (add_event(s, &ev))
			return oom();
	}
	const struct trawl_error *d = trawl_swtrace_damage(s->run.t);
	if (d) {
		snprintf(s->damage, sizeof s->damage, "%.120s: %.120s", d->file, d->message);
		cli_error("serve", "%s: the rest of that stream was not read", s->damage);
	}
	trawl_swtrace_info(s->run.t, &s->run.info);
	if (make_rows(s))
		return oom();
	char why[256];
	struct sw_filter_args none = { 0 };
	if (serve_sw_view(s, &none, why, sizeof why)) {
		cli_error("serve", "%s", why);
		return EXIT_BAD_INPUT;
	}
	return EXIT_OK;
}

static void view_release(struct serve_sw *s, struct sw_view *v)
{
	free(v->key);
	free(v->kept);
	for (unsigned i = 0; v->by_cpu && i < s->ncpus; i++)
		free(v->by_cpu[i]);
	free(v->by_cpu);
	free(v->ncpu);
	free(v->cpu_cap);
	for (size_t i = 0; i < v->nlanes; i++)
		free(v->lanes[i].r);
	free(v->lanes);
	free(v->act_on);
	trawl_swstats_release(&v->stats);
	memset(v, 0, sizeof *v);
}

void serve_sw_release(struct serve_sw *s)
{
	view_release(s, &s->view);
	trawl_act_destroy(s->names);
	s->names = NULL;
	events_run_close(&s->run);
	free(s->ev);
	free(s->vals);
	free(s->cpus);
	s->ev = NULL;
	s->vals = NULL;
	s->cpus = NULL;
}

/* ---- views ---- */

struct view_build {
	struct serve_sw *s;
	struct sw_view *v;
	struct trawl_swfilter *f;
	int nomem;
};

static struct sw_lane *lane_of(struct sw_view *v, uint32_t cpu, uint32_t act)
{
	/* lanes are few (cores x activities): a linear look-up from the end */
	for (size_t i = v->nlanes; i-- > 0;)
		if (v->lanes[i].cpu == cpu && v->lanes[i].act == act)
			return &v->lanes[i];
	if (!trawl_grow((void **)&v->lanes, &v->lanes_cap, v->nlanes + 1, sizeof *v->lanes))
		return NULL;
	struct sw_lane *l = &v->lanes[v->nlanes++];
	memset(l, 0, sizeof *l);
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
	if (!l || !trawl_grow((void **)&l->r, &l->cap, l->n + 1, sizeof *l->r)) {
		b->v->acts_lost++;
		return;
	}
	l->r[l->n++] = (struct sw_rec){ r->begin, r->end, r->key, 0, r->cpu_end, r->flags };
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

static void finish_lanes(struct sw_view *v)
{
	qsort(v->lanes, v->nlanes, sizeof *v->lanes, lane_cmp);
	for (size_t i = 0; i < v->nlanes; i++) {
		struct sw_lane *l = &v->lanes[i];
		qsort(l->r, l->n, sizeof *l->r, rec_cmp);
		uint64_t m = 0;
		for (size_t k = 0; k < l->n; k++)
			l->r[k].runmax = m = l->r[k].end > m ? l->r[k].end : m;
	}
}

/* An event of the arrays as the library's readers give it. */
static void event_of(const struct serve_sw *s, size_t i, struct trawl_sw_event *ev)
{
	const struct sw_ev *e = &s->ev[i];
	memset(ev, 0, sizeof *ev);
	ev->time = e->time;
	ev->cpu = e->cpu;
	ev->tid = e->tid;
	ev->cls = &s->run.info.classes[e->cls];
	memcpy(ev->vals, s->vals + e->vals, ev->cls->nfields * sizeof *ev->vals);
}

static int keep_event(struct view_build *b, size_t i, int keep)
{
	struct sw_view *v = b->v;
	if (!keep)
		return 0;
	unsigned row = b->s->row_of[b->s->ev[i].cpu] - 1u;
	if (!trawl_grow((void **)&v->kept, &v->kept_cap, v->nkept + 1, sizeof *v->kept) ||
	    !trawl_grow((void **)&v->by_cpu[row], &v->cpu_cap[row], v->ncpu[row] + 1, sizeof **v->by_cpu))
		return -1;
	v->by_cpu[row][v->ncpu[row]++] = v->nkept;
	v->kept[v->nkept++] = i;
	trawl_swstats_event(&v->stats, b->s->ev[i].time);
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

/* Every event through the filter and the engine, as `trawl events
 * activities` runs them (events_run_next: the engine sees every event, the
 * filter decides what is kept). */
static int view_fill(struct serve_sw *s, struct view_build *b)
{
	struct sw_view *v = b->v;
	v->by_cpu = calloc(s->ncpus ? s->ncpus : 1, sizeof *v->by_cpu);
	v->ncpu = calloc(s->ncpus ? s->ncpus : 1, sizeof *v->ncpu);
	v->cpu_cap = calloc(s->ncpus ? s->ncpus : 1, sizeof *v->cpu_cap);
	if (!v->by_cpu || !v->ncpu || !v->cpu_cap)
		return -1;
	struct trawl_sw_event ev;
	for (size_t i = 0; i < s->nev; i++) {
		int but_time, keep;
		event_of(s, i, &ev);
		keep = trawl_swfilter_keep_ex(b->f, &ev, &but_time);
		if (keep_event(b, i, keep))
			return -1;
		if (s->names)
			trawl_act_feed(s->names, &ev, but_time);
	}
	if (s->names && s->nev)
		trawl_act_finish(s->names, s->ev[s->nev - 1].time);
	finish_lanes(v);
	return 0;
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
	snprintf(why, n, "out of memory");
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
		view_release(s, &v);
		return -1;
	}
	trawl_swfilter_destroy(b.f);
	trawl_act_destroy(old);
	view_release(s, &s->view);
	s->view = v;
	return 0;
}
