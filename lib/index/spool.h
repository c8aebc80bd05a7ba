/* Building blocks of the index builder: buffered files and an external
 * sorter, so the build's memory does not grow with the trace length. */
#ifndef TRAWL_INDEX_SPOOL_H
#define TRAWL_INDEX_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

/* Streaming form of idx_hash (format.h): same result however the bytes
 * are split. */
struct idx_hasher {
	uint64_t h[4], len;
	uint8_t pend[32];
	unsigned npend;
};
void idx_hasher_init(struct idx_hasher *hs, uint64_t seed);
void idx_hasher_update(struct idx_hasher *hs, const void *data, size_t len);
uint64_t idx_hasher_final(const struct idx_hasher *hs);

/* A buffered append-only file: either an anonymous temporary file (a spool
 * read back later) or the output file. Tracks a running checksum of what
 * is appended since the last idx_file_mark. */
struct idx_file {
	int fd;
	uint8_t *buf;
	size_t len, cap;
	uint64_t pos;           /* bytes appended so far (file size after flush) */
	struct idx_hasher sum;  /* checksum of what was appended since the mark */
	int nosum;              /* set: no checksum kept (a spool nobody checks) */
	const char *what;       /* for messages */
	struct idx_zsink *z;    /* set: writes go through this compressing sink
	                           (compact.c), which appends with _write_raw */
};

/* An anonymous temporary file in dir (in memory when dir is NULL); its
 * checksum covers everything written to it. */
enum trawl_status idx_file_temp(struct idx_file *f, const char *dir, const char *what,
				struct trawl_error *err);
enum trawl_status idx_file_fd(struct idx_file *f, int fd, const char *what,
			      struct trawl_error *err);
enum trawl_status idx_file_write(struct idx_file *f, const void *data, size_t len,
				 struct trawl_error *err);
enum trawl_status idx_file_flush(struct idx_file *f, struct trawl_error *err);
/* Append bytes as they are, past any sink (the sink's own output). */
enum trawl_status idx_file_write_raw(struct idx_file *f, const void *data, size_t len,
				     struct trawl_error *err);
/* compact.c: what idx_file_write does while f->z is set. */
enum trawl_status idx_zsink_write(struct idx_file *f, const void *data, size_t len,
				  struct trawl_error *err);
void idx_file_mark(struct idx_file *f);
uint64_t idx_file_sum(const struct idx_file *f);
/* Append the whole content of spool `src` (flushed first) to f, in the
 * kernel when it can (not through a sink). f must be at a fresh
 * idx_file_mark: its checksum becomes src's (which covers all of src). */
enum trawl_status idx_file_copy(struct idx_file *f, struct idx_file *src,
				struct trawl_error *err);
/* Pad with zeros to a multiple of 8. */
enum trawl_status idx_file_align(struct idx_file *f, struct trawl_error *err);
void idx_file_close(struct idx_file *f);

/* A section being written: begin at an 8-aligned offset of f (its
 * checksum mark), end when its bytes are written. */
struct idx_secent {
	uint32_t id, rec;
	uint64_t off, len, sum;
};
enum trawl_status idx_sec_begin(struct idx_file *f, struct idx_secent *s, uint32_t id,
				uint32_t rec, struct trawl_error *err);
void idx_sec_end(struct idx_file *f, struct idx_secent *s);

/* Fixed-size records sorted by their first little-endian u64 field, ties
 * kept in the order they were added (the builder adds records in event
 * order, so this sorts by (key, event, delta) without comparing more).
 * Records go to a memory buffer; when it fills, it is sorted and written to
 * a spool as a run; the output merges the runs. */
struct idx_sorter {
	size_t rec;
	uint8_t *buf;
	size_t n, cap;          /* records in buf / most records held in memory */
	size_t cap_now;         /* records buf has room for now */
	struct idx_file spool;
	int has_spool;
	uint64_t *runs;         /* record count of each run in the spool */
	size_t nruns;
	uint64_t total;
	const char *dir;
};

enum trawl_status idx_sorter_init(struct idx_sorter *s, size_t rec, size_t memory, const char *dir, struct trawl_error *err);
/* Room for one record, to be filled by the caller (valid until the next
 * call). */
enum trawl_status idx_sorter_add(struct idx_sorter *s, uint8_t **rec, struct trawl_error *err);
/* Keys of every IDX_FENCE-th record written to a sorted section. */
struct idx_fence {
	uint8_t *p;
	size_t n, cap;          /* bytes */
	uint64_t count;         /* records seen */
};
enum trawl_status idx_fence_add(struct idx_fence *f, const uint8_t *rec,
				struct trawl_error *err);

/* Write every record, sorted, to out, noting fence keys. */
enum trawl_status idx_sorter_output(struct idx_sorter *s, struct idx_file *out,
				    struct idx_fence *fence, struct trawl_error *err);
void idx_sorter_release(struct idx_sorter *s);

/* Stable sort of n records of size rec by their first u64 field (LSD radix
 * sort, skipping digits that are the same in every record). */
enum trawl_status idx_sort_records(uint8_t *recs, size_t n, size_t rec);

/* Remove the files DIR/BASENAME(path).tmpPID whose process PID is gone. */
void idx_remove_stale_tmp(const char *dir, const char *path);

#endif
