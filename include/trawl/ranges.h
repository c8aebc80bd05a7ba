/* Executed address ranges and taken branches, counted over a trace: what
 * an AutoFDO profile and code coverage are made of.
 *
 * A range is a run of instructions executed one after the other at
 * sequential addresses, as ETE decoders report them: it ends where the
 * next instruction on the same core is not at pc + width (a taken branch,
 * counted from the last instruction to the next one), at an exception
 * entry, a gap in the trace or a failed fetch (the range ends, no branch is
 * counted: nothing in the program branched), and at the end of each trace.
 * An exception return (ERET) is an instruction, so its transfer is a taken
 * branch like any other. A branch to the next address (B .+4) cannot be
 * told from falling through and is not a taken branch here. Each core keeps
 * its own open range.
 *
 * Memory grows with the number of distinct ranges and branches (bounded by
 * the program), not with the trace's length.
 */
#ifndef TRAWL_RANGES_H
#define TRAWL_RANGES_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/event.h"
#include "trawl/status.h"

struct trawl_ranges;

/* One executed range: instructions from begin up to and including the one
 * at last (bytes = last + its width - begin), executed count times. */
struct trawl_range_count {
	uint64_t begin;
	uint64_t last;
	uint64_t bytes;
	uint64_t count;
};

/* One taken branch from the instruction at `from` to the one at `to`. */
struct trawl_branch_count {
	uint64_t from;
	uint64_t to;
	uint64_t count;
};

enum trawl_status trawl_ranges_create(struct trawl_ranges **out, struct trawl_error *err);
void trawl_ranges_destroy(struct trawl_ranges *r);

/* Count the instructions of a batch (any reader's). */
enum trawl_status trawl_ranges_add(struct trawl_ranges *r, const struct trawl_event_batch *b,
				   struct trawl_error *err);

/* The end of one trace: close every core's open range (another trace may
 * be added after it; its counts add to these). */
enum trawl_status trawl_ranges_end_trace(struct trawl_ranges *r, struct trawl_error *err);

/* Every range, sorted by (begin, last); every branch, sorted by (from, to).
 * Valid until the next add or end_trace. Call end_trace first. */
const struct trawl_range_count *trawl_ranges_list(struct trawl_ranges *r, size_t *count);
const struct trawl_branch_count *trawl_ranges_branches(struct trawl_ranges *r, size_t *count);

/* Instructions counted so far. */
uint64_t trawl_ranges_insns(const struct trawl_ranges *r);

/* Of the n ranges rg (from trawl_ranges_list), those that begin in none
 * of img's executable segments (a wrong --image or load offset): what
 * autofdo leaves out and coverage cannot place. */
struct trawl_image;
uint64_t trawl_ranges_outside(const struct trawl_range_count *rg, size_t n,
			      const struct trawl_image *img);

#endif
