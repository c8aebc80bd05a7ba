/* Input files: mmap for plain files, a bounded line buffer for pipes and
 * compressed data (gzip via zlib, zstd via libzstd). */
#include "trawl/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define DEFAULT_CHUNK (4u << 20)
#define DEFAULT_MAX_LINE (64u << 20)
#define RAW_BUF (1u << 20)
#define MAP_WINDOW ((size_t)64 << 20) /* bytes of a mapped file per chunk */

struct trawl_input {
	char *name;
	int fd;
	int own_fd;
	enum trawl_compression comp;
	size_t chunk_size;
	size_t max_line;

	/* raw source: either a mapping/memory block or reads from fd */
	const unsigned char *map;     /* whole raw file in memory, or NULL */
	size_t map_len;
	int map_owned;                /* munmap on close */
	size_t map_pos;               /* consumed raw bytes of map */
	size_t dropped;               /* mapped bytes already released (DONTNEED) */
	unsigned char *raw;           /* read buffer when not mapped */
	size_t raw_len, raw_pos;
	int raw_eof;
	uint64_t raw_total;           /* raw bytes consumed (progress) */
	uint64_t raw_size;            /* file size if known */

	/* decompressors */
	z_stream gz;
	int gz_init;
	unsigned gz_members;          /* gzip members finished */
	unsigned zs_frames;           /* zstd frames finished */
	uint64_t unit_out;            /* bytes the current member or frame gave */
	uint64_t unit_end;            /* compressed bytes up to the last one's end */
	int dec_incomplete;           /* inside a compressed frame */
	ZSTD_DStream *zs;

	/* output line buffer (streaming path) */
	char *buf;
	size_t buf_cap;
	size_t carry;                 /* bytes of an incomplete line kept at buf[0] */
	uint64_t out_offset;          /* decompressed offset of buf[0] */
	size_t tail_start, tail_len;  /* unfinished line to move before next chunk */
	int decoded_eof;
	int done;
	int cut;                      /* compressed data stopped mid-stream */
	struct trawl_error cut_err;   /* ...and where */

	trawl_input_tap_fn tap;       /* sees every chunk handed out, or NULL */
	void *tap_ctx;
};

static enum trawl_status input_alloc(struct trawl_input **out, const char *name,
				     const struct trawl_input_options *opt,
				     struct trawl_error *err)
{
	struct trawl_input *in = calloc(1, sizeof *in);
	if (!in || !(in->name = strdup(name ? name : "-"))) {
		free(in);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory opening '%s'", name);
	}
	in->fd = -1;
	in->chunk_size = opt && opt->chunk_size ? opt->chunk_size : DEFAULT_CHUNK;
	in->max_line = opt && opt->max_line ? opt->max_line : DEFAULT_MAX_LINE;
	if (in->max_line < in->chunk_size)
		in->max_line = in->chunk_size;
	*out = in;
	return TRAWL_OK;
}

