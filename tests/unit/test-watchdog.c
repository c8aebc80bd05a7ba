/* core/watchdog: fire is called for a call (odd sequence number) seen
 * at two looks, with that number, and never while the number is even
 * (between calls) or after watchdog_stop has returned. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "core/watchdog.h"

struct seen {
	_Atomic uint64_t fires, last;
};

static void fire(void *ctx, uint64_t seq)
{
	struct seen *s = ctx;
	atomic_store(&s->last, seq);
	atomic_fetch_add(&s->fires, 1);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static void between_calls_never(void **state)
{
	(void)state;
	_Atomic uint64_t seq = 4;
	struct seen s = { 0, 0 };
	struct watchdog *w;
	assert_int_equal(watchdog_start(&w, &seq, 2, fire, &s, NULL), TRAWL_OK);
	sleep_ms(60);
	watchdog_stop(w);
	assert_int_equal(atomic_load(&s.fires), 0);
}

static void long_call_fires(void **state)
{
	(void)state;
	_Atomic uint64_t seq = 7;
	struct seen s = { 0, 0 };
	struct watchdog *w;
	assert_int_equal(watchdog_start(&w, &seq, 2, fire, &s, NULL), TRAWL_OK);
	/* at least two looks 2 ms apart: well within 10 s on any machine */
	for (int i = 0; i < 5000 && !atomic_load(&s.fires); i++)
		sleep_ms(2);
	assert_true(atomic_load(&s.fires) > 0);
	assert_int_equal(atomic_load(&s.last), 7);
	/* the call ended: no more fires once stopped */
	atomic_store(&seq, 8);
	watchdog_stop(w);
	uint64_t n = atomic_load(&s.fires);
	sleep_ms(10);
	assert_int_equal(atomic_load(&s.fires), n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(between_calls_never),
		cmocka_unit_test(long_call_fires),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
