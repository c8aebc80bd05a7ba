/* trawl_reader backend for CTF traces of software events (the recorder's,
 * `trawl listen`'s, import-bf's): the streams merged by time through
 * trawl_swtrace, handed out as TRAWL_EV_SW events. A trace is a directory;
 * its metadata file given instead names the same trace. A directory with
 * no metadata whose subdirectories are traces is a set of traces, merged
 * by wall-clock time. */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/reader-backend.h"
#include "events/sw-batch.h"
#include "trawl/sw-trace.h"

/* One trace of a set (a directory of trace directories), with its next
 * event and the offset that puts its clock on wall-clock time. */
struct member {
	struct trawl_swtrace *t;
	struct trawl_sw_event ev;
	int have;
	uint64_t offset_ns;
	uint32_t stream_base;
};

struct ctf_reader {
	struct trawl_swtrace *t;     /* a single trace */
	struct member *m;            /* or a set of them, merged by wall-clock time */
	size_t nm;
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

static void ctf_close(void *state);

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The subdirectories of dir that hold a 'metadata' file, sorted (NULL-
 * terminated, malloc'd); NULL when there are none. */
static char **member_dirs(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	char **v = NULL, path[4096];
	struct stat sb;
	*n = 0;
	if (!d)
		return NULL;
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s/metadata", dir, de->d_name);
		if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
			continue;
		char **nv = realloc(v, (*n + 2) * sizeof *v);
		if (!nv)
			break;
		v = nv;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (!(v[*n] = strdup(path)))
			break;
		v[++*n] = NULL;
	}
	closedir(d);
	if (v)
		qsort(v, *n, sizeof *v, name_cmp);
	return v;
}

static void member_next(struct member *m)
{
	m->have = trawl_swtrace_next(m->t, &m->ev) == TRAWL_OK;
}

/* A set of traces (several programs or hosts, each recorded on its own):
 * each trace's clock is put on wall-clock time by its own metadata offset
 * (the wall-clock time of its clock 0), so they line up as far as the
 * machines' wall clocks agree (`trawl listen` measures clocks instead). */
static enum trawl_status open_set(struct ctf_reader *r, char **dirs, size_t n,
				  const struct trawl_reader_options *opt, struct trawl_error *err)
{
	if (!(r->m = calloc(n, sizeof *r->m)))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	uint32_t base = 0;
	for (size_t i = 0; i < n; i++, r->nm++) {
		struct member *m = &r->m[i];
		enum trawl_status st = trawl_swtrace_open(&m->t, dirs[i], err);
		if (st != TRAWL_OK)
			return st;
		struct trawl_swtrace_info in;
		trawl_swtrace_info(m->t, &in);
		note_rings(opt, dirs[i], &in);
		m->offset_ns = (uint64_t)(in.clock_offset_s * 1000000000 + in.clock_offset_ns);
		m->stream_base = base;
		base += (uint32_t)in.nstreams;
		member_next(m);
	}
	return TRAWL_OK;
}

static enum trawl_status ctf_open_dir(void **state, const char *dir,
				      const struct trawl_reader_options *opt, struct trawl_error *err)
{
	struct ctf_reader *r = calloc(1, sizeof *r);
	char path[4096];
	struct stat sb;
	if (!r)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	sw_batch_init(&r->b, opt);
	enum trawl_status st;
	size_t n = 0;
	char **dirs = NULL;
	snprintf(path, sizeof path, "%s/metadata", dir);
	int nometa = stat(path, &sb) != 0 ? errno : 0;
	if (nometa && (dirs = member_dirs(dir, &n)) != NULL) {
		st = open_set(r, dirs, n, opt, err);
	} else if (nometa == ENOENT) {
		/* the CTF reader takes any directory (the last resort of
		 * format detection): "cannot open DIR/metadata" did not say
		 * that DIR is no trace of any kind */
		st = trawl_error_set(err, TRAWL_ERR_FORMAT,
				     "'%s' is a directory but no trace: no CTF 'metadata' file, no "
				     "subdirectories that are traces, no ETE 'snapshot.ini'", dir);
	} else {
		st = trawl_swtrace_open(&r->t, dir, err);
		if (st == TRAWL_OK) {
			struct trawl_swtrace_info in;
			trawl_swtrace_info(r->t, &in);
			note_rings(opt, dir, &in);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	if (st != TRAWL_OK) {
		ctf_close(r);
		return st;
	}
	*state = r;
	return TRAWL_OK;
}

/* The next event of a single trace, or of the set merged by wall-clock
 * time (ties: the member listed first). 0 at the end. */
static int next_event(struct ctf_reader *r, struct trawl_sw_event *ev)
{
	if (r->t)
		return trawl_swtrace_next(r->t, ev) == TRAWL_OK;
	struct member *best = NULL;
	for (size_t i = 0; i < r->nm; i++) {
		struct member *m = &r->m[i];
		if (m->have && (!best || m->ev.time + m->offset_ns < best->ev.time + best->offset_ns))
			best = m;
	}
	if (!best)
		return 0;
	*ev = best->ev;
	ev->time += best->offset_ns;
	ev->stream += best->stream_base;
	member_next(best);
	return 1;
}

static const struct trawl_error *first_damage(const struct ctf_reader *r, uint64_t *lost)
{
	const struct trawl_error *d = NULL;
	struct trawl_swtrace_info in;
	*lost = 0;
	for (size_t i = 0; i < (r->t ? 1 : r->nm); i++) {
		const struct trawl_swtrace *t = r->t ? r->t : r->m[i].t;
		trawl_swtrace_info(t, &in);
		*lost += in.lost;
		if (!d)
			d = trawl_swtrace_damage(t);
	}
	return d;
}

static enum trawl_status ctf_open(void **state, struct trawl_input *in, const struct trawl_chunk *first,
				  const struct trawl_reader_options *opt, struct trawl_error *err)
{
	(void)first;
	char path[4096];
	snprintf(path, sizeof path, "%s", trawl_input_name(in));
	if (!strcmp(path, "-") || !strcmp(path, "<stdin>")) /* metadata alone names no streams */
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "CTF metadata on standard input: give the trace directory");
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
		if (!next_event(r, &ev)) {
			r->done = 1;
			break;
		}
		if (sw_batch_push(&r->b, &ev, TRAWL_TIME_NS, 0, sw_event_size(ev.cls)) != 0)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	const struct trawl_error *d = first_damage(r, &r->b.stats.lost_events);
	if (r->b.n) {
		sw_batch_take(&r->b, batch);
		return TRAWL_OK;
	}
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
	for (size_t i = 0; i < r->nm; i++)
		trawl_swtrace_close(r->m[i].t);
	free(r->m);
	sw_batch_free(&r->b);
	free(r);
}

const struct trawl_reader_backend trawl_ctf_backend = {
	TRAWL_FORMAT_CTF, "ctf", ctf_probe, ctf_open, ctf_next, ctf_stats, ctf_close, ctf_open_dir, NULL,
	NULL,
};
