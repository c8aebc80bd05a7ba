/* See sw-stats.h. Below 64 every value has its own bucket; above, a
 * bucket is 1/64 of its power of two wide, so its middle is within 0.8% of
 * any value in it. */
#include "trawl/sw-stats.h"

#include "analysis/act-map.h"

#include <stdlib.h>
#include <string.h>

#define SUB 64
#define MAX_STATES 65536

/* The (activity, cpu, state) triples seen, by their index into states;
 * the memo, direct-mapped, answers the few triples a trace keeps coming
 * back to (a core's states take turns) without probing the table. The
 * triples are never removed, so a memo entry stays true. */
struct state_index {
	struct act_map map;
	struct {
		uint64_t key;
		uint32_t tag, idx;   /* tag 0: empty */
	} memo[64];
};

/* static, so hist_add (once per finished activity) inlines it */
static size_t bucket_of(uint64_t v)
{
	if (v < SUB)
		return (size_t)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= 6 */
	return SUB + (size_t)(e - 6) * SUB + (size_t)((v >> (e - 6)) & (SUB - 1));
}

size_t trawl_hist_bucket(uint64_t v)
{
	return bucket_of(v);
}

uint64_t trawl_hist_bucket_low(size_t b)
{
	if (b < SUB)
		return b;
	size_t e = (b - SUB) / SUB + 6, m = (b - SUB) % SUB;
	return ((uint64_t)1 << e) | (uint64_t)m << (e - 6);
}

static inline int hist_add(struct trawl_hist *h, uint64_t v)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->total += v;
	h->total_hi += h->total < v;
	if (!h->buckets && !(h->buckets = calloc(TRAWL_HIST_BUCKETS, sizeof *h->buckets)))
		return -1;
	h->buckets[bucket_of(v)]++;
	return 0;
}

int trawl_hist_add(struct trawl_hist *h, uint64_t v)
{
	return hist_add(h, v);
}

void trawl_hist_total_text(const struct trawl_hist *h, char *buf, size_t size)
{
	unsigned __int128 t = (unsigned __int128)h->total_hi << 64 | h->total;
	char d[48];
	size_t n = 0;
	do {
		d[n++] = (char)('0' + (int)(t % 10));
		t /= 10;
	} while (t);
	size_t i = 0;
	for (; i < n && i + 1 < size; i++)
		buf[i] = d[n - 1 - i];
	if (size)
		buf[i] = 0;
}

uint64_t trawl_hist_mean(const struct trawl_hist *h)
{
	if (!h->count)
		return 0;
	return (uint64_t)(((unsigned __int128)h->total_hi << 64 | h->total) / h->count);
}

uint64_t trawl_hist_quantile(const struct trawl_hist *h, double q)
{
	if (!h->count || !h->buckets)
		return 0;
	uint64_t rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (size_t b = 0; b < TRAWL_HIST_BUCKETS; b++) {
		seen += h->buckets[b];
		if (seen < rank)
			continue;
		uint64_t lo = trawl_hist_bucket_low(b);
		uint64_t hi = b + 1 < TRAWL_HIST_BUCKETS ? trawl_hist_bucket_low(b + 1) - 1 : UINT64_MAX;
		uint64_t mid = lo + (hi - lo) / 2;
		return mid < h->min ? h->min : mid > h->max ? h->max : mid;
	}
	return h->max;
}

void trawl_hist_release(struct trawl_hist *h)
{
	free(h->buckets);
	memset(h, 0, sizeof *h);
}

