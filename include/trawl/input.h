/* Reading trace bytes: files (memory-mapped), pipes and stdin, with .gz and
 * .zst decompressed transparently (detected by content, not by name).
 *
 * Readers consume the input as *chunks of whole lines*: every chunk but the
 * last ends just after a '\n', so a parser never sees a line split across
 * two chunks. A plain file is mapped and handed out in windows of about
 * 64 MiB with no copy (pages behind the reader are released, so resident
 * memory stays bounded); other inputs go through a bounded buffer, so memory
 * use does not grow with the input size (only with the longest line).
 */
#ifndef TRAWL_INPUT_H
#define TRAWL_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

struct trawl_input;

enum trawl_compression {
	TRAWL_COMPRESSION_NONE = 0,
	TRAWL_COMPRESSION_GZIP,
	TRAWL_COMPRESSION_ZSTD,
};

struct trawl_input_options {
	size_t chunk_size;   /* target buffer size for streamed input; 0 = 4 MiB */
	size_t max_line;     /* longest line accepted, bytes; 0 = 64 MiB */
	int no_mmap;         /* force the streaming path (tests) */
};

/* A block of whole lines. `data` is borrowed: valid until the next call to
 * trawl_input_next or trawl_input_close. */
struct trawl_chunk {
	const char *data;
	size_t len;
	uint64_t offset;     /* byte offset of data[0] in the decompressed input */
	int last;            /* no more chunks follow */
};

/* Open a path ("-" means standard input). opt may be NULL. */
enum trawl_status trawl_input_open(struct trawl_input **out, const char *path,
				   const struct trawl_input_options *opt,
				   struct trawl_error *err);

/* Read from an open descriptor (not closed by trawl_input_close). `name` is
 * used in error messages. */
enum trawl_status trawl_input_open_fd(struct trawl_input **out, int fd, const char *name,
				      const struct trawl_input_options *opt,
				      struct trawl_error *err);

/* Read from bytes in memory (borrowed for the life of the input). */
enum trawl_status trawl_input_open_memory(struct trawl_input **out, const void *data,
					  size_t len, const char *name,
					  const struct trawl_input_options *opt,
					  struct trawl_error *err);

/* Next chunk of whole lines. Returns TRAWL_OK with chunk filled (possibly
 * len 0 at the end of an empty input), TRAWL_END when everything was handed
 * out, or an error (decompression failure, I/O error, overlong line). */
enum trawl_status trawl_input_next(struct trawl_input *in, struct trawl_chunk *chunk,
				   struct trawl_error *err);

void trawl_input_close(struct trawl_input *in);

/* A tap sees every chunk trawl_input_next hands out, before its caller
 * does: a tool that gives an input to a reader can still keep the bytes
 * (trawl truncate copies the text it has read as it goes). An error it
 * returns (with err filled) is returned by trawl_input_next. fn NULL
 * removes the tap. */
typedef enum trawl_status (*trawl_input_tap_fn)(void *ctx, const struct trawl_chunk *chunk,
						struct trawl_error *err);
void trawl_input_set_tap(struct trawl_input *in, trawl_input_tap_fn fn, void *ctx);

const char *trawl_input_name(const struct trawl_input *in);
enum trawl_compression trawl_input_compression(const struct trawl_input *in);
/* Size of the underlying file in bytes (compressed size for compressed
 * files), 0 if unknown (pipes). */
uint64_t trawl_input_raw_size(const struct trawl_input *in);
/* When compressed data stopped inside a frame (a trace cut off while it
 * was being written), what and where; else NULL. The text decoded before
 * the cut was handed out as the last chunk. */
const struct trawl_error *trawl_input_cut(const struct trawl_input *in);
/* Bytes of the underlying file consumed so far: for progress bars. */
uint64_t trawl_input_raw_pos(const struct trawl_input *in);
/* When the whole decompressed input is mapped in memory (plain files), the
 * mapping, else NULL. Views use it for random access to the text. */
const char *trawl_input_mapping(const struct trawl_input *in, size_t *len);

#endif
