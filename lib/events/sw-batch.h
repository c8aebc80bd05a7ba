/* Filling trawl_event batches with software events: what the CTF and the
 * Barrelfish dump backends of trawl_reader share. Private to lib/. */
#ifndef TRAWL_EVENTS_SW_BATCH_H
#define TRAWL_EVENTS_SW_BATCH_H

#include "trawl/event.h"
#include "trawl/reader.h"
#include "trawl/sw-event.h"

struct sw_batch {
	struct trawl_event *ev;
	size_t n, cap;
	uint8_t *pool;
	size_t plen, pcap;
	struct trawl_reader_stats stats;
	uint32_t limit;              /* events per batch */
};

void sw_batch_init(struct sw_batch *b, const struct trawl_reader_options *opt);
/* Start a new batch (the previous one's pointers become invalid). */
void sw_batch_reset(struct sw_batch *b);
/* Append one event; `unit` is its time unit, `line` its line (0 for
 * binary sources), `length` its size in the source. 0, or -1 when out of
 * memory. */
int sw_batch_push(struct sw_batch *b, const struct trawl_sw_event *e, uint16_t unit, uint64_t line,
		  uint64_t length);
int sw_batch_full(const struct sw_batch *b);
void sw_batch_take(const struct sw_batch *b, struct trawl_event_batch *out);
void sw_batch_free(struct sw_batch *b);

/* Bytes an event of class c takes in a CTF stream (header and fields). */
uint64_t sw_event_size(const struct trawl_sw_class *c);

#endif
