/* Stuck-loop detection for `trawl truncate` (see include/trawl/stuck.h).
 *
 * Each instruction event is reduced to a hash of everything it did (PC,
 * encoding, every register write and memory access with its bytes). For
 * each period p up to max_period we count how many instructions in a row
 * equal the one p before them; a count of p * (repeats - 1) that lasts to
 * the last instruction means the trace ends in a loop of p instructions.
 * Other events (text lines, markers) neither break nor extend a loop.
 */
#include "trawl/stuck.h"

#include <stdlib.h>
#include <string.h>

struct period {
	uint64_t count;          /* instructions in a row equal to the one p earlier */
	uint64_t cut_offset, cut_line, loop_line;
};

struct trawl_stuck {
	unsigned maxp, repeats;
	uint64_t *hash;          /* ring of the last maxp + 1 hashes */
	uint64_t *line;
	struct period *per;      /* per[p], p = 1..maxp */
	uint64_t n;              /* instructions seen */
	uint64_t prev_end, prev_line;
};

enum trawl_status trawl_stuck_create(struct trawl_stuck **out, unsigned max_period,
				     unsigned min_repeats, struct trawl_error *err)
{
	struct trawl_stuck *s = calloc(1, sizeof *s);
	if (!s)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	s->maxp = max_period ? max_period : 64;
	s->repeats = min_repeats ? min_repeats : 4;
	if (s->maxp > 4096 || s->repeats < 2) {
		free(s);
		return trawl_error_set(err, TRAWL_ERR_USAGE,
				       "loop period must be at most 4096 and repeats at least 2");
	}
	s->hash = calloc(s->maxp + 1, sizeof *s->hash);
	s->line = calloc(s->maxp + 1, sizeof *s->line);
	s->per = calloc(s->maxp + 1, sizeof *s->per);
	if (!s->hash || !s->line || !s->per) {
		trawl_stuck_destroy(s);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	*out = s;
	return TRAWL_OK;
}

void trawl_stuck_destroy(struct trawl_stuck *s)
{
	if (!s)
		return;
	free(s->hash);
	free(s->line);
	free(s->per);
	free(s);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t mix_bytes(uint64_t h, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return mix(h, n);
}

static uint64_t event_hash(const struct trawl_event *ev, const struct trawl_event_batch *b)
{
	uint64_t h = mix(0x12345, ev->u.insn.pc);
	h = mix(h, ev->u.insn.encoding);
	h = mix(h, ev->flags & (TRAWL_EVF_CCFAIL | TRAWL_EVF_FETCH_FAIL));
	for (uint32_t i = 0; i < ev->nregs; i++) {
		const struct trawl_reg_write *w = &b->regs[ev->first_reg + i];
		h = mix(h, ((uint64_t)w->reg << 32) | ((uint64_t)w->offset << 16) | w->size);
		h = mix_bytes(h, b->pool + w->value, w->size);
	}
	for (uint32_t i = 0; i < ev->nmems; i++) {
		const struct trawl_mem_access *m = &b->mems[ev->first_mem + i];
		h = mix(h, m->addr);
		h = mix(h, ((uint64_t)m->flags << 32) | m->size);
		if (!(m->flags & TRAWL_MEM_ABORTED))
			h = mix_bytes(h, b->pool + m->value, m->size);
	}
	return h;
}

void trawl_stuck_add(struct trawl_stuck *s, const struct trawl_event_batch *b)
{
	unsigned ring = s->maxp + 1;
	for (size_t i = 0; i < b->count; i++) {
		const struct trawl_event *ev = &b->events[i];
		if (ev->kind != TRAWL_EV_INSN)
			continue;
		uint64_t h = event_hash(ev, b);
		unsigned top = s->n < s->maxp ? (unsigned)s->n : s->maxp;
		for (unsigned p = 1; p <= top; p++) {
			unsigned k = (unsigned)((s->n - p) % ring);
			struct period *pp = &s->per[p];
			if (s->hash[k] == h) {
				if (pp->count == 0) { /* a loop may start p instructions back */
					pp->cut_offset = s->prev_end;
					pp->cut_line = s->prev_line;
					pp->loop_line = s->line[k];
				}
				pp->count++;
			} else {
				pp->count = 0;
			}
		}
		unsigned k = (unsigned)(s->n % ring);
		s->hash[k] = h;
		s->line[k] = ev->line;
		s->n++;
		s->prev_end = ev->offset + ev->length;
		s->prev_line = ev->line;
	}
}

void trawl_stuck_result(const struct trawl_stuck *s, struct trawl_stuck_result *r)
{
	memset(r, 0, sizeof *r);
	for (unsigned p = 1; p <= s->maxp && p <= s->n; p++) {
		const struct period *pp = &s->per[p];
		if (pp->count >= (uint64_t)p * (s->repeats - 1)) {
			r->stuck = 1;
			r->period = p;
			r->repeats = 1 + pp->count / p;
			r->loop_line = pp->loop_line;
			r->cut_line = pp->cut_line;
			r->cut_offset = pp->cut_offset;
			return;
		}
	}
}
