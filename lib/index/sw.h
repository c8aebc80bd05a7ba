/* The software-event part of an index (kind 2): what the builder adds for
 * TRAWL_EV_SW events, kept apart from the linear builder's state. */
#ifndef TRAWL_INDEX_SW_H
#define TRAWL_INDEX_SW_H

#include "index/spool.h"
#include "trawl/event.h"

struct idx_sw {
	struct idx_file ev;          /* SW_EVENTS spool, one record per event */
	struct idx_sorter cpu, thread;
	uint64_t n;                  /* software events seen */
	uint64_t recs;               /* records in ev (every event once one was seen) */
	int open;
};

enum trawl_status idx_sw_init(struct idx_sw *s, size_t memory, const char *dir, struct trawl_error *err);
/* Event number `nev` of the trace (any kind: a record is kept for each
 * once the first software event is seen, so SW_EVENTS[i] is event i). */
enum trawl_status idx_sw_add(struct idx_sw *s, const struct trawl_event *e, uint64_t nev,
			     struct trawl_error *err);
void idx_sw_release(struct idx_sw *s);

#endif
