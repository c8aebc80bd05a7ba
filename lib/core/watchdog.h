/* A thread that notices a call running too long (watchdog.c). The caller
 * numbers its calls: *seq odd while one runs, even between them. Every
 * period the watchdog looks at *seq; when it is odd and the same as at the
 * last look, the call has run at least one period and fire(ctx, seq) is
 * called, from the watchdog's thread, at each look until *seq moves on
 * (fire decides what to do about it and ignores repeats). The caller pays
 * two stores per call and nothing else. */
#ifndef TRAWL_CORE_WATCHDOG_H
#define TRAWL_CORE_WATCHDOG_H

#include <stdatomic.h>
#include <stdint.h>

#include "trawl/status.h"

struct watchdog;

typedef void (*watchdog_fire_fn)(void *ctx, uint64_t seq);

enum trawl_status watchdog_start(struct watchdog **out, const _Atomic uint64_t *seq, unsigned period_ms,
				 watchdog_fire_fn fire, void *ctx, struct trawl_error *err);
/* Stop and join the thread: fire is not called after this returns. */
void watchdog_stop(struct watchdog *w);

#endif
