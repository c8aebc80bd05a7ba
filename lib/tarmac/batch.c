/* Tarmac parser state, the batch being built, and event grouping.
 *
 * The line parser (parse.c) appends register writes and memory accesses at
 * the tail of the batch arrays and then asks this file to attach them to
 * the event in progress or to open a new one. The event in progress always
 * sits just after the completed events, and its effects at the tail of the
 * arrays, so handing a batch out and starting the next one only has to move
 * that one event to the front.
 */
#include "tarmac/tarmac-int.h"
#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_BATCH 4096u

enum trawl_status trawl_tarmac_create(struct trawl_tarmac **out, const char *file,
				      const struct trawl_reader_options *opt,
				      struct trawl_error *err)
{
	struct trawl_tarmac *t = calloc(1, sizeof *t);
	if (!t)
		goto nomem;
	if (opt)
		t->opt = *opt;
	if (!t->opt.batch_events)
		t->opt.batch_events = DEFAULT_BATCH;
	t->file = strdup(file ? file : "-");
	if (!t->file)
		goto nomem;
	trawl_reg_names_init(&t->sysregs);
	t->fast_unit_ps = 1;
	*out = t;
	return TRAWL_OK;
nomem:
	free(t);
	return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory creating the Tarmac parser");
}

void trawl_tarmac_destroy(struct trawl_tarmac *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nwarned; i++)
		free(t->warned[i]);
	trawl_reg_names_release(&t->sysregs);
	free(t->ev);
	free(t->regs);
	free(t->mems);
	free(t->pool);
	free(t->carry);
	free(t->file);
	free(t);
}

/* ---- growth ---- */

int tarmac_reserve_regs(struct trawl_tarmac *t, size_t n)
{
	return trawl_grow((void **)&t->regs, &t->regs_cap, t->nregs + n, sizeof *t->regs);
}

int tarmac_reserve_mems(struct trawl_tarmac *t, size_t n)
{
	return trawl_grow((void **)&t->mems, &t->mems_cap, t->nmems + n, sizeof *t->mems);
}

/* Room for n more pool bytes; returns the offset or UINT32_MAX. Offsets are
 * 32-bit in the event model, so a batch's pool stays below 4 GiB. */
uint32_t tarmac_pool_alloc(struct trawl_tarmac *t, size_t n)
{
	if (t->pool_len + n >= UINT32_MAX - 1)
		return UINT32_MAX;
	if (!trawl_grow((void **)&t->pool, &t->pool_cap, t->pool_len + n, 1))
		return UINT32_MAX;
	uint32_t off = (uint32_t)t->pool_len;
	t->pool_len += n;
	return off;
}

int tarmac_grow_events(struct trawl_tarmac *t)
{
	return trawl_grow((void **)&t->ev, &t->ev_cap, t->nev + 2, sizeof *t->ev);
}

/* ---- starting and closing events ---- */

/* Room for the event at nev and one more. */
static inline int reserve_event(struct trawl_tarmac *t)
{
	return t->nev + 2 <= t->ev_cap || tarmac_grow_events(t);
}

