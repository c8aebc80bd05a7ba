/* gzip restart points, after zlib's zran example: inflate stops at every
 * deflate block boundary (Z_BLOCK); about every span bytes of text one is
 * kept with the bit position and the 32 KiB of text before it (the
 * window), so decoding can start there with inflatePrime and
 * inflateSetDictionary. A member boundary of a multi-member file is a
 * restart point that needs no window. Windows are stored compressed. */
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>
#include <zlib.h>

#include "text/seek.h"

static uInt avail(const uint8_t *base, uint64_t size, const uint8_t *at)
{
	uint64_t left = size - (uint64_t)(at - base);
	return (uInt)(left > (1u << 30) ? (1u << 30) : left);
}

struct gz_build {
	struct seek_build *b;
	z_stream s;
	uint8_t *win, *zwin;
	size_t wpos;                /* next byte of the circular window */
	uint64_t out;               /* text so far */
	uint64_t member_start;      /* text before the current member */
	unsigned members;           /* members finished */
	XXH3_state_t *hs;
	struct seek_point cur;
};

/* Close the current point's span and start a new one at this boundary. */
static enum trawl_status gz_point(struct gz_build *g, uint8_t kind, struct trawl_error *err)
{
	g->cur.text_sum = XXH3_64bits_digest(g->hs);
	enum trawl_status st = seek_add_point(g->b, &g->cur, err);
	if (st)
		return st;
	XXH3_64bits_reset(g->hs);
	memset(&g->cur, 0, sizeof g->cur);
	g->cur.kind = kind;
	g->cur.text_off = g->out;
	g->cur.src_off = (uint64_t)(g->s.next_in - g->b->trace);
	if (kind != SEEK_GZ_RAW)
		return TRAWL_OK;
	g->cur.bits = (uint8_t)(g->s.data_type & 7);
	/* the window in text order: the older part sits after wpos */
	uint8_t *w = g->zwin + compressBound(SEEK_WIN);
	memcpy(w, g->win + g->wpos, SEEK_WIN - g->wpos);
	memcpy(w + SEEK_WIN - g->wpos, g->win, g->wpos);
	uLongf zn = compressBound(SEEK_WIN);
	if (compress2(g->zwin, &zn, w, SEEK_WIN, 1) != Z_OK)
		return trawl_error_set(err, TRAWL_ERR_INTERNAL, "cannot compress a window");
	return seek_add_blob(g->b, &g->cur, g->zwin, zn, err);
}

static enum trawl_status gz_fail(struct gz_build *g, int r, struct trawl_error *err)
{
	uint64_t at = (uint64_t)(g->s.next_in - g->b->trace);
	if (r == Z_BUF_ERROR)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "'%s': gzip data is truncated after %llu compressed bytes",
				       g->b->trace_name, (unsigned long long)at);
	return trawl_error_set(err, TRAWL_ERR_FORMAT,
			       "'%s': corrupt gzip data near compressed byte %llu: %s",
			       g->b->trace_name, (unsigned long long)at,
			       g->s.msg ? g->s.msg : "inflate failed");
}

/* One inflate step into the window; Z_STREAM_END starts the next member. */
static enum trawl_status gz_step(struct gz_build *g, int *done, struct trawl_error *err)
{
	struct seek_build *b = g->b;
	const uint8_t *end = b->trace + b->trace_size;
	if (!g->s.avail_in)
		g->s.avail_in = avail(b->trace, b->trace_size, g->s.next_in);
	g->s.next_out = g->win + g->wpos;
	g->s.avail_out = (uInt)(SEEK_WIN - g->wpos);
	int r = inflate(&g->s, Z_BLOCK);
	size_t k = SEEK_WIN - g->wpos - g->s.avail_out;
	XXH3_64bits_update(g->hs, g->win + g->wpos, k);
	g->wpos = (g->wpos + k) % SEEK_WIN;
	g->out += k;
	if (r == Z_STREAM_END) {
		if (g->s.next_in == end && !g->s.avail_in) {
			*done = 1;
			return TRAWL_OK;
		}
		if (inflateReset(&g->s) != Z_OK)
			return gz_fail(g, Z_DATA_ERROR, err);
		g->members++;
		g->member_start = g->out;
		if (g->out - g->cur.text_off >= b->span)
			return gz_point(g, SEEK_GZ_MEMBER, err);
		return TRAWL_OK;
	}
	if (r == Z_BUF_ERROR && !g->s.avail_in && g->s.next_in == end) {
		/* cut off while being written: what decoded is the text (the
		 * readers say the rest is lost) */
		b->cut = 1;
		*done = 1;
		return TRAWL_OK;
	}
	if (r != Z_OK && r != Z_BUF_ERROR && g->members && g->out == g->member_start) {
		/* not gzip data after a whole member (gzip -d: trailing garbage):
		 * the text ends there, as the input reader has it (input.c) */
		b->cut = 1;
		*done = 1;
		return TRAWL_OK;
	}
	if (r != Z_OK && r != Z_BUF_ERROR)
		return gz_fail(g, r, err);
	if ((g->s.data_type & 128) && !(g->s.data_type & 64) && g->out - g->cur.text_off >= b->span)
		return gz_point(g, SEEK_GZ_RAW, err);
	return TRAWL_OK;
}