/* Fill the raw read buffer when reading from a descriptor. */
static enum trawl_status raw_fill(struct trawl_input *in, struct trawl_error *err)
{
	if (in->map || in->raw_eof)
		return TRAWL_OK;
	if (!in->raw && !(in->raw = malloc(RAW_BUF)))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory reading '%s'", in->name);
	if (in->raw_pos < in->raw_len)
		return TRAWL_OK;
	for (;;) {
		ssize_t n = read(in->fd, in->raw, RAW_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return trawl_error_errno(err, errno, "cannot read '%s'", in->name);
		in->raw_len = (size_t)n;
		in->raw_pos = 0;
		if (n == 0)
			in->raw_eof = 1;
		return TRAWL_OK;
	}
}

/* Raw bytes available now (pointer and length) without consuming them. */
static void raw_peek(struct trawl_input *in, const unsigned char **p, size_t *n)
{
	if (in->map) {
		*p = in->map + in->map_pos;
		*n = in->map_len - in->map_pos;
	} else {
		*p = in->raw + in->raw_pos;
		*n = in->raw_len - in->raw_pos;
	}
}

static void raw_consume(struct trawl_input *in, size_t n)
{
	if (in->map)
		in->map_pos += n;
	else
		in->raw_pos += n;
	in->raw_total += n;
}

static int raw_at_eof(struct trawl_input *in)
{
	return in->map ? in->map_pos >= in->map_len : (in->raw_eof && in->raw_pos >= in->raw_len);
}

static void detect_compression(struct trawl_input *in)
{
	const unsigned char *p;
	size_t n;
	raw_peek(in, &p, &n);
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		in->comp = TRAWL_COMPRESSION_GZIP;
	else if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
		in->comp = TRAWL_COMPRESSION_ZSTD;
	else
		in->comp = TRAWL_COMPRESSION_NONE;
}

static enum trawl_status start_decoder(struct trawl_input *in, struct trawl_error *err)
{
	if (in->comp == TRAWL_COMPRESSION_GZIP) {
		memset(&in->gz, 0, sizeof in->gz);
		if (inflateInit2(&in->gz, 15 + 32) != Z_OK)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "cannot start gzip decoder");
		in->gz_init = 1;
	} else if (in->comp == TRAWL_COMPRESSION_ZSTD) {
		in->zs = ZSTD_createDStream();
		if (!in->zs)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "cannot start zstd decoder");
		ZSTD_initDStream(in->zs);
	}
	return TRAWL_OK;
}

/* Leading bytes must be read before deciding on compression when the input
 * is a pipe; a short first read is fine, two bytes suffice for gzip and
 * four for zstd, and read() on a pipe returns what is there. */
static enum trawl_status input_start(struct trawl_input *in, struct trawl_error *err)
{
	enum trawl_status st = raw_fill(in, err);
	if (st)
		return st;
	/* make sure we have 4 bytes for detection when a pipe gave fewer */
	if (!in->map && !in->raw_eof && in->raw_len < 4) {
		while (in->raw_len < 4 && !in->raw_eof) {
			ssize_t n = read(in->fd, in->raw + in->raw_len, RAW_BUF - in->raw_len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return trawl_error_errno(err, errno, "cannot read '%s'", in->name);
			if (n == 0)
				in->raw_eof = 1;
			in->raw_len += (size_t)n;
		}
	}
	detect_compression(in);
	return start_decoder(in, err);
}

enum trawl_status trawl_input_open_fd(struct trawl_input **out, int fd, const char *name,
				      const struct trawl_input_options *opt,
				      struct trawl_error *err)
{
	struct trawl_input *in;
	enum trawl_status st = input_alloc(&in, name, opt, err);
	if (st)
		return st;
	in->fd = fd;
	struct stat sb;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		in->raw_size = (uint64_t)sb.st_size;
		if (!(opt && opt->no_mmap) && sb.st_size > 0) {
			void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
			if (m != MAP_FAILED) {
				madvise(m, (size_t)sb.st_size, MADV_SEQUENTIAL);
				in->map = m;
				in->map_len = (size_t)sb.st_size;
				in->map_owned = 1;
			}
		}
	} else if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		st = trawl_error_set(err, TRAWL_ERR_IO, "'%s' is a directory", in->name);
		in->fd = -1;
		trawl_input_close(in);
		return st;
	}
	st = input_start(in, err);
	if (st) {
		in->fd = -1;
		trawl_input_close(in);
		return st;
	}
	*out = in;
	return TRAWL_OK;
}

enum trawl_status trawl_input_open(struct trawl_input **out, const char *path,
				   const struct trawl_input_options *opt,
				   struct trawl_error *err)
{
	if (strcmp(path, "-") == 0)
		return trawl_input_open_fd(out, 0, "<stdin>", opt, err);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return trawl_error_errno(err, errno, "cannot open '%s'", path);
	enum trawl_status st = trawl_input_open_fd(out, fd, path, opt, err);
	if (st) {
		close(fd);
		return st;
	}
	(*out)->own_fd = 1;
	return TRAWL_OK;
}