static inline void close_open(struct trawl_tarmac *t)
{
	if (!t->open)
		return;
	t->open = 0;
	t->nev++;
	t->stats.events++;
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline struct trawl_event *new_event(struct trawl_tarmac *t,
						   const struct tarmac_line *ln,
						   enum trawl_event_kind kind)
{
	struct trawl_event *e = &t->ev[t->nev];
	tarmac_event_zero(e);
	e->seq = t->seq++;
	e->line = ln->lineno;
	e->nlines = 1;
	e->kind = (uint16_t)kind;
	e->flags = ln->has_time ? TRAWL_EVF_HAS_TIME : 0;
	e->offset = ln->offset;
	e->length = ln->len;
	e->time = ln->time;
	e->time_unit = ln->unit;
	e->cpu = ln->cpu;
	e->first_reg = (uint32_t)t->nregs;
	e->first_mem = (uint32_t)t->nmems;
	return e;
}

/* Start an event for this line; INSN events stay open for effects. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline struct trawl_event *begin_event(struct trawl_tarmac *t,
							    const struct tarmac_line *ln,
							    enum trawl_event_kind kind)
{
	close_open(t);
	if (!reserve_event(t))
		return NULL;
	struct trawl_event *e = new_event(t, ln, kind);
	if (kind == TRAWL_EV_INSN) {
		t->open = 1;
		t->open_pool = t->pool_len;
		t->open_detached = 0;
	} else {
		t->nev++;
		t->stats.events++;
	}
	return e;
}

/* ---- handing batches out ---- */

/* Move the event in progress (and its effects and pool bytes) to the front
 * after a batch was taken. Deferred to the next mutating call so that the
 * taken batch stays valid until then. */
void tarmac_compact(struct trawl_tarmac *t)
{
	if (!t->taken)
		return;
	t->taken = 0;
	if (!t->open) {
		t->nev = 0;
		t->nregs = t->nmems = t->pool_len = 0;
		return;
	}
	struct trawl_event *e = &t->ev[t->nev];
	size_t pstart = t->open_pool;
	size_t plen = t->pool_len - pstart;
	if (pstart)
		memmove(t->pool, t->pool + pstart, plen);
	if (e->first_reg) {
		memmove(t->regs, t->regs + e->first_reg, e->nregs * sizeof *t->regs);
	}
	for (uint32_t i = 0; i < e->nregs; i++) {
		t->regs[i].value -= (uint32_t)pstart;
		if (t->regs[i].known != TRAWL_ALL_KNOWN)
			t->regs[i].known -= (uint32_t)pstart;
	}
	if (e->first_mem)
		memmove(t->mems, t->mems + e->first_mem, e->nmems * sizeof *t->mems);
	for (uint32_t i = 0; i < e->nmems; i++) {
		t->mems[i].value -= (uint32_t)pstart;
		if (t->mems[i].known != TRAWL_ALL_KNOWN)
			t->mems[i].known -= (uint32_t)pstart;
	}
	t->nregs = e->nregs;
	t->nmems = e->nmems;
	e->first_reg = e->first_mem = 0;
	t->pool_len = plen;
	t->open_pool = 0;
	if (t->nev)
		t->ev[0] = *e;
	t->nev = 0;
}

static void fill_batch(const struct trawl_tarmac *t, struct trawl_event_batch *b, size_t n)
{
	b->events = t->ev;
	b->count = n;
	b->regs = t->regs;
	b->mems = t->mems;
	b->pool = t->pool;
	b->sysregs = t->sysregs.count ? &t->sysregs : NULL;
}

void trawl_tarmac_peek(const struct trawl_tarmac *t, struct trawl_event_batch *batch)
{
	fill_batch(t, batch, t->taken ? t->nev : t->nev + (size_t)t->open);
}

size_t trawl_tarmac_completed(const struct trawl_tarmac *t)
{
	return t->taken ? 0 : t->nev;
}

void trawl_tarmac_take(struct trawl_tarmac *t, struct trawl_event_batch *batch)
{
	tarmac_compact(t);
	fill_batch(t, batch, t->nev);
	t->taken = 1;
}

/* The strings of the in-progress instruction point into the input buffer;
 * copy them into `carry` before that buffer is reused. Events already
 * handed out never point into carry again, so one buffer is enough. */
enum trawl_status trawl_tarmac_detach_text(struct trawl_tarmac *t, struct trawl_error *err)
{
	tarmac_compact(t);
	if (!t->open)
		return TRAWL_OK;
	struct trawl_event *e = &t->ev[t->nev];
	if (e->kind != TRAWL_EV_INSN)
		return TRAWL_OK;
	struct trawl_str *m = &e->u.insn.mode, *d = &e->u.insn.disasm;
	size_t need = (size_t)m->len + d->len;
	if (!need || t->open_detached)
		return TRAWL_OK;
	if (need > t->carry_cap) {
		char *c = malloc(need);
		if (!c)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		free(t->carry);
		t->carry = c;
		t->carry_cap = need;
	}
	memcpy(t->carry, m->ptr, m->len);
	memcpy(t->carry + m->len, d->ptr, d->len);
	m->ptr = t->carry;
	d->ptr = t->carry + m->len;
	t->open_detached = 1; /* an event spanning 3 chunks is copied once */
	return TRAWL_OK;
}

/* ---- event grouping ---- */

/* A memory write on an instruction whose encoding cannot store is not
 * dropped (the trace said it; the reader does not second-guess values),
 * only counted for the one warning trawl_tarmac_finish gives. */
static void check_writes(struct trawl_tarmac *t, const struct trawl_event *e,
			 const struct tarmac_line *ln, size_t m0)
{
	for (size_t i = m0; i < t->nmems; i++) {
		uint32_t f = t->mems[i].flags;
		if (!(f & TRAWL_MEM_WRITE) || (f & TRAWL_MEM_FETCH) ||
		    tarmac_insn_may_store(e->u.insn.encoding, e->u.insn.iset, e->u.insn.width))
			continue;
		if (!t->odd_writes++)
			t->odd_first_line = ln->lineno;
	}
}

static void warn_odd_writes(struct trawl_tarmac *t)
{
	if (!t->odd_writes || !t->opt.warn)
		return;
	struct trawl_error w;
	trawl_error_clear(&w);
	trawl_error_set(&w, TRAWL_ERR_FORMAT,
			"%llu memory write%s logged on instructions that cannot store (loads and "
			"other non-store encodings; first at line %llu): kept as the trace gives them",
			(unsigned long long)t->odd_writes, t->odd_writes == 1 ? "" : "s",
			(unsigned long long)t->odd_first_line);
	trawl_error_at(&w, t->file, t->odd_first_line, 0, 0);
	t->opt.warn(t->opt.warn_ctx, &w);
	t->odd_writes = 0; /* once */
}

void trawl_tarmac_finish(struct trawl_tarmac *t)
{
	tarmac_compact(t);
	close_open(t);
	warn_odd_writes(t);
}

struct trawl_event *tarmac_begin_event(struct trawl_tarmac *t, const struct tarmac_line *ln,
				       enum trawl_event_kind kind)
{
	return begin_event(t, ln, kind);
}

/* An instruction line's event: 0, or -2 out of memory (parse.c's E_NOMEM). */
int tarmac_commit_insn(struct trawl_tarmac *t, const struct tarmac_line *ln,
		       const struct tarmac_insn *in)
{
	struct trawl_event *e = begin_event(t, ln, TRAWL_EV_INSN);
	if (!e)
		return -2;
	e->flags |= in->flags;
	e->u.insn.pc = in->pc;
	e->u.insn.paddr = in->paddr;
	e->u.insn.encoding = in->enc;
	e->u.insn.width = in->width;
	e->u.insn.iset = in->iset;
	e->u.insn.el = in->el;
	e->u.insn.mode = in->mode;
	e->u.insn.disasm = in->disasm;
	t->cpu_iset[ln->cpu] = in->iset;
	return 0;
}

/* Partial parsing: drop the effects this line appended that the consumer
 * did not ask for. The fast path never parses most of them; this catches
 * the lines the general grammar took. */
static void filter_effects(struct trawl_tarmac *t, size_t r0, size_t m0)
{
	if (!(t->opt.want & TRAWL_WANT_FILTER))
		return;
	if (!(t->opt.want & TRAWL_WANT_MEMS))
		t->nmems = m0;
	size_t k = r0;
	for (size_t i = r0; i < t->nregs; i++)
		if (tarmac_want_reg(t, t->regs[i].reg))
			t->regs[k++] = t->regs[i];
	t->nregs = k;
}

/* Attach the effects this line appended (from regs index r0 / mems m0 /
 * pool p0 on) to the open event, or open a STATE event for them. */
int tarmac_attach_effects(struct trawl_tarmac *t, const struct tarmac_line *ln, size_t r0,
			  size_t m0, size_t p0)
{
	filter_effects(t, r0, m0);
	struct trawl_event *e = t->open ? &t->ev[t->nev] : NULL;
	if (e && e->cpu == ln->cpu && e->time == ln->time && e->time_unit == ln->unit) {
		if (e->kind == TRAWL_EV_INSN && (e->flags & TRAWL_EVF_HAS_ENCODING))
			check_writes(t, e, ln, m0);
		e->nregs += (uint32_t)(t->nregs - r0);
		e->nmems += (uint32_t)(t->nmems - m0);
		e->nlines = (uint32_t)(ln->lineno - e->line + 1);
		e->length = ln->offset + ln->len - e->offset;
		return 1;
	}
	close_open(t);
	if (!reserve_event(t))
		return 0;
	e = new_event(t, ln, TRAWL_EV_STATE);
	e->first_reg = (uint32_t)r0;
	e->first_mem = (uint32_t)m0;
	e->nregs = (uint32_t)(t->nregs - r0);
	e->nmems = (uint32_t)(t->nmems - m0);
	t->open = 1;
	t->open_pool = p0;
	return 1;
}

const struct trawl_reader_stats *trawl_tarmac_stats(const struct trawl_tarmac *t)
{
	return &t->stats;
}

/* Warn once per unknown record type (through the options' callback). */
void tarmac_warn_type(struct trawl_tarmac *t, const struct tarmac_line *ln, const char *type,
		      size_t n)
{
	for (size_t i = 0; i < t->nwarned; i++)
		if (strlen(t->warned[i]) == n && memcmp(t->warned[i], type, n) == 0)
			return;
	if (t->nwarned < TARMAC_MAX_WARNED) {
		char *s = malloc(n + 1);
		if (!s)
			return;
		memcpy(s, type, n);
		s[n] = 0;
		t->warned[t->nwarned++] = s;
	}
	if (!t->opt.warn)
		return;
	struct trawl_error w;
	trawl_error_clear(&w);
	trawl_error_set(&w, TRAWL_ERR_FORMAT,
			"unknown Tarmac record type '%.*s' kept as text (warned once)",
			(int)(n > 64 ? 64 : n), type);
	trawl_error_at(&w, t->file, ln->lineno, (uint32_t)(type - ln->text) + 1, ln->offset);
	trawl_error_excerpt(&w, ln->text, ln->len);
	t->opt.warn(t->opt.warn_ctx, &w);
}
