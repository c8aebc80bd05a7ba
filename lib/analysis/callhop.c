/* Hopping over whole calls through the PC index (see callhop.h).
 *
 * Recursion makes a return address recur at deeper levels first; those
 * visits are stepped over one by one (each a binary search in the index),
 * up to a bound after which the caller's scan is the better tool.
 */
#include "trawl/callhop.h"

/* Visits looked at before giving up on the shortcut. */
#define MAX_VISITS 100000

static int get(const struct trawl_index *ix, uint64_t ev, struct trawl_index_event *e)
{
	return ev < trawl_index_event_count(ix) && trawl_index_event(ix, ev, e, NULL) == TRAWL_OK;
}

/* Does the event after ev go deeper on the same CPU (ev made a call)? */
static int makes_call(const struct trawl_index *ix, uint64_t ev, const struct trawl_index_event *e)
{
	struct trawl_index_event n;
	return get(ix, ev + 1, &n) && n.cpu == e->cpu && n.depth > e->depth;
}

static enum trawl_status none(struct trawl_error *err, const char *what, uint64_t ev)
{
	return trawl_error_set(err, TRAWL_ERR_NOT_FOUND, "event %llu: %s", (unsigned long long)ev,
			       what);
}

enum trawl_status trawl_callhop_return(const struct trawl_index *ix, uint64_t ev,
				       uint64_t *out, struct trawl_error *err)
{
	struct trawl_index_event e, r;
	if (!get(ix, ev, &e) || e.kind != TRAWL_EV_INSN || !makes_call(ix, ev, &e))
		return none(err, "makes no call", ev);
	uint64_t ret = e.pc + (e.width ? e.width : 4), at = ev;
	for (int i = 0; i < MAX_VISITS; i++) {
		if (trawl_index_pc_step(ix, ret, at, 1, &at, NULL) || !get(ix, at, &r))
			break;
		if (r.cpu != e.cpu || r.depth > e.depth)
			continue;       /* a deeper level of a recursion returning */
		if (r.depth < e.depth)
			break;          /* came back to the address a level up: not ours */
		/* the event before a return point is the deeper RET */
		struct trawl_index_event p;
		if (!get(ix, at - 1, &p) || (p.cpu == e.cpu && p.depth <= e.depth))
			continue;
		*out = at;
		return TRAWL_OK;
	}
	return none(err, "no return found", ev);
}

enum trawl_status trawl_callhop_call(const struct trawl_index *ix, uint64_t ev, uint64_t *out,
				     struct trawl_error *err)
{
	struct trawl_index_event e, p, c;
	if (!get(ix, ev, &e) || e.kind != TRAWL_EV_INSN || !ev || !get(ix, ev - 1, &p) ||
	    p.cpu != e.cpu || p.depth <= e.depth)
		return none(err, "is not a return point", ev);
	/* BL and 32-bit BLX are 4 bytes before the return address, 16-bit BLX 2 */
	for (uint64_t w = 4; w >= 2; w -= 2) {
		uint64_t at = ev, back;
		for (int i = 0; i < MAX_VISITS; i++) {
			if (trawl_index_pc_step(ix, e.pc - w, at, -1, &at, NULL) || !get(ix, at, &c))
				break;
			if (c.cpu != e.cpu || c.depth > e.depth)
				continue;
			if (c.depth == e.depth && makes_call(ix, at, &c) &&
			    trawl_callhop_return(ix, at, &back, NULL) == TRAWL_OK && back == ev) {
				*out = at;
				return TRAWL_OK;
			}
			break;
		}
	}
	return none(err, "call not found", ev);
}

/* Scans look at the stop flag this often (a signal ends a long one). */
#define CHECK_EVERY 65536

static int stopped(trawl_callhop_stop_fn stop, void *stop_ctx, uint64_t i)
{
	return stop && i % CHECK_EVERY == 0 && *stop;
}

enum trawl_status trawl_callhop_step_over(const struct trawl_index *ix, uint64_t ev, int dir,
					  trawl_callhop_stop_fn stop, void *stop_ctx, uint64_t *out,
					  struct trawl_error *err)
{
	struct trawl_index_event cur, e;
	uint64_t n = trawl_index_event_count(ix), i = ev;
	if (!get(ix, ev, &cur))
		return none(err, "no such event", ev);
	if ((dir > 0 ? trawl_callhop_return(ix, ev, out, NULL)
		     : trawl_callhop_call(ix, ev, out, NULL)) == TRAWL_OK)
		return TRAWL_OK;
	while (dir > 0 ? i + 1 < n : i > 0) {
		i = dir > 0 ? i + 1 : i - 1;
		if (!get(ix, i, &e))
			break;
		if (e.cpu == cur.cpu && e.depth <= cur.depth) {
			*out = i;
			return TRAWL_OK;
		}
		if (stopped(stop, stop_ctx, i))
			break;
	}
	return none(err, dir > 0 ? "no later event at this depth" : "no earlier event at this depth",
		    ev);
}

/* Walk forward at the current level, hopping over each call by its return,
 * until the depth drops; scan when a hop fails (a call whose return was not
 * found) or other CPUs' events interleave. */
enum trawl_status trawl_callhop_step_out(const struct trawl_index *ix, uint64_t ev,
					 unsigned ncpus, trawl_callhop_stop_fn stop, void *stop_ctx,
					 uint64_t *out, struct trawl_error *err)
{
	struct trawl_index_event cur, e;
	uint64_t n = trawl_index_event_count(ix), i = ev, hops = 0;
	if (!get(ix, ev, &cur))
		return none(err, "no such event", ev);
	while (ncpus == 1 && i + 1 < n && !(stop && stop(stop_ctx))) {
		uint64_t nx;
		if (trawl_callhop_return(ix, i, &nx, NULL))
			nx = i + 1;
		if (!get(ix, nx, &e))
			break;
		if (e.depth < cur.depth) {
			*out = nx;
			return TRAWL_OK;
		}
		if (e.depth > cur.depth)
			break;
		i = nx;
		if (++hops > (1u << 20))
			break;
	}
	for (i = i + 1; i < n; i++) {
		if (!get(ix, i, &e))
			break;
		if (e.cpu == cur.cpu && e.depth < cur.depth) {
			*out = i;
			return TRAWL_OK;
		}
		if (stopped(stop, stop_ctx, i))
			break;
	}
	return none(err, "no return from this function in the trace", ev);
}
