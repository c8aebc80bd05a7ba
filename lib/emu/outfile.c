/* Trace output files.
 *
 * The emulator formats into a large buffer of its own and hands over whole
 * megabytes at a time, so this layer only moves big blocks: write(2) for
 * plain files, or one compressor call per block. The compression is chosen
 * from the file name (.gz, .zst); both use fast levels because the trace is
 * produced at hundreds of megabytes per second. zstd compresses on worker
 * threads of its own by default (two: level 1 costs about four times the
 * emulation's CPU time, so one worker alone would still set the pace), and
 * emulating and compressing overlap.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "trawl/emu.h"

enum kind { OUT_PLAIN, OUT_GZIP, OUT_ZSTD };

struct trawl_outfile {
	int fd;
	int owns_fd;
	enum kind kind;
	char *path;
	z_stream z;
	int z_live;
	ZSTD_CCtx *zc;
	uint8_t *cbuf;          /* compressed bytes waiting for write(2) */
	size_t ccap;
	uint64_t bytes_in;      /* uncompressed bytes accepted */
	uint64_t bytes_out;     /* bytes written to the file */
};

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static enum trawl_status write_all(struct trawl_outfile *o, const void *p, size_t n,
				   struct trawl_error *err)
{
	const uint8_t *b = p;
	while (n > 0) {
		ssize_t w = write(o->fd, b, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return trawl_error_errno(err, errno, "cannot write '%s'", o->path);
		}
		b += w;
		n -= (size_t)w;
		o->bytes_out += (uint64_t)w;
	}
	return TRAWL_OK;
}

/* The compression is chosen from the name so that "-o trace.zst" just works,
 * and every error path frees what was set up so far. The levels are the
 * fastest that still compress well, since the emulator writes hundreds of
 * megabytes per second. */