enum trawl_status trawl_input_open_memory(struct trawl_input **out, const void *data,
					  size_t len, const char *name,
					  const struct trawl_input_options *opt,
					  struct trawl_error *err)
{
	struct trawl_input *in;
	enum trawl_status st = input_alloc(&in, name, opt, err);
	if (st)
		return st;
	static const unsigned char empty[1];
	in->map = len ? data : empty;
	in->map_len = len;
	in->raw_size = len;
	st = input_start(in, err);
	if (st) {
		trawl_input_close(in);
		return st;
	}
	*out = in;
	return TRAWL_OK;
}

/* The compressed data stops inside a frame: a trace cut off while it was
 * being written. What was decoded is good text (it is handed out, like a
 * plain trace cut off mid-line); the readers say what was lost. */
static void decode_cut(struct trawl_input *in, const char *what, size_t produced)
{
	in->cut = 1;
	in->decoded_eof = 1;
	in->dec_incomplete = 0;
	trawl_error_clear(&in->cut_err);
	trawl_error_set(&in->cut_err, TRAWL_ERR_FORMAT,
			"'%s': %s data is truncated after %llu compressed bytes: the trace ends "
			"here", in->name, what, (unsigned long long)in->raw_total);
	trawl_error_at(&in->cut_err, in->name, 0, 0, in->out_offset + in->carry + produced);
}

/* Bytes that are not compressed data after the last complete gzip member
 * or zstd frame (gzip -d calls it trailing garbage and ignores it): every
 * member before them was whole and passed its check, so their text is the
 * trace, as for a cut; the readers say that the rest was not read. Damage
 * inside a member is still an error (decode_more). */
static void decode_trailing(struct trawl_input *in, const char *what, const char *unit, const char *why)
{
	decode_cut(in, what, 0);
	trawl_error_clear(&in->cut_err);
	trawl_error_set(&in->cut_err, TRAWL_ERR_FORMAT,
			"'%s': the bytes after compressed byte %llu, where the last complete %s %s ends, are not "
			"%s data (%s): ignored, the trace ends there",
			in->name, (unsigned long long)in->unit_end, what, unit, what, why);
	trawl_error_at(&in->cut_err, in->name, 0, 0, in->out_offset + in->carry);
}

/* Decompress (or copy) raw bytes into buf[carry..cap); *produced says how
 * many. At the end of the raw input, a compressed stream that is still
 * inside a frame is reported as truncated rather than silently cut. */
