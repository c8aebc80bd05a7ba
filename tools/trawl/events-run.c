/* See events-run.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "events-run.h"
#include "events-script.h"

int events_format(const char *cmd, int json, int csv)
{
	if (json && csv) {
		cli_usage(cmd, "give --json or --csv, not both");
		return -1;
	}
	return json ? EVENTS_JSON : csv ? EVENTS_CSV : EVENTS_TEXT;
}

int events_run_open(struct events_run *r, trawl_act_sink sink, void *ctx)
{
	struct trawl_error err;
	trawl_error_clear(&err);
	/* 0 stands for "not given" in the engine: asked for, it would
	 * silently be the default million */
	if (r->max_open_seen && !r->max_open)
		return cli_usage(r->cmd, "--max-open must be at least 1");
	/* bounds for a script that is not there would be silently nothing */
	if (!r->script && (r->script_limit_seen || r->script_memory_seen || r->unsafe_script))
		return cli_usage(r->cmd, "%s is for a --script", r->unsafe_script ? "--unsafe-script" :
				 r->script_limit_seen ? "--script-limit" : "--script-memory");
	int rc = events_open_trace(r->dir, &r->t);
	if (rc)
		return rc;
	trawl_swtrace_info(r->t, &r->info);
	if (r->defs_path && (rc = events_load_defs(r->defs_path, &r->defs)))
		return rc;
	if (trawl_swfilter_create(&r->filter, &r->spec, r->info.classes, r->info.nclasses, &err))
		return err.status == TRAWL_ERR_USAGE ? cli_usage(r->cmd, "%s", err.message) : cli_report(r->cmd, &err);
	if (r->script && (rc = events_script_open(r)))
		return rc;
	int script_acts = r->scr && trawl_script_has_on_event(r->scr);
	if (sink && ((r->defs && r->defs->nactivities) || script_acts) &&
	    trawl_act_create(&r->act, r->defs, r->info.classes, r->info.nclasses, r->max_open, sink, ctx, &err))
		return cli_report(r->cmd, &err);
	if (r->scr)
		trawl_script_set_activities(r->scr, r->act);
	if (!r->act) /* keep(e) only for the events in --time's window */
		trawl_swfilter_set_time_first(r->filter);
	return EXIT_OK;
}

enum trawl_status events_run_next(struct events_run *r, struct trawl_sw_event *ev, int *keep)
{
	enum trawl_status st = r->script_failed ? TRAWL_END : trawl_swtrace_next(r->t, ev);
	if (st != TRAWL_OK) {
		if (r->act && r->read)
			trawl_act_finish(r->act, r->last);
		return st;
	}
	if (!r->read++)
		r->first = ev->time;
	r->last = ev->time;
	int act_keep;
	if (r->scr)
		trawl_script_set_origin(r->scr, r->first);
	*keep = trawl_swfilter_keep_ex(r->filter, ev, &act_keep);
	if (r->script_failed || (r->scr && events_script_event(r, ev, act_keep))) {
		*keep = 0; /* stopped: the event the script failed on is not shown */
		return events_run_next(r, ev, keep);
	}
	r->kept += (uint64_t)*keep;
	if (r->act)
		trawl_act_feed(r->act, ev, act_keep);
	return TRAWL_OK;
}

/* Events a one-thread run reads, filters and feeds at a time: as many as
 * the two-thread pipe's batch (events-pipe.c); 64 left a Lua keep(e)'s
 * per-batch cost (the protected call, each class's table pushed) at
 * about 7% of the run, 1024 gained nothing over 256 (docs/analysis.md). */
#define BATCH 256

size_t events_run_read(struct events_run *r, struct trawl_sw_event *evs, uint8_t *keep, uint8_t *act, size_t max)
{
	if (r->script_failed) /* keep(e) failed: nothing after it is read */
		return 0;
	size_t n = trawl_swtrace_next_batch(r->t, evs, max);
	if (!n)
		return 0;
	if (!r->read)
		r->first = evs[0].time;
	if (r->scr)
		trawl_script_set_origin(r->scr, r->first);
	r->read += n;
	r->last = evs[n - 1].time;
	uint64_t kept = trawl_swfilter_keep_batch(r->filter, evs, n, keep, act);
	if (r->scr) {
		/* keep(e) failed at an event: what follows it was never read */
		if (r->script_failed) {
			size_t at = (size_t)(r->script_failed_ev - evs);
			r->read -= n - at - 1;
			r->last = evs[at].time;
			n = at;
		}
		kept = 0;
		for (size_t i = 0; i < n; i++)
			kept += keep[i];
	}
	r->kept += kept;
	return n;
}

