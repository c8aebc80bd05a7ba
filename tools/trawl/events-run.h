/* What every `trawl events` verb that reads a trace shares: opening it
 * (with the notes on crash buffers and damage), the definitions file, the
 * filter options (one table entry for all of them) and the activity engine
 * fed as the events go by. */
#ifndef TRAWL_EVENTS_RUN_H
#define TRAWL_EVENTS_RUN_H

#include "cli.h"
#include "trawl/sw-activity.h"
#include "trawl/sw-defs.h"
#include "trawl/sw-filter.h"
#include "trawl/sw-trace.h"
#include "trawl/sw-script.h"

/* cmd-events.c */
int events_open_trace(const char *dir, struct trawl_swtrace **t);
int events_report_damage(struct trawl_swtrace *t);
int events_load_defs(const char *path, struct trawl_defs **d);

struct events_run {
	const char *cmd;
	const char *dir;
	const char *defs_path;
	struct trawl_swfilter_spec spec;
	const char *script;
	int unsafe_script;
	uint64_t script_limit;       /* 0 given: no bound */
	int script_limit_seen;
	uint64_t script_memory;      /* MiB; 0 given: no bound */
	int script_memory_seen;
	struct trawl_script *scr;
	struct trawl_error script_err; /* the error that stopped the script */
	int script_failed;
	const struct trawl_sw_event *script_failed_ev; /* the event keep failed on */
	uint64_t max_open;           /* 0: the default (not given; 0 given is refused) */
	int max_open_seen;
	struct trawl_swtrace *t;
	struct trawl_swtrace_info info;
	struct trawl_defs *defs;
	struct trawl_swfilter *filter;
	struct trawl_act *act;       /* NULL without --defs (or no activities) */
	uint64_t read, kept, first, last;
	/* events_run_batch's buffers (malloc'd at its first call) */
	struct trawl_sw_event *batch;
	uint8_t *batch_keep, *batch_act;
	struct trawl_sw_event one;   /* with on_event, or no memory: one at a time */
	uint8_t one_keep;
};

#define EVENTS_FILTER_OPTIONS(r)                                                                     \
	CLI_TEXT("filters (an event is shown when it passes all of them):"),                          \
	CLI_STRING("cpu", 0, "LIST", &(r)->spec.cpus, "cpus, e.g. 0,2-3"),                            \
	CLI_STRING("thread", 0, "LIST", &(r)->spec.threads, "thread ids, e.g. 1234,1240-1250"),       \
	CLI_STRING("subsys", 0, "LIST", &(r)->spec.subsys, "subsystems, e.g. net,lock"),              \
	CLI_STRING("event", 0, "LIST", &(r)->spec.events, "events, * matches anything: net:RX,lock:*"), \
	CLI_STRING("time", 0, "FROM..TO", &(r)->spec.time,                                            \
		   "since the first event, e.g. 1.5ms..3ms, ..2s (units ns us ms s)"),                \
	CLI_STRING("where", 0, "COND", &(r)->spec.where,                                              \
		   "a condition on fields, cpu, tid, time: 'len > 100 && port == 80'"),                \
	CLI_STRING("script", 0, "FILE", &(r)->script,                                                 \
		   "a Lua script: keep(e) filters, on_event(e) opens and closes\n"                    \
		   "activities, fields = {...} adds computed fields (docs/analysis.md)"),              \
	CLI_FLAG("unsafe-script", 0, &(r)->unsafe_script, "let the script use io, os, require and load"), \
	CLI_U64("script-limit", "N", &(r)->script_limit, 0, &(r)->script_limit_seen,                 \
		"stop a script call still running after 20 ms once it has run\n"                      \
		"N more instructions (default 10000000; 0: no bound)"),                                            \
	CLI_U64("script-memory", "MIB", &(r)->script_memory, UINT64_MAX >> 20, &(r)->script_memory_seen, \
		"stop a script holding more than MIB MiB of memory after a full\n"                   \
		"collection (default 1024; 0: no bound)")

/* --defs and --max-open, for the verbs that group events into activities. */
#define EVENTS_ACTIVITY_OPTIONS(r)                                                                   \
	CLI_STRING("defs", 0, "FILE", &(r)->defs_path, "definitions (.tdef) declaring the activities"), \
	CLI_U64("max-open", "N", &(r)->max_open, 0, &(r)->max_open_seen,                              \
		"keep at most N open activities (default 1000000; past it they are counted as overflow)")

/* --json and --csv of the verbs that print tables. */
enum { EVENTS_TEXT, EVENTS_JSON, EVENTS_CSV };
#define EVENTS_FORMAT_OPTIONS(json, csv)                                       \
	CLI_FLAG("json", 0, json, "JSON (trawl/json.h)"),                      \
	CLI_FLAG("csv", 0, csv, "comma-separated values")
/* The format, or -1 after a usage message when both were given. */
int events_format(const char *cmd, int json, int csv);

/* Open r->dir, load the definitions, make the filter and (with sink) the
 * activity engine. Returns 0 or the exit status, having said why. */
int events_run_open(struct events_run *r, trawl_act_sink sink, void *ctx);
/* The next event, passed through the engine; *keep says whether it passes
 * the filter. TRAWL_END at the end, after finishing the engine. */
enum trawl_status events_run_next(struct events_run *r, struct trawl_sw_event *ev, int *keep);
/* The same as events_run_next, many events a call: *evs points at the
 * events and *keep at their verdicts (0 or 1), valid until the next call;
 * the count, 0 at the end (after finishing the engine). The engine has
 * seen them all when this returns. */
size_t events_run_batch(struct events_run *r, const struct trawl_sw_event **evs, const uint8_t **keep);
/* The reading half of events_run_batch: up to max events into evs, their
 * verdicts into keep and act (the filter but its time window, which an
 * activity meets by overlap), counted in r; not fed to the engine. 0 at
 * the end. */
size_t events_run_read(struct events_run *r, struct trawl_sw_event *evs, uint8_t *keep, uint8_t *act, size_t max);
/* Every event of the trace through the filter and the engine, and the
 * engine finished at the end; on_read sees each batch once it is read and
 * filtered, on_fed once the engine has taken it (either may be NULL).
 * threads >= 2 (and no script) reads, filters and calls on_read on a
 * thread of its own, ahead of the engine (with its sink) and on_fed, which
 * run on the calling thread (events-pipe.c): each side makes the same
 * calls in the same order as with 1, so the same results, as long as
 * on_read touches nothing the other side does. */
typedef void (*events_batch_fn)(void *ctx, const struct trawl_sw_event *evs, const uint8_t *keep, size_t n);
void events_run_all(struct events_run *r, int threads, events_batch_fn on_read, events_batch_fn on_fed,
		    void *ctx);
/* 2 when the machine has two cpus or more, else 1. */
int events_threads_default(void);
/* Does an activity pass the filter (its begin event did, and its time
 * meets --time)? */
int events_run_act_kept(const struct events_run *r, const struct trawl_act_record *rec);
/* Report open-at-end, unmatched and overflowed activities and damage;
 * returns the exit status (1 when anything was lost). */
int events_run_close(struct events_run *r);

#endif
