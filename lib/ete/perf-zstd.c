/* COMPRESSED records (perf record -z): the records of the ring buffer,
 * as one zstd stream cut into pieces of at most 64 KB; a record may
 * straddle two pieces, so the undecoded tail waits in f->zbuf. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "ete/perf-int.h"

#include "core/grow.h"

/* The records complete in f->zbuf; the cut tail moves to the front. */
static int walk_buffered(struct trawl_perf_file *f, uint64_t off)
{
	uint64_t stop = 0;
	f->in_z = 1;
	enum trawl_status st = trawl_perf__walk(f, f->zbuf, 0, f->zlen, off, &stop, NULL);
	f->in_z = 0;
	if (st != TRAWL_OK)
		return -1;
	memmove(f->zbuf, f->zbuf + stop, f->zlen - (size_t)stop);
	f->zlen -= (size_t)stop;
	return 1;
}

/* Decompressed in steps of at most 64 KB, each walked at once, so a small
 * record that inflates to gigabytes never needs them in memory. */
int trawl_perf__inflate(struct trawl_perf_file *f, const uint8_t *src, size_t n, uint64_t off)
{
	if (!f->zctx && !(f->zctx = ZSTD_createDCtx()))
		return -1;
	ZSTD_inBuffer in = { src, n, 0 };
	for (;;) {
		/* room for a whole record (u16 size) plus one step */
		if (!trawl_grow((void **)&f->zbuf, &f->zcap, f->zlen + 65536 + 65536, 1))
			return -1;
		ZSTD_outBuffer out = { f->zbuf, f->zlen + 65536, f->zlen };
		size_t rc = ZSTD_decompressStream(f->zctx, &out, &in);
		if (ZSTD_isError(rc)) {
			trawl_perf__warn(f, "%s: offset %llu: COMPRESSED record: %s: the rest of the "
					 "compressed data is not read", f->path, (unsigned long long)off,
					 ZSTD_getErrorName(rc));
			return 1;
		}
		int full = out.pos == out.size;
		f->zlen = out.pos;
		if (walk_buffered(f, off) < 0)
			return -1;
		if (!full && in.pos == in.size)
			return 1;
	}
}

void trawl_perf__inflate_end(struct trawl_perf_file *f)
{
	ZSTD_freeDCtx(f->zctx);
	free(f->zbuf);
	f->zctx = NULL;
	f->zbuf = NULL;
}
