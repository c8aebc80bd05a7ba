/* Software events as trawl_event batches (see sw-batch.h). */
#include "events/sw-batch.h"

#include <string.h>

#include "core/grow.h"

/* pool offset 0 means "no fields", so the pool starts with a spare word */
#define POOL_START 8

void sw_batch_init(struct sw_batch *b, const struct trawl_reader_options *opt)
{
	memset(b, 0, sizeof *b);
	b->limit = opt && opt->batch_events ? opt->batch_events : 4096;
	b->plen = POOL_START;
}

void sw_batch_reset(struct sw_batch *b)
{
	b->n = 0;
	b->plen = POOL_START;
}

int sw_batch_push(struct sw_batch *b, const struct trawl_sw_event *e, uint16_t unit, uint64_t line,
		  uint64_t length)
{
	const struct trawl_sw_class *c = e->cls;
	size_t vbytes = (size_t)c->nfields * 8;
	if (!trawl_grow((void **)&b->ev, &b->cap, b->n + 1, sizeof *b->ev) ||
	    !trawl_grow((void **)&b->pool, &b->pcap, b->plen + vbytes, 1))
		return -1;
	struct trawl_event *t = &b->ev[b->n++];
	memset(t, 0, sizeof *t);
	t->seq = b->stats.events++;
	t->line = line;
	t->nlines = line ? 1 : 0;
	t->kind = TRAWL_EV_SW;
	t->flags = TRAWL_EVF_HAS_TIME;
	t->offset = e->offset;
	t->length = length;
	t->time = e->time;
	t->time_unit = unit;
	t->cpu = (uint16_t)e->cpu;
	t->u.sw.subsys = (uint16_t)(c->id >> 16);
	t->u.sw.event = (uint16_t)c->id;
	t->u.sw.arg = c->nfields ? (uint32_t)e->vals[0] : 0;
	t->u.sw.tid = e->tid;
	t->u.sw.stream = e->stream;
	t->u.sw.name.ptr = c->name;
	t->u.sw.name.len = (uint32_t)strlen(c->name);
	t->u.sw.cls = c;
	if (vbytes) {
		t->u.sw.fields = (uint32_t)b->plen;
		t->u.sw.fields_len = (uint32_t)vbytes;
		memcpy(b->pool + b->plen, e->vals, vbytes);
		b->plen += vbytes;
	}
	if (line > b->stats.lines)
		b->stats.lines = line;
	b->stats.bytes += length;
	return 0;
}

int sw_batch_full(const struct sw_batch *b)
{
	return b->n >= b->limit;
}

void sw_batch_take(const struct sw_batch *b, struct trawl_event_batch *out)
{
	memset(out, 0, sizeof *out);
	out->events = b->ev;
	out->count = b->n;
	out->pool = b->pool;
}

void sw_batch_free(struct sw_batch *b)
{
	free(b->ev);
	free(b->pool);
	memset(b, 0, sizeof *b);
}

uint64_t sw_event_size(const struct trawl_sw_class *c)
{
	uint64_t n = 12;
	for (unsigned i = 0; i < c->nfields; i++)
		n += trawl_sw_type_size(c->fields[i].type);
	return n;
}
