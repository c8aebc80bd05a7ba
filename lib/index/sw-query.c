/* Queries of the software-event sections (kind 2; format.h): the last
 * event of a cpu or thread at or before a time, found by bisection over
 * that cpu's or thread's events (in event order, which is time order for
 * a trace merged by time), and each event's thread and ids. */
#include "index/index-int.h"

static const uint8_t *sw_rec(const struct idx_sec *s, uint64_t i)
{
	const uint8_t *r = s->p + i * SW_REC;
	idx_touch(s->ix, r, SW_REC);
	return r;
}

static enum trawl_status need_sw(const struct trawl_index *ix, struct trawl_error *err)
{
	if (ix->flags & IDX_FLAG_SW)
		return TRAWL_OK;
	return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED,
			       "'%s' is not an index of software events", ix->path);
}

/* Within list records [lo, hi) (one cpu's or thread's), the last whose
 * event's time is <= t: invariant time(rec[lo-1]) <= t < time(rec[hi]). */
static enum trawl_status last_at_or_before(const struct trawl_index *ix, const struct idx_sec *s,
					   uint64_t lo, uint64_t hi, uint64_t t, uint64_t *ev,
					   struct trawl_error *err)
{
	uint64_t first = lo;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2, e = ld64(sw_rec(s, mid) + 8);
		struct trawl_index_event x;
		if (e >= ix->nev)
			return idx_result(ix, TRAWL_CORRUPT(err, "'%s': bad software event list record", ix->path),
					  err);
		enum trawl_status st = trawl_index_event(ix, e, &x, err);
		if (st)
			return st;
		if (x.time <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == first)
		return idx_result(ix, trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "no event at or before %llu",
						      (unsigned long long)t), err);
	*ev = ld64(sw_rec(s, lo - 1) + 8);
	return idx_result(ix, TRAWL_OK, err);
}

enum trawl_status trawl_index_sw_at_time(const struct trawl_index *ix, enum trawl_index_sw_scope scope,
					 uint64_t key, uint64_t t, uint64_t *ev, struct trawl_error *err)
{
	if (scope == TRAWL_SW_SCOPE_ALL)
		return trawl_index_event_at_time(ix, t, ev, err);
	enum trawl_status st = need_sw(ix, err);
	if (st)
		return st;
	const struct idx_sec *s = &ix->sec[scope == TRAWL_SW_SCOPE_CPU ? SEC_SW_CPU : SEC_SW_THREAD];
	if (key >= UINT32_MAX + 1ull)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "no such cpu or thread");
	uint64_t lo = idx_lower_bound2(s, key, 0), hi = idx_lower_bound2(s, key + 1, 0);
	if (lo == hi)
		return idx_result(ix, trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "no event of %s %llu",
						      scope == TRAWL_SW_SCOPE_CPU ? "cpu" : "thread",
						      (unsigned long long)key), err);
	return last_at_or_before(ix, s, lo, hi, t, ev, err);
}

enum trawl_status trawl_index_sw_event(const struct trawl_index *ix, uint64_t ev,
				       struct trawl_index_sw_event *out, struct trawl_error *err)
{
	enum trawl_status st = need_sw(ix, err);
	if (st)
		return st;
	if (ev >= ix->nev)
		return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "event %llu is not in the trace",
				       (unsigned long long)ev);
	const uint8_t *r = sw_rec(&ix->sec[SEC_SW_EVENTS], ev);
	out->tid = ld32(r);
	out->stream = ld32(r + 4);
	out->subsys = ld16(r + 8);
	out->event = ld16(r + 10);
	out->arg = ld32(r + 12);
	return idx_result(ix, TRAWL_OK, err);
}

/* Keys change at most once per distinct value: skip each run by one
 * bisection, so the count costs log(n) per cpu or thread, not n. */
static uint64_t distinct(const struct idx_sec *s)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < s->n; n++) {
		uint64_t k = ld64(sw_rec(s, i));
		if (k == UINT64_MAX)
			return n + 1;
		i = idx_lower_bound2(s, k + 1, 0);
	}
	return n;
}

enum trawl_status trawl_index_sw_counts(const struct trawl_index *ix, uint64_t *cpus, uint64_t *threads,
					struct trawl_error *err)
{
	*cpus = *threads = 0;
	enum trawl_status st = need_sw(ix, err);
	if (st)
		return st;
	*cpus = distinct(&ix->sec[SEC_SW_CPU]);
	*threads = distinct(&ix->sec[SEC_SW_THREAD]);
	return idx_result(ix, TRAWL_OK, err);
}
