/* zstd restart points. Frames are independent, so a run of whole frames
 * of the trace whose text is at most 2 spans is a restart point as it is
 * (files written in many frames, pzstd, zstd --rsyncable...). A frame with
 * more text (the usual single-frame file) cannot be entered in the middle:
 * its text is copied into the seek file in frames of one span each,
 * compressed at level 1 (the seekable copy). */
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "text/seek.h"

struct zs_build {
	struct seek_build *b;
	ZSTD_DStream *ds;
	ZSTD_CCtx *cc;
	char *stage;                /* text of the run, or of the big frame */
	size_t used, cap;
	char *zbuf;
	size_t zcap;
	uint64_t out;               /* text before the stage */
	uint64_t run_src;           /* first frame of the run */
};

static enum trawl_status zs_fail(struct zs_build *z, uint64_t at, const char *why,
				 struct trawl_error *err)
{
	return trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s': corrupt zstd data near compressed byte %llu: %s",
			       z->b->trace_name, (unsigned long long)at, why);
}

/* The staged run of trace frames [run_src, src_end) as one point. */
static enum trawl_status zs_flush_run(struct zs_build *z, uint64_t src_end, struct trawl_error *err)
{
	if (!z->used)
		return TRAWL_OK;
	struct seek_point pt = { .kind = SEEK_ZST_TRACE, .text_off = z->out,
				 .src_off = z->run_src, .src_len = src_end - z->run_src };
	pt.text_sum = XXH3_64bits(z->stage, z->used);
	z->out += z->used;
	z->used = 0;
	return seek_add_point(z->b, &pt, err);
}

/* n bytes of the stage as one frame of the seekable copy. */
static enum trawl_status zs_copy(struct zs_build *z, size_t n, struct trawl_error *err)
{
	size_t zn = ZSTD_compressCCtx(z->cc, z->zbuf, z->zcap, z->stage, n, 1);
	if (ZSTD_isError(zn))
		return trawl_error_set(err, TRAWL_ERR_INTERNAL, "zstd: %s", ZSTD_getErrorName(zn));
	struct seek_point pt = { .kind = SEEK_ZST_COPY, .text_off = z->out };
	pt.text_sum = XXH3_64bits(z->stage, n);
	enum trawl_status st = seek_add_blob(z->b, &pt, z->zbuf, zn, err);
	if (!st)
		st = seek_add_point(z->b, &pt, err);
	z->out += n;
	memmove(z->stage, z->stage + n, z->used - n);
	z->used -= n;
	return st;
}

/* Decode one frame at src (fsz bytes) into the stage. While its text fits
 * beside the run, it joins the run; once it does not, the run is flushed
 * and the frame's text goes to the copy, one span at a time. */
static enum trawl_status zs_frame(struct zs_build *z, uint64_t src, size_t fsz, int partial,
				  struct trawl_error *err)
{
	struct seek_build *b = z->b;
	size_t run_before = z->used;
	int copying = 0;
	ZSTD_inBuffer in = { b->trace + src, fsz, 0 };
	ZSTD_initDStream(z->ds);
	for (;;) {
		ZSTD_outBuffer o = { z->stage + z->used, z->cap - z->used, 0 };
		size_t r = ZSTD_decompressStream(z->ds, &o, &in);
		if (ZSTD_isError(r))
			return zs_fail(z, src + in.pos, ZSTD_getErrorName(r), err);
		z->used += o.pos;
		if (r == 0)
			break;
		int cut = in.pos == in.size && o.pos < o.size;
		if (cut && !partial)
			return zs_fail(z, src + in.pos, "truncated frame", err);
		if (z->used < z->cap && !cut)
			continue;
		enum trawl_status st = TRAWL_OK;
		/* a frame cut off is never a restart point (decoding it from the
		 * trace would stop short): its text goes to the copy */
		if (!copying) {
			/* the run before this frame stands alone */
			copying = 1;
			size_t mine = z->used - run_before;
			z->used = run_before;
			st = zs_flush_run(z, src, err);
			memmove(z->stage, z->stage + run_before, mine);
			z->used = mine;
		}
		while (!st && z->used >= b->span)
			st = zs_copy(z, b->span, err);
		if (st)
			return st;
		if (cut)
			break;
	}
	if (copying) {
		enum trawl_status st = TRAWL_OK;
		while (!st && z->used)
			st = zs_copy(z, z->used < b->span ? z->used : b->span, err);
		z->run_src = src + fsz;
		return st;
	}
	if (z->used >= b->span) {
		enum trawl_status st = zs_flush_run(z, src + fsz, err);
		z->run_src = src + fsz;
		return st;
	}
	return TRAWL_OK;
}

