/* The API of a software-event trace in trawl serve (docs/serve.md,
 * "Software events"): trace, timeline, events (the list), goto (@TIME)
 * and stats, each under the filter its parameters give. */
#include "serve/serve.h"

#include <string.h>

#include "events-act.h"
#include "trawl/number.h"

static const char *const kinds[] = { "", "span", "state", "message" };

static int bad(struct trawl_json *j, int status, const char *msg)
{
	trawl_json_object_begin(j);
	trawl_json_key(j, "error");
	trawl_json_cstring(j, msg);
	trawl_json_object_end(j);
	return status;
}

static void kv(struct trawl_json *j, const char *k, uint64_t v)
{
	trawl_json_key(j, k);
	trawl_json_u64(j, v);
}

/* What the filter panel offers: the activities, the subsystems' events. */
void serve_sw_info(const struct serve_sw *sw, struct trawl_json *j)
{
	kv(j, "events", sw->nev);
	kv(j, "first", sw->first);
	kv(j, "last", sw->last);
	kv(j, "lost", sw->run.info.lost);
	trawl_json_key(j, "overview_ms");     /* the unfiltered view's overview build */
	if (sw->view.ov_on)
		trawl_json_u64(j, (sw->view.ov_ns + 500000) / 1000000);
	else
		trawl_json_null(j);
	trawl_json_key(j, "cpus");
	trawl_json_array_begin(j);
	for (unsigned r = 0; r < sw->ncpus; r++)
		trawl_json_u64(j, sw->cpus[r]);
	trawl_json_array_end(j);
	trawl_json_key(j, "classes");
	trawl_json_array_begin(j);
	for (size_t i = 0; i < sw->run.info.nclasses; i++)
		trawl_json_cstring(j, sw->run.info.classes[i].name);
	trawl_json_array_end(j);
	trawl_json_key(j, "activities");
	trawl_json_array_begin(j);
	for (size_t i = 0; sw->names && i < trawl_act_count(sw->names); i++) {
		const struct trawl_defs_activity *d = trawl_act_def(sw->names, i);
		trawl_json_object_begin(j);
		trawl_json_key(j, "name");
		trawl_json_cstring(j, d->name);
		trawl_json_key(j, "kind");
		trawl_json_cstring(j, kinds[d->kind]);
		trawl_json_object_end(j);
	}
	trawl_json_array_end(j);
}

/* The view of the request's filter (made when it is not the current one). */
static int view(struct serve_sw *sw, const struct serve_req *r, struct trawl_json *j)
{
	const char *f[SF_N];
	for (int i = 0; i < SF_N; i++)
		f[i] = r->filter_have >> i & 1 ? r->filter[i] : NULL;
	struct sw_filter_args a = { f[SF_CPUS], f[SF_THREADS], f[SF_SUBSYS], f[SF_EVENTS], f[SF_WHERE], f[SF_ACTS] };
	char why[300];
	if (serve_sw_view(sw, &a, why, sizeof why))
		return bad(j, 400, why);
	return 0;
}

static void event_json(const struct serve_sw *sw, uint64_t pos, struct trawl_json *j)
{
	struct sw_ev ev;
	spill_get(&sw->ev, sw_pos_get(&sw->view.kept, pos).at, &ev);
	const struct sw_ev *e = &ev;
	const struct trawl_sw_class *c = &sw->run.info.classes[e->cls];
	uint64_t vals[TRAWL_SW_MAX_FIELDS];
	for (unsigned i = 0; i < c->nfields; i++)
		spill_get(&sw->vals, e->vals + i, &vals[i]);
	trawl_json_object_begin(j);
	kv(j, "pos", pos);
	kv(j, "time", e->time);
	kv(j, "cpu", e->cpu);
	kv(j, "tid", e->tid);
	trawl_json_key(j, "name");
	trawl_json_cstring(j, c->name);
	trawl_json_key(j, "fields");
	trawl_json_object_begin(j);
	for (unsigned i = 0; i < c->nfields; i++) {
		trawl_json_key(j, c->fields[i].name);
		if (c->fields[i].type >= TRAWL_SW_S8)
			trawl_json_i64(j, (int64_t)vals[i]);
		else
			trawl_json_u64(j, vals[i]);
	}
	trawl_json_object_end(j);
	trawl_json_object_end(j);
}

