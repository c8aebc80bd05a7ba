/* Readers: recognise the format of an input by content and hand its events
 * out in batches through the backend that reads it (reader-backend.h). */
#include "trawl/reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/reader-backend.h"

/* Every format trawl reads; detection asks each in turn. */
static const struct trawl_reader_backend *const backends[] = {
	&trawl_tarmac_backend,
	&trawl_ctf_backend,
	&trawl_bfdump_backend,
	&trawl_ete_backend,
};

#define NBACKENDS (sizeof backends / sizeof backends[0])

struct trawl_reader {
	const struct trawl_reader_backend *be;
	void *state;
	struct trawl_input *in;
	int failed;               /* a bad-input error ends the stream */
	trawl_warn_fn warn;
	void *warn_ctx;
	int cut_told;             /* the input's cut was warned about */
	struct trawl_reader_stats stats;
};

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

enum trawl_format trawl_reader_probe(const char *path)
{
	struct trawl_input *in = NULL;
	struct trawl_chunk chunk;
	memset(&chunk, 0, sizeof chunk);
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_input_open(&in, path, NULL, &err) != TRAWL_OK)
		return TRAWL_FORMAT_AUTO;
	enum trawl_status st = trawl_input_next(in, &chunk, &err);
	const struct trawl_reader_backend *be = st == TRAWL_OK ? pick(NULL, &chunk) : NULL;
	trawl_input_close(in);
	return be ? be->format : TRAWL_FORMAT_AUTO;
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
		/* the name goes in err->file: in the message (256 bytes) it cut
		 * the advice short; the message alone fits */
		st = trawl_error_set(err, TRAWL_ERR_FORMAT,
				     "not a trace format trawl recognises: no Tarmac line in its "
				     "first 64 KiB (like '10 clk IT (1) 80000 d2a00028 O EL1h_s : "
				     "MOV x8,#0x10000'), no Barrelfish dump line ('0 1234 0x1000200000003'), "
				     "no CTF metadata (raw ETE: --ete-config)");
		if (err)
			snprintf(err->file, sizeof err->file, "%s", trawl_input_name(in));
		goto out;
	}
	/* an option for another kind of trace would change nothing here */
	st = trawl_reader_options_check(opt, trawl_trace_kind_get(be->format, 0, first ? first->data : NULL,
								  first ? first->len : 0),
					trawl_input_name(in), err);
	if (st)
		goto out;
	r = calloc(1, sizeof *r);
	if (!r) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto out;
	}
	r->be = be;
	r->in = in;
	if (opt) {
		r->warn = opt->warn;
		r->warn_ctx = opt->warn_ctx;
	}
	st = be->open(&r->state, in, first, opt, err);
	if (st != TRAWL_OK)
		goto out;
	*out = r;
	return TRAWL_OK;
out:
	free(r);
	trawl_input_close(in);
	return st;
}

/* A directory is a trace of a format that has one (CTF): the backend
 * reads it by path, and the reader holds an empty input named after it so
 * trawl_reader_input works for every reader. */
static enum trawl_status open_dir(struct trawl_reader **out, const char *path,
				  const struct trawl_reader_options *opt, struct trawl_error *err)
{
	enum trawl_format want = opt ? opt->format : TRAWL_FORMAT_AUTO;
	const struct trawl_reader_backend *be = NULL, *any = NULL;
	int best = 0;
	/* the backend most sure of the directory; else the one that takes any
	 * directory (CTF: its own errors say what is missing) */
	for (size_t i = 0; i < NBACKENDS; i++) {
		const struct trawl_reader_backend *b = backends[i];
		if (!b->open_dir || (want != TRAWL_FORMAT_AUTO && b->format != want))
			continue;
		int s = want != TRAWL_FORMAT_AUTO ? 1 : b->probe_dir ? b->probe_dir(path) : 0;
		if (!b->probe_dir && !any)
			any = b;
		if (s > best)
			be = b, best = s;
	}
	if (!be)
		be = any;
	if (!be) {
		enum trawl_status st = trawl_error_set(err, TRAWL_ERR_FORMAT,
						       "is a directory, and the format asked for is not one");
		trawl_error_at(err, path, 0, 0, 0);
		return st;
	}
	enum trawl_status st = trawl_reader_options_check(opt, trawl_trace_kind_get(be->format, 1,
										   NULL, 0),
							  path, err);
	if (st)
		return st;
	struct trawl_reader *r = calloc(1, sizeof *r);
	if (!r)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	st = trawl_input_open_memory(&r->in, "", 0, path, NULL, err);
	if (st == TRAWL_OK)
		st = be->open_dir(&r->state, path, opt, err);
	if (st != TRAWL_OK) {
		if (r->in)
			trawl_input_close(r->in);
		free(r);
		return st;
	}
	r->be = be;
	*out = r;
	return TRAWL_OK;
}

enum trawl_status trawl_reader_open(struct trawl_reader **out, const char *path,
				    const struct trawl_reader_options *opt,
				    struct trawl_error *err)
{
	struct trawl_input *in;
	struct stat sb;
	*out = NULL;
	if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		return open_dir(out, path, opt, err);
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
	enum trawl_status st = r->be->next(r->state, batch, err);
	if (st < 0)
		r->failed = 1;
	if (st == TRAWL_END && !r->cut_told && r->in && trawl_input_cut(r->in)) {
		r->cut_told = 1;
		if (r->warn)
			r->warn(r->warn_ctx, trawl_input_cut(r->in));
	}
	return st;
}

const struct trawl_reader_stats *trawl_reader_stats(const struct trawl_reader *r)
{
	/* a copy, so the input's cut counts as the reader's loss whatever the
	 * backend counted */
	struct trawl_reader *w = (struct trawl_reader *)r;
	w->stats = *r->be->stats(r->state);
	if (r->in && trawl_input_cut(r->in))
		w->stats.cut_input = 1;
	return &w->stats;
}

struct trawl_input *trawl_reader_input(struct trawl_reader *r)
{
	return r->in;
}

const struct trawl_ete_image *trawl_reader_image(const struct trawl_reader *r)
{
	return r->be->image ? r->be->image(r->state) : NULL;
}

enum trawl_format trawl_reader_format(const struct trawl_reader *r)
{
	return r->be->format;
}

void trawl_reader_close(struct trawl_reader *r)
{
	if (!r)
		return;
	r->be->close(r->state);
	trawl_input_close(r->in);
	free(r);
}
