/* Duration histograms: every percentile within 1% of the exact nearest-rank
 * value over values spread across many powers of two; small values exact;
 * the rate buckets keep every event as the width doubles, one at a time
 * and in batches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "trawl/sw-stats.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void percentiles(void **state)
{
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof *v);
	assert_non_null(v);
	struct trawl_hist h = { 0 };
	uint64_t x = 88172645463325252ull, total = 0;
	for (int i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift */
		v[i] = (x >> (x % 50)) % 1000000000000ull;
		total += v[i];
		assert_int_equal(trawl_hist_add(&h, v[i]), 0);
	}
	qsort(v, N, sizeof *v, cmp_u64);
	assert_int_equal(h.count, N);
	assert_int_equal(h.total, total);
	assert_int_equal(h.min, v[0]);
	assert_int_equal(h.max, v[N - 1]);
	static const double qs[] = { 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0 };
	for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
		size_t rank = (size_t)(qs[i] * N + 0.999999);
		uint64_t want = v[rank - 1], got = trawl_hist_quantile(&h, qs[i]);
		uint64_t diff = got > want ? got - want : want - got;
		if ((double)diff > 0.01 * (double)want)
			fail_msg("q %.3f: got %llu, exact %llu", qs[i], (unsigned long long)got, (unsigned long long)want);
	}
	trawl_hist_release(&h);
	free(v);
}

static void small_exact(void **state)
{
	struct trawl_hist h = { 0 };
	for (uint64_t i = 1; i <= 100; i++)
		trawl_hist_add(&h, i);
	assert_int_equal(trawl_hist_quantile(&h, 0.5), 50);
	assert_int_equal(trawl_hist_quantile(&h, 0.1), 10);
	assert_int_equal(trawl_hist_quantile(&h, 0.01), 1);
	/* buckets are contiguous: each one's low is the last one's end + 1 */
	for (size_t b = 1; b < TRAWL_HIST_BUCKETS; b++) {
		assert_true(trawl_hist_bucket_low(b) > trawl_hist_bucket_low(b - 1));
		assert_int_equal(trawl_hist_bucket(trawl_hist_bucket_low(b)), b);
		assert_int_equal(trawl_hist_bucket(trawl_hist_bucket_low(b) - 1), b - 1);
	}
	assert_int_equal(trawl_hist_bucket(UINT64_MAX), TRAWL_HIST_BUCKETS - 1);
	trawl_hist_release(&h);
}

static void rate(void **state)
{
	struct trawl_swstats s;
	struct trawl_error err;
	assert_int_equal(trawl_swstats_init(&s, 0, &err), TRAWL_OK);
	for (uint64_t t = 0; t < 10000000; t += 1000)
		trawl_swstats_event(&s, 5000 + t);
	uint64_t sum = 0;
	for (size_t b = 0; b < TRAWL_STATS_RATE_BUCKETS; b++)
		sum += s.rate[b];
	assert_int_equal(sum, 10000);
	assert_int_equal(s.rate_width, 128000); /* 1 us doubled until 10 ms fit in 128 */
	assert_int_equal(s.rate[0], 128);
	trawl_swstats_release(&s);
}

/* Kept events counted a batch at a time (trawl_swstats_events, verdicts
 * in no pattern, batches of several sizes, gaps that skip buckets and
 * double the width) against the buckets worked out here: the final width
 * is the first 1 us * 2^k that puts the last kept event in one of the 128
 * buckets from the first. */
static void rate_batches(void **state)
{
	enum { N = 200000 };
	static struct trawl_sw_event ev[N];
	static uint8_t keep[N];
	uint64_t x = 2463534242ull, t = 777;
	for (int i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		t += x % 97 == 0 ? x % 5000000 : x % 300; /* now and then a long gap */
		ev[i].time = t;
		keep[i] = (x >> 20) % 3 != 0;
	}
	keep[0] = 0; /* the first kept event is not the first one */
	static const size_t sizes[] = { 1, 7, 64, 256, 1000 };
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		struct trawl_swstats s;
		struct trawl_error err;
		assert_int_equal(trawl_swstats_init(&s, 0, &err), TRAWL_OK);
		for (size_t i = 0; i < N; i += sizes[k])
			trawl_swstats_events(&s, ev + i, keep + i, N - i < sizes[k] ? N - i : sizes[k]);
		uint64_t first = 0, last = 0, n = 0;
		for (int i = 0; i < N; i++)
			if (keep[i]) {
				first = n++ ? first : ev[i].time;
				last = ev[i].time;
			}
		uint64_t w = 1000;
		while ((last - first) / w >= TRAWL_STATS_RATE_BUCKETS)
			w *= 2;
		uint64_t want[TRAWL_STATS_RATE_BUCKETS] = { 0 };
		for (int i = 0; i < N; i++)
			if (keep[i])
				want[(ev[i].time - first) / w]++;
		assert_int_equal(s.events, n);
		assert_int_equal(s.first, first);
		assert_int_equal(s.last, last);
		assert_int_equal(s.rate_width, w);
		for (size_t b = 0; b < TRAWL_STATS_RATE_BUCKETS; b++)
			if (s.rate[b] != want[b])
				fail_msg("batches of %zu: bucket %zu holds %llu, want %llu", sizes[k], b,
					 (unsigned long long)s.rate[b], (unsigned long long)want[b]);
		trawl_swstats_release(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(percentiles),
		cmocka_unit_test(small_exact),
		cmocka_unit_test(rate),
		cmocka_unit_test(rate_batches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