static enum trawl_status decode_more(struct trawl_input *in, size_t *produced,
				     struct trawl_error *err)
{
	*produced = 0;
	while (*produced == 0 && !in->decoded_eof) {
		enum trawl_status st = raw_fill(in, err);
		if (st)
			return st;
		const unsigned char *p;
		size_t n;
		raw_peek(in, &p, &n);
		char *dst = in->buf + in->carry;
		size_t room = in->buf_cap - in->carry;
		if (room == 0)
			return TRAWL_OK;
		int at_eof = n == 0 && raw_at_eof(in);
		if (at_eof && !in->dec_incomplete) {
			in->decoded_eof = 1;
			break;
		}
		if (in->comp == TRAWL_COMPRESSION_NONE) {
			size_t k = n < room ? n : room;
			memcpy(dst, p, k);
			raw_consume(in, k);
			*produced = k;
		} else if (in->comp == TRAWL_COMPRESSION_GZIP) {
			if (!in->dec_incomplete && in->gz_members > 0) {
				/* a previous member ended: more bytes start another one */
				if (inflateReset(&in->gz) != Z_OK)
					return trawl_error_set(err, TRAWL_ERR_FORMAT,
							       "'%s': bad gzip member", in->name);
				in->unit_out = 0;
			}
			in->gz.next_in = (unsigned char *)p;
			in->gz.avail_in = (uInt)(n > (1u << 30) ? (1u << 30) : n);
			in->gz.next_out = (unsigned char *)dst;
			in->gz.avail_out = (uInt)(room > (1u << 30) ? (1u << 30) : room);
			uInt before_in = in->gz.avail_in;
			uInt before_out = in->gz.avail_out;
			int zr = inflate(&in->gz, Z_NO_FLUSH);
			raw_consume(in, before_in - in->gz.avail_in);
			*produced = before_out - in->gz.avail_out;
			in->unit_out += *produced;
			if (zr == Z_STREAM_END) {
				in->dec_incomplete = 0;
				in->gz_members++;
				in->unit_end = in->raw_total;
			} else if (zr == Z_OK || (zr == Z_BUF_ERROR && !at_eof)) {
				in->dec_incomplete = 1;
			} else if (zr == Z_BUF_ERROR) {
				decode_cut(in, "gzip", *produced);
			} else if (in->gz_members > 0 && in->unit_out == 0) {
				decode_trailing(in, "gzip", "member", in->gz.msg ? in->gz.msg : "inflate failed");
			} else {
				return trawl_error_set(err, TRAWL_ERR_FORMAT,
						       "'%s': corrupt gzip data near compressed byte %llu: %s",
						       in->name, (unsigned long long)in->raw_total,
						       in->gz.msg ? in->gz.msg : "inflate failed");
			}
		} else {
			ZSTD_inBuffer zin = { p, n, 0 };
			ZSTD_outBuffer zout = { dst, room, 0 };
			size_t r = ZSTD_decompressStream(in->zs, &zout, &zin);
			raw_consume(in, zin.pos);
			*produced = zout.pos;
			in->unit_out += zout.pos;
			if (ZSTD_isError(r) && in->zs_frames > 0 && in->unit_out == 0 && !in->dec_incomplete) {
				decode_trailing(in, "zstd", "frame", ZSTD_getErrorName(r));
				break;
			}
			if (ZSTD_isError(r))
				return trawl_error_set(err, TRAWL_ERR_FORMAT,
						       "'%s': corrupt zstd data near compressed byte %llu: %s",
						       in->name, (unsigned long long)in->raw_total,
						       ZSTD_getErrorName(r));
			in->dec_incomplete = r != 0;
			if (r == 0) {
				in->zs_frames++;
				in->unit_out = 0;
				in->unit_end = in->raw_total;
			}
			if (at_eof && zout.pos == 0 && r != 0)
				decode_cut(in, "zstd", *produced);
		}
	}
	return TRAWL_OK;
}

/* A chunk always ends at a newline (or at the end of the input), so the line
 * parser never sees half a line; the unfinished line is kept and moved to the
 * front only on the next call, when the caller is done with this chunk. The
 * buffer is filled up before a chunk is handed out, and grows only when one
 * line fills it, up to max_line, so that one long line is an error, not a
 * crash or an endless read. */
static enum trawl_status next_streamed(struct trawl_input *in, struct trawl_chunk *chunk,
				       struct trawl_error *err)
{
	if (!in->buf) {
		in->buf_cap = in->chunk_size;
		if (!(in->buf = malloc(in->buf_cap)))
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory reading '%s'",
					       in->name);
	}
	/* the unfinished line of the previous chunk moves to the front now that
	 * the caller is done with that chunk */
	if (in->tail_len)
		memmove(in->buf, in->buf + in->tail_start, in->tail_len);
	in->carry = in->tail_len;
	in->tail_len = 0;
	size_t scanned = 0; /* bytes known to hold no newline */
	for (;;) {
		size_t got;
		enum trawl_status st = decode_more(in, &got, err);
		in->carry += got;
		if (st)
			return st;
		if (in->decoded_eof)
			break;
		if (in->carry == in->buf_cap) {
			if (memchr(in->buf + scanned, '\n', in->carry - scanned))
				break;
			scanned = in->carry;
			/* one line fills the buffer: grow up to max_line */
			if (in->buf_cap >= in->max_line) {
				trawl_error_set(err, TRAWL_ERR_LIMIT,
						"line longer than %zu bytes", in->max_line);
				trawl_error_at(err, in->name, 0, 0, in->out_offset);
				return TRAWL_ERR_LIMIT;
			}
			size_t cap = in->buf_cap * 2 > in->max_line ? in->max_line : in->buf_cap * 2;
			char *nb = realloc(in->buf, cap);
			if (!nb)
				return trawl_error_set(err, TRAWL_ERR_NOMEM,
						       "out of memory reading '%s'", in->name);
			in->buf = nb;
			in->buf_cap = cap;
		}
	}
	size_t end = in->carry;
	if (!in->decoded_eof) {
		char *nl = memrchr(in->buf, '\n', in->carry);
		end = (size_t)(nl - in->buf) + 1;
	}
	chunk->data = in->buf;
	chunk->len = end;
	chunk->offset = in->out_offset;
	chunk->last = in->decoded_eof;
	in->tail_start = end;
	in->tail_len = in->carry - end;
	in->out_offset += end;
	if (in->decoded_eof)
		in->done = 1;
	return TRAWL_OK;
}

