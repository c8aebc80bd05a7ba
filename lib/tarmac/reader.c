/* The Tarmac backend of the reader API: drives the line parser over the
 * input's chunks of whole lines (zero-copy: lines are parsed where the
 * chunk holds them) and recognises Tarmac by content. */
#include "tarmac/tarmac-int.h"
#include "tarmac/newline.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/reader-backend.h"

struct tarmac_reader {
	struct trawl_tarmac *t;
	struct trawl_input *in;
	struct trawl_chunk chunk;
	size_t pos;
	int have_chunk;
	int eof;
	int finished;
	size_t released;   /* bytes of a mapped chunk given back to the kernel */
	enum trawl_status pending;   /* error to report once the events before it are out */
	struct tarmac_nl nl; /* newline cursor in the chunk */
	struct trawl_error perr;
};

#define RELEASE_STEP (8u << 20)

/* A plain file is handed out as windows of one mapping; its pages would
 * stay in our resident set as we go, so memory would grow with the trace.
 * Pages behind the batch being handed out are dropped every RELEASE_STEP
 * (MADV_DONTNEED on a read-only file mapping only unmaps them: touching
 * them again re-reads the page cache, so borrowed pointers stay valid). The
 * input layer drops whole windows too; this keeps the resident part small
 * within a window. Never done on buffers that are not the mapping. */
static void release_behind(struct tarmac_reader *r, uint64_t keep_from)
{
	size_t maplen;
	const char *map = trawl_input_mapping(r->in, &maplen);
	if (!map || r->chunk.data < map || r->chunk.data >= map + maplen ||
	    keep_from > maplen || keep_from < r->released + RELEASE_STEP)
		return;
	long pg = sysconf(_SC_PAGESIZE);
	if (pg <= 0)
		return;
	size_t upto = (size_t)keep_from & ~((size_t)pg - 1);
	if (upto > r->released) {
		madvise((void *)(map + r->released), upto - r->released, MADV_DONTNEED);
		r->released = upto;
	}
}

enum trawl_status tarmac_parse_range(struct trawl_tarmac *t, const char *data, size_t len,
				     uint64_t offset, int last, size_t limit, size_t *at,
				     struct tarmac_nl *nl, struct trawl_error *err)
{
	size_t pos = *at;
	/* runs of the common line shapes go through the flow loop (partial
	 * parsing without memory: the call commands) */
	int flow = (t->opt.want & (TRAWL_WANT_FILTER | TRAWL_WANT_MEMS)) == TRAWL_WANT_FILTER &&
		   !t->no_fast;
	enum trawl_status st = TRAWL_OK;
	while (pos < len) {
		size_t end;
		if (flow) {
			pos = tarmac_flow_run(t, data, len, pos, offset, nl, limit, &end);
			if (end == SIZE_MAX) /* range used up, or batch full */
				break;
		} else {
			end = tarmac_nl_next(data, len, pos, nl);
		}
		if (end < len && data[end] != '\n') {
			/* the line runs to the next newline; the cursor's marks
			 * inside it are stale */
			const char *z = memchr(data + end, '\n', len - end);
			size_t lend = z ? (size_t)(z - data) : len;
			nl->valid = 0;
			t->cut_line = !z && last;
			st = tarmac_reject_nul_line(t, data + pos, lend - pos, offset + pos, end - pos, err);
			t->cut_line = 0;
			if (st != TRAWL_OK)
				break;
			pos = z ? lend + 1 : len;
			if (t->nev >= limit && !t->taken)
				break;
			continue;
		}
		int has_nl = end < len;
		t->cut_line = !has_nl && last;
		/* a line cut off by the end of the input is never skipped: the
		 * grammar decides whether it is whole */
		if (t->skip_len && !t->cut_line &&
		    tarmac_skip_line(t, data + pos, end - pos, offset + pos))
			st = TRAWL_OK;
		else
			st = tarmac_parse_line_noskip(t, data + pos, end - pos, offset + pos, err);
		t->cut_line = 0;
		if (st != TRAWL_OK)
			break;
		pos = has_nl ? end + 1 : len;
		if (t->nev >= limit && !t->taken)
			break;
	}
	*at = pos;
	return st;
}

static enum trawl_status tr_open(void **state, struct trawl_input *in,
				 const struct trawl_chunk *first,
				 const struct trawl_reader_options *opt, struct trawl_error *err)
{
	struct tarmac_reader *r = calloc(1, sizeof *r);
	if (!r)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	enum trawl_status st = trawl_tarmac_create(&r->t, trawl_input_name(in), opt, err);
	if (st != TRAWL_OK) {
		free(r);
		return st;
	}
	r->in = in;
	if (first) {
		r->chunk = *first;
		r->have_chunk = 1;
	} else {
		r->eof = 1;
	}
	*state = r;
	return TRAWL_OK;
}

/* Events point into the current chunk's text (zero copy), so a batch is
 * always handed out before the next chunk replaces it, and the open event's
 * text is detached first. On a bad line the events before it are handed out
 * and the error is kept for the next call, so nothing already read is lost. */
static enum trawl_status tr_next(void *state, struct trawl_event_batch *batch,
				 struct trawl_error *err)
{
	struct tarmac_reader *r = state;
	struct trawl_tarmac *t = r->t;
	size_t limit = t->opt.batch_events;
	enum trawl_status st;

