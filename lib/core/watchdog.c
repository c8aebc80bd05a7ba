/* The watchdog thread (watchdog.h). It sleeps on a condition variable with
 * a timeout, so stopping it does not wait for the period to end. */
#include "core/watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct watchdog {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stop;
	const _Atomic uint64_t *seq;
	unsigned period_ms;
	watchdog_fire_fn fire;
	void *ctx;
};

static void deadline(struct timespec *ts, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *watch(void *arg)
{
	struct watchdog *w = arg;
	uint64_t last = 0;
	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		struct timespec ts;
		deadline(&ts, w->period_ms);
		while (!w->stop && pthread_cond_timedwait(&w->wake, &w->lock, &ts) != ETIMEDOUT)
			;
		if (w->stop)
			break;
		uint64_t now = atomic_load_explicit(w->seq, memory_order_relaxed);
		/* fire under the lock: watchdog_stop cannot return while it runs */
		if ((now & 1) && now == last)
			w->fire(w->ctx, now);
		last = now;
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

enum trawl_status watchdog_start(struct watchdog **out, const _Atomic uint64_t *seq, unsigned period_ms,
				 watchdog_fire_fn fire, void *ctx, struct trawl_error *err)
{
	*out = NULL;
	struct watchdog *w = calloc(1, sizeof *w);
	if (!w)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	w->seq = seq;
	w->period_ms = period_ms ? period_ms : 1;
	w->fire = fire;
	w->ctx = ctx;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	int e = pthread_mutex_init(&w->lock, NULL);
	if (!e && (e = pthread_cond_init(&w->wake, &ca)))
		pthread_mutex_destroy(&w->lock);
	pthread_condattr_destroy(&ca);
	if (!e && (e = pthread_create(&w->thread, NULL, watch, w))) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
	}
	if (e) {
		free(w);
		return trawl_error_set(err, TRAWL_ERR_IO, "cannot start a watchdog thread: %s", strerror(e));
	}
	*out = w;
	return TRAWL_OK;
}

void watchdog_stop(struct watchdog *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = 1;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