enum trawl_status trawl_swstats_init(struct trawl_swstats *s, size_t nacts, struct trawl_error *err)
{
	memset(s, 0, sizeof *s);
	s->nacts = nacts;
	s->hist = calloc(nacts + 1, sizeof *s->hist);
	s->state_index = calloc(1, sizeof(struct state_index));
	s->rate_width = 1000; /* 1 us, doubled as the trace goes on */
	if (!s->hist || !s->state_index) {
		trawl_swstats_release(s);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	return TRAWL_OK;
}

/* The rate buckets cover a fixed count of widths from the first event;
 * when time runs past them the width doubles and pairs merge, so memory
 * stays flat whatever the trace's length. */
static inline void count_event(struct trawl_swstats *s, uint64_t time)
{
	if (!s->events)
		s->first = time;
	s->events++;
	s->last = time;
	uint64_t off = time - s->first;
	/* events come in time order, mostly to the last bucket: no division */
	if (off >= s->rate_lo && off < s->rate_hi) {
		s->rate[s->rate_cur]++;
		return;
	}
	while (off / s->rate_width >= TRAWL_STATS_RATE_BUCKETS) {
		for (size_t i = 0; i < TRAWL_STATS_RATE_BUCKETS / 2; i++)
			s->rate[i] = s->rate[2 * i] + s->rate[2 * i + 1];
		memset(s->rate + TRAWL_STATS_RATE_BUCKETS / 2, 0, sizeof s->rate / 2);
		s->rate_width *= 2;
	}
	s->rate_cur = (size_t)(off / s->rate_width);
	s->rate_lo = (uint64_t)s->rate_cur * s->rate_width;
	s->rate_hi = s->rate_lo + s->rate_width; /* a wrap (past 584 years) only disables the fast path */
	s->rate[s->rate_cur]++;
}

void trawl_swstats_event(struct trawl_swstats *s, uint64_t time)
{
	count_event(s, time);
}

/* A batch mostly falls in the bucket counted last: the count, the last
 * time and that bucket's count stay in locals with no branch on the
 * verdicts (which a filter makes unpredictable); only a kept event past
 * the bucket takes count_event's way. */
void trawl_swstats_events(struct trawl_swstats *s, const struct trawl_sw_event *evs, const uint8_t *keep, size_t n)
{
	size_t i = 0;
	while (i < n && !s->events) /* the first kept event sets the origin */
		if (keep[i++])
			count_event(s, evs[i - 1].time);
	/* times in order: a batch whose first and last events fall in the
	 * bucket counted last (most do: a batch spans microseconds) is counted
	 * there whole, its verdicts summed, with no test per event */
	if (i < n && s->rate_hi > s->rate_lo && evs[i].time - s->first >= s->rate_lo &&
	    evs[n - 1].time - s->first < s->rate_hi && evs[i].time <= evs[n - 1].time) {
		uint64_t k = 0;
		for (size_t j = i; j < n; j++)
			k += keep[j];
		size_t last = n;
		while (last > i && !keep[last - 1])
			last--;
		if (last > i)
			s->last = evs[last - 1].time;
		s->events += k;
		s->rate[s->rate_cur] += k;
		return;
	}
	while (i < n) {
		/* a bucket's end that wrapped (past 584 years) has no fast way */
		const uint64_t first = s->first, lo = s->rate_lo, width = s->rate_hi > lo ? s->rate_hi - lo : 0;
		uint64_t events = 0, last = s->last;
		for (; i < n; i++) {
			uint64_t t = evs[i].time, k = keep[i];
			if (__builtin_expect(((t - first) - lo >= width) & k, 0))
				break;
			events += k;
			last = k ? t : last;
		}
		s->events += events;
		s->rate[s->rate_cur] += events;
		s->last = last;
		if (i < n)
			count_event(s, evs[i++].time);
	}
}

/* state_time past the memo: the table, and a triple seen first. */
static __attribute__((noinline)) void state_time_slow(struct trawl_swstats *s, const struct trawl_act_record *r,
						      uint32_t tag, unsigned h)
{
	struct state_index *x = s->state_index;
	struct act_map *m = &x->map;
	struct act_slot *sl = act_map_get(m, tag, r->key);
	if (!sl) {
		if (s->nstates >= MAX_STATES) {
			s->states_lost++;
			return;
		}
		if (s->nstates == s->states_cap) {
			size_t nc = s->states_cap ? s->states_cap * 2 : 64;
			void *n = realloc(s->states, nc * sizeof *s->states);
			if (!n) {
				s->nomem = 1;
				return;
			}
			s->states = n;
			s->states_cap = nc;
		}
		if (!(sl = act_map_put(m, tag, r->key))) {
			s->nomem = 1;
			return;
		}
		sl->a = (uint32_t)s->nstates;
		s->states[s->nstates++] = (struct trawl_stats_state){ r->act, r->cpu, r->key, 0 };
	}
	x->memo[h].tag = tag;
	x->memo[h].key = r->key;
	x->memo[h].idx = sl->a;
	s->states[sl->a].ns += r->end - r->begin;
}

/* The memo's answer inline, the rest in a call of its own: a memo hit
 * (nearly every state record) then saves no registers. */
static inline void state_time(struct trawl_swstats *s, const struct trawl_act_record *r)
{
	uint32_t tag = (r->cpu << 13) | (r->act + 1);
	struct state_index *x = s->state_index;
	unsigned h = ((tag * 0x9e3779b1u) ^ ((uint32_t)r->key * 0x85ebca6bu)) >> 26;
	if (x->memo[h].tag == tag && x->memo[h].key == r->key) {
		s->states[x->memo[h].idx].ns += r->end - r->begin;
		return;
	}
	state_time_slow(s, r, tag, h);
}

static inline void record(struct trawl_swstats *s, const struct trawl_act_record *r, int is_state)
{
	if (r->act >= s->nacts) { /* a script's activity, made as it ran */
		struct trawl_hist *h = realloc(s->hist, ((size_t)r->act + 1) * sizeof *h);
		if (!h) {
			s->nomem = 1;
			return;
		}
		memset(h + s->nacts, 0, ((size_t)r->act + 1 - s->nacts) * sizeof *h);
		s->hist = h;
		s->nacts = (size_t)r->act + 1;
	}
	/* a state's time counts even when the trace ends in it; its duration
	 * (like an open span's) is not a finished one */
	if (is_state && r->cpu < (1u << 19) && r->act < (1u << 12))
		state_time(s, r);
	if (!(r->flags & TRAWL_ACT_OPEN) && hist_add(&s->hist[r->act], r->end - r->begin))
		s->nomem = 1;
}

void trawl_swstats_record(struct trawl_swstats *s, const struct trawl_act_record *r, int is_state)
{
	record(s, r, is_state);
}

void trawl_swstats_state_time(struct trawl_swstats *s, const struct trawl_act_record *r)
{
	if (r->cpu < (1u << 19) && r->act < (1u << 12))
		state_time(s, r);
}

void trawl_swstats_kinds(struct trawl_swstats *s, const uint8_t *is_state, size_t n)
{
	s->is_state = is_state;
	s->nis = is_state ? n : 0;
}

void trawl_swstats_sink(void *ctx, const struct trawl_act_record *r)
{
	struct trawl_swstats *s = ctx;
	if (r->flags & TRAWL_ACT_KEEP)
		record(s, r, r->act < s->nis && s->is_state[r->act]);
}

void trawl_swstats_take_events(struct trawl_swstats *s, const struct trawl_swstats *from)
{
	s->events = from->events;
	s->first = from->first;
	s->last = from->last;
	memcpy(s->rate, from->rate, sizeof s->rate);
	s->rate_width = from->rate_width;
	s->rate_lo = from->rate_lo;
	s->rate_hi = from->rate_hi;
	s->rate_cur = from->rate_cur;
}

void trawl_swstats_release(struct trawl_swstats *s)
{
	for (size_t i = 0; s->hist && i < s->nacts; i++)
		trawl_hist_release(&s->hist[i]);
	free(s->hist);
	if (s->state_index)
		act_map_free(&((struct state_index *)s->state_index)->map);
	free(s->state_index);
	free(s->states);
	memset(s, 0, sizeof *s);
}
