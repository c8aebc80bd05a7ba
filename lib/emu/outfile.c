/* Trace output files.
 *
 * The emulator formats into a large buffer of its own and hands over whole
 * blocks, so this layer only moves big blocks: write(2) for plain files,
 * or one compressor call per block. The compression is chosen from the file
 * name (.gz, .zst); both use fast levels because the trace is produced at
 * hundreds of megabytes per second. A .zst file is compressed by default on
 * threads of our own (lib/emu/zpool.c), one fewer than the CPUs, since the
 * emulating thread compresses too when they are busy: level 1 costs about
 * seven times the emulation's CPU time. Each block the emulator hands over
 * (trawl_outfile_take, without a copy) becomes one independent zstd frame.
 * With no threads, the file is one frame compressed in the caller's thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "emu/zpool.h"
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
	int threads;            /* .zst compressor threads; 0 = in the caller's */
	struct emu_zpool *pool; /* started at the first block, with threads */
	char *stage;            /* trawl_outfile_write's bytes for the pool */
	size_t slen;
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

/* level 1 with a 128 KiB window and small tables that stay in the cache:
 * about 10% faster than plain level 1 on trace text, for a ratio of 10.4:1
 * instead of 10.8:1. The same for the stream and the pool's frames. */
static void zstd_setup(ZSTD_CCtx *cc)
{
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, 17);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_hashLog, 14);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_minMatch, 6);
}

/* One compressor thread fewer than the CPUs, at most 8: with the emulating
 * thread, which compresses when they are all busy, one thread per CPU. On
 * two CPUs, two compressor threads were about 10% slower than one when the
 * second CPU was free (in four rounds of five) (three threads taking turns on two cores). None on
 * one CPU, where a thread could only add switching. */
int trawl_outfile_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 2 ? 0 : n > 9 ? 8 : (int)n - 1;
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
		zstd_setup(o->zc);
		o->ccap = ZSTD_CStreamOutSize() * 8;
		o->threads = trawl_outfile_default_threads();
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

/* The size of the blocks trawl_outfile_write gathers for the pool (take
 * hands over the caller's own) */
#define STAGE_SIZE ((size_t)1 << 20)

/* The pool's turn: start it at the first block, so that set_threads can
 * still change the number before. */
static enum trawl_status pool_take(struct trawl_outfile *o, char **buf, size_t len, size_t cap,
				   struct trawl_error *err)
{
	if (!o->pool) {
		enum trawl_status st = emu_zpool_open(&o->pool, o->fd, o->path, o->threads, zstd_setup, err);
		if (st)
			return st;
	}
	return emu_zpool_take(o->pool, buf, len, cap, err);
}

/* Bytes gathered by trawl_outfile_write go to the pool before any other. */
static enum trawl_status stage_flush(struct trawl_outfile *o, struct trawl_error *err)
{
	if (!o->slen)
		return TRAWL_OK;
	enum trawl_status st = pool_take(o, &o->stage, o->slen, STAGE_SIZE, err);
	if (!st)
		o->slen = 0;
	return st;
}

enum trawl_status trawl_outfile_write(struct trawl_outfile *o, const void *data, size_t len,
				      struct trawl_error *err)
{
	o->bytes_in += len;
	if (o->kind == OUT_PLAIN)
		return write_all(o, data, len, err);
	const uint8_t *p = data;
	if (o->kind == OUT_ZSTD && o->threads > 0) {
		while (len > 0) {
			if (!o->stage && !(o->stage = malloc(STAGE_SIZE)))
				return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory writing '%s'", o->path);
			size_t n = STAGE_SIZE - o->slen < len ? STAGE_SIZE - o->slen : len;
			memcpy(o->stage + o->slen, p, n);
			o->slen += n;
			p += n;
			len -= n;
			if (o->slen == STAGE_SIZE) {
				enum trawl_status st = stage_flush(o, err);
				if (st)
					return st;
			}
		}
		return TRAWL_OK;
	}
	/* zlib counts in uInt: feed huge blocks in pieces */
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

enum trawl_status trawl_outfile_take(struct trawl_outfile *o, char **buf, size_t len, size_t cap,
				     struct trawl_error *err)
{
	if (o->kind != OUT_ZSTD || o->threads == 0)
		return trawl_outfile_write(o, *buf, len, err);
	enum trawl_status st = stage_flush(o, err);
	if (st)
		return st;
	st = pool_take(o, buf, len, cap, err);
	if (!st)
		o->bytes_in += len;
	return st;
}

enum trawl_status trawl_outfile_set_threads(struct trawl_outfile *o, int threads,
					    struct trawl_error *err)
{
	if (o->kind != OUT_ZSTD)
		return TRAWL_OK;
	if (threads < 0 || o->bytes_in)
		return trawl_error_set(err, TRAWL_ERR_USAGE,
				       "compression threads must be set, >= 0, before writing");
	o->threads = threads;
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
	if (o->kind == OUT_ZSTD && o->threads > 0) {
		/* also a pool never started: it writes the empty frame */
		if (err)
			st = stage_flush(o, err);
		if (!o->pool && err && !st)
			st = emu_zpool_open(&o->pool, o->fd, o->path, o->threads, zstd_setup, err);
		if (o->pool) {
			uint64_t written = 0;
			struct trawl_error perr;
			enum trawl_status pst = emu_zpool_close(o->pool, err && !st, &written, &perr);
			o->bytes_out += written;
			if (pst && !st && err) {
				st = pst;
				*err = perr;
			}
		}
	} else if (o->kind != OUT_PLAIN && err) {
		st = push(o, "", 0, 1, err);
	}
	if (o->z_live)
		deflateEnd(&o->z);
	ZSTD_freeCCtx(o->zc);
	if (o->owns_fd && close(o->fd) != 0 && st == TRAWL_OK && err)
		st = trawl_error_errno(err, errno, "cannot write '%s'", o->path);
	free(o->stage);
	free(o->cbuf);
	free(o->path);
	free(o);
	return st;
}
