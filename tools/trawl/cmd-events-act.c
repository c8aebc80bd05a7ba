/* trawl events activities and summary: the activities a definitions file
 * declares, one per line or as statistics (docs/analysis.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events-act.h"
#include "events-run.h"
#include "trawl/json.h"
#include "trawl/sw-act-order.h"
#include "trawl/sw-stats.h"

static const char *const kinds[] = { "", "span", "state", "message" };

struct act_out {
	struct events_run *r;
	int format, abs;
	uint64_t limit, shown, unlisted;
	struct trawl_json j;
	struct trawl_act_order *order;
};

static void put_time(const struct act_out *o, uint64_t t)
{
	if (o->abs)
		printf("%" PRIu64, t);
	else
		printf("%" PRIu64 ".%09" PRIu64, (t - o->r->first) / 1000000000u, (t - o->r->first) % 1000000000u);
}

static void key_text(const struct events_run *r, const struct trawl_act_record *rec, char *buf, size_t n)
{
	if (trawl_act_def(r->act, rec->act)->kind == TRAWL_DEFS_STATE)
		trawl_act_state_name(r->act, rec->act, rec->key, buf, n);
	else
		snprintf(buf, n, "%" PRIu64, rec->key);
}

static void print_json(struct act_out *o, const struct trawl_act_record *rec, const char *key)
{
	const struct trawl_defs_activity *d = trawl_act_def(o->r->act, rec->act);
	struct trawl_json *j = &o->j;
	trawl_json_object_begin(j);
	trawl_json_key(j, "activity");
	trawl_json_cstring(j, d->name);
	trawl_json_key(j, "kind");
	trawl_json_cstring(j, kinds[d->kind]);
	trawl_json_key(j, "key");
	trawl_json_cstring(j, key);
	trawl_json_key(j, "cpu");
	trawl_json_u64(j, rec->cpu);
	trawl_json_key(j, "cpu_end");
	trawl_json_u64(j, rec->cpu_end);
	trawl_json_key(j, "tid");
	trawl_json_u64(j, rec->tid);
	trawl_json_key(j, "begin_ns");
	trawl_json_u64(j, rec->begin);
	trawl_json_key(j, "end_ns");
	trawl_json_u64(j, rec->end);
	trawl_json_key(j, "duration_ns");
	trawl_json_u64(j, rec->end - rec->begin);
	trawl_json_key(j, "depth");
	trawl_json_u64(j, rec->depth);
	trawl_json_key(j, "open");
	trawl_json_bool(j, (rec->flags & TRAWL_ACT_OPEN) != 0);
	trawl_json_object_end(j);
}

/* One activity, in the order they begin (from the reorder buffer). */
static void act_line(void *ctx, const struct trawl_act_record *rec)
{
	struct act_out *o = ctx;
	if (o->shown >= o->limit)
		return;
	o->shown++;
	const struct trawl_defs_activity *d = trawl_act_def(o->r->act, rec->act);
	char key[128];
	key_text(o->r, rec, key, sizeof key);
	if (o->format == EVENTS_JSON) {
		print_json(o, rec, key);
		return;
	}
	const char *sep = o->format == EVENTS_CSV ? "," : "  ";
	printf("%s%s%s%s%s%s%u%s%u%s%u%s", d->name, sep, kinds[d->kind], sep, key, sep, rec->cpu, sep, rec->cpu_end,
	       sep, rec->tid, sep);
	put_time(o, rec->begin);
	fputs(sep, stdout);
	put_time(o, rec->end);
	printf("%s%" PRIu64 "%s%u%s%s\n", sep, rec->end - rec->begin, sep, rec->depth, sep,
	       rec->flags & TRAWL_ACT_OPEN ? "open" : "closed");
}

/* An activity as it ends: held until every one that began earlier has
 * ended (sw-act-order.h). */
static void act_hold(void *ctx, const struct trawl_act_record *rec)
{
	struct act_out *o = ctx;
	if (events_run_act_kept(o->r, rec) &&
	    trawl_act_order_put(o->order, rec, (unsigned)trawl_act_def(o->r->act, rec->act)->kind))
		o->unlisted++;
}

