/* Recovering a recorder buffer file (TRACE/.ring-N, layout in
 * rec/include/trawl/rec-ring.h) that a program left behind when it did
 * not stop cleanly: the events stream-N lacks become CTF packets. */
#ifndef TRAWL_EVENTS_RING_H
#define TRAWL_EVENTS_RING_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/sw-event.h"

/* The trace's classes, sorted by id; recovery adds made-up ones for ids
 * the metadata lacks (as the recorder does: "subsysS:eventE"). */
struct ring_classes {
	struct trawl_sw_class *v;
	size_t n;
	uint32_t *made;              /* ids made up here (malloc), for the metadata */
	size_t nmade, made_cap;
};

struct ring_stream {
	uint64_t size;               /* bytes of stream-N present */
	uint64_t last_ts;            /* timestamp_end of its last whole packet (0: none) */
};

/* The reader's clock, to bound plausible timestamps (boot_id "" or
 * mono_now 0: no bound). */
struct ring_now {
	const char *boot_id;
	uint64_t mono_now;
};

struct ring_out {
	uint32_t stream_id;
	uint32_t pid, tid, signal;
	int flushed;                 /* the crash handler wrote stream-N out */
	uint64_t keep;               /* bytes of stream-N the journal vouches for */
	int have_keep;               /* keep is known (the head was readable) */
	uint8_t *data;               /* CTF packets to append (malloc) */
	size_t len, cap;
	uint64_t events;             /* events recovered */
	uint64_t lost;               /* lost events, all told (recorded in the last packet) */
};

/* TRAWL_OK; TRAWL_ERR_CORRUPT with err naming `name` and the byte offset
 * (out holds what came before the damage); TRAWL_ERR_NOMEM. */
enum trawl_status ring_recover(const uint8_t *buf, size_t len, const char *name, const struct ring_stream *st,
			       struct ring_classes *cls, const struct ring_now *now, struct ring_out *out,
			       struct trawl_error *err);
void ring_out_release(struct ring_out *out);

#endif
