/* Packed event records (format.h, EVENTS and EVBLK): blocks of
 * EVB_EVENTS events, each field stored as its difference from the block's
 * base in as few bytes as the block needs. Most fields barely change
 * within a block (lines, offsets and times grow by a little per event; the
 * cpu, kind and level rarely change), so a record is about 16 bytes
 * instead of 56 at full width, and still found by position: EVBLK gives
 * where each block starts and its record size, so one read fetches the
 * header and the records a query needs. */
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
	uint8_t out[EVB_HDR + EVB_EVENTS * 8 * EVF_N + 8];
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

/* Reader side: one block's layout, checked against the section sizes,
 * and a copy of the records read (8 zero bytes after them, so that a
 * field is one unaligned load and a mask). */
struct idx_evblk {
	uint64_t first;                  /* its first event */
	uint64_t off;                    /* its header's offset in EVENTS */
	uint32_t n, rs;                  /* events, bytes per record */
	uint64_t base[EVF_N];
	uint8_t w[EVF_N], at[EVF_N];
	uint8_t hdr[EVB_HDR + EVB_EVENTS * 8 * EVF_N + 8]; /* header, records */
	const uint8_t *rec;              /* hdr + EVB_HDR */
};

/* Block b: its header and every record, read checked (one pread in a
 * full index; a compact one copies from its decoded blocks). */
enum trawl_status idx_evblk_get(const struct trawl_index *ix, uint64_t b, struct idx_evblk *k,
				struct trawl_error *err);
/* Field f of record j (held in k) of the block. */
static inline uint64_t idx_evblk_field(const struct idx_evblk *k, uint32_t j, unsigned f)
{
	uint64_t v = ld64(k->rec + (uint64_t)j * k->rs + k->at[f]);
	unsigned w = k->w[f];
	return k->base[f] + (w == 8 ? v : v & (((uint64_t)1 << (8 * w)) - 1));
}
/* Block of event ev with its records up to ev's (j = ev % EVB_EVENTS)
 * read, in one read with the header. */
enum trawl_status idx_evblk_one(const struct trawl_index *ix, uint64_t ev, struct idx_evblk *k,
				struct trawl_error *err);
/* Field f of event ev (ev < the event count). */
enum trawl_status idx_ev_field(const struct trawl_index *ix, uint64_t ev, unsigned f,
			       uint64_t *out, struct trawl_error *err);
/* Base of field f of block b (the smallest value in it), checked, from
 * the mapping (a search probes many blocks). */
enum trawl_status idx_evblk_base(const struct trawl_index *ix, uint64_t b, unsigned f,
				 uint64_t *out, struct trawl_error *err);

#endif
