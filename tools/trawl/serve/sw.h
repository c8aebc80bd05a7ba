/* A software-event trace in trawl serve (docs/serve.md, "Software
 * events"): the trace is read once through the events verbs' own code
 * (events-run.h: the CTF reader, --defs) into compact records kept on disk
 * (spill.h), so the server's memory does not grow with the trace; a filter
 * (sw-filter.h, the --where parser) and the activity engine
 * (sw-activity.h) then run over those records to make a view: the kept
 * events, per core, and the activities in lanes (core, activity) sorted by
 * begin, on disk too, which a timeline request aggregates per pixel column
 * by binary searches over their maps. One view is kept: the last filter
 * asked for. */
#ifndef TRAWL_SERVE_SW_H
#define TRAWL_SERVE_SW_H

#include <stddef.h>
#include <stdint.h>

#include "events-run.h"
#include "serve/spill.h"
#include "trawl/json.h"
#include "trawl/sw-stats.h"

struct sw_ev {
	uint64_t time;
	uint64_t vals;               /* first value in serve_sw.vals */
	uint32_t tid;
	uint16_t cpu;
	uint16_t cls;                /* index into the trace's classes */
};

/* An activity as the timeline needs it; runmax: the latest end among
 * this one and those before it in the lane (so a lane whose activities
 * overlap is still searched by bisection). */
struct sw_rec {
	uint64_t begin, end, key, runmax;
	uint32_t cpu_end, flags;
};

struct sw_lane {
	uint32_t cpu, act;
	struct spill r;              /* struct sw_rec, sorted by begin then end */
	uint64_t maxend;             /* the last record's runmax */
};

/* A kept event: its time and, in the list (sw_view.kept), its place in
 * serve_sw.ev, in a core's list (sw_view.rows) its list position. */
struct sw_pos {
	uint64_t time, at;
};

/* The filter of a view: the page's filter panel, as the CLI's options. */
struct sw_filter_args {
	const char *cpus, *threads, *subsys, *events, *where, *acts;
};

struct sw_view {
	char *key;                   /* the filter it was made for */
	struct spill kept;           /* struct sw_pos of the kept events, by time */
	uint64_t nkept;
	struct spill *rows;          /* per row (serve_sw.cpus): struct sw_pos of its kept events */
	struct sw_lane *lanes;       /* sorted by cpu, then activity */
	size_t nlanes, lanes_cap;
	unsigned char *act_on;       /* per activity: shown (acts=) */
	struct trawl_swstats stats;
	uint64_t acts_lost;          /* records not kept: out of memory */
};

struct serve_sw {
	struct events_run run;       /* open while the trace is served: classes, defs */
	struct spill ev;             /* struct sw_ev, one per event */
	struct spill vals;           /* uint64_t: the events' field values */
	uint64_t nev, first, last;   /* events; the first and last time */
	uint16_t *cpus;              /* distinct cpus, sorted */
	unsigned ncpus;
	uint32_t row_of[65536];      /* cpu -> row + 1 */
	char damage[256];            /* the first damage met, "" none */
	struct sw_view view;
	struct trawl_act *names;     /* an engine kept for state names */
};

/* Keys of the spills (spill_index slots). */
enum { SW_KEY_TIME = 0, SW_KEY_BEGIN = 0, SW_KEY_RUNMAX = 1 };

static inline struct sw_rec sw_rec_get(const struct sw_lane *l, uint64_t i)
{
	struct sw_rec r;
	spill_get(&l->r, i, &r);
	return r;
}

static inline struct sw_pos sw_pos_get(const struct spill *s, uint64_t i)
{
	struct sw_pos p;
	spill_get(s, i, &p);
	return p;
}

/* Read the trace (dir, --defs path) into s. 0, or the CLI's exit status
 * after the error was printed (cli_last_error says it). */
int serve_sw_load(struct serve_sw *s, const char *dir, const char *defs);
void serve_sw_release(struct serve_sw *s);
void serve_sw_view_release(struct serve_sw *s, struct sw_view *v);

/* Make s->view the view of filter f (kept when it already is). 0, or -1
 * with why[] (a bad filter: the CLI's message, naming the option). */
int serve_sw_view(struct serve_sw *s, const struct sw_filter_args *f, char *why, size_t n);

/* The timeline of times [from, to) in cols columns, as members of the open
 * JSON object j (docs/serve.md). */
void serve_sw_timeline(const struct serve_sw *s, uint64_t from, uint64_t to, uint64_t cols,
		       uint64_t max, struct trawl_json *j);
/* The first kept event at or after time t: its list position (nkept when
 * none). */
uint64_t serve_sw_position(const struct serve_sw *s, uint64_t t);
/* The name an activity record shows: the state's for a state, else the
 * activity's. */
void serve_sw_rec_name(const struct serve_sw *s, uint32_t act, const struct sw_rec *r, char *buf, size_t n);

#endif