enum trawl_status trawl_outfile_open(struct trawl_outfile **out, const char *path,
				     struct trawl_error *err)
{
	enum trawl_status st = TRAWL_ERR_NOMEM;
	struct trawl_outfile *o = calloc(1, sizeof *o);
	*out = NULL;
	if (!o || !(o->path = strdup(path)))
		goto fail;
	if (strcmp(path, "-") == 0) {
		o->fd = 1;
	} else {
		o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (o->fd < 0) {
			st = trawl_error_errno(err, errno, "cannot create '%s'", path);
			goto fail;
		}
		o->owns_fd = 1;
	}
	o->ccap = 1 << 20;
	if (ends_with(path, ".gz")) {
		o->kind = OUT_GZIP;
		/* level 1: the trace is produced faster than zlib can squeeze it */
		if (deflateInit2(&o->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			goto fail;
		o->z_live = 1;
	} else if (ends_with(path, ".zst")) {
		o->kind = OUT_ZSTD;
		o->zc = ZSTD_createCCtx();
		if (!o->zc)
			goto fail;
		/* level 1 with a 128 KiB window and small tables that stay in the
		 * cache: about 10% faster than plain level 1 on trace text, for a
		 * ratio of 10.4:1 instead of 10.8:1 */
		ZSTD_CCtx_setParameter(o->zc, ZSTD_c_compressionLevel, 1);
		ZSTD_CCtx_setParameter(o->zc, ZSTD_c_windowLog, 17);
		ZSTD_CCtx_setParameter(o->zc, ZSTD_c_hashLog, 14);
		ZSTD_CCtx_setParameter(o->zc, ZSTD_c_minMatch, 6);
		o->ccap = ZSTD_CStreamOutSize() * 8;
		/* TRAWL_OUTFILE_THREADS workers beside the emulator; without
		 * thread support in the library, compress inline as before */
		if (trawl_outfile_set_threads(o, TRAWL_OUTFILE_THREADS, NULL) != TRAWL_OK)
			ZSTD_CCtx_setParameter(o->zc, ZSTD_c_nbWorkers, 0);
	}
	if (o->kind != OUT_PLAIN && !(o->cbuf = malloc(o->ccap)))
		goto fail;
	*out = o;
	return TRAWL_OK;
fail:
	if (st == TRAWL_ERR_NOMEM)
		trawl_error_set(err, st, "out of memory opening '%s'", path);
	if (o) {
		if (o->owns_fd)
			close(o->fd);
		if (o->z_live)
			deflateEnd(&o->z);
		ZSTD_freeCCtx(o->zc);
		free(o->cbuf);
		free(o->path);
		free(o);
	}
	return st;
}

static enum trawl_status push(struct trawl_outfile *o, const void *data, size_t len, int finish,
			      struct trawl_error *err)
{
	enum trawl_status st = TRAWL_OK;
	if (o->kind == OUT_GZIP) {
		o->z.next_in = (Bytef *)data;
		o->z.avail_in = (uInt)len;
		for (;;) {
			o->z.next_out = o->cbuf;
			o->z.avail_out = (uInt)o->ccap;
			int r = deflate(&o->z, finish ? Z_FINISH : Z_NO_FLUSH);
			if (r == Z_STREAM_ERROR)
				return trawl_error_set(err, TRAWL_ERR_INTERNAL, "gzip compression failed");
			st = write_all(o, o->cbuf, o->ccap - o->z.avail_out, err);
			if (st)
				return st;
			if (finish ? r == Z_STREAM_END : o->z.avail_in == 0 && o->z.avail_out != 0)
				return TRAWL_OK;
		}
	}
	ZSTD_inBuffer in = { data, len, 0 };
	for (;;) {
		ZSTD_outBuffer zo = { o->cbuf, o->ccap, 0 };
		size_t r = ZSTD_compressStream2(o->zc, &zo, &in, finish ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(r))
			return trawl_error_set(err, TRAWL_ERR_INTERNAL, "zstd compression failed: %s",
					       ZSTD_getErrorName(r));
		st = write_all(o, o->cbuf, zo.pos, err);
		if (st)
			return st;
		if (finish ? r == 0 : in.pos == in.size)
			return TRAWL_OK;
	}
}

enum trawl_status trawl_outfile_write(struct trawl_outfile *o, const void *data, size_t len,
				      struct trawl_error *err)
{
	o->bytes_in += len;
	if (o->kind == OUT_PLAIN)
		return write_all(o, data, len, err);
	/* zlib counts in uInt: feed huge blocks in pieces */
	const uint8_t *p = data;
	while (len > 0) {
		size_t n = len > (1u << 30) ? (1u << 30) : len;
		enum trawl_status st = push(o, p, n, 0, err);
		if (st)
			return st;
		p += n;
		len -= n;
	}
	return TRAWL_OK;
}

enum trawl_status trawl_outfile_set_threads(struct trawl_outfile *o, int threads,
					    struct trawl_error *err)
{
	if (o->kind != OUT_ZSTD)
		return TRAWL_OK;
	if (threads < 0 || o->bytes_in)
		return err ? trawl_error_set(err, TRAWL_ERR_USAGE,
					     "compression threads must be set, >= 0, before writing")
			   : TRAWL_ERR_USAGE;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(o->zc, ZSTD_c_nbWorkers, threads)))
		return err ? trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
					     "this zstd library cannot compress on %d threads", threads)
			   : TRAWL_ERR_UNSUPPORTED;
	/* jobs of 8 MiB: smaller ones cost the workers more in start-up than
	 * they save (2 MiB jobs took 10% longer on sort 60000) */
	if (threads > 0)
		ZSTD_CCtx_setParameter(o->zc, ZSTD_c_jobSize, 8 << 20);
	return TRAWL_OK;
}

uint64_t trawl_outfile_bytes(const struct trawl_outfile *o, int compressed)
{
	return compressed ? o->bytes_out : o->bytes_in;
}

enum trawl_status trawl_outfile_close(struct trawl_outfile *o, struct trawl_error *err)
{
	enum trawl_status st = TRAWL_OK;
	if (!o)
		return TRAWL_OK;
	if (o->kind != OUT_PLAIN && err)
		st = push(o, "", 0, 1, err);
	if (o->z_live)
		deflateEnd(&o->z);
	ZSTD_freeCCtx(o->zc);
	if (o->owns_fd && close(o->fd) != 0 && st == TRAWL_OK && err)
		st = trawl_error_errno(err, errno, "cannot write '%s'", o->path);
	free(o->cbuf);
	free(o->path);
	free(o);
	return st;
}
