/* Building a trace's index and timeline in the worker thread (serve.h). */
#include "serve/serve.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "events-cli.h"
#include "trawl/file.h"

static const char *const state_names[] = {
	"new", "queued", "indexing", "calls", "ready", "failed",
};

const char *serve_state_name(enum serve_state st)
{
	return st <= SERVE_FAILED ? state_names[st] : "?";
}

struct progress_ctx {
	struct serve *s;
	struct serve_trace *t;
};

static void progress(void *ctx, uint64_t done, uint64_t total)
{
	struct progress_ctx *p = ctx;
	pthread_mutex_lock(&p->s->lock);
	p->t->done = done;
	p->t->total = total;
	pthread_mutex_unlock(&p->s->lock);
}

static void set_state(struct serve *s, struct serve_trace *t, enum serve_state st, const char *msg)
{
	pthread_mutex_lock(&s->lock);
	t->state = st;
	t->done = t->total = 0;
	if (msg)
		snprintf(t->message, sizeof t->message, "%s", msg);
	pthread_mutex_unlock(&s->lock);
}

/* What the page says of a failed build: the error the CLI code printed on
 * the server's terminal, from this thread. */
static void fail(struct serve *s, struct serve_trace *t, const char *what)
{
	char msg[sizeof t->message];
	snprintf(msg, sizeof msg, "%s: %s", what, cli_last_error());
	set_state(s, t, SERVE_FAILED, msg);
}

/* A Barrelfish dump becomes a CTF trace in a temporary folder, as `trawl
 * events import-bf` would write it (the same code, --defs naming the
 * events), and is served from there: one path for every software trace. */
static int import_bf(struct serve *s, struct serve_trace *t)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(t->bf_dir, sizeof t->bf_dir, "%s/trawl-serve-bf-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t->bf_dir)) {
		fail(s, t, "cannot make a temporary folder for the dump (TMPDIR)");
		t->bf_dir[0] = 0;
		return -1;
	}
	uint8_t *text = NULL;
	size_t len;
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_file_read(t->path, &text, &len, &err)) {
		cli_report("serve", &err);
		fail(s, t, "the dump could not be read");
		return -1;
	}
	int rc = events_bf_write((const char *)text, len, t->path, s->defs, t->bf_dir, 1000000000u);
	free(text);
	char meta[4200];
	snprintf(meta, sizeof meta, "%s/metadata", t->bf_dir);
	if (rc == EXIT_BAD_INPUT && access(meta, F_OK) == 0) {
		/* damaged: the events before the damage were written, and are served */
		snprintf(t->bf_damage, sizeof t->bf_damage, "%s", cli_last_error());
		cli_mark_lossy();
		return 0;
	}
	if (rc) {
		fail(s, t, "the Barrelfish dump could not be read (the terminal says where)");
		return -1;
	}
	return 0;
}

static void remove_bf_dir(struct serve_trace *t)
{
	if (!t->bf_dir[0])
		return;
	DIR *d = opendir(t->bf_dir);
	struct dirent *e;
	char p[4096 + 256];
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof p, "%s/%s", t->bf_dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(t->bf_dir);
	t->bf_dir[0] = 0;
}

/* A software-event trace: read once into the arrays of sw.h. */
static void build_sw(struct serve *s, struct serve_trace *t)
{
	if (t->bf_dump && import_bf(s, t))
		return;
	t->sw = calloc(1, sizeof *t->sw);
	if (!t->sw || serve_sw_load(t->sw, t->bf_dump ? t->bf_dir : t->path, s->defs)) {
		fail(s, t, "the events could not be read");
		return;
	}
	t->ncpus = t->sw->ncpus;
	set_state(s, t, SERVE_READY, t->sw->damage[0] ? t->sw->damage : t->bf_damage[0] ? t->bf_damage : NULL);
}

/* The reader options for one trace. They are given once for every trace
 * on the command line (cmd-serve.c checked that each is for one of them):
 * with to.fit, each trace is read with the ones for its kind, as otherwise
 * one trace's options would fail another (--symfs a snapshot). */
static struct trace_open trace_options(const struct serve *s, const struct serve_trace *t)
{
	struct trace_open to = s->opts.to;
	to.cmd = "serve";
	to.path = t->path;
	to.fit = 1;
	return to;
}

/* The index first (index_cli_open: built when missing or stale, as every
 * index command does), then the call tree read from the trace as trawl
 * calltree reads it (calls_run_read, the command's --image and reader
 * options), kept only as the timeline's compact arrays. Errors are printed
 * on the server's terminal by the CLI code and summed up for the page. */
static void build(struct serve *s, struct serve_trace *t)
{
	if (t->kind == SERVE_KIND_SW) {
		build_sw(s, t);
		return;
	}
	struct progress_ctx pc = { s, t };
	cli_warnings_clear();
	t->ic.to = trace_options(s, t);
	t->ic.progress = progress;
	t->ic.progress_ctx = &pc;
	if (index_cli_open(&t->ic)) {
		fail(s, t, "the index could not be built");
		return;
	}
	struct trawl_index_info info;
	trawl_index_get_info(t->ic.ix, &info);
	/* compressed: opening it builds the seek file beside the index */
	t->text = index_cli_text(&t->ic);
	t->ncpus = info.cpus ? info.cpus : 1;
	set_state(s, t, SERVE_CALLS, NULL);
	struct calls_run r;
	memset(&r, 0, sizeof r);
	r.to = trace_options(s, t);
	r.image = s->opts.image;        /* borrowed: the command owns it */
	r.use_index = s->opts.use_index;
	r.parse_all = s->opts.parse_all;
	r.progress = progress;
	r.progress_ctx = &pc;
	int rc = calls_run_read(&r);
	if (!rc && serve_timeline_build(&t->tl, r.calls))
		rc = -1;
	trawl_calls_destroy(r.calls);
	if (rc) {
		serve_timeline_release(&t->tl);
		fail(s, t, "the call tree could not be read");
		return;
	}
	/* what the terminal was told (a cut trace, skipped lines) the page
	 * says too: the answers lack that part */
	set_state(s, t, SERVE_READY, cli_warnings()[0] ? cli_warnings() : NULL);
}

void *serve_worker(void *arg)
{
	struct serve *s = arg;
	pthread_mutex_lock(&s->lock);
	while (!s->quit) {
		struct serve_trace *t = NULL;
		for (unsigned i = 0; i < s->ntraces && !t; i++)
			if (s->traces[i].state == SERVE_QUEUED)
				t = &s->traces[i];
		if (!t) {
			pthread_cond_wait(&s->wake, &s->lock);
			continue;
		}
		t->state = SERVE_INDEXING;
		pthread_mutex_unlock(&s->lock);
		build(s, t);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

enum serve_state serve_trace_request(struct serve *s, struct serve_trace *t)
{
	pthread_mutex_lock(&s->lock);
	if (t->state == SERVE_NEW) {
		t->state = SERVE_QUEUED;
		pthread_cond_signal(&s->wake);
	}
	enum serve_state st = t->state;
	pthread_mutex_unlock(&s->lock);
	return st;
}

void serve_trace_release(struct serve_trace *t)
{
	remove_bf_dir(t);
	if (t->sw) {
		serve_sw_release(t->sw);
		free(t->sw);
		t->sw = NULL;
		return;
	}
	if (t->state == SERVE_READY || t->state == SERVE_FAILED) {
		index_cli_close(&t->ic);
		serve_timeline_release(&t->tl);
	}
}
