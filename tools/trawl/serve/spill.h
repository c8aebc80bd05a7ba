/* Arrays of fixed-size records kept on disk, so that trawl serve's memory
 * does not grow with a software-event trace (docs/serve.md, "Memory"):
 * appended through a small buffer to an unlinked temporary file (O_TMPFILE
 * in $TMPDIR or /tmp: nothing is left behind, whatever stops the server),
 * then read with pread: passes a chunk at a time, lookups through keys
 * kept in memory for every SPILL_STEP-th record and one small read. No
 * map: on this kind of kernel a fault in a file map maps a whole large
 * folio of the page cache (hundreds of KiB), so random lookups through a
 * map made the resident memory grow with the file. */
#ifndef TRAWL_SERVE_SPILL_H
#define TRAWL_SERVE_SPILL_H

#include <stddef.h>
#include <stdint.h>

#define SPILL_STEP 128          /* records between two keys kept in memory */
#define SPILL_CACHE 16          /* blocks of SPILL_STEP records cached */

/* A non-decreasing u64 member (at byte off of each record): the key of
 * every SPILL_STEP-th record, so a lookup is a bisection in memory and
 * one read of the block between two keys. */
struct spill_keys {
	uint32_t off;
	uint64_t *k;
	size_t n;
};

/* Blocks read lately (block b in slot b % SPILL_CACHE). */
struct spill_cache {
	uint64_t tag[SPILL_CACHE];  /* block + 1; 0: empty */
	unsigned char *data;        /* SPILL_CACHE x SPILL_STEP records */
};

struct spill {
	int fd;                     /* -1: not open */
	uint32_t rec;               /* bytes per record */
	uint64_t n;                 /* records (written and buffered) */
	unsigned char *buf;         /* records not written yet */
	size_t used;
	struct spill_keys keys[2];  /* spill_index's */
	struct spill_cache *cache;  /* after spill_seal */
};

/* 0, or -1 with errno set. */
int spill_open(struct spill *s, uint32_t rec);
int spill_add(struct spill *s, const void *r);
/* Sort the records (before spill_seal): in memory up to 8 MiB, else in
 * sorted runs merged into a new file. */
int spill_sort(struct spill *s, int (*cmp)(const void *, const void *));
/* Records [first, first + n) into out / from in (written ones only). */
int spill_read(const struct spill *s, uint64_t first, uint64_t n, void *out);
int spill_write(struct spill *s, uint64_t first, uint64_t n, const void *in);
/* Write what is buffered; then the records are read with spill_get. */
int spill_seal(struct spill *s);
/* Keep keys of the u64 member at byte off (in slot 0 or 1), after seal. */
int spill_index(struct spill *s, unsigned slot, uint32_t off);
void spill_close(struct spill *s);

/* Reads that failed in the calling thread so far, and the last one's
 * reason (strerror): a lookup that fails gives zeros, so whoever answers
 * from the spills compares the count before and after. */
uint64_t spill_read_errors(void);
const char *spill_read_error(void);

/* Record i into out (zeros and -1 when it cannot be read). */
int spill_get(const struct spill *s, uint64_t i, void *out);
/* The first record whose key (slot) is >= t: n when none. */
uint64_t spill_lower(const struct spill *s, unsigned slot, uint64_t t);
/* How many of the keys kept in memory (slot) are < t: the record
 * spill_lower finds is then in block rank - 1 (or is record 0). */
size_t spill_key_rank(const struct spill *s, unsigned slot, uint64_t t);

#endif
