/* Stuck-loop detection for `trawl truncate` (see include/trawl/stuck.h).
 *
 * Each step (instruction, exception, state event, exception-reason line)
 * is reduced to a hash of everything it did. For each period p up to
 * max_period we count how many steps in a row equal the one p before them;
 * when that count reaches p * (repeats - 1), `repeats` identical turns have
 * been seen and the loop is certain. The count only looks back, so the
 * answer for a prefix of the trace never changes when more is read: that
 * is what lets `truncate` stop reading a pipe, and makes a pipe and a file
 * agree.
 *
 * Where to cut. A run for period p starts at the first step that equals
 * the one p earlier: the second turn. Cutting there could separate a
 * faulting instruction from its exception and register lines (when the
 * steps before the loop happen to end like its turn does), so the cut moves
 * on to the first step of the highest rank the turn holds — an instruction;
 * in a loop without one an exception-reason line; else an exception. What
 * is kept is then the turn that ends just before that step, with every line
 * of its last instruction.
 */
#include "trawl/stuck.h"

#include <stdlib.h>
#include <string.h>

enum { RANK_OTHER, RANK_EXCEPTION, RANK_REASON, RANK_INSN };

struct period {
	uint64_t count;          /* steps in a row equal to the one p earlier */
	uint64_t run_offset;     /* where the run's second turn starts */
	int head_rank;           /* best rank among its first p steps */
	uint64_t head_offset, head_line, loop_line;
	unsigned insns, exceptions, reasons;
};

