/* trawl_reader backend for CTF traces of software events (the recorder's,
 * `trawl listen`'s, import-bf's): the streams merged by time through
 * trawl_swtrace, handed out as TRAWL_EV_SW events. A trace is a directory;
 * its metadata file given instead names the same trace. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/reader-backend.h"
#include "events/sw-batch.h"
#include "trawl/sw-trace.h"

struct ctf_reader {
	struct trawl_swtrace *t;
	struct sw_batch b;
	int done;
};

static const char ctf_magic[] = "/* CTF 1.8";

/* Only the metadata file comes through here (a directory is opened by
 * open_dir); it starts with the CTF 1.8 signature. */
static int ctf_probe(const char *data, size_t len)
{
	size_t n = sizeof ctf_magic - 1;
	return len >= n && memcmp(data, ctf_magic, n) == 0 ? 3 : 0;
}

static void warn(const struct trawl_reader_options *opt, const char *dir, const char *msg)
{
	if (!opt || !opt->warn)
		return;
	struct trawl_error w;
	trawl_error_clear(&w);
	trawl_error_set(&w, TRAWL_ERR_FORMAT, "%s", msg);
	snprintf(w.file, sizeof w.file, "%s", dir);
	opt->warn(opt->warn_ctx, &w);
}

/* What `trawl events` says about buffer files a program left behind
 * (docs/recorder.md, "What survives a crash"), as warnings. */
static void note_rings(const struct trawl_reader_options *opt, const char *dir,
		       const struct trawl_swtrace_info *in)
{
	char msg[256];
	if (in->rings) {
		snprintf(msg, sizeof msg,
			 "%llu events read from %u buffer file(s) of a program that did not stop the "
			 "recorder ('trawl events recover' writes them into the trace)",
			 (unsigned long long)in->recovered, in->rings);
		warn(opt, dir, msg);
	}
	if (in->live_rings) {
		snprintf(msg, sizeof msg,
			 "%u buffer file(s) belong to a program still recording: only what it flushed is read",
			 in->live_rings);
		warn(opt, dir, msg);
	}
}

static enum trawl_status ctf_open_dir(void **state, const char *dir,
				      const struct trawl_reader_options *opt, struct trawl_error *err)
{
	struct ctf_reader *r = calloc(1, sizeof *r);
	if (!r)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	enum trawl_status st = trawl_swtrace_open(&r->t, dir, err);
	if (st != TRAWL_OK) {
		free(r);
		return st;
	}
	struct trawl_swtrace_info in;
	trawl_swtrace_info(r->t, &in);
	note_rings(opt, dir, &in);
	sw_batch_init(&r->b, opt);
	*state = r;
	return TRAWL_OK;
}

static enum trawl_status ctf_open(void **state, struct trawl_input *in, const struct trawl_chunk *first,
				  const struct trawl_reader_options *opt, struct trawl_error *err)
{
	(void)first;
	char path[4096];
	snprintf(path, sizeof path, "%s", trawl_input_name(in));
	return ctf_open_dir(state, dirname(path), opt, err);
}

/* Damage in a stream ends that stream only (trawl_swtrace): the events of
 * the others are handed out first, then the damage is the error that ends
 * the read, so nothing readable is held back. */
static enum trawl_status ctf_next(void *state, struct trawl_event_batch *batch, struct trawl_error *err)
{
	struct ctf_reader *r = state;
	struct trawl_sw_event ev;
	sw_batch_reset(&r->b);
	while (!r->done && !sw_batch_full(&r->b)) {
		if (trawl_swtrace_next(r->t, &ev) != TRAWL_OK) {
			r->done = 1;
			break;
		}
		if (sw_batch_push(&r->b, &ev, TRAWL_TIME_NS, 0, sw_event_size(ev.cls)) != 0)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	struct trawl_swtrace_info in;
	trawl_swtrace_info(r->t, &in);
	r->b.stats.lost_events = in.lost;
	if (r->b.n) {
		sw_batch_take(&r->b, batch);
		return TRAWL_OK;
	}
	const struct trawl_error *d = trawl_swtrace_damage(r->t);
	if (d) {
		if (err)
			*err = *d;
		return d->status ? d->status : TRAWL_ERR_CORRUPT;
	}
	return TRAWL_END;
}

static const struct trawl_reader_stats *ctf_stats(const void *state)
{
	const struct ctf_reader *r = state;
	return &r->b.stats;
}

static void ctf_close(void *state)
{
	struct ctf_reader *r = state;
	if (!r)
		return;
	trawl_swtrace_close(r->t);
	sw_batch_free(&r->b);
	free(r);
}

const struct trawl_reader_backend trawl_ctf_backend = {
	TRAWL_FORMAT_CTF, "ctf", ctf_probe, ctf_open, ctf_next, ctf_stats, ctf_close, ctf_open_dir,
};
