/* Random access to a trace's text, at the byte offsets the index gives,
 * for plain, gzip and zstd traces alike (docs/index.md, "Compressed
 * traces"). A plain file is memory-mapped and read in place. A compressed
 * one gets a seek file beside its index (TRACE.trawlseek, or in the cache
 * folder): decompressor restart points about every 0.5-1 MiB of text (gzip:
 * with their 32 KiB windows; zstd: frame starts, or a copy of the text in
 * independently compressed frames when the trace is one big frame), each
 * span of text with its checksum, so a read decompresses at most one span
 * and never hands out text that does not match. The seek file has its own
 * identity of the trace and checksums; a missing, stale or damaged one is
 * built again (docs/index-format.md, "Seek file"). */
#ifndef TRAWL_TEXT_H
#define TRAWL_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/input.h"
#include "trawl/status.h"

struct trawl_text;

struct trawl_text_options {
	/* the seek file; NULL: TRACE.trawlseek when it is there and matches,
	 * else the place trawl_index_default_path picks, with .trawlseek for
	 * .trawlidx; when nothing can be written there it is kept in memory */
	const char *seek_path;
	/* text bytes between restart points; 0 = 512 KiB for gzip, 1 MiB for
	 * zstd (tests use less) */
	uint32_t span;
	/* building the seek file: compressed bytes read so far, of total */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* why the seek file was (re)built, or kept in memory only */
	void (*note)(void *ctx, const char *msg);
	void *note_ctx;
};

/* Open the text of a trace file, building its seek file when it is
 * compressed and has none that matches. opt may be NULL. */
enum trawl_status trawl_text_open(struct trawl_text **out, const char *trace_path,
				  const struct trawl_text_options *opt, struct trawl_error *err);
void trawl_text_close(struct trawl_text *t);

/* Bytes [off, off + len) of the (decompressed) text, or fewer at its end:
 * *p stays valid until the next call on t. Text that does not match its
 * checksum is never returned: the seek file is rebuilt once and the read
 * tried again; damage after that is TRAWL_ERR_CORRUPT. */
enum trawl_status trawl_text_get(struct trawl_text *t, uint64_t off, size_t len, const char **p,
				 size_t *got, struct trawl_error *err);
/* The line starting at off, without its "\n" or "\r\n", at most max bytes. */
enum trawl_status trawl_text_line(struct trawl_text *t, uint64_t off, size_t max, const char **p,
				  size_t *len, struct trawl_error *err);

/* Decode every span of a compressed trace and check it (trawl info
 * --verify): TRAWL_ERR_CORRUPT names the first bad one; nothing is
 * rebuilt. TRAWL_OK at once for a plain trace. */
enum trawl_status trawl_text_verify(struct trawl_text *t, struct trawl_error *err);

/* Build the seek file again (after trawl_text_verify found damage). */
enum trawl_status trawl_text_rebuild(struct trawl_text *t, struct trawl_error *err);

uint64_t trawl_text_size(const struct trawl_text *t);
enum trawl_compression trawl_text_compression(const struct trawl_text *t);
/* The seek file: its path (NULL for a plain trace or one kept in memory)
 * and size in bytes (0 for a plain trace). */
const char *trawl_text_seek_path(const struct trawl_text *t);
uint64_t trawl_text_seek_size(const struct trawl_text *t);

/* Where the seek file of a trace is written by default. */
enum trawl_status trawl_text_default_seek_path(const char *trace_path, char *buf, size_t size,
					       struct trawl_error *err);

#endif
