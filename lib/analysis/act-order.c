/* See sw-act-order.h. A binary min-heap of held records; the sort key is
 * (begin, cpu, kind, act, arrival), so equal records come out as they
 * arrived and the order is the same on every run. */
#include "trawl/sw-act-order.h"

#include "core/grow.h"

#include <stdlib.h>
#include <string.h>

struct held {
	struct trawl_act_record rec;
	uint64_t seq;
	unsigned kind;
};

struct trawl_act_order {
	struct held *h;
	size_t n, cap, bound;
	uint64_t seq, late;
	int any_out;
	struct held last;            /* the last released, to count late ones */
	trawl_act_sink sink;
	void *ctx;
};

static int before(const struct held *x, const struct held *y)
{
	if (x->rec.begin != y->rec.begin)
		return x->rec.begin < y->rec.begin;
	if (x->rec.cpu != y->rec.cpu)
		return x->rec.cpu < y->rec.cpu;
	if (x->kind != y->kind)
		return x->kind < y->kind;
	if (x->rec.act != y->rec.act)
		return x->rec.act < y->rec.act;
	return x->seq < y->seq;
}

enum trawl_status trawl_act_order_create(struct trawl_act_order **out, size_t bound, trawl_act_sink sink,
					 void *ctx)
{
	struct trawl_act_order *o = calloc(1, sizeof *o);
	*out = o;
	if (!o)
		return TRAWL_ERR_NOMEM;
	o->bound = bound ? bound : 1;
	o->sink = sink;
	o->ctx = ctx;
	return TRAWL_OK;
}

static void sift_down(struct trawl_act_order *o, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < o->n && before(&o->h[l], &o->h[m]))
			m = l;
		if (l + 1 < o->n && before(&o->h[l + 1], &o->h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct held t = o->h[i];
		o->h[i] = o->h[m];
		o->h[m] = t;
		i = m;
	}
}

static void pop(struct trawl_act_order *o)
{
	struct held top = o->h[0];
	o->h[0] = o->h[--o->n];
	sift_down(o, 0);
	if (o->any_out && before(&top, &o->last))
		o->late++;
	o->last = top;
	o->any_out = 1;
	if (o->sink)
		o->sink(o->ctx, &top.rec);
}

enum trawl_status trawl_act_order_put(struct trawl_act_order *o, const struct trawl_act_record *rec, unsigned kind)
{
	if (!trawl_grow((void **)&o->h, &o->cap, o->n + 1, sizeof *o->h))
		return TRAWL_ERR_NOMEM;
	size_t i = o->n++;
	o->h[i] = (struct held){ .rec = *rec, .seq = o->seq++, .kind = kind };
	while (i && before(&o->h[i], &o->h[(i - 1) / 2])) {
		struct held t = o->h[i];
		o->h[i] = o->h[(i - 1) / 2];
		o->h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	if (o->n > o->bound)
		pop(o); /* full: the earliest goes now, whatever is still open */
	return TRAWL_OK;
}

int trawl_act_order_due(const struct trawl_act_order *o, uint64_t before_t)
{
	return o->n && o->h[0].rec.begin < before_t;
}

void trawl_act_order_release(struct trawl_act_order *o, uint64_t before_t)
{
	while (o->n && o->h[0].rec.begin < before_t)
		pop(o);
}

void trawl_act_order_flush(struct trawl_act_order *o)
{
	while (o->n)
		pop(o);
}

uint64_t trawl_act_order_late(const struct trawl_act_order *o)
{
	return o->late;
}

void trawl_act_order_destroy(struct trawl_act_order *o)
{
	if (!o)
		return;
	free(o->h);
	free(o);
}