	if (r->pending != TRAWL_OK) {
		if (err)
			*err = r->perr;
		return r->pending;
	}
	for (;;) {
		if (r->have_chunk && r->pos < r->chunk.len) {
			size_t pos = r->pos;
			st = tarmac_parse_range(t, r->chunk.data, r->chunk.len, r->chunk.offset,
						r->chunk.last, limit, &pos, &r->nl, err);
			r->pos = pos;
			if (st != TRAWL_OK) {
				/* hand out the events before the bad line first */
				r->nl.valid = 0;
				trawl_tarmac_finish(t);
				if (!trawl_tarmac_completed(t))
					return st;
				r->pending = st;
				if (err)
					r->perr = *err;
				trawl_tarmac_take(t, batch);
				return TRAWL_OK;
			}
			t->stats.bytes = r->chunk.offset + pos;
			if (t->nev >= limit && !t->taken)
				break;
			continue;
		}
		/* this chunk is used up: hand its events out while it is valid */
		if (trawl_tarmac_completed(t))
			break;
		if (r->have_chunk && r->chunk.last)
			r->eof = 1;
		if (r->eof) {
			if (r->finished)
				return TRAWL_END;
			r->finished = 1;
			trawl_tarmac_finish(t);
			if (trawl_tarmac_completed(t))
				break;
			return TRAWL_END;
		}
		if ((st = trawl_tarmac_detach_text(t, err)) != TRAWL_OK)
			return st;
		st = trawl_input_next(r->in, &r->chunk, err);
		if (st == TRAWL_END) {
			r->eof = 1;
			r->have_chunk = 0;
			continue;
		}
		if (st != TRAWL_OK)
			return st;
		r->have_chunk = 1;
		r->pos = 0;
		r->nl.valid = 0;
	}
	trawl_tarmac_take(t, batch);
	/* the oldest text the batch may point to is its first event's line */
	if (batch->count && r->have_chunk)
		release_behind(r, batch->events[0].offset);
	return TRAWL_OK;
}

static const struct trawl_reader_stats *tr_stats(const void *state)
{
	const struct tarmac_reader *r = state;
	return trawl_tarmac_stats(r->t);
}

static void tr_close(void *state)
{
	struct tarmac_reader *r = state;
	if (!r)
		return;
	trawl_tarmac_destroy(r->t);
	free(r);
}

/* Does the line start with a Tarmac timestamp, "<number> <unit>"? Records
 * of types the parser does not know still have one. */
static int has_timestamp(const char *s, size_t n)
{
	size_t i = 0, d;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	for (d = i; i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] == '.' && i > d)); i++)
		;
	if (i == d || i == n || s[i] != ' ')
		return 0;
	while (i < n && s[i] == ' ')
		i++;
	static const char *const units[] = { "clk", "cyc", "tic", "ns", "ps", "cs", "us", "ms", "s" };
	for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
		size_t l = strlen(units[u]);
		if (n - i >= l + 1 && memcmp(s + i, units[u], l) == 0 && s[i + l] == ' ')
			return 1;
	}
	return 0;
}

/* Binary data is not Tarmac; text is Tarmac if a line of its first 64 KiB
 * parses as a record type the parser knows or starts with a timestamp.
 * Binary means a control byte in the first line (every binary format has
 * one in its header); after that, only the whole lines before the first
 * control byte are looked at, so a trace with stray NULs (a crashed
 * writer's zero-filled tail) is Tarmac whose damaged lines the parser
 * names, not "not a trace format". */
int trawl_tarmac_probe(const char *data, size_t len)
{
	size_t n = len < 65536 ? len : 65536;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)data[i];
		if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v')) {
			const char *nl = memrchr(data, '\n', i);
			if (!nl)
				return 0;
			n = (size_t)(nl - data) + 1;
			break;
		}
	}
	int good = 0;
	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.implicit_thumb = 1;
	o.lenient = 1;
	struct trawl_tarmac *t;
	if (trawl_tarmac_create(&t, "probe", &o, NULL) != TRAWL_OK)
		return 1;
	/* Text with no Tarmac record in its first 64 KiB (a README, a log) is
	 * not a trace: 0, so the reader says so instead of warning about
	 * every line. An empty input is an empty trace. */
	size_t pos = 0;
	int nonblank = 0;
	while (pos < n && !good) {
		const char *nl = memchr(data + pos, '\n', n - pos);
		size_t end = nl ? (size_t)(nl - data) : n;
		uint64_t bad = t->stats.bad_lines, unk = t->stats.unknown_lines;
		size_t k = pos;
		while (k < end && (data[k] == ' ' || data[k] == '\t' || data[k] == '\r'))
			k++;
		if (k < end) {
			nonblank = 1;
			trawl_tarmac_parse_line(t, data + pos, end - pos, pos, NULL);
			if ((t->stats.bad_lines == bad && t->stats.unknown_lines == unk) ||
			    has_timestamp(data + pos, end - pos))
				good++;
		}
		pos = end + 1;
	}
	trawl_tarmac_destroy(t);
	return good ? 2 : nonblank ? 0 : 1;
}

const struct trawl_reader_backend trawl_tarmac_backend = {
	TRAWL_FORMAT_TARMAC, "tarmac", trawl_tarmac_probe, tr_open, tr_next, tr_stats, tr_close, NULL, NULL,
	NULL,
};
