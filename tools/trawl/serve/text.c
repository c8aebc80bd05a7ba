/* The text of an instruction trace in trawl serve, plain or compressed:
 * read through trawl_text_* (include/trawl/text.h: a plain file is mapped
 * in place; a .gz or .zst one is decompressed a span at a time from the
 * seek file beside the index), at the index's offsets and in chunks, so a
 * compressed trace shows the same lines and finds the same text as the
 * plain one, without holding its text in memory. */
#include "serve/text.h"

#include <string.h>

#define CHUNK ((size_t)4 << 20)  /* bytes read at once when scanning */

/* The first '\n' at or after off: its offset, or the text's size. */
static enum trawl_status newline_after(struct trawl_text *x, uint64_t off, uint64_t *at,
				       struct trawl_error *err)
{
	uint64_t size = trawl_text_size(x);
	/* small reads first: a read across a compressed span's end copies */
	for (size_t want = 8192; off < size; off += want, want = want < CHUNK ? want * 4 : CHUNK) {
		const char *p;
		size_t got;
		enum trawl_status st = trawl_text_get(x, off, want, &p, &got, err);
		if (st)
			return st;
		const char *nl = memchr(p, '\n', got);
		if (nl) {
			*at = off + (uint64_t)(nl - p);
			return TRAWL_OK;
		}
	}
	*at = size;
	return TRAWL_OK;
}

enum trawl_status serve_text_line(struct trawl_text *x, uint64_t off, const char **p, size_t *shown,
				  uint64_t *next, struct trawl_error *err)
{
	uint64_t nl, size = trawl_text_size(x);
	enum trawl_status st = newline_after(x, off, &nl, err);
	if (st)
		return st;
	uint64_t len = nl - off;
	size_t got;
	/* read again: *p of the scan is gone, the span is still cached */
	st = trawl_text_get(x, off, len > SERVE_LINE_MAX + 1 ? SERVE_LINE_MAX + 1 : (size_t)len, p, &got, err);
	if (st)
		return st;
	if (len && len == got && (*p)[len - 1] == '\r')
		len--;
	*shown = len > SERVE_LINE_MAX ? SERVE_LINE_MAX : (size_t)len;
	*next = nl < size ? nl + 1 : size;
	return TRAWL_OK;
}

int serve_text_line_offset(const struct trawl_index *ix, struct trawl_text *x, uint64_t line,
			   uint64_t *off)
{
	struct trawl_index_event e;
	uint64_t ev, at = 1, size = trawl_text_size(x);
	*off = 0;
	if (trawl_index_event_at_line(ix, line, &ev, NULL) == TRAWL_OK &&
	    trawl_index_event(ix, ev, &e, NULL) == TRAWL_OK) {
		*off = e.offset;
		at = e.line;
	}
	for (; at < line && *off < size; at++) {
		uint64_t nl;
		if (newline_after(x, *off, &nl, NULL) || nl >= size)
			return -1;
		*off = nl + 1;
	}
	return at == line && *off < size ? 0 : -1;
}

uint64_t serve_text_offset_line(const struct trawl_index *ix, struct trawl_text *x, uint64_t off)
{
	struct trawl_index_event e;
	uint64_t ev, from = 0, line = 1;
	if (trawl_index_event_at_offset(ix, off, &ev, NULL) == TRAWL_OK &&
	    trawl_index_event(ix, ev, &e, NULL) == TRAWL_OK && e.offset <= off) {
		from = e.offset;
		line = e.line;
	}
	while (from < off) {
		const char *p, *q;
		size_t got, n = off - from > CHUNK ? CHUNK : (size_t)(off - from);
		if (trawl_text_get(x, from, n, &p, &got, NULL) || !got)
			break;
		for (q = p; (q = memchr(q, '\n', got - (size_t)(q - p))); q++)
			line++;
		from += got;
	}
	return line;
}

/* The last match of s[0, m) in p[0, n). */
static const char *last_in(const char *p, size_t n, const char *s, size_t m)
{
	const char *hit = NULL;
	for (const char *q = p; q < p + n && (q = memmem(q, (size_t)(p + n - q), s, m)); q++)
		hit = q;
	return hit;
}

int serve_text_find(struct trawl_text *x, uint64_t lo, uint64_t hi, const char *s, size_t m, int dir,
		    uint64_t *at, struct trawl_error *err)
{
	uint64_t size = trawl_text_size(x);
	if (hi > size)
		hi = size;
	while (lo < hi && m) {
		/* the chunk [a, b) of match starts, read to b + m - 1 */
		uint64_t a = dir > 0 || hi - lo <= CHUNK ? lo : hi - CHUNK;
		uint64_t b = dir < 0 || hi - lo <= CHUNK ? hi : lo + CHUNK;
		uint64_t end = b + m - 1 < size ? b + m - 1 : size;
		const char *p;
		size_t got;
		if (trawl_text_get(x, a, (size_t)(end - a), &p, &got, err))
			return -1;
		/* a match read here starts before b: it would end past end */
		const char *hit = dir > 0 ? memmem(p, got, s, m) : last_in(p, got, s, m);
		if (hit) {
			*at = a + (uint64_t)(hit - p);
			return 1;
		}
		if (dir > 0)
			lo = b;
		else
			hi = a;
	}
	return 0;
}
