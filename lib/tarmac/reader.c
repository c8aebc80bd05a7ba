/* The Tarmac backend of the reader API: drives the line parser over the
 * input's chunks of whole lines (zero-copy: lines are parsed where the
 * chunk holds them) and recognises Tarmac by content. */
#include "tarmac/tarmac-int.h"

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
	size_t nl_base;     /* newline mask of chunk bytes [nl_base, nl_base + 64) */
	uint64_t nl_mask;
	int nl_valid;
	struct trawl_error perr;
};

#define RELEASE_STEP (8u << 20)

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Lines are short (60 bytes in a typical trace), where a memchr call per
 * line costs as much as the parsing: newlines are found 64 bytes at a time
 * into a bit mask (bit i = byte base + i is '\n') and taken from it. */
static inline uint64_t nl_block(const char *p)
{
#if defined(__SSE2__)
	const __m128i nl = _mm_set1_epi8('\n');
	/* ask for the text a few lines ahead: 3-8% less CPU on a 2.4 GB
	 * trace read from the page cache (measured back to back) */
	__builtin_prefetch(p + 1024);
	/* written out: GCC kept the four steps as a loop with a variable
	 * shift, a third of the line loop's time */
	const __m128i *q = (const __m128i *)(const void *)p;
	uint64_t m0 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(q), nl));
	uint64_t m1 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(q + 1), nl));
	uint64_t m2 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(q + 2), nl));
	uint64_t m3 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(q + 3), nl));
	return m0 | m1 << 16 | m2 << 32 | m3 << 48;
#else
	uint64_t m = 0;
	for (int i = 0; i < 64; i++)
		m |= (uint64_t)(p[i] == '\n') << i;
	return m;
#endif
}

/* Offset of the first '\n' at or after pos in data[0, len), or len. Lines
 * are taken in order, so the block mask only keeps the newlines not yet
 * handed out: the next one is its lowest bit. The caller keeps base/mask/
 * valid in locals (registers) over its loop. */
static inline size_t next_nl(const char *data, size_t len, size_t pos, size_t *base,
			     uint64_t *mask, int *valid)
{
	for (;;) {
		if (*valid) {
			if (*mask) {
				size_t end = *base + (size_t)__builtin_ctzll(*mask);
				*mask &= *mask - 1;
				return end;
			}
			/* the line goes on past this block */
			pos = *base + 64;
			*valid = 0;
		}
		if (len - pos < 64) {
			const char *nl = memchr(data + pos, '\n', len - pos);
			return nl ? (size_t)(nl - data) : len;
		}
		*base = pos;
		*mask = nl_block(data + pos);
		*valid = 1;
	}
}

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
			const char *data = r->chunk.data;
			size_t len = r->chunk.len, pos = r->pos;
			size_t nl_base = r->nl_base;
			uint64_t nl_mask = r->nl_mask;
			int nl_valid = r->nl_valid;
			while (pos < len) {
				size_t end = next_nl(data, len, pos, &nl_base, &nl_mask, &nl_valid);
				int nl = end < len;
				t->cut_line = !nl && r->chunk.last;
				/* a line cut off by the end of the input is never skipped:
				 * the grammar decides whether it is whole */
				if (t->skip_len && !t->cut_line &&
				    tarmac_skip_line(t, data + pos, end - pos, r->chunk.offset + pos))
					st = TRAWL_OK;
				else
					st = tarmac_parse_line_noskip(t, data + pos, end - pos,
								      r->chunk.offset + pos, err);
				t->cut_line = 0;
				if (st != TRAWL_OK) {
					/* hand out the events before the bad line first */
					r->pos = pos;
					r->nl_valid = 0;
					trawl_tarmac_finish(t);
					if (!trawl_tarmac_completed(t))
						return st;
					r->pending = st;
					if (err)
						r->perr = *err;
					trawl_tarmac_take(t, batch);
					return TRAWL_OK;
				}
				pos = nl ? end + 1 : len;
				if (t->nev >= limit && !t->taken)
					break;
			}
			r->pos = pos;
			r->nl_base = nl_base;
			r->nl_mask = nl_mask;
			r->nl_valid = nl_valid;
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
		r->nl_valid = 0;
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

static void count_warning(void *ctx, const struct trawl_error *w)
{
	(void)w;
	(*(int *)ctx)++;
}

/* Binary data is not Tarmac; text is Tarmac if one of its first lines parses
 * as a record type the parser knows; other text is accepted with low
 * confidence (Tarmac is the only text format so far). */
int trawl_tarmac_probe(const char *data, size_t len)
{
	size_t n = len < 65536 ? len : 65536;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)data[i];
		if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v'))
			return 0;
	}
	int unknown = 0, good = 0;
	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.implicit_thumb = 1;
	o.lenient = 1;
	o.warn = count_warning;
	o.warn_ctx = &unknown;
	struct trawl_tarmac *t;
	if (trawl_tarmac_create(&t, "probe", &o, NULL) != TRAWL_OK)
		return 1;
	size_t pos = 0;
	for (int lines = 0; pos < n && lines < 32; lines++) {
		const char *nl = memchr(data + pos, '\n', n - pos);
		size_t end = nl ? (size_t)(nl - data) : n;
		uint64_t bad = t->stats.bad_lines;
		int unk = unknown;
		trawl_tarmac_parse_line(t, data + pos, end - pos, pos, NULL);
		if (t->stats.bad_lines == bad && unknown == unk && end > pos)
			good++;
		pos = end + 1;
	}
	trawl_tarmac_destroy(t);
	return good ? 2 : 1;
}

const struct trawl_reader_backend trawl_tarmac_backend = {
	TRAWL_FORMAT_TARMAC, "tarmac", trawl_tarmac_probe, tr_open, tr_next, tr_stats, tr_close,
};
