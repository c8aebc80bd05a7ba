/* The seek file of a compressed trace (docs/index-format.md, "Seek file"):
 * layout, its restart points, building and decoding. Private to lib/text. */
#ifndef TRAWL_TEXT_SEEK_H
#define TRAWL_TEXT_SEEK_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/index.h"
#include "trawl/status.h"

#define SEEK_MAGIC "TRAWLSEK"
#define SEEK_VERSION 1u
#define SEEK_HEADER 256u
#define SEEK_REC 56u
#define SEEK_WIN 32768u
/* no span of text is longer (a damaged table cannot ask for more) */
#define SEEK_MAX_SPAN (64u << 20)
/* inflate runs at a few hundred MB/s, zstd's decoder at more than 1 GB/s:
 * half a MiB and one MiB keep a screen read from a random place near 1 ms */
#define SEEK_DEFAULT_SPAN_GZIP (512u << 10)
#define SEEK_DEFAULT_SPAN_ZSTD (1u << 20)

enum seek_kind {
	SEEK_GZ_MEMBER = 1, /* a gzip member starts at src_off */
	SEEK_GZ_RAW = 2,    /* a deflate block starts at src_off (minus bits), window in blob */
	SEEK_ZST_TRACE = 3, /* whole zstd frames of the trace: [src_off, src_off + src_len) */
	SEEK_ZST_COPY = 4,  /* one zstd frame in the seek file: the blob */
};

/* One restart point; its span of text runs to the next point's text_off
 * (or the end of the text). */
struct seek_point {
	uint64_t text_off;
	uint64_t src_off, src_len;  /* in the trace */
	uint64_t blob_off;          /* in the seek file */
	uint64_t text_sum;          /* XXH3-64 of the span's text */
	uint32_t blob_len, blob_sum;
	uint8_t kind, bits;
};

/* A seek file as built (in memory) or read back (mapped). */
struct seek_table {
	uint32_t comp;              /* enum trawl_compression */
	struct trawl_trace_id id;
	uint64_t text_size;
	uint64_t npoints;
	struct seek_point *points;
};

/* Where blobs go while building: a file descriptor at its end. */
struct seek_sink {
	int fd;
	uint64_t pos;
	const char *name;
};

struct seek_build {
	const uint8_t *trace;       /* the whole compressed file, mapped */
	uint64_t trace_size;
	const char *trace_name;
	uint32_t span;
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	struct seek_sink *sink;
	struct seek_table *tab;
	size_t cap;                 /* of tab->points */
	int cut;                    /* the compressed data stops mid-stream:
				     * the text up to there is covered */
};

/* Append a point (growing the table). */
enum trawl_status seek_add_point(struct seek_build *b, const struct seek_point *pt,
				 struct trawl_error *err);
/* Append a blob to the sink, setting pt->blob_off/len/sum. */
enum trawl_status seek_add_blob(struct seek_build *b, struct seek_point *pt, const void *p,
				size_t n, struct trawl_error *err);
uint32_t seek_blob_sum(const void *p, size_t n);

enum trawl_status seek_build_gzip(struct seek_build *b, struct trawl_error *err);
enum trawl_status seek_build_zstd(struct seek_build *b, struct trawl_error *err);

/* Decode span i into dst (exactly len bytes); blobs are read from the
 * mapped seek file. TRAWL_ERR_CORRUPT on anything that does not decode
 * to len bytes; the caller checks the text's sum. */
enum trawl_status seek_decode_gzip(const struct seek_point *pt, const uint8_t *trace,
				   uint64_t trace_size, const uint8_t *seek, char *dst, size_t len,
				   struct trawl_error *err);
enum trawl_status seek_decode_zstd(const struct seek_point *pt, const uint8_t *trace,
				   const uint8_t *seek, char *dst, size_t len,
				   struct trawl_error *err);

/* Write the header and table after the blobs (the sink's fd at its end). */
enum trawl_status seek_file_finish(struct seek_sink *s, const struct seek_table *tab,
				   struct trawl_error *err);
/* Check and read a mapped seek file against the trace size (every field
 * and bound; TRAWL_ERR_CORRUPT or, for another version,
 * TRAWL_ERR_UNSUPPORTED). tab->points is allocated. */
enum trawl_status seek_file_parse(const uint8_t *p, uint64_t size, uint64_t trace_size,
				  const char *name, struct seek_table *tab,
				  struct trawl_error *err);

#endif
