/* Statistics over activities and events (docs/analysis.md): durations in
 * log-bucketed histograms (64 buckets per power of two, so a percentile is
 * within 1% of the exact one and memory does not grow with the trace), time
 * per core in each state, and events per unit of time. */
#ifndef TRAWL_SW_STATS_H
#define TRAWL_SW_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"
#include "trawl/sw-activity.h"

#define TRAWL_HIST_BUCKETS 3776

struct trawl_hist {
	uint64_t count, total, min, max;
	uint64_t total_hi;           /* the total's carry: with damaged times it passes 2^64 */
	uint64_t *buckets;           /* TRAWL_HIST_BUCKETS, allocated at the first value */
};

/* 0, or -1 when out of memory (the value is still in count/total/min/max). */
int trawl_hist_add(struct trawl_hist *h, uint64_t v);
/* The total (with its carry) in decimal; the mean, rounded down (below
 * 2^64, as every value is). */
void trawl_hist_total_text(const struct trawl_hist *h, char *buf, size_t size);
uint64_t trawl_hist_mean(const struct trawl_hist *h);
/* The q-quantile (0 < q <= 1) by nearest rank: the middle of the bucket
 * holding it, clamped to [min, max]. 0 when empty. */
uint64_t trawl_hist_quantile(const struct trawl_hist *h, double q);
/* Bucket index of v, and the smallest value of a bucket. */
size_t trawl_hist_bucket(uint64_t v);
uint64_t trawl_hist_bucket_low(size_t b);
void trawl_hist_release(struct trawl_hist *h);

/* Time a core spent in one state of a state activity. */
struct trawl_stats_state {
	uint32_t act, cpu;
	uint64_t state, ns;
};

#define TRAWL_STATS_RATE_BUCKETS 128

struct trawl_swstats {
	size_t nacts;
	struct trawl_hist *hist;     /* per activity: finished (not open) durations */
	struct trawl_stats_state *states;
	size_t nstates, states_cap;
	void *state_index;           /* private */
	uint64_t states_lost;        /* (act, cpu, state) triples past the bound */
	/* events kept, per time bucket of rate_width ns from first */
	uint64_t events, first, last;
	uint64_t rate[TRAWL_STATS_RATE_BUCKETS];
	uint64_t rate_width;
	uint64_t rate_lo, rate_hi;   /* offsets of the last bucket counted (hi 0: none) */
	size_t rate_cur;
	int nomem;
	const uint8_t *is_state;     /* trawl_swstats_kinds' (borrowed) */
	size_t nis;
};

enum trawl_status trawl_swstats_init(struct trawl_swstats *s, size_t nacts, struct trawl_error *err);
/* A kept event (times in order). */
void trawl_swstats_event(struct trawl_swstats *s, uint64_t time);
/* trawl_swstats_event for each evs[i] whose keep[i] is set. */
void trawl_swstats_events(struct trawl_swstats *s, const struct trawl_sw_event *evs, const uint8_t *keep, size_t n);
/* A finished activity; state records also count towards their core's
 * time. An activity past nacts (a script's) grows the table. */
void trawl_swstats_record(struct trawl_swstats *s, const struct trawl_act_record *r, int is_state);
/* Only the state time of a record (a state's part of a window, say), not
 * its duration: trawl_swstats_record(s, r, 0) counts that. */
void trawl_swstats_state_time(struct trawl_swstats *s, const struct trawl_act_record *r);
/* Which activities are states (is_state[act] != 0), for
 * trawl_swstats_sink: borrowed, n of them; an activity past them (a
 * script's) is a span. After init. */
void trawl_swstats_kinds(struct trawl_swstats *s, const uint8_t *is_state, size_t n);
/* A trawl_act_sink (ctx: the statistics): trawl_swstats_record of every
 * record whose begin event passed the filter (TRAWL_ACT_KEEP), with one
 * call per record rather than a caller's sink calling in turn. */
void trawl_swstats_sink(void *ctx, const struct trawl_act_record *r);
/* The event counts of `from` (trawl_swstats_event's) into s, in place of
 * its own: events counted apart from the activities (on another thread). */
void trawl_swstats_take_events(struct trawl_swstats *s, const struct trawl_swstats *from);
void trawl_swstats_release(struct trawl_swstats *s);

#endif
