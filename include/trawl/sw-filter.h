/* The filters every `trawl events` command applies (docs/analysis.md):
 * cpus, threads, subsystems, events (with * patterns), a time window and
 * a condition over the event's fields (trawl/expr.h's conditions), plus a
 * caller's own test (a script's keep()). An event is kept when it passes
 * all that were given. */
#ifndef TRAWL_SW_FILTER_H
#define TRAWL_SW_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"
#include "trawl/sw-event.h"

/* Each NULL when not given. */
struct trawl_swfilter_spec {
	const char *cpus;            /* "0,2-3" */
	const char *threads;         /* "1234,1240-1250" */
	const char *subsys;          /* "net,lock" */
	const char *events;          /* "net:RX,lock:*" (* matches any run of characters) */
	const char *time;            /* "1.5ms..3ms", "..2s", "100us.." (since the first event; ns us ms s, default s) */
	const char *where;           /* "len > 100 && port == 80" */
};

struct trawl_swfilter;

/* A test of the caller's: 1 keep, 0 drop. */
typedef int (*trawl_swfilter_fn)(void *ctx, const struct trawl_sw_event *ev);

/* Errors are TRAWL_ERR_USAGE naming the option and, for --where, the
 * column. A subsystem or event pattern that names nothing in the trace is
 * an error too (a typo would otherwise filter everything out). */
enum trawl_status trawl_swfilter_create(struct trawl_swfilter **out, const struct trawl_swfilter_spec *spec,
					const struct trawl_sw_class *classes, size_t nclasses,
					struct trawl_error *err);
void trawl_swfilter_set_fn(struct trawl_swfilter *f, trawl_swfilter_fn fn, void *ctx);
/* The same test over a batch, for trawl_swfilter_keep_batch: keep[i] is 1
 * for the events that passed every other test but --time, and the
 * function clears those it drops, calling nothing for the others. Set
 * beside fn (which the one-event calls still use). */
typedef void (*trawl_swfilter_batch_fn)(void *ctx, const struct trawl_sw_event *evs, size_t n, uint8_t *keep);
void trawl_swfilter_set_batch_fn(struct trawl_swfilter *f, trawl_swfilter_batch_fn fn, void *ctx);
/* No activities are grouped: an event outside --time's window needs no
 * verdict but the window's, so the caller's test (a script's keep) is not
 * called for it. Without this it is, as such an event may begin an
 * activity that overlaps the window (but_time). */
void trawl_swfilter_set_time_first(struct trawl_swfilter *f);
/* Events must come in time order: the first one sets time 0 of --time. */
int trawl_swfilter_keep(struct trawl_swfilter *f, const struct trawl_sw_event *ev);
/* The same, and *but_time whether it passes all but --time (what an
 * activity beginning at the event needs: its time is checked by overlap). */
int trawl_swfilter_keep_ex(struct trawl_swfilter *f, const struct trawl_sw_event *ev, int *but_time);
/* trawl_swfilter_keep_ex over n events in time order: keep[i] and
 * but_time[i] (0 or 1) for evs[i]; returns how many are kept. */
size_t trawl_swfilter_keep_batch(struct trawl_swfilter *f, const struct trawl_sw_event *evs, size_t n, uint8_t *keep,
				 uint8_t *but_time);
/* --time as clock values, once the first event has set its origin: 1 and
 * the window [*lo, *hi] (inclusive; *hi UINT64_MAX when it has no end); 0
 * without --time or before the first event. */
int trawl_swfilter_time_window(const struct trawl_swfilter *f, uint64_t *lo, uint64_t *hi);
/* Does [begin, end] (ns, clock values) meet the time window? */
int trawl_swfilter_time_overlaps(const struct trawl_swfilter *f, uint64_t begin, uint64_t end);
/* Was anything given? */
int trawl_swfilter_active(const struct trawl_swfilter *f);
void trawl_swfilter_destroy(struct trawl_swfilter *f);

/* "1.5ms" -> 1500000: a decimal number and a unit (ns us ms s; none: s).
 * 0 on success, -1 when it does not parse. Exact: no floating point. */
int trawl_swfilter_parse_duration(const char *s, size_t len, uint64_t *ns);

#endif
