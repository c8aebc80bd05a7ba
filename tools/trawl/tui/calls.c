/* Jumping over whole calls in O(log n) instead of scanning every event of
 * the callee: the index records call depth per event and every visit of
 * every PC, so the end of a call made by the instruction at `pc` is the
 * first later visit of the return address (pc + its width) at the caller's
 * depth on the same CPU, and the call that a return point ends is the last
 * earlier visit of (return address - width) at that depth.
 *
 * Recursion makes the return address recur at deeper levels first; those
 * visits are stepped over one by one (each a binary search in the index).
 * When the shortcut finds nothing sound (no return in the trace, a longjmp,
 * an interleaved second CPU), callers fall back to scanning events.
 */
#include "tui/browser.h"

/* Visits looked at before giving up on the shortcut. */
#define MAX_VISITS 100000

static int get(const struct browser *b, uint64_t ev, struct trawl_index_event *e)
{
	return ev < b->nev && trawl_index_event(b->ix, ev, e, NULL) == TRAWL_OK;
}

/* Does the event after `ev` go deeper on the same CPU (ev made a call)? */
static int makes_call(const struct browser *b, uint64_t ev, const struct trawl_index_event *e)
{
	struct trawl_index_event n;
	return get(b, ev + 1, &n) && n.cpu == e->cpu && n.depth > e->depth;
}

uint64_t calls_return_of(const struct browser *b, uint64_t ev)
{
	struct trawl_index_event e, r;
	if (!get(b, ev, &e) || e.kind != TRAWL_EV_INSN || !makes_call(b, ev, &e))
		return NO_EVENT;
	uint64_t ret = e.pc + (e.width ? e.width : 4), at = ev;
	for (int i = 0; i < MAX_VISITS; i++) {
		if (trawl_index_pc_step(b->ix, ret, at, 1, &at, NULL))
			return NO_EVENT;
		if (!get(b, at, &r))
			return NO_EVENT;
		if (r.cpu != e.cpu || r.depth > e.depth)
			continue;       /* a deeper level of a recursion returning */
		return r.depth == e.depth ? at : NO_EVENT;
	}
	return NO_EVENT;
}

uint64_t calls_call_of(const struct browser *b, uint64_t ev)
{
	struct trawl_index_event e, p, c;
	if (!get(b, ev, &e) || e.kind != TRAWL_EV_INSN || !ev || !get(b, ev - 1, &p) ||
	    p.cpu != e.cpu || p.depth <= e.depth)
		return NO_EVENT;
	/* BL and 32-bit BLX are 4 bytes before the return address, 16-bit BLX 2 */
	for (uint64_t w = 4; w >= 2; w -= 2) {
		uint64_t at = ev;
		for (int i = 0; i < MAX_VISITS; i++) {
			if (trawl_index_pc_step(b->ix, e.pc - w, at, -1, &at, NULL) || !get(b, at, &c))
				break;
			if (c.cpu != e.cpu || c.depth > e.depth)
				continue;
			if (c.depth == e.depth && makes_call(b, at, &c) &&
			    calls_return_of(b, at) == ev)
				return at;
			break;
		}
	}
	return NO_EVENT;
}
