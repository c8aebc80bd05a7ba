/* Where did execution get stuck? A trace that ends spinning — the same PC
 * again and again with nothing changing, or a cycle of instructions that
 * repeats with identical effects — is cut after one turn of that loop
 * (`trawl truncate`). The detector reads events once and keeps a few words
 * per candidate period, so any trace length is fine. */
#ifndef TRAWL_STUCK_H
#define TRAWL_STUCK_H

#include <stdint.h>

#include "trawl/event.h"
#include "trawl/status.h"

struct trawl_stuck;

struct trawl_stuck_result {
	int stuck;              /* the trace ends in a loop it never leaves */
	unsigned period;        /* instructions per turn of the loop */
	uint64_t repeats;       /* complete turns seen (first one included) */
	uint64_t loop_line;     /* first line of the first turn */
	uint64_t cut_line;      /* last line kept (end of the first turn) */
	uint64_t cut_offset;    /* bytes to keep from the start of the source */
};

/* max_period: longest loop recognised (0 = 64); min_repeats: turns needed
 * before the end of the trace to call it stuck (0 = 4). */
enum trawl_status trawl_stuck_create(struct trawl_stuck **out, unsigned max_period,
				     unsigned min_repeats, struct trawl_error *err);
void trawl_stuck_add(struct trawl_stuck *s, const struct trawl_event_batch *b);
void trawl_stuck_result(const struct trawl_stuck *s, struct trawl_stuck_result *r);
void trawl_stuck_destroy(struct trawl_stuck *s);

#endif
