/* --script for the events verbs (sw-script.h): keep(e) joins the filter,
 * on_event(e) feeds the activity engine, and an error inside the script
 * stops the reading with the script's line and the event it was on. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events-run.h"
#include "events-script.h"

static int keep_fn(void *ctx, const struct trawl_sw_event *ev)
{
	struct events_run *r = ctx;
	if (r->script_failed)
		return 0;
	int k = trawl_script_keep(r->scr, ev, &r->script_err);
	if (k < 0) {
		r->script_failed = 1;
		r->script_failed_ev = ev;
		return 0;
	}
	return k;
}

static void keep_batch_fn(void *ctx, const struct trawl_sw_event *evs, size_t n, uint8_t *keep)
{
	struct events_run *r = ctx;
	size_t at;
	if (r->script_failed) {
		memset(keep, 0, n);
		return;
	}
	if (trawl_script_keep_batch(r->scr, evs, n, keep, &at, &r->script_err)) {
		r->script_failed = 1;
		r->script_failed_ev = &evs[at];
		memset(keep + at, 0, n - at);
	}
}

/* print() in a script: a note on standard error, under the command's
 * name, never inside the command's output */
static void print_fn(void *ctx, const char *text, size_t len)
{
	struct events_run *r = ctx;
	fprintf(stderr, "%s: %.*s\n", r->script, (int)len, text);
}

int events_script_open(struct events_run *r)
{
	struct trawl_error err;
	trawl_error_clear(&err);
	uint8_t *text = NULL;
	size_t len;
	struct trawl_script_options o = { .unsafe = r->unsafe_script, .max_instructions = r->script_limit,
					  .print = print_fn, .print_ctx = r };
	if (r->script_limit_seen && !r->script_limit)
		o.max_instructions = TRAWL_SCRIPT_NO_INSTRUCTION_BOUND;
	if (r->script_memory_seen)
		o.max_memory = r->script_memory ? r->script_memory << 20 : TRAWL_SCRIPT_NO_MEMORY_BOUND;
	enum trawl_status st = trawl_file_read(r->script, &text, &len, &err);
	if (!st)
		st = trawl_script_open(&r->scr, r->script, (const char *)text, len, r->info.classes, r->info.nclasses,
				       &o, &err);
	free(text);
	if (st)
		return cli_report(r->cmd, &err);
	if (trawl_script_has_keep(r->scr)) {
		trawl_swfilter_set_fn(r->filter, keep_fn, r);
		trawl_swfilter_set_batch_fn(r->filter, keep_batch_fn, r);
	}
	return EXIT_OK;
}

int events_script_event(struct events_run *r, const struct trawl_sw_event *ev, int keep)
{
	/* on_event opens activities: only verbs that show them run it */
	if (r->script_failed || !r->act || !trawl_script_has_on_event(r->scr))
		return r->script_failed;
	if (trawl_script_on_event(r->scr, ev, keep, &r->script_err))
		r->script_failed = 1;
	return r->script_failed;
}

void events_script_close(struct events_run *r)
{
	if (r->script_failed) {
		fflush(stdout);
		cli_report(r->cmd, &r->script_err);
		cli_warn(r->cmd, "the script stopped at event %" PRIu64 " of the trace: the events after it were not read",
			 r->read);
		cli_mark_lossy();
	}
	trawl_script_close(r->scr);
	r->scr = NULL;
}
