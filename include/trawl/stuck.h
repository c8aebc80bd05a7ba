/* Where did execution get stuck? A trace that goes on spinning — the same
 * PC again and again with nothing changing, a cycle of instructions that
 * repeats with identical effects, a crash loop through an exception vector,
 * a core in lockup repeating its exception-reason line — is cut after one
 * turn of that loop (`trawl truncate`).
 *
 * The detector is causal: it decides from what it has read so far, so it
 * can stop reading a simulator's pipe that never ends, and a pipe and a file
 * of the same text give the same cut. A loop is *certain* once one turn has
 * been repeated identically `min_repeats` times in a row (every step the
 * same as the one a period earlier). A step is an instruction, an exception,
 * a register/memory state event or an exception-reason text line, compared
 * by everything it says except its time and sequence number: CPU, PC,
 * encoding, condition failure, every register write and memory access with
 * its bytes, the exception's name, number and addresses, the reason's text.
 * Other text lines neither break nor extend a loop. The detector keeps a
 * few words per candidate period, so any trace length is fine. */
#ifndef TRAWL_STUCK_H
#define TRAWL_STUCK_H

#include <stdint.h>

#include "trawl/event.h"
#include "trawl/status.h"

struct trawl_stuck;

struct trawl_stuck_result {
	int stuck;              /* a loop became certain */
	unsigned period;        /* steps per turn of the loop */
	unsigned insns;         /* of which instructions */
	unsigned exceptions;    /* of which exception events */
	unsigned reasons;       /* of which exception-reason lines */
	uint64_t repeats;       /* identical turns seen (the first included) */
	uint64_t loop_line;     /* first line of the kept turn */
	uint64_t cut_line;      /* lines kept (the last kept line's number) */
	uint64_t cut_offset;    /* bytes to keep from the start of the source:
	                           always the start of a line and of an event */
};

/* max_period: longest loop recognised, in steps (0 = 64, at most 4096);
 * min_repeats: identical turns that make a loop certain (0 = 4, at least 2). */
enum trawl_status trawl_stuck_create(struct trawl_stuck **out, unsigned max_period,
				     unsigned min_repeats, struct trawl_error *err);

/* Feed the next batch of events. Returns 1 once a loop is certain: the
 * result is then final and the rest of the batch, and later batches, are
 * ignored (unless following). Returns 0 while it is not. */
int trawl_stuck_add(struct trawl_stuck *s, const struct trawl_event_batch *b);

/* For an input read to its end (a file): after a loop is certain, keep
 * reading; if the trace leaves the loop (a wait that ended), the loop is
 * forgotten and detection goes on, so only a loop the trace ends in is
 * reported. The result and the cut of that loop are the ones a reader that
 * stopped at its certain point would have found. trawl_stuck_add then
 * returns 1 while the trace is inside a certain loop. */
void trawl_stuck_follow(struct trawl_stuck *s);

/* Bytes of the source that no cut can drop any more: everything before this
 * offset will be kept whatever follows, so a tool may write it out now.
 * Trails the events read by at most max_period x (min_repeats - 1) steps. */
uint64_t trawl_stuck_safe_offset(const struct trawl_stuck *s);

/* What was found so far (stuck = 0 until a loop is certain). */
void trawl_stuck_result(const struct trawl_stuck *s, struct trawl_stuck_result *r);
void trawl_stuck_destroy(struct trawl_stuck *s);

#endif
