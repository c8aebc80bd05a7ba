/* Events as text, every field of the event model: two readings of one
 * trace are compared as strings (the flow-loop test and the Tarmac fuzzer
 * compare the reader with the line-by-line parser this way). */
#ifndef TRAWL_TEST_EVENT_TEXT_H
#define TRAWL_TEST_EVENT_TEXT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/event.h"
#include "trawl/tarmac.h"

struct event_text {
	char *s;
	size_t len, cap;
};

static void event_text_put(struct event_text *t, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void event_text_put(struct event_text *t, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			abort();
		if (t->s && t->len + (size_t)n < t->cap) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap ? t->cap * 2 : 4096;
		while (cap <= t->len + (size_t)n)
			cap *= 2;
		char *s = realloc(t->s, cap);
		if (!s)
			abort();
		t->s = s;
		t->cap = cap;
	}
}

static void event_text_str(struct event_text *t, const struct trawl_str *s)
{
	event_text_put(t, "|%.*s", (int)s->len, s->len ? s->ptr : "");
}

static void event_text_bytes(struct event_text *t, const uint8_t *pool, uint32_t off, uint32_t known,
			     uint32_t n)
{
	for (uint32_t j = 0; j < n; j++)
		event_text_put(t, trawl_known_bit(pool, known, j) ? "%02x" : "..", pool[off + j]);
}

/* Append the events of a batch, one line each. */
static void event_text_batch(struct event_text *t, const struct trawl_event_batch *b)
{
	for (size_t i = 0; i < b->count; i++) {
		const struct trawl_event *e = &b->events[i];
		event_text_put(t, "s%llu l%llu+%u o%llu+%llu k%u f%x t%llu u%u c%u",
			       (unsigned long long)e->seq, (unsigned long long)e->line, e->nlines,
			       (unsigned long long)e->offset, (unsigned long long)e->length, e->kind,
			       e->flags, (unsigned long long)e->time, e->time_unit, e->cpu);
		switch (e->kind) {
		case TRAWL_EV_INSN:
			event_text_put(t, " pc%llx/%llx e%x w%u i%u el%u",
				       (unsigned long long)e->u.insn.pc,
				       (unsigned long long)e->u.insn.paddr, e->u.insn.encoding,
				       e->u.insn.width, e->u.insn.iset, e->u.insn.el);
			event_text_str(t, &e->u.insn.mode);
			event_text_str(t, &e->u.insn.disasm);
			break;
		case TRAWL_EV_EXCEPTION:
			event_text_put(t, " x%llx/%llx/%u", (unsigned long long)e->u.exc.target,
				       (unsigned long long)e->u.exc.ret_addr, e->u.exc.number);
			event_text_str(t, &e->u.exc.name);
			break;
		case TRAWL_EV_TEXT:
			event_text_str(t, &e->u.text.type);
			event_text_str(t, &e->u.text.text);
			break;
		default:
			break;
		}
		for (uint32_t k = 0; k < e->nregs; k++) {
			const struct trawl_reg_write *w = &b->regs[e->first_reg + k];
			event_text_put(t, " r%u@%u/%u/%u:", w->reg, w->offset, w->size, w->zext);
			event_text_bytes(t, b->pool, w->value, w->known, w->size);
		}
		for (uint32_t k = 0; k < e->nmems; k++) {
			const struct trawl_mem_access *m = &b->mems[e->first_mem + k];
			event_text_put(t, " m%llx/%llx/%u/%x:", (unsigned long long)m->addr,
				       (unsigned long long)m->paddr, m->size, m->flags);
			event_text_bytes(t, b->pool, m->value, m->known, m->size);
		}
		event_text_put(t, "\n");
	}
}

/* The other reading: text through trawl_tarmac_parse_line one line at a
 * time (fast path on or off), up to the first line it refuses. Its events
 * are appended to out and its counters put in *stats; the status of the
 * refused line (its error in *err), else TRAWL_OK. */
static enum trawl_status event_text_by_lines(struct event_text *out, const char *text, size_t len,
					     const struct trawl_reader_options *o, int fast,
					     struct trawl_error *err, struct trawl_reader_stats *stats)
{
	struct trawl_tarmac *t;
	memset(stats, 0, sizeof *stats);
	enum trawl_status st = trawl_tarmac_create(&t, "t.tarmac", o, err);
	if (st != TRAWL_OK)
		return st;
	trawl_tarmac_set_fast_path(t, fast);
	for (size_t p = 0; p < len;) {
		const char *nl = memchr(text + p, '\n', len - p);
		size_t n = nl ? (size_t)(nl - (text + p)) : len - p;
		st = trawl_tarmac_parse_line(t, text + p, n, p, err);
		if (st != TRAWL_OK)
			break;
		p += n + 1;
	}
	trawl_tarmac_finish(t);
	struct trawl_event_batch b;
	trawl_tarmac_peek(t, &b);
	event_text_batch(out, &b);
	*stats = *trawl_tarmac_stats(t);
	trawl_tarmac_destroy(t);
	return st;
}

#endif
