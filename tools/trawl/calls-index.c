/* calltree/profile/... --use-index: the call detector fed from the time-
 * travel index instead of the trace text, with what the detector reads
 * from the text (SP and link-register writes, exception names) recovered
 * from the index and, for exception names, the event's own text line. */
#include "calls-cli.h"

#include "trawl/index.h"
#include "trawl/tarmac.h"
#include "trawl/text.h"
#include "core/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The register writes of one batch of index events, gathered for the
 * detector: SP, X14 and X30 only, what it reads (track_regs). */
struct reg_batch {
	struct trawl_event *evs;
	uint64_t first;                 /* event number of evs[0] */
	struct trawl_reg_write *regs;
	size_t nregs, cap;
	uint8_t *pool;
	size_t used, pool_cap;
	int nomem;
};

static int add_reg_write(void *ctx, uint64_t ev, uint16_t cpu, const struct trawl_reg_write *w,
			 const uint8_t *pool)
{
	struct reg_batch *rb = ctx;
	(void)cpu;
	size_t bytes = w->size + (w->known == TRAWL_ALL_KNOWN ? 0 : (w->size + 7u) / 8u);
	if (!trawl_grow((void **)&rb->regs, &rb->cap, rb->nregs + 1, sizeof *rb->regs) ||
	    !trawl_grow((void **)&rb->pool, &rb->pool_cap, rb->used + bytes, 1)) {
		rb->nomem = 1;
		return 1;
	}
	struct trawl_event *e = &rb->evs[ev - rb->first];
	if (!e->nregs)
		e->first_reg = (uint32_t)rb->nregs;
	e->nregs++;
	struct trawl_reg_write *o = &rb->regs[rb->nregs++];
	*o = *w;
	o->value = (uint32_t)rb->used;
	memcpy(rb->pool + rb->used, pool + w->value, w->size);
	if (w->known != TRAWL_ALL_KNOWN) {
		o->known = (uint32_t)(rb->used + w->size);
		memcpy(rb->pool + o->known, pool + w->known, (w->size + 7u) / 8u);
	}
	rb->used += bytes;
	return 0;
}

/* Exception names: the index keeps an exception's flags but not its name
 * ("CoreEvent_IRQ"), which the tree shows; it is read back from the
 * event's line in the trace text (plain or compressed, trawl_text), parsed
 * by the Tarmac parser. Exceptions are rare, so one small read and a fresh
 * parser each is cheap. A trace whose text cannot be read or is not Tarmac
 * keeps the nameless "[exception]". */
struct exc_names {
	struct trawl_text *text;
	int tried;
	char buf[64 * 1024];            /* names of one batch, back to back */
	size_t used;
};

/* Names are copied into a per-batch buffer because the parser's text goes
 * away with it; a name that does not fit is left out, not cut. */
static void exc_name(struct exc_names *xn, const struct trawl_reader_options *opt,
		     const char *path, const struct trawl_index_event *e, struct trawl_event *ev)
{
	const char *line;
	size_t n;
	if (!xn->tried) {
		xn->tried = 1;
		if (trawl_text_open(&xn->text, path, NULL, NULL))
			xn->text = NULL;
	}
	if (!xn->text || trawl_text_line(xn->text, e->offset, 4096, &line, &n, NULL))
		return;
	struct trawl_tarmac *t;
	struct trawl_error err;
	if (trawl_tarmac_create(&t, path, opt, &err) != TRAWL_OK)
		return;
	struct trawl_event_batch b;
	if (trawl_tarmac_parse_line(t, line, n, e->offset, &err) == TRAWL_OK) {
		trawl_tarmac_finish(t);
		trawl_tarmac_peek(t, &b);
		for (size_t i = 0; i < b.count; i++) {
			const struct trawl_str *nm = &b.events[i].u.exc.name;
			if (b.events[i].kind != TRAWL_EV_EXCEPTION || !nm->ptr ||
			    nm->len > sizeof xn->buf - xn->used)
				continue;
			memcpy(xn->buf + xn->used, nm->ptr, nm->len);
			ev->u.exc = b.events[i].u.exc;
			ev->u.exc.name.ptr = xn->buf + xn->used;
			xn->used += nm->len;
			break;
		}
	}
	trawl_tarmac_destroy(t);
}