/* Read, filter and feed a batch at a time, each step a loop of its own
 * (no call per event between them). A script's on_event opens activities
 * between the engine's events, so with one they go through
 * events_run_next; keep(e) is part of the filter. When keep fails halfway
 * through a batch, what follows the failing event is dropped as if never
 * read, as events_run_next stops there. */
size_t events_run_batch(struct events_run *r, const struct trawl_sw_event **evs, const uint8_t **keep)
{
	int one_by_one = r->scr && r->act && trawl_script_has_on_event(r->scr);
	if (r->script_failed && !one_by_one) {
		if (r->act && r->read)
			trawl_act_finish(r->act, r->last);
		return 0;
	}
	if (!r->batch && !one_by_one && (r->batch = malloc(BATCH * sizeof *r->batch))) {
		r->batch_keep = malloc(2 * BATCH);
		r->batch_act = r->batch_keep + BATCH;
		if (!r->batch_keep) {
			free(r->batch);
			r->batch = NULL;
		}
	}
	if (one_by_one || !r->batch) {
		int k;
		if (events_run_next(r, &r->one, &k) != TRAWL_OK)
			return 0;
		r->one_keep = (uint8_t)k;
		*evs = &r->one;
		*keep = &r->one_keep;
		return 1;
	}
	size_t n = events_run_read(r, r->batch, r->batch_keep, r->batch_act, BATCH);
	if (!n) {
		if (r->act && r->read)
			trawl_act_finish(r->act, r->last);
		return 0;
	}
	if (r->act)
		trawl_act_feed_batch(r->act, r->batch, n, r->batch_act);
	*evs = r->batch;
	*keep = r->batch_keep;
	return n;
}

int events_run_act_kept(const struct events_run *r, const struct trawl_act_record *rec)
{
	return (rec->flags & TRAWL_ACT_KEEP) && trawl_swfilter_time_overlaps(r->filter, rec->begin, rec->end);
}

/* What the engine could not match is said on stderr, once per activity, so
 * no figure looks complete when it is not; overflow is lost data (exit 1),
 * open-at-end and unmatched ends are facts about the trace (exit 0). */
static void report_activities(struct events_run *r)
{
	for (size_t i = 0; r->act && i < trawl_act_count(r->act); i++) {
		const struct trawl_act_counts *c = trawl_act_counts(r->act, i);
		const struct trawl_defs_activity *d = trawl_act_def(r->act, i);
		if (c->open_at_end && d->kind != TRAWL_DEFS_STATE)
			cli_warn(r->cmd, "activity '%s': %" PRIu64 " still open %s", d->name, c->open_at_end,
				 r->script_failed ? "where the script stopped" : "at the end of the trace");
		if (c->unmatched_end)
			cli_warn(r->cmd, "activity '%s': %" PRIu64 " %s with no %s (the first at %" PRIu64 " ns)",
				 d->name, c->unmatched_end, d->kind == TRAWL_DEFS_MESSAGE ? "receives" : "ends",
				 d->kind == TRAWL_DEFS_MESSAGE ? "send" : "begin", c->first_unmatched);
		if (c->cpu_beyond) {
			cli_error(r->cmd, "activity '%s': %" PRIu64 " state changes not kept: their cpu is %u or more "
				  "(the first: cpu %" PRIu32 ")", d->name, c->cpu_beyond, (unsigned)TRAWL_ACT_STATE_CPUS,
				  c->first_cpu_beyond);
			cli_mark_lossy();
		}
		if (c->overflow) {
			cli_error(r->cmd, "activity '%s': %" PRIu64 " not kept: more than %" PRIu64
				  " activities were open (--max-open)", d->name, c->overflow,
				  r->max_open ? r->max_open : (uint64_t)TRAWL_ACT_DEFAULT_MAX_OPEN);
			cli_mark_lossy();
		}
	}
}

int events_run_close(struct events_run *r)
{
	int rc = EXIT_OK;
	report_activities(r);
	if (r->t)
		rc = events_report_damage(r->t);
	events_script_close(r);
	trawl_act_destroy(r->act);
	trawl_swfilter_destroy(r->filter);
	trawl_defs_destroy(r->defs);
	trawl_swtrace_close(r->t);
	free(r->batch);
	free(r->batch_keep);
	r->batch = NULL;
	r->batch_keep = r->batch_act = NULL;
	r->act = NULL;
	r->filter = NULL;
	r->defs = NULL;
	r->t = NULL;
	return rc;
}