static int need_activities(const struct events_run *r)
{
	if (r->act)
		return EXIT_OK;
	if (!r->defs_path && !r->script)
		return cli_usage(r->cmd, "give the definitions declaring the activities: --defs FILE.tdef "
				 "(or a --script with on_event)");
	return cli_usage(r->cmd, "%s declares no activities (see docs/analysis.md)",
			 r->defs_path ? r->defs_path : r->script);
}

static int act_close(struct events_run *r, struct act_out *o)
{
	uint64_t late = trawl_act_order_late(o->order);
	if (late)
		cli_warn(r->cmd, "%" PRIu64 " activities listed out of begin order: more than %" PRIu64
			 " ended while an earlier one was still open (--max-open)", late,
			 r->max_open ? r->max_open : (uint64_t)TRAWL_ACT_DEFAULT_MAX_OPEN);
	trawl_act_order_destroy(o->order);
	int rc = events_run_close(r);
	if (o->unlisted) {
		cli_error(r->cmd, "%" PRIu64 " activities not listed: out of memory", o->unlisted);
		cli_mark_lossy();
		rc = EXIT_BAD_INPUT;
	}
	return rc;
}

/* The events pass through the engine, which calls act_line as activities
 * finish; the trace's end flushes the open ones. */
int events_activities(int argc, char **argv)
{
	struct events_run r = { .cmd = "events activities" };
	struct act_out o = { .r = &r, .limit = UINT64_MAX };
	const char *out_path = NULL;
	int prc, json = 0, csv = 0;
	const struct cli_option opts[] = {
		EVENTS_ACTIVITY_OPTIONS(&r),
		EVENTS_FORMAT_OPTIONS(&json, &csv),
		CLI_FLAG("abs", 0, &o.abs, "times as clock values in ns, not seconds since the first event"),
		CLI_U64("limit", "N", &o.limit, 0, NULL, "print at most N activities"),
		CLI_STRING("output", 'o', "FILE", &out_path, "write to FILE"),
		EVENTS_FILTER_OPTIONS(&r),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "events activities",
		.usage = "TRACE --defs FILE.tdef [options]",
		.description =
			"Prints every activity the definitions declare, in the order they begin\n"
			"(ties by cpu, then kind: span, state, message):\n"
			"activity, kind, key, cpu (begin, end), thread, begin, end, duration in\n"
			"ns, nesting depth, and whether it was still open at the end of the trace.\n"
			"An activity is shown when its begin event passes the filters and it\n"
			"meets --time.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	if (cli_parse(&cmd, argc, argv, &prc) < 0)
		return prc;
	if ((o.format = events_format(r.cmd, json, csv)) < 0)
		return EXIT_USAGE;
	r.dir = argv[0];
	if (trawl_act_order_create(&o.order, r.max_open ? r.max_open : TRAWL_ACT_DEFAULT_MAX_OPEN, act_line, &o)) {
		cli_error(r.cmd, "out of memory");
		return EXIT_BAD_INPUT;
	}
	int rc = events_run_open(&r, act_hold, &o);
	if (!rc)
		rc = need_activities(&r);
	if (!rc)
		rc = cli_output_to(r.cmd, out_path);
	if (rc) {
		events_run_close(&r);
		trawl_act_order_destroy(o.order);
		return rc;
	}
	if (o.format == EVENTS_JSON) {
		trawl_json_init(&o.j, stdout);
		trawl_json_array_begin(&o.j);
	} else {
		puts(o.format == EVENTS_CSV ? "activity,kind,key,cpu,cpu_end,tid,begin,end,duration_ns,depth,state"
				       : "activity  kind  key  cpu  cpu_end  tid  begin  end  duration_ns  depth  state");
	}
	struct trawl_sw_event ev;
	int keep;
	while (events_run_next(&r, &ev, &keep) == TRAWL_OK)
		if (trawl_act_order_due(o.order, ev.time))
			trawl_act_order_release(o.order, trawl_act_oldest_open(r.act, ev.time));
	trawl_act_order_flush(o.order);
	if (o.format == EVENTS_JSON) {
		trawl_json_array_end(&o.j);
		putchar('\n');
	}
	return act_close(&r, &o);
}
