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