static enum trawl_status input_next(struct trawl_input *in, struct trawl_chunk *chunk,
				    struct trawl_error *err)
{
	if (in->done)
		return TRAWL_END;
	if (in->map && in->comp == TRAWL_COMPRESSION_NONE) {
		/* zero-copy windows of a mapped file. Pages of windows already handed
		 * out are dropped (a read-only file mapping re-reads them if touched
		 * again), so resident memory stays bounded however large the file. */
		size_t start = in->map_pos, end = in->map_len;
		if (in->map_owned) {
			size_t page = (size_t)sysconf(_SC_PAGESIZE);
			size_t drop_end = start & ~(page - 1);
			if (drop_end > in->dropped) {
				madvise((void *)(in->map + in->dropped), drop_end - in->dropped,
					MADV_DONTNEED);
				in->dropped = drop_end;
			}
			if (in->map_len - start > MAP_WINDOW) {
				const unsigned char *base = in->map + start;
				const unsigned char *nl = memrchr(base, '\n', MAP_WINDOW);
				if (!nl)
					nl = memchr(base + MAP_WINDOW, '\n', in->map_len - start - MAP_WINDOW);
				if (nl)
					end = (size_t)(nl - in->map) + 1;
			}
		}
		chunk->data = (const char *)in->map + start;
		chunk->len = end - start;
		chunk->offset = start;
		chunk->last = end == in->map_len;
		in->map_pos = end;
		in->raw_total = end;
		in->done = chunk->last;
		return TRAWL_OK;
	}
	enum trawl_status st = next_streamed(in, chunk, err);
	/* where the text stopped: the chunk's start plus what was decoded of it
	 * (the chunk's start alone said "offset 0" for damage megabytes in) */
	if (st && err && !err->file[0])
		trawl_error_at(err, in->name, 0, 0, in->out_offset + in->carry);
	return st;
}

enum trawl_status trawl_input_next(struct trawl_input *in, struct trawl_chunk *chunk,
				   struct trawl_error *err)
{
	enum trawl_status st = input_next(in, chunk, err);
	if (st == TRAWL_OK && in->tap)
		st = in->tap(in->tap_ctx, chunk, err);
	return st;
}

void trawl_input_set_tap(struct trawl_input *in, trawl_input_tap_fn fn, void *ctx)
{
	in->tap = fn;
	in->tap_ctx = ctx;
}

void trawl_input_close(struct trawl_input *in)
{
	if (!in)
		return;
	if (in->gz_init)
		inflateEnd(&in->gz);
	if (in->zs)
		ZSTD_freeDStream(in->zs);
	if (in->map_owned)
		munmap((void *)in->map, in->map_len);
	if (in->own_fd && in->fd >= 0)
		close(in->fd);
	free(in->raw);
	free(in->buf);
	free(in->name);
	free(in);
}

const char *trawl_input_name(const struct trawl_input *in)
{
	return in->name;
}

enum trawl_compression trawl_input_compression(const struct trawl_input *in)
{
	return in->comp;
}

uint64_t trawl_input_raw_size(const struct trawl_input *in)
{
	return in->raw_size;
}

const struct trawl_error *trawl_input_cut(const struct trawl_input *in)
{
	return in->cut ? &in->cut_err : NULL;
}

uint64_t trawl_input_raw_pos(const struct trawl_input *in)
{
	return in->raw_total;
}

const char *trawl_input_mapping(const struct trawl_input *in, size_t *len)
{
	if (in->map && in->comp == TRAWL_COMPRESSION_NONE && in->map_len) {
		*len = in->map_len;
		return (const char *)in->map;
	}
	*len = 0;
	return NULL;
}
