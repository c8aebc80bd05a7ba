/* Activities over software events (docs/analysis.md): the spans, states and
 * messages a definitions file declares (sw-defs.h), matched as the events
 * of a trace go by. Every finished activity goes to a sink; what is still
 * open at the end of the trace goes there too, flagged, so nothing is
 * silently lost. Open activities are bounded (max_open, default one
 * million): past it a begin is counted as overflow, not kept.
 *
 * The engine takes any stream of struct trawl_sw_event whose classes are
 * the array given at creation (trawl_swtrace_info's classes). */
#ifndef TRAWL_SW_ACTIVITY_H
#define TRAWL_SW_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"
#include "trawl/sw-event.h"
#include "trawl/sw-defs.h"

#define TRAWL_ACT_DEFAULT_MAX_OPEN 1000000u

#define TRAWL_ACT_OPEN 1u            /* still open at the end of the trace */
#define TRAWL_ACT_KEEP 2u            /* the begin event passed the caller's filter */

struct trawl_act_record {
	uint32_t act;                /* index into the definitions' activities */
	uint32_t depth;              /* spans already open on the same thread (key cpu: cpu) */
	uint64_t key;                /* thread, cpu or field value; state: the state */
	uint64_t begin, end;         /* ns; an open one ends at the trace's last event */
	uint32_t cpu, cpu_end;       /* where it began and ended (a message crosses cores) */
	uint32_t tid, tid_end;
	uint32_t flags;              /* TRAWL_ACT_* */
};

struct trawl_act_counts {
	uint64_t closed;             /* records with an end */
	uint64_t open_at_end;
	uint64_t unmatched_end;      /* an end (receive) with nothing open for its key */
	uint64_t overflow;           /* begins not kept: max_open were open */
	uint64_t first_unmatched;    /* time of the first unmatched end */
	uint64_t cpu_beyond;         /* state changes not kept: their cpu is TRAWL_ACT_STATE_CPUS or more */
	uint32_t first_cpu_beyond;   /* the first such cpu */
};

/* A state activity keeps a state per cpu for cpus below this. */
#define TRAWL_ACT_STATE_CPUS 4096

typedef void (*trawl_act_sink)(void *ctx, const struct trawl_act_record *r);

struct trawl_act;

/* Resolve the activities' events and fields against the trace's classes.
 * An event or field the trace lacks is an error naming the definitions
 * file, line and column. defs must outlive the engine. */
enum trawl_status trawl_act_create(struct trawl_act **out, const struct trawl_defs *defs,
				   const struct trawl_sw_class *classes, size_t nclasses, uint64_t max_open,
				   trawl_act_sink sink, void *ctx, struct trawl_error *err);
/* One event, in time order; keep says whether it passed the filter (an
 * activity carries its begin event's verdict as TRAWL_ACT_KEEP). */
void trawl_act_feed(struct trawl_act *a, const struct trawl_sw_event *ev, int keep);
/* trawl_act_feed of n events in time order, evs[i] with keep[i]. */
void trawl_act_feed_batch(struct trawl_act *a, const struct trawl_sw_event *evs, size_t n, const uint8_t *keep);
/* What the engine reads of an event, in 32 bytes instead of the event's
 * 168: for handing events to an engine on another thread, where every
 * byte crosses between the cores' caches. */
struct trawl_act_event {
	uint64_t time;
	uint64_t val;                /* the field the class's roles read (0: none) */
	uint32_t cpu, tid;
	uint32_t cls;                /* index into the classes */
	uint32_t keep;               /* as trawl_act_feed's keep (0 or 1) */
};
/* Do the roles of each class read one field at most (what a packed event
 * holds)? Otherwise trawl_act_pack cannot be used. */
int trawl_act_packable(const struct trawl_act *a);
/* Pack evs[i] (with keep[i]) into out, leaving out the events no activity
 * names; the count packed (at most n). Reads the engine's tables only, so
 * it can run on another thread than the feeding one. */
size_t trawl_act_pack(const struct trawl_act *a, const struct trawl_sw_event *evs, size_t n, const uint8_t *keep,
		      struct trawl_act_event *out);
/* The same as trawl_act_feed_batch of the events packed. */
void trawl_act_feed_packed(struct trawl_act *a, const struct trawl_act_event *evs, size_t n);
/* End of the trace at time `end`: every open activity and every core's
 * current state go to the sink, flagged TRAWL_ACT_OPEN. */
void trawl_act_finish(struct trawl_act *a, uint64_t end);
/* The earliest begin of the activities open now (states included), or now
 * when none began earlier: every record still to come begins at or after
 * it (sw-act-order.h). */
uint64_t trawl_act_oldest_open(const struct trawl_act *a, uint64_t now);
/* Activities a script opens and closes itself (sw-script.h): a span of
 * that name (made at the first use of the name), its key given. */
enum trawl_status trawl_act_add_span(struct trawl_act *a, const char *name, uint32_t *act, struct trawl_error *err);
void trawl_act_open(struct trawl_act *a, uint32_t act, uint64_t key, const struct trawl_sw_event *ev, int keep);
void trawl_act_close(struct trawl_act *a, uint32_t act, uint64_t key, const struct trawl_sw_event *ev);
/* Bookkeeping a caller does not read, left out to save time at every
 * span: the nesting depth (records then say 0) and the list behind
 * trawl_act_oldest_open (which then says nothing). Before the first
 * event. */
#define TRAWL_ACT_NO_DEPTH 1u
#define TRAWL_ACT_NO_OLDEST 2u
void trawl_act_omit(struct trawl_act *a, unsigned what);
/* The activities: the definitions' first, then the scripts'. */
size_t trawl_act_count(const struct trawl_act *a);
const struct trawl_defs_activity *trawl_act_def(const struct trawl_act *a, size_t act);
const struct trawl_act_counts *trawl_act_counts(const struct trawl_act *a, size_t act);
/* The state's name for a state record's key: the set event's name when
 * the state is which event set it, else the number. */
void trawl_act_state_name(const struct trawl_act *a, size_t act, uint64_t key, char *buf, size_t size);
/* Is key the declared idle state of state activity act? */
int trawl_act_state_idle(const struct trawl_act *a, size_t act, uint64_t key);
void trawl_act_destroy(struct trawl_act *a);

#endif
