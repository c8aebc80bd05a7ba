/* trawl serve: a local web view of traces (docs/serve.md).
 *
 * Threads: libmicrohttpd answers every request from one thread of its own
 * (so the queries never run concurrently); one worker thread builds the
 * indexes and timelines, one trace at a time, when the page first asks for
 * a trace. A trace's state is read and written under serve.lock; once it
 * is SERVE_READY the worker no longer touches it and the request thread
 * reads its index and timeline without the lock. */
#ifndef TRAWL_SERVE_H
#define TRAWL_SERVE_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "calls-cli.h"
#include "index-cli.h"
#include "serve/params.h"
#include "serve/sw.h"
#include "serve/timeline.h"

enum serve_state {
	SERVE_NEW = 0,      /* nobody asked yet */
	SERVE_QUEUED,
	SERVE_INDEXING,     /* building or checking the index */
	SERVE_CALLS,        /* reading the trace into the call tree */
	SERVE_READY,
	SERVE_FAILED,
};

/* What a trace is to the view. Instruction traces (Tarmac, emulated) have
 * an index and a call timeline; a software-event source (the events work)
 * will be another kind with its own timeline and list, behind the same
 * endpoints (docs/serve.md, "Sources"). */
enum serve_kind {
	SERVE_KIND_INSN = 1,
	SERVE_KIND_SW,              /* a CTF trace directory of software events (sw.h) */
};

struct serve_trace {
	unsigned id;
	const char *path;
	enum serve_kind kind;
	enum serve_state state;
	uint64_t done, total;       /* progress of the current phase, in bytes */
	char message[512];          /* why it failed, or what a ready trace lacks
	                               (the build's warnings) */
	struct index_cli ic;        /* the index and the trace text */
	/* the trace text, plain or compressed (serve/text.h; the index_cli's,
	 * NULL when the source has none) */
	struct trawl_text *text;
	struct serve_timeline tl;
	unsigned ncpus;
	struct serve_sw *sw;        /* SERVE_KIND_SW: the events and the current view */
	int bf_dump;                /* a Barrelfish dump: turned into a CTF trace first */
	char bf_dir[4096];          /* ... in this temporary folder, removed at the end */
	char bf_damage[512];        /* the dump's damage: served up to it, and said */
};

struct serve {
	struct serve_trace *traces;
	unsigned ntraces;
	struct calls_run opts;      /* the command's options: reader options, --image */
	const char *defs;           /* --defs: the activities of software-event traces */
	char token[33];
	char host[3][96];           /* Host headers accepted */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int quit;
};

/* The worker thread (trace.c): builds traces that are SERVE_QUEUED. */
void *serve_worker(void *arg);
/* Ask for trace t to be built (if it is SERVE_NEW); returns its state. */
enum serve_state serve_trace_request(struct serve *s, struct serve_trace *t);
const char *serve_state_name(enum serve_state st);
void serve_trace_release(struct serve_trace *t);

/* One API request: writes the JSON answer to f and returns the HTTP status
 * (200, 400 with {"error":...}, 404, 503 while the trace is being built). */
int serve_api(struct serve *s, const char *path, const struct serve_req *r, FILE *f);
/* The endpoints of a software-event trace (sw-api.c); a path it does not
 * know is 404. serve_sw_info: the members /api/trace adds when ready. */
void serve_sw_info(const struct serve_sw *sw, struct trawl_json *j);
int serve_sw_api(struct serve *s, struct serve_trace *t, const char *path, const struct serve_req *r,
		 struct trawl_json *j);

/* The page's files, embedded at build time (serve-web.c, generated). */
struct serve_file {
	const char *path;           /* "/app.js" */
	const char *type;           /* Content-Type */
	const unsigned char *data;
	size_t size;
};
extern const struct serve_file serve_files[];
extern const unsigned serve_nfiles;

#endif