/* The fast path: events as the index keeps them (PC, encoding, line,
 * time, CPU, kind, flags) with their SP and link-register writes from the
 * index's delta log, in batches, through the same detector, so the trees
 * are the ones the text gives. */
int calls_read_index(struct calls_run *r)
{
	struct trawl_index *ix = NULL;
	struct trawl_error err;
	trawl_error_clear(&err);
	int rc = 0, built = 0;
	static struct trawl_event evs[4096];
	struct reg_batch rb = { .evs = evs };
	static struct exc_names xn;
	xn.text = NULL;
	xn.tried = 0;
	const uint64_t want = TRAWL_WANT_REG(TRAWL_REG_SP) | TRAWL_WANT_REG(TRAWL_REG_X0 + 14) |
			      TRAWL_WANT_REG(TRAWL_REG_X0 + 30);
	/* the index of what the reader options read (an ETE buffer's
	 * registers and images), with every effect: not the filter above */
	struct trawl_index_build_options bo;
	memset(&bo, 0, sizeof bo);
	trace_open_options(&r->to);
	bo.reader = r->to.opt;
	bo.reader.want = 0;
	bo.reader.want_regs = 0;
	if (trawl_index_open_trace(&ix, r->to.path, NULL, &bo, &built, &err) != TRAWL_OK)
		return cli_report(r->to.cmd, &err);
	if (trawl_index_damaged(ix)) {
		cli_warn(r->to.cmd, "%llu places of the trace could not be decoded when its index was "
			 "built", (unsigned long long)trawl_index_damaged(ix));
		cli_mark_lossy();
	}
	uint64_t n = trawl_index_event_count(ix);
	struct trawl_index_info info;
	trawl_index_get_info(ix, &info);
	static struct trawl_index_event ies[4096];
	for (uint64_t i = 0; i < n;) {
		size_t k = n - i < 4096 ? (size_t)(n - i) : 4096;
		/* one windowed read per batch: memory stays bounded */
		if (trawl_index_events(ix, i, k, ies, &err) != TRAWL_OK) {
			rc = cli_report(r->to.cmd, &err);
			goto out;
		}
		xn.used = 0; /* the detector interned the last batch's names */
		for (size_t j = 0; j < k; j++) {
			const struct trawl_index_event *e = &ies[j];
			struct trawl_event *ev = &evs[j];
			memset(ev, 0, sizeof *ev);
			ev->seq = e->seq;
			ev->line = e->line;
			ev->nlines = e->nlines;
			ev->kind = e->kind;
			ev->flags = e->flags;
			ev->offset = e->offset;
			ev->length = e->length;
			ev->time = e->time;
			ev->time_unit = (uint16_t)info.time_unit;
			ev->cpu = e->cpu;
			if (e->kind == TRAWL_EV_INSN) {
				ev->u.insn.pc = e->pc;
				ev->u.insn.encoding = e->encoding;
				ev->u.insn.iset = e->iset;
				ev->u.insn.el = e->el;
				ev->u.insn.width = e->width;
			} else if (e->kind == TRAWL_EV_EXCEPTION) {
				exc_name(&xn, &r->to.opt, r->to.path, e, ev);
			}
		}
		image_check_batch(&r->image_check, r->image, evs, k);
		rb.first = i;
		rb.nregs = rb.used = 0;
		if (trawl_index_reg_writes(ix, i, k, want, add_reg_write, &rb, &err) != TRAWL_OK) {
			rc = cli_report(r->to.cmd, &err);
			goto out;
		}
		if (rb.nomem) {
			trawl_error_set(&err, TRAWL_ERR_NOMEM, "out of memory");
			rc = cli_report(r->to.cmd, &err);
			goto out;
		}
		i += k;
		struct trawl_event_batch b = { .events = evs, .count = k, .regs = rb.regs,
					       .pool = rb.pool };
		r->events += k;
		if (trawl_calls_add(r->calls, &b, &err) != TRAWL_OK) {
			rc = cli_report(r->to.cmd, &err);
			goto out;
		}
	}
	trawl_calls_finish(r->calls);
out:
	trawl_text_close(xn.text);
	free(rb.regs);
	free(rb.pool);
	trawl_index_close(ix);
	return rc;
}