/* A skippable frame (magic 0x184D2A5?, little-endian) holds no text. */
static int skippable(const uint8_t *p)
{
	uint32_t m = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	return (m & ZSTD_MAGIC_SKIPPABLE_MASK) == ZSTD_MAGIC_SKIPPABLE_START;
}

static enum trawl_status zs_walk(struct zs_build *z, struct trawl_error *err)
{
	struct seek_build *b = z->b;
	enum trawl_status st = TRAWL_OK;
	uint64_t pos = 0, shown = 0;
	while (pos < b->trace_size && !st) {
		size_t fsz = ZSTD_findFrameCompressedSize(b->trace + pos, b->trace_size - pos);
		int partial = 0;
		if (ZSTD_isError(fsz) && ZSTD_getErrorCode(fsz) == ZSTD_error_srcSize_wrong &&
		    !skippable(b->trace + pos)) {
			/* the last frame, cut off while being written */
			fsz = b->trace_size - pos;
			partial = b->cut = 1;
		} else if (ZSTD_isError(fsz) && pos > 0) {
			/* not zstd data after a whole frame (trailing garbage): the
			 * text ends there, as the input reader has it (input.c) */
			b->cut = 1;
			break;
		} else if (ZSTD_isError(fsz)) {
			return zs_fail(z, pos, ZSTD_getErrorName(fsz), err);
		}
		if (skippable(b->trace + pos)) {
			/* no text: the run stops before it and starts after it */
			st = zs_flush_run(z, pos, err);
			z->run_src = pos + fsz;
		} else {
			st = zs_frame(z, pos, fsz, partial, err);
		}
		pos += fsz;
		if (b->progress && pos - shown >= (16u << 20)) {
			b->progress(b->progress_ctx, pos, b->trace_size);
			shown = pos;
		}
	}
	if (!st)
		st = zs_flush_run(z, pos, err);
	b->tab->text_size = z->out;
	return st;
}

enum trawl_status seek_build_zstd(struct seek_build *b, struct trawl_error *err)
{
	struct zs_build z;
	memset(&z, 0, sizeof z);
	z.b = b;
	z.cap = 2 * (size_t)b->span;
	z.zcap = ZSTD_compressBound(b->span);
	z.stage = malloc(z.cap);
	z.zbuf = malloc(z.zcap);
	z.ds = ZSTD_createDStream();
	z.cc = ZSTD_createCCtx();
	enum trawl_status st;
	if (!z.stage || !z.zbuf || !z.ds || !z.cc)
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	else
		st = zs_walk(&z, err);
	ZSTD_freeDStream(z.ds);
	ZSTD_freeCCtx(z.cc);
	free(z.stage);
	free(z.zbuf);
	return st;
}

enum trawl_status seek_decode_zstd(const struct seek_point *pt, const uint8_t *trace,
				   const uint8_t *seek, char *dst, size_t len,
				   struct trawl_error *err)
{
	const uint8_t *src = trace + pt->src_off;
	size_t n = (size_t)pt->src_len;
	if (pt->kind == SEEK_ZST_COPY) {
		src = seek + pt->blob_off;
		n = pt->blob_len;
		if (seek_blob_sum(src, n) != pt->blob_sum)
			return TRAWL_CORRUPT(err, "a frame's checksum does not match");
	}
	/* whole frames, one after another: ZSTD_decompress takes them all */
	size_t r = ZSTD_decompress(dst, len, src, n);
	if (ZSTD_isError(r) || r != len)
		return TRAWL_CORRUPT(err, "the compressed text does not decode to its span: %s",
				     ZSTD_isError(r) ? ZSTD_getErrorName(r) : "wrong length");
	return TRAWL_OK;
}