struct trawl_stuck {
	unsigned maxp, repeats;
	uint64_t *hash;          /* ring of the last maxp + 1 step hashes */
	uint64_t *line;          /* and their first lines */
	struct period *per;      /* per[p], p = 1..maxp */
	uint64_t n;              /* steps seen */
	uint64_t end;            /* end of the last event seen */
	int done;
	int follow;              /* after a certain loop, go on reading: a loop
				  * the trace leaves is forgotten */
	int leaving;             /* following, one step broke the loop: it is
				  * left only if another step follows */
	struct trawl_stuck_result res;
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

static uint64_t mix_str(uint64_t h, struct trawl_str s)
{
	return mix_bytes(h, (const uint8_t *)s.ptr, s.len);
}

/* Unknown bytes ('x' digits) differ from known ones of any value. */
static uint64_t mix_known(uint64_t h, const uint8_t *pool, uint32_t known, uint32_t size)
{
	if (known == TRAWL_ALL_KNOWN)
		return mix(h, 1);
	return mix_bytes(h, pool + known, (size + 7) / 8);
}

static uint64_t effects_hash(uint64_t h, const struct trawl_event *ev,
			     const struct trawl_event_batch *b)
{
	for (uint32_t i = 0; i < ev->nregs; i++) {
		const struct trawl_reg_write *w = &b->regs[ev->first_reg + i];
		h = mix(h, ((uint64_t)w->reg << 32) | ((uint64_t)w->offset << 16) | w->size);
		h = mix(h, w->zext);
		h = mix_bytes(h, b->pool + w->value, w->size);
		h = mix_known(h, b->pool, w->known, w->size);
	}
	for (uint32_t i = 0; i < ev->nmems; i++) {
		const struct trawl_mem_access *m = &b->mems[ev->first_mem + i];
		h = mix(h, m->addr);
		h = mix(h, ((uint64_t)m->flags << 32) | m->size);
		if (!(m->flags & TRAWL_MEM_ABORTED)) {
			h = mix_bytes(h, b->pool + m->value, m->size);
			h = mix_known(h, b->pool, m->known, m->size);
		}
	}
	return h;
}

static uint64_t step_hash(const struct trawl_event *ev, const struct trawl_event_batch *b)
{
	uint64_t h = mix(0x12345, ((uint64_t)ev->kind << 16) | ev->cpu);
	switch (ev->kind) {
	case TRAWL_EV_INSN:
		h = mix(h, ev->u.insn.pc);
		h = mix(h, ev->u.insn.encoding);
		h = mix(h, ev->flags & (TRAWL_EVF_CCFAIL | TRAWL_EVF_FETCH_FAIL));
		break;
	case TRAWL_EV_EXCEPTION:
	case TRAWL_EV_EXC_RETURN:
		h = mix_str(h, ev->u.exc.name);
		h = mix(h, ev->u.exc.target);
		h = mix(h, ev->u.exc.ret_addr);
		h = mix(h, ev->u.exc.number);
		break;
	case TRAWL_EV_TEXT:
		h = mix_str(h, ev->u.text.text);
		break;
	default:
		break;
	}
	return effects_hash(h, ev, b);
}

/* Fast Models' "INFO_EXCEPTION_REASON" lines say why an exception was
 * taken; a core in lockup repeats one with no instruction between. */
static int is_reason(const struct trawl_event *ev)
{
	static const char word[] = "INFO_EXCEPTION_REASON";
	return ev->kind == TRAWL_EV_TEXT && ev->u.text.type.len == sizeof word - 1 &&
	       !memcmp(ev->u.text.type.ptr, word, sizeof word - 1);
}

static int step_rank(const struct trawl_event *ev)
{
	if (ev->kind == TRAWL_EV_INSN)
		return RANK_INSN;
	if (is_reason(ev))
		return RANK_REASON;
	if (ev->kind == TRAWL_EV_EXCEPTION || ev->kind == TRAWL_EV_EXC_RETURN)
		return RANK_EXCEPTION;
	return RANK_OTHER;
}

/* The run for period pp has reached this step (its count-th): the first p
 * steps of a run are its second turn, which tells where to cut. */
static void run_step(struct period *pp, unsigned p, const struct trawl_event *ev,
		     uint64_t loop_line)
{
	if (pp->count == 0) {
		pp->run_offset = ev->offset;
		pp->head_rank = -1;
		pp->insns = pp->exceptions = pp->reasons = 0;
	}
	if (pp->count < p) {
		int rank = step_rank(ev);
		if (rank > pp->head_rank) {
			pp->head_rank = rank;
			pp->head_offset = ev->offset;
			pp->head_line = ev->line;
			pp->loop_line = loop_line;
		}
		pp->insns += rank == RANK_INSN;
		pp->reasons += rank == RANK_REASON;
		pp->exceptions += ev->kind == TRAWL_EV_EXCEPTION || ev->kind == TRAWL_EV_EXC_RETURN;
	}
	pp->count++;
}

static void certain(struct trawl_stuck *s, unsigned p)
{
	const struct period *pp = &s->per[p];
	if (s->done)
		return; /* following: the first certain point of the loop stays */
	struct trawl_stuck_result *r = &s->res;
	r->stuck = 1;
	r->period = p;
	r->insns = pp->insns;
	r->exceptions = pp->exceptions;
	r->reasons = pp->reasons;
	r->repeats = 1 + pp->count / p;
	r->loop_line = pp->loop_line;
	r->cut_offset = pp->head_offset;
	r->cut_line = pp->head_line ? pp->head_line - 1 : 0;
	s->done = 1;
}

/* One step: compare it with the step p earlier for every p. */
static void add_step(struct trawl_stuck *s, const struct trawl_event *ev,
		     const struct trawl_event_batch *b)
{
	unsigned ring = s->maxp + 1;
	uint64_t h = step_hash(ev, b);
	unsigned top = s->n < s->maxp ? (unsigned)s->n : s->maxp;
	unsigned found = 0;
	uint64_t threshold = s->repeats - 1;
	for (unsigned p = 1; p <= top; p++) {
		unsigned k = (unsigned)((s->n - p) % ring);
		struct period *pp = &s->per[p];
		if (s->hash[k] != h) {
			pp->count = 0;
			continue;
		}
		run_step(pp, p, ev, s->line[k]);
		if (!found && pp->count >= threshold * p)
			found = p;
	}
	unsigned k = (unsigned)(s->n % ring);
	s->hash[k] = h;
	s->line[k] = ev->line;
	s->n++;
	if (s->done && s->leaving) {
		/* a step after the one that broke the loop: the trace left it,
		 * so it was not stuck there */
		s->done = 0;
		s->leaving = 0;
		memset(&s->res, 0, sizeof s->res);
	} else if (s->done && s->per[s->res.period].count == 0) {
		/* the last event of a file a simulator was killed in may lack
		 * the lines that would have made it equal: wait for one more */
		s->leaving = 1;
	}
	if (found)
		certain(s, found);
}

void trawl_stuck_follow(struct trawl_stuck *s)
{
	s->follow = 1;
}

int trawl_stuck_add(struct trawl_stuck *s, const struct trawl_event_batch *b)
{
	for (size_t i = 0; i < b->count && (!s->done || s->follow); i++) {
		const struct trawl_event *ev = &b->events[i];
		if (ev->kind == TRAWL_EV_GAP) { /* lost trace: no loop spans it */
			for (unsigned p = 1; p <= s->maxp; p++)
				s->per[p].count = 0;
			s->n = 0;
		} else if (s->done && (ev->flags & TRAWL_EVF_TRUNCATED)) {
			/* following a certain loop, the event the end of the input
			 * cut off (its last lines unknown) does not leave it */
		} else if (ev->kind != TRAWL_EV_TEXT || is_reason(ev)) {
			add_step(s, ev, b);
		}
		s->end = ev->offset + ev->length;
	}
	return s->done;
}

uint64_t trawl_stuck_safe_offset(const struct trawl_stuck *s)
{
	if (s->done)
		return s->res.cut_offset;
	uint64_t safe = s->end;
	for (unsigned p = 1; p <= s->maxp; p++)
		if (s->per[p].count && s->per[p].run_offset < safe)
			safe = s->per[p].run_offset;
	return safe;
}

void trawl_stuck_result(const struct trawl_stuck *s, struct trawl_stuck_result *r)
{
	if (s->done)
		*r = s->res;
	else
		memset(r, 0, sizeof *r);
}