/* The list: kept events from position `from`. */
static int api_events(struct serve_sw *sw, const struct serve_req *r, struct trawl_json *j)
{
	char why[128];
	if (serve_req_need(r, SP_FROM | SP_COUNT, why, sizeof why))
		return bad(j, 400, why);
	trawl_json_object_begin(j);
	kv(j, "from", r->from);
	kv(j, "total", sw->view.nkept);
	trawl_json_key(j, "events");
	trawl_json_array_begin(j);
	for (uint64_t p = r->from; p < sw->view.nkept && p - r->from < r->count; p++)
		event_json(sw, p, j);
	trawl_json_array_end(j);
	trawl_json_object_end(j);
	return 200;
}

static int api_timeline(struct serve_sw *sw, const struct serve_req *r, struct trawl_json *j)
{
	char why[128];
	if (serve_req_need(r, SP_FROM | SP_TO | SP_COLS, why, sizeof why))
		return bad(j, 400, why);
	if (r->to <= r->from)
		return bad(j, 400, "'to' must be above 'from'");
	trawl_json_object_begin(j);
	serve_sw_timeline(sw, r->from, r->to, r->cols, r->have & SP_MAX ? r->max : 4000, j);
	trawl_json_object_end(j);
	return 200;
}

/* q=@TIME: the first kept event at or after it; q=N: position N. */
static int api_goto(struct serve_sw *sw, const struct serve_req *r, struct trawl_json *j)
{
	char why[128];
	uint64_t v;
	if (serve_req_need(r, SP_Q, why, sizeof why))
		return bad(j, 400, why);
	const char *q = r->text;
	if (!trawl_u64_parse(q[0] == '@' ? q + 1 : q, &v))
		return bad(j, 400, "give @TIME (ns of the trace clock) or a position in the list");
	uint64_t pos = q[0] == '@' ? serve_sw_position(sw, v) : v;
	trawl_json_object_begin(j);
	trawl_json_key(j, "pos");
	if (pos < sw->view.nkept) {
		trawl_json_u64(j, pos);
		kv(j, "time", sw_pos_get(&sw->view.kept, pos).time);
	} else {
		trawl_json_null(j);
		trawl_json_key(j, "message");
		trawl_json_cstring(j, "no event there under this filter");
	}
	trawl_json_object_end(j);
	return 200;
}

/* `trawl events summary --json` of the view. */
static int api_stats(struct serve_sw *sw, struct trawl_json *j)
{
	struct events_run r = sw->run;
	r.act = sw->names;
	r.kept = sw->view.nkept;
	events_summary_json(&r, &sw->view.stats, j);
	return 200;
}

static int dispatch(struct serve_sw *sw, const char *path, const struct serve_req *r, struct trawl_json *j)
{
	int rc = view(sw, r, j);
	if (rc)
		return rc;
	if (!strcmp(path, "/api/events"))
		return api_events(sw, r, j);
	if (!strcmp(path, "/api/timeline"))
		return api_timeline(sw, r, j);
	if (!strcmp(path, "/api/goto"))
		return api_goto(sw, r, j);
	if (!strcmp(path, "/api/stats"))
		return api_stats(sw, j);
	return bad(j, 404, "not an endpoint of a software-event trace (docs/serve.md)");
}

int serve_sw_api(struct serve *s, struct serve_trace *t, const char *path, const struct serve_req *r,
		 struct trawl_json *j)
{
	(void)s;
	return dispatch(t->sw, path, r, j);
}
