/* Hopping over whole calls with the index, in O(log n) per hop instead of
 * a scan of every event of the callee.
 *
 * The index keeps a call depth per event (BL/BLR/RET heuristics) and every
 * visit of every PC. The end of a call made by the instruction at `pc` is
 * the first later visit of its return address (pc + instruction width) on
 * the same CPU at the caller's depth; the start of a call that returned to
 * an event is the last earlier visit of (return address - width) at that
 * depth whose own return is that event. Views use this to step over calls
 * and to fold them. When the trace does not allow a sound answer (the call
 * never returns, a longjmp, ...) the functions say NOT_FOUND and the caller
 * falls back to scanning events.
 */
#ifndef TRAWL_CALLHOP_H
#define TRAWL_CALLHOP_H

#include <stdint.h>

#include "trawl/index.h"
#include "trawl/status.h"

/* If event ev makes a call (the next event is deeper on the same CPU), the
 * first event after it at its depth on that CPU: where the call returned.
 * TRAWL_ERR_NOT_FOUND when ev makes no call or no return was found. */
enum trawl_status trawl_callhop_return(const struct trawl_index *ix, uint64_t ev,
				       uint64_t *out, struct trawl_error *err);

/* If event ev is where a call returned to (the previous event is deeper,
 * same CPU), the event that made that call. */
enum trawl_status trawl_callhop_call(const struct trawl_index *ix, uint64_t ev, uint64_t *out,
				     struct trawl_error *err);

/* Asked now and then during a long scan: non-zero ends it. */
typedef int (*trawl_callhop_stop_fn)(void *ctx);

/* Step over (what the terminal browser's n/N and the web view do): from
 * event ev, the next (dir > 0) or previous event on ev's CPU at ev's call
 * depth or shallower, hopping over a call through the PC index when it
 * can, else scanning. A scan stops early when stop(stop_ctx) (stop may be
 * NULL) returns non-zero; it is asked every 65536 events. TRAWL_ERR_NOT_FOUND when there is no such event. */
enum trawl_status trawl_callhop_step_over(const struct trawl_index *ix, uint64_t ev, int dir,
					  trawl_callhop_stop_fn stop, void *stop_ctx, uint64_t *out,
					  struct trawl_error *err);

/* Step out: the first later event on ev's CPU shallower than ev (where
 * the current function returned). With one CPU (ncpus == 1) the calls of
 * the current level are hopped over by their returns first. */
enum trawl_status trawl_callhop_step_out(const struct trawl_index *ix, uint64_t ev,
					 unsigned ncpus, trawl_callhop_stop_fn stop, void *stop_ctx,
					 uint64_t *out, struct trawl_error *err);

#endif
