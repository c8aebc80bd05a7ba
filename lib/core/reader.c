/* Readers: recognise the format of an input by content and hand its events
 * out in batches through the backend that reads it (reader-backend.h).
 *
 * Read-ahead: a worker thread runs the backend one batch ahead of the
 * caller. The backend keeps two batches alive (double_buffer), so while
 * the caller reads batch k the worker builds k+1; asking for k+1 releases
 * k, whose memory the worker then reuses for k+2. Only the worker calls
 * the backend once it runs; warnings it raises are queued and passed to
 * the caller's callback with the batch, on the caller's thread. */
#include "trawl/reader.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/reader-backend.h"

/* Every format trawl reads; detection asks each in turn. */
static const struct trawl_reader_backend *const backends[] = {
	&trawl_tarmac_backend,
};

#define NBACKENDS (sizeof backends / sizeof backends[0])

/* What the worker produced: one batch and everything about it. */
struct ahead_result {
	enum trawl_status st;
	struct trawl_event_batch batch;
	struct trawl_error err;
	struct trawl_reader_stats stats;
	uint64_t raw_pos;
};

struct trawl_reader {
	const struct trawl_reader_backend *be;
	void *state;
	struct trawl_input *in;
	int failed;               /* a bad-input error ends the stream */

	/* read-ahead */
	int ahead;                /* the worker thread runs */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int go, ready, stop;      /* caller -> worker, worker -> caller, close */
	struct ahead_result res;  /* written by the worker while !ready */
	struct trawl_error *warns;   /* queued with res, same ownership */
	size_t nwarns, warns_cap;
	int queue_warns;          /* read_ahead asked: warnings go through warns */
	int ahead_end;            /* the worker returned TRAWL_END */
	trawl_warn_fn user_warn;
	void *user_warn_ctx;
	struct trawl_reader_stats stats;   /* as of the last batch returned */
	uint64_t raw_pos;
};

/* Worker side of a warning: keep a copy for the caller's thread. A warning
 * that cannot be queued is dropped (warnings are advisory; the line
 * counters still count it). */
static void queue_warning(void *ctx, const struct trawl_error *w)
{
	struct trawl_reader *r = ctx;
	if (r->nwarns == r->warns_cap) {
		size_t cap = r->warns_cap ? r->warns_cap * 2 : 8;
		struct trawl_error *n = realloc(r->warns, cap * sizeof *n);
		if (!n)
			return;
		r->warns = n;
		r->warns_cap = cap;
	}
	r->warns[r->nwarns++] = *w;
}

static void *ahead_main(void *arg)
{
	struct trawl_reader *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->go && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->stop)
			break;
		r->go = 0;
		pthread_mutex_unlock(&r->mu);
		struct ahead_result *res = &r->res;
		memset(&res->batch, 0, sizeof res->batch);
		trawl_error_clear(&res->err);
		res->st = r->be->next(r->state, &res->batch, &res->err);
		res->stats = *r->be->stats(r->state);
		res->raw_pos = trawl_input_raw_pos(r->in);
		pthread_mutex_lock(&r->mu);
		r->ready = 1;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* Start the worker when the backend can keep two batches; otherwise the
 * reader simply stays on the caller's thread. */
static void ahead_start(struct trawl_reader *r, const struct trawl_reader_options *opt)
{
	if (!opt || !opt->read_ahead || !r->be->double_buffer || !r->be->double_buffer(r->state))
		return;
	if (pthread_mutex_init(&r->mu, NULL))
		return;
	if (pthread_cond_init(&r->cv, NULL)) {
		pthread_mutex_destroy(&r->mu);
		return;
	}
	r->go = 1; /* the first batch right away */
	if (pthread_create(&r->thread, NULL, ahead_main, r)) {
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		r->go = 0;
		return;
	}
	r->ahead = 1;
}

/* Pass the queued warnings to the caller's callback (caller's thread). */
static void deliver_warnings(struct trawl_reader *r, struct trawl_error *warns, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (r->user_warn)
			r->user_warn(r->user_warn_ctx, &warns[i]);
}

