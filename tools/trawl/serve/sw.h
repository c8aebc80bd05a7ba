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
	struct spill ov;             /* struct sw_ov_lane: its overview (sw_grid) */
};

/* The overview (docs/serve.md, "Overview"): what a timeline needs at a
 * time boundary, kept for every boundary of a grid, so a request whose
 * columns are the grid's reads cols + 1 consecutive entries per lane and
 * core instead of one block per column. Level-0 boundary j is at time
 * origin + j * w0 (j = 0..n0, the last after the trace's last event);
 * level lv keeps every stride[lv]-th of them, strides m * 2^e with m in
 * [8, 16), so a column width is within 1/8 of some level's. */
#define SW_GRID_MAX 512

struct sw_grid {
	uint64_t origin, w0, n0;
	unsigned nlev;
	uint64_t stride[SW_GRID_MAX];
	uint64_t off[SW_GRID_MAX];   /* first entry of each level in the files */
	uint64_t len[SW_GRID_MAX];   /* entries of each level: boundaries 0, stride, .. >= n0 */
};

/* A lane at a boundary b: at, the records beginning before b; runmax,
 * the latest end among them (0: none); begin, key, cpu_end: record at's
 * (the next group's first), zeros when there is none. */
struct sw_ov_lane {
	uint64_t at, runmax, begin, key;
	uint32_t cpu_end, pad;
};

/* A core at a boundary b: at, its kept events before b; pos, the list
 * position of event at. */
struct sw_ov_row {
	uint64_t at, pos;
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
	int ov_on;                   /* the overview below was built */
	struct sw_grid grid;
	struct spill *ov_rows;       /* per row: struct sw_ov_row */
	uint64_t ov_ns;              /* its build's wall time */
};

struct serve_sw {
	struct events_run run;       /* open while the trace is served: classes, defs */
	struct spill ev;             /* struct sw_ev, one per event */
	struct spill vals;           /* uint64_t: the events' field values */
	uint64_t nev, first, last;   /* events; the first and last time */
	uint16_t *cpus;              /* distinct cpus, sorted */
	unsigned ncpus;
	uint32_t row_of[65536];      /* cpu -> row + 1 */
	char damage[512];            /* the first damage met, "" none */
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

/* Build the overview of view v (after its lanes and rows are sealed),
 * when it holds at least TRAWL_SERVE_OVERVIEW_MIN (default 2^20) events
 * and activities. 0, or -1 (a temporary file failed). */
int serve_sw_overview_build(const struct serve_sw *s, struct sw_view *v);

/* Where the overview answers [from, to) in cols columns: its level and
 * first entry, and the grid's range [from, to), which holds the asked one
 * (from moved down by less than a column, the columns widened by less
 * than 1/8). */
struct sw_ovspan {
	unsigned lv;
	uint64_t j0, from, to;
};
/* 1 when the overview answers it (then *o), else 0. */
int serve_sw_overview_span(const struct serve_sw *s, uint64_t from, uint64_t to, uint64_t cols,
			   struct sw_ovspan *o);
/* Entries j0..j0 + n - 1 of level lv of an overview file into out (those
 * past the level's end repeat its last). 0, or -1 (a read error). */
int serve_sw_overview_read(const struct sw_grid *g, const struct spill *f, unsigned lv, uint64_t j0,
			   uint64_t n, void *out);

/* The timeline of times [from, to) in cols columns, as members of the open
 * JSON object j (docs/serve.md): "from", "to", "cols" (the overview's grid
 * range when it answers) and the items. */
void serve_sw_timeline(const struct serve_sw *s, uint64_t from, uint64_t to, uint64_t cols,
		       uint64_t max, struct trawl_json *j);
/* The first kept event at or after time t: its list position (nkept when
 * none). */
uint64_t serve_sw_position(const struct serve_sw *s, uint64_t t);
/* The name an activity record shows: the state's for a state, else the
 * activity's. */
void serve_sw_rec_name(const struct serve_sw *s, uint32_t act, const struct sw_rec *r, char *buf, size_t n);

#endif
