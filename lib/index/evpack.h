/* Packed event records (format.h, EVENTS and EVBLK): blocks of
 * EVB_EVENTS events, each field stored as its difference from the block's
 * base in as few bytes as the block needs. Most fields barely change
 * within a block (lines, offsets and times grow by a little per event; the
 * cpu, kind and level rarely change), so a record is about 16 bytes
 * instead of 56 at full width, and still found by position. */
#ifndef TRAWL_INDEX_EVPACK_H
#define TRAWL_INDEX_EVPACK_H

#include <stdint.h>

#include "index/format.h"
#include "index/spool.h"
#include "trawl/status.h"

struct trawl_index;

/* Builder side: events gathered one block at a time. */
struct idx_evpack {
	uint64_t col[EVF_N][EVB_EVENTS]; /* field values, column by column */
	unsigned n;                      /* events in the block being gathered */
	uint64_t off;                    /* bytes of EVENTS written so far */
	uint8_t out[EVB_EVENTS * 8 * EVF_N + 8];
};

void idx_evpack_init(struct idx_evpack *p);
/* One event's fields (v[EVF_*]); a full block goes to ev (its records)
 * and blk (its EVBLK record). */
enum trawl_status idx_evpack_add(struct idx_evpack *p, const uint64_t v[EVF_N],
				 struct idx_file *ev, struct idx_file *blk,
				 struct trawl_error *err);
/* The last, partial block. */
enum trawl_status idx_evpack_flush(struct idx_evpack *p, struct idx_file *ev,
				   struct idx_file *blk, struct trawl_error *err);

/* Reader side: one block's layout, checked against the section sizes. */
struct idx_evblk {
	uint64_t first;                  /* its first event */
	uint64_t off;                    /* its records' offset in EVENTS */
	uint32_t n, rs;                  /* events, bytes per record */
	uint64_t base[EVF_N];
	uint8_t w[EVF_N], at[EVF_N];
	const uint8_t *rec;              /* the block's records (n * rs bytes) */
};

/* Block b: its EVBLK record and records, read checked (a full index from
 * the mapping; a compact one from its decoded blocks, valid until the next
 * read of EVENTS). */
enum trawl_status idx_evblk_get(const struct trawl_index *ix, uint64_t b, struct idx_evblk *k,
				struct trawl_error *err);
/* Field f of record j of the block. */
static inline uint64_t idx_evblk_field(const struct idx_evblk *k, uint32_t j, unsigned f)
{
	const uint8_t *p = k->rec + (uint64_t)j * k->rs + k->at[f];
	uint64_t d = 0;
	for (unsigned i = 0; i < k->w[f]; i++)
		d |= (uint64_t)p[i] << (8 * i);
	return k->base[f] + d;
}
/* Block of event ev with only ev's record read (at j = ev % EVB_EVENTS). */
enum trawl_status idx_evblk_one(const struct trawl_index *ix, uint64_t ev, struct idx_evblk *k,
				struct trawl_error *err);
/* Field f of event ev (ev < the event count). */
enum trawl_status idx_ev_field(const struct trawl_index *ix, uint64_t ev, unsigned f,
			       uint64_t *out, struct trawl_error *err);
/* Base of field f of block b (the smallest value in it), checked. */
enum trawl_status idx_evblk_base(const struct trawl_index *ix, uint64_t b, unsigned f,
				 uint64_t *out, struct trawl_error *err);

#endif