static enum trawl_status ahead_next(struct trawl_reader *r, struct trawl_event_batch *batch,
				    struct trawl_error *err)
{
	if (r->ahead_end)
		return TRAWL_END;
	pthread_mutex_lock(&r->mu);
	while (!r->ready)
		pthread_cond_wait(&r->cv, &r->mu);
	r->ready = 0;
	struct ahead_result res = r->res;
	size_t nw = r->nwarns;
	struct trawl_error *warns = r->warns;
	r->warns = NULL;
	r->nwarns = r->warns_cap = 0;
	if (res.st == TRAWL_OK) {
		r->go = 1; /* build the next batch while the caller reads this one */
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	deliver_warnings(r, warns, nw);
	free(warns);
	if (res.st == TRAWL_END)
		r->ahead_end = 1;
	r->stats = res.stats;
	r->raw_pos = res.raw_pos;
	*batch = res.batch;
	if (res.st < 0 && err)
		*err = res.err;
	return res.st;
}

static const struct trawl_reader_backend *pick(const struct trawl_reader_options *opt,
					       const struct trawl_chunk *first)
{
	enum trawl_format want = opt ? opt->format : TRAWL_FORMAT_AUTO;
	const struct trawl_reader_backend *best = NULL;
	int best_score = 0;
	for (size_t i = 0; i < NBACKENDS; i++) {
		if (want != TRAWL_FORMAT_AUTO) {
			if (backends[i]->format == want)
				return backends[i];
			continue;
		}
		int s = backends[i]->probe(first ? first->data : "", first ? first->len : 0);
		if (s > best_score) {
			best_score = s;
			best = backends[i];
		}
	}
	return best;
}

enum trawl_status trawl_reader_open_input(struct trawl_reader **out, struct trawl_input *in,
					  const struct trawl_reader_options *opt,
					  struct trawl_error *err)
{
	struct trawl_reader *r = NULL;
	struct trawl_chunk chunk;
	enum trawl_status st;

	*out = NULL;
	memset(&chunk, 0, sizeof chunk);
	st = trawl_input_next(in, &chunk, err);
	if (st < 0)
		goto out;
	const struct trawl_chunk *first = st == TRAWL_END ? NULL : &chunk;
	const struct trawl_reader_backend *be = pick(opt, first);
	if (!be) {
		st = trawl_error_set(err, TRAWL_ERR_FORMAT,
				     "'%s' is not a trace format trawl recognises (Tarmac text expected)",
				     trawl_input_name(in));
		goto out;
	}
	r = calloc(1, sizeof *r);
	if (!r) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto out;
	}
	r->be = be;
	r->in = in;
	struct trawl_reader_options o;
	if (opt && opt->read_ahead) {
		/* the backend warns on the worker's thread: queue for the caller */
		o = *opt;
		r->user_warn = o.warn;
		r->user_warn_ctx = o.warn_ctx;
		o.warn = queue_warning;
		o.warn_ctx = r;
		opt = &o;
		r->queue_warns = 1;
	}
	st = be->open(&r->state, in, first, opt, err);
	if (st != TRAWL_OK)
		goto out;
	ahead_start(r, opt);
	*out = r;
	return TRAWL_OK;
out:
	free(r);
	trawl_input_close(in);
	return st;
}

enum trawl_status trawl_reader_open(struct trawl_reader **out, const char *path,
				    const struct trawl_reader_options *opt,
				    struct trawl_error *err)
{
	struct trawl_input *in;
	enum trawl_status st = trawl_input_open(&in, path, opt ? &opt->input : NULL, err);
	if (st != TRAWL_OK) {
		*out = NULL;
		return st;
	}
	return trawl_reader_open_input(out, in, opt, err);
}

enum trawl_status trawl_reader_next(struct trawl_reader *r, struct trawl_event_batch *batch,
				    struct trawl_error *err)
{
	memset(batch, 0, sizeof *batch);
	if (r->failed)
		return trawl_error_set(err, TRAWL_ERR_USAGE, "reader already failed");
	enum trawl_status st;
	if (r->ahead) {
		st = ahead_next(r, batch, err);
	} else {
		st = r->be->next(r->state, batch, err);
		if (r->queue_warns) {
			deliver_warnings(r, r->warns, r->nwarns);
			r->nwarns = 0;
		}
	}
	if (st < 0)
		r->failed = 1;
	return st;
}

const struct trawl_reader_stats *trawl_reader_stats(const struct trawl_reader *r)
{
	return r->ahead ? &r->stats : r->be->stats(r->state);
}

uint64_t trawl_reader_raw_pos(const struct trawl_reader *r)
{
	return r->ahead ? r->raw_pos : trawl_input_raw_pos(r->in);
}

struct trawl_input *trawl_reader_input(struct trawl_reader *r)
{
	return r->in;
}

enum trawl_format trawl_reader_format(const struct trawl_reader *r)
{
	return r->be->format;
}

void trawl_reader_close(struct trawl_reader *r)
{
	if (!r)
		return;
	if (r->ahead) {
		pthread_mutex_lock(&r->mu);
		r->stop = 1;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->thread, NULL);
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
	}
	r->be->close(r->state);
	free(r->warns);
	trawl_input_close(r->in);
	free(r);
}