enum trawl_status seek_build_gzip(struct seek_build *b, struct trawl_error *err)
{
	struct gz_build g;
	memset(&g, 0, sizeof g);
	g.b = b;
	g.cur.kind = SEEK_GZ_MEMBER;
	g.win = calloc(1, SEEK_WIN);
	g.zwin = malloc(compressBound(SEEK_WIN) + SEEK_WIN);
	g.hs = XXH3_createState();
	enum trawl_status st = TRAWL_OK;
	if (!g.win || !g.zwin || !g.hs || inflateInit2(&g.s, 31) != Z_OK) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto out;
	}
	XXH3_64bits_reset(g.hs);
	g.s.next_in = (Bytef *)b->trace;
	uint64_t shown = 0;
	for (int done = 0; !done && !st;) {
		st = gz_step(&g, &done, err);
		uint64_t at = (uint64_t)(g.s.next_in - b->trace);
		if (b->progress && at - shown >= (16u << 20)) {
			b->progress(b->progress_ctx, at, b->trace_size);
			shown = at;
		}
	}
	b->tab->text_size = g.out;
	/* an empty last member leaves an empty span: the previous one covers it */
	if (!st && g.out > g.cur.text_off) {
		g.cur.text_sum = XXH3_64bits_digest(g.hs);
		st = seek_add_point(b, &g.cur, err);
	}
out:
	inflateEnd(&g.s);
	XXH3_freeState(g.hs);
	free(g.win);
	free(g.zwin);
	return st;
}

static enum trawl_status gz_start(z_stream *s, const struct seek_point *pt, const uint8_t *trace,
				  const uint8_t *seek, struct trawl_error *err)
{
	if (pt->kind != SEEK_GZ_RAW)
		return inflateInit2(s, 31) == Z_OK ? TRAWL_OK
						   : trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	const uint8_t *blob = seek + pt->blob_off;
	if (seek_blob_sum(blob, pt->blob_len) != pt->blob_sum)
		return TRAWL_CORRUPT(err, "a window's checksum does not match");
	uint8_t *win = malloc(SEEK_WIN);
	if (!win)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	uLongf wl = SEEK_WIN;
	enum trawl_status st = TRAWL_OK;
	if (uncompress(win, &wl, blob, pt->blob_len) != Z_OK || wl != SEEK_WIN)
		st = TRAWL_CORRUPT(err, "a window does not decompress");
	else if (inflateInit2(s, -15) != Z_OK)
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	else if ((pt->bits && inflatePrime(s, pt->bits, trace[pt->src_off - 1] >> (8 - pt->bits)) !=
				      Z_OK) ||
		 inflateSetDictionary(s, win, SEEK_WIN) != Z_OK)
		st = TRAWL_CORRUPT(err, "a restart point does not start a block");
	free(win);
	return st;
}

enum trawl_status seek_decode_gzip(const struct seek_point *pt, const uint8_t *trace,
				   uint64_t trace_size, const uint8_t *seek, char *dst, size_t len,
				   struct trawl_error *err)
{
	z_stream s;
	memset(&s, 0, sizeof s);
	enum trawl_status st = gz_start(&s, pt, trace, seek, err);
	if (st)
		return st;
	int raw = pt->kind == SEEK_GZ_RAW;
	const uint8_t *end = trace + trace_size;
	s.next_in = (Bytef *)trace + pt->src_off;
	s.next_out = (Bytef *)dst;
	s.avail_out = (uInt)len;
	while (s.avail_out && !st) {
		if (!s.avail_in && s.next_in >= end) {
			st = TRAWL_CORRUPT(err, "the compressed text ends early");
			break;
		}
		if (!s.avail_in)
			s.avail_in = avail(trace, trace_size, s.next_in);
		uInt before = s.avail_out, in_before = s.avail_in;
		int r = inflate(&s, Z_NO_FLUSH);
		if (r == Z_STREAM_END && s.avail_out) {
			/* the next member: after a raw start the 8-byte trailer is
			 * still ahead */
			const uint8_t *next = s.next_in + (raw ? 8 : 0);
			raw = 0;
			if (next >= end || inflateReset2(&s, 31) != Z_OK)
				st = TRAWL_CORRUPT(err, "the compressed text ends early");
			s.next_in = (Bytef *)next;
			s.avail_in = 0;
		} else if (r != Z_OK && r != Z_STREAM_END &&
			   (r != Z_BUF_ERROR || (before == s.avail_out && in_before == s.avail_in))) {
			st = TRAWL_CORRUPT(err, "the compressed text does not decode: %s",
					   s.msg ? s.msg : "inflate failed");
		}
	}
	inflateEnd(&s);
	return st;
}
