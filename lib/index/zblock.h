/* Blocks of the compact index kind (format.h, "kind 2"): a section cut
 * into blocks that decode on their own, each a zstd frame of the block's
 * records after a reversible transform (every u64 column replaced by its
 * difference from the record before, then the bytes regrouped by position
 * in the record), which turns sorted tables and event records into long
 * runs of zeros. Byte sections (the delta log) are compressed as they are.
 * Shared by the builder (compact.c) and the reader (zcache.c). */
#ifndef TRAWL_INDEX_ZBLOCK_H
#define TRAWL_INDEX_ZBLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "index/spool.h"

/* Records per block of a record section (one fence window: the fence
 * names the block a search needs), and bytes per block of a byte section. */
#define ZB_RECS 256u
#define ZB_BYTES 16384u

/* Logical bytes per block of a section with records of `rec` bytes. */
static inline uint32_t zb_block_bytes(uint32_t rec)
{
	return rec ? rec * ZB_RECS : ZB_BYTES;
}

/* Transform n bytes of records of size rec (n a multiple of rec; rec a
 * multiple of 8, or 0 for none) from in to out, and back. */
void zb_forward(const uint8_t *in, size_t n, uint32_t rec, uint8_t *out);
void zb_inverse(const uint8_t *in, size_t n, uint32_t rec, uint8_t *out);

/* The compressing sink of the compact builder (compact.c): between
 * idx_zsink_start and idx_zsink_end, what is written to f is one section's
 * decoded bytes (records of `rec` bytes, 0 for a byte section), stored as
 * compressed blocks; idx_zsink_table writes the block table (ZBLOCKS). */
struct idx_zsink;
enum trawl_status idx_zsink_create(struct idx_zsink **out, struct trawl_error *err);
void idx_zsink_destroy(struct idx_zsink *z);
void idx_zsink_start(struct idx_file *f, struct idx_zsink *z, uint32_t sid, uint32_t rec);
enum trawl_status idx_zsink_end(struct idx_file *f, struct trawl_error *err);
enum trawl_status idx_zsink_table(struct idx_file *f, struct idx_zsink *z, struct idx_secent *s,
				  struct trawl_error *err);

#endif
