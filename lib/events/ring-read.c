/* Turning a recorder buffer file (TRACE/.ring-N) into the CTF packets its
 * stream file lacks, the way the recorder's flusher would have written
 * them (rec/src/rec.c: consume_thread and deliver).
 *
 * Everything in the file is untrusted: sizes are checked against the
 * bytes present, sub-buffer numbers against their slots, and every record
 * against its sub-buffer's clock window (open_ticks of this one .. that
 * of the next, or the reader's own clock). A record outside the window
 * is damage in a closed sub-buffer; in the open one, a record older than
 * the window is where the writer stopped (the producer stores ticks
 * last), a later one is damage. */
#include "core/bytes.h"
#include "events/ring.h"

#include "trawl/rec-ring.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CTF_MAGIC 0xC1FC1FC1u
#define PREAMBLE 64
#define TYPED_FLAG (1ull << 63)
#define MAX_FIELDS 16

struct rctx {
	const uint8_t *buf;
	size_t len;
	const char *name;
	struct trawl_ring_head h;
	struct ring_classes *cls;
	struct ring_out *out;
	struct trawl_error *err;
	uint64_t expected, gaps, packet_seq, reported, last_ts;
	size_t pkt_start;            /* offset in out->data of the open packet */
	uint32_t pkt_events, pkt_cpu;
	uint64_t pkt_first, pkt_last;
};

static enum trawl_status damage(struct rctx *c, uint64_t off, const char *what)
{
	trawl_error_set(c->err, TRAWL_ERR_CORRUPT, "%s", what);
	trawl_error_at(c->err, c->name, 0, 0, off);
	return TRAWL_ERR_CORRUPT;
}

/* The journal entry at `off` and sub-buffer header `no` (slot idx)
 * disagree: which one is wrong cannot be told, so both are named. */
static enum trawl_status disagree(struct rctx *c, uint64_t off, const char *what, uint64_t no, uint32_t idx)
{
	trawl_error_set(c->err, TRAWL_ERR_CORRUPT, "ring journal %s sub-buffer %llu (header at offset %llu)", what,
			(unsigned long long)no,
			(unsigned long long)(TRAWL_RING_HEAD + (uint64_t)idx * sizeof(struct trawl_ring_sub)));
	trawl_error_at(c->err, c->name, 0, 0, off);
	return TRAWL_ERR_CORRUPT;
}


/* The recorder's ticks_to_ns, with the same arithmetic (so the times
 * match what its flusher writes), clamped where a damaged head would
 * overflow. */
static uint64_t to_ns(const struct trawl_ring_head *h, uint64_t t)
{
	double d = (double)(int64_t)(t - h->tsc0) * h->ns_per_tick;
	if (!(d > -9e18 && d < 9e18))
		return d > 0 ? UINT64_MAX : 0;
	int64_t v;
	if (__builtin_add_overflow((int64_t)h->mono0, (int64_t)d, &v))
		return d > 0 ? UINT64_MAX : 0;
	return v < 0 ? 0 : (uint64_t)v;
}

static int out_reserve(struct ring_out *o, size_t more)
{
	if (o->len + more <= o->cap)
		return 0;
	size_t ncap = o->cap ? o->cap : 65536;
	while (ncap < o->len + more)
		ncap *= 2;
	uint8_t *n = realloc(o->data, ncap);
	if (!n)
		return -1;
	o->data = n;
	o->cap = ncap;
	return 0;
}

static int class_cmp(const void *a, const void *b)
{
	const struct trawl_sw_class *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static const struct trawl_sw_class *class_find(const struct ring_classes *cs, uint32_t id)
{
	size_t lo = 0, hi = cs->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cs->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < cs->n && cs->v[lo].id == id ? &cs->v[lo] : NULL;
}

/* The class the recorder would have made up for an id nobody defined. */
static const struct trawl_sw_class *class_make(struct ring_classes *cs, uint32_t id, int typed, unsigned n)
{
	const struct trawl_sw_class *f = class_find(cs, id);
	if (f)
		return f;
	if (cs->nmade == cs->made_cap) {
		size_t nc = cs->made_cap ? cs->made_cap * 2 : 16;
		uint32_t *m = realloc(cs->made, nc * sizeof *m);
		if (!m)
			return NULL;
		cs->made = m;
		cs->made_cap = nc;
	}
	struct trawl_sw_class *v = realloc(cs->v, (cs->n + 1) * sizeof *v);
	if (!v)
		return NULL;
	cs->v = v;
	struct trawl_sw_class *c = &v[cs->n];
	memset(c, 0, sizeof *c);
	c->id = id;
	snprintf(c->name, sizeof c->name, "subsys%u:event%u", id >> 16, id & 0xffff);
	c->nfields = typed ? n : 1;
	for (unsigned i = 0; i < c->nfields; i++) {
		if (typed)
			snprintf(c->fields[i].name, sizeof c->fields[i].name, "f%u", i);
		else
			strcpy(c->fields[i].name, "arg");
		c->fields[i].type = typed ? TRAWL_SW_U64 : TRAWL_SW_U32;
	}
	cs->n++;
	cs->made[cs->nmade++] = id;
	qsort(cs->v, cs->n, sizeof *cs->v, class_cmp);
	return class_find(cs, id);
}

static uint64_t lost_now(const struct rctx *c)
{
	uint64_t l = c->gaps + c->h.dropped;
	return l > c->reported ? l : c->reported;
}

/* Close the open packet: fill its preamble (layout in ctf-read.c). */
static void packet_end(struct rctx *c)
{
	if (!c->pkt_events)
		return;
	struct ring_out *o = c->out;
	uint8_t *q = o->data + c->pkt_start;
	uint64_t bits = (uint64_t)(o->len - c->pkt_start) * 8, seq = c->packet_seq++;
	uint32_t magic = CTF_MAGIC, sid = 0;
	c->reported = lost_now(c);
	memcpy(q, &magic, 4);
	memcpy(q + 4, &sid, 4);
	memcpy(q + 8, &c->pkt_first, 8);
	memcpy(q + 16, &c->pkt_last, 8);
	memcpy(q + 24, &bits, 8);
	memcpy(q + 32, &bits, 8);
	memcpy(q + 40, &seq, 8);
	memcpy(q + 48, &c->reported, 8);
	memcpy(q + 56, &c->pkt_cpu, 4);
	memcpy(q + 60, &c->h.tid, 4);
	c->last_ts = c->pkt_last;
	c->pkt_events = 0;
}

static enum trawl_status packet_begin(struct rctx *c, uint32_t cpu)
{
	if (out_reserve(c->out, PREAMBLE) != 0)
		return trawl_error_set(c->err, TRAWL_ERR_NOMEM, "out of memory");
	c->pkt_start = c->out->len;
	c->out->len += PREAMBLE;
	c->pkt_cpu = cpu;
	return TRAWL_OK;
}

/* Append one event as the recorder's deliver() encodes it. */
static enum trawl_status put_event(struct rctx *c, uint64_t ticks, uint64_t w, const uint64_t *fields)
{
	int typed = (w & TYPED_FLAG) != 0;
	uint32_t id = (uint32_t)((w >> 32) & 0x7fffffff);
	unsigned n = typed ? (unsigned)(w & 0xff) : 0;
	const struct trawl_sw_class *cl = class_make(c->cls, id, typed, n);
	if (!cl || out_reserve(c->out, 12 + (size_t)cl->nfields * 8) != 0)
		return trawl_error_set(c->err, TRAWL_ERR_NOMEM, "out of memory");
	uint64_t vals[MAX_FIELDS] = { 0 };
	if (typed)
		memcpy(vals, fields, (n < cl->nfields ? n : cl->nfields) * 8);
	else
		vals[0] = (uint32_t)w;
	uint64_t ts = to_ns(&c->h, ticks);
	uint8_t *q = c->out->data + c->out->len;
	memcpy(q, &id, 4);
	memcpy(q + 4, &ts, 8);
	q += 12;
	for (unsigned i = 0; i < cl->nfields; i++) {
		size_t sz = trawl_sw_type_size(cl->fields[i].type);
		memcpy(q, &vals[i], sz); /* little-endian host, as ctf-read.c */
		q += sz;
	}
	c->out->len = (size_t)(q - c->out->data);
	if (c->pkt_events++ == 0)
		c->pkt_first = ts;
	c->pkt_last = ts;
	c->out->events++;
	c->expected++;
	return TRAWL_OK;
}

static enum trawl_status check_head(struct rctx *c)
{
	const struct trawl_ring_head *h = &c->h;
	if (c->len < TRAWL_RING_HEAD)
		return damage(c, c->len, "ring file shorter than its header");
	memcpy(&c->h, c->buf, sizeof c->h);
	if (h->magic != TRAWL_RING_MAGIC)
		return damage(c, 0, "bad ring magic");
	if ((h->version != 1 && h->version != TRAWL_RING_VERSION) || h->head_size != TRAWL_RING_HEAD)
		return damage(c, 4, "unknown ring version");
	if (h->nsub < 2 || h->nsub > 4096 || h->sub_size < 256 || h->sub_size > 0x7ffffff0 || h->sub_size % 16)
		return damage(c, 12, "bad ring sizes");
	if (h->data_off < TRAWL_RING_HEAD + (uint64_t)h->nsub * sizeof(struct trawl_ring_sub) || h->data_off > c->len)
		return damage(c, 24, "bad ring data offset");
	/* the recorder sizes the file to exactly this (rec/src/ring.c), so a
	 * longer one means a damaged count or size; a shorter one may be a
	 * cut copy, whose sub-buffers are read as far as they go */
	if (c->len > h->data_off + (uint64_t)h->nsub * h->sub_size)
		return damage(c, 12, "ring file longer than its header's sub-buffers (count, size) make it");
	if (!isfinite(h->ns_per_tick) || !(h->ns_per_tick > 0) || h->ns_per_tick > 1e9)
		return damage(c, 48, "bad ring clock");
	return TRAWL_OK;
}

#define ENTRY(e) offsetof(struct trawl_ring_head, e)
#define FIELD(f) offsetof(struct trawl_ring_cursor, f)

/* Which journal entry holds: pending once stream-N is as long as it says,
 * else committed (never written: an empty stream). *at: the chosen
 * entry's offset, for naming damage in it.
 *
 * What the writer (rec/src/ring.c) allows: pending is cleared (gen 0)
 * while rewritten, then gets committed.gen + 1; a commit copies it field
 * by field, gen last. So pending.gen is 0, committed.gen or one more;
 * when it is one more, committed is the entry before it (or, mid-commit,
 * a field-wise mix of that and pending), and every count only grows from
 * one entry to the next. */
static enum trawl_status pick_cursor(struct rctx *c, const struct ring_stream *st, struct trawl_ring_cursor *cur,
				     uint64_t *at)
{
	const struct trawl_ring_cursor *p = &c->h.pending, *k = &c->h.committed;
	if (p->gen && p->gen != k->gen && p->gen - 1 != k->gen)
		return damage(c, ENTRY(pending) + FIELD(gen), "ring journal generations disagree");
	int next = p->gen && p->gen - 1 == k->gen;
	if (next && k->gen) {
		if (k->consumed > p->consumed)
			return damage(c, ENTRY(committed) + FIELD(consumed), "ring journal goes backwards");
		if (k->expected > p->expected)
			return damage(c, ENTRY(committed) + FIELD(expected), "ring journal goes backwards");
		if (k->gaps > p->gaps)
			return damage(c, ENTRY(committed) + FIELD(gaps), "ring journal goes backwards");
		if (k->packet_seq > p->packet_seq)
			return damage(c, ENTRY(committed) + FIELD(packet_seq), "ring journal goes backwards");
		if (k->reported > p->reported)
			return damage(c, ENTRY(committed) + FIELD(reported), "ring journal goes backwards");
		if (k->file_size > p->file_size)
			return damage(c, ENTRY(committed) + FIELD(file_size), "ring journal goes backwards");
	}
	if (next && st->size >= p->file_size) {
		*cur = *p;
		*at = ENTRY(pending);
	} else if (k->gen) {
		/* no commit under way: committed is whole, pending (if it
		 * holds) the one packet after it */
		if (next && (p->packet_seq != k->packet_seq + 1 ||
			     (p->consumed == k->consumed && p->coff < k->coff)))
			return damage(c, ENTRY(pending) + FIELD(packet_seq), "ring journal entries disagree");
		*cur = *k;
		*at = ENTRY(committed);
	} else {
		memset(cur, 0, sizeof *cur);
		*at = ENTRY(committed);
	}
	if (cur->file_size > st->size)
		return damage(c, *at + FIELD(file_size), "ring journal says the stream file is longer than it is");
	/* counts that cannot be: every entry follows a packet; losses are
	 * part of the events accounted for; a packet reports losses known
	 * when it was made (dropped only grows) */
	if (cur->gen && cur->packet_seq == 0)
		return damage(c, *at + FIELD(packet_seq), "ring journal counts no packet");
	if (cur->gaps > cur->expected)
		return damage(c, *at + FIELD(gaps), "ring journal loses more events than it accounts for");
	if (cur->reported > cur->gaps && cur->reported - cur->gaps > c->h.dropped)
		return damage(c, *at + FIELD(reported), "ring journal reports more lost events than there are");
	if (cur->coff % 16 || cur->coff > c->h.sub_size)
		return damage(c, *at + FIELD(coff), "ring journal offset is not a record's");
	return TRAWL_OK;
}

struct slot {
	uint64_t no;                 /* sub-buffer number */
	uint32_t idx;                /* its slot */
};

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	return x->no < y->no ? -1 : x->no > y->no;
}

static struct trawl_ring_sub sub_at(const struct rctx *c, uint32_t i)
{
	struct trawl_ring_sub s;
	memcpy(&s, c->buf + TRAWL_RING_HEAD + (size_t)i * sizeof s, sizeof s);
	return s;
}

/* The cpu at byte `from` of a sub-buffer: its header's, or that of the
 * last cpu record before `from` (the stream resumes after one). Records
 * before `from` were checked when they were written to stream-N; a bad
 * one here only ends the scan. */
static uint32_t cpu_at(const struct rctx *c, uint64_t base, size_t from, uint32_t cpu)
{
	for (size_t o = 0; o + 16 <= from && base + o + 16 <= c->len;) {
		uint64_t w = bytes_rd64(c->buf + base + o + 8);
		if (TRAWL_RING_IS_CPU(w))
			cpu = TRAWL_RING_CPU_OF(w);
		unsigned n = (w & TYPED_FLAG) && !TRAWL_RING_IS_CPU(w) ? (unsigned)(w & 0xff) : 0;
		if (n > MAX_FIELDS)
			break;
		o += 16 + (size_t)(n + (n & 1)) * 8;
	}
	return cpu;
}

/* Read sub-buffer `no` (slot idx) from byte `from`; hi bounds its ticks.
 * *stop is set at the end of the open one. A cpu record ends the packet
 * being built; the next event begins one with the new cpu. */
static enum trawl_status read_sub(struct rctx *c, uint64_t no, uint32_t idx, size_t from, uint64_t hi)
{
	struct trawl_ring_sub s = sub_at(c, idx);
	uint64_t hoff = TRAWL_RING_HEAD + (uint64_t)idx * sizeof s;
	int open = s.seq == 2 * no + 1;
	if (open && s.ready != no)
		return TRAWL_OK; /* opened, nothing written yet */
	if (s.ready != no)
		return damage(c, hoff, "ring sub-buffer header inconsistent");
	size_t end = open ? c->h.sub_size : s.used;
	if (!open && (s.used > c->h.sub_size || s.used % 16))
		return damage(c, hoff, "bad sub-buffer length");
	if (from > end)
		return damage(c, offsetof(struct trawl_ring_head, committed), "ring journal points past its sub-buffer");
	if (from == 0) {
		/* events are counted as the producer counts them: a later
		 * sub-buffer cannot begin before those already accounted for */
		if (s.ev_begin < c->expected)
			return damage(c, hoff + offsetof(struct trawl_ring_sub, ev_begin),
				      "ring sub-buffer begins before events already read");
		if (s.ev_begin > c->expected)
			c->gaps += s.ev_begin - c->expected;
		c->expected = s.ev_begin;
	}
	uint64_t base = c->h.data_off + (uint64_t)idx * c->h.sub_size;
	enum trawl_status st = TRAWL_OK;
	int began = 0;
	uint32_t cpu = cpu_at(c, base, from, s.cpu);
	for (size_t o = from; o + 16 <= end;) {
		uint64_t at = base + o;
		if (at + 16 > c->len) {
			st = damage(c, c->len, "ring file ends inside a sub-buffer");
			break;
		}
		uint64_t t = bytes_rd64(c->buf + at), w = bytes_rd64(c->buf + at + 8);
		if (t < s.open_ticks) {
			if (open)
				break; /* where the writer stopped */
			st = damage(c, at, "event time before its sub-buffer opened");
			break;
		}
		if (t > hi) {
			st = damage(c, at, "event time after the ring's last possible moment");
			break;
		}
		if (TRAWL_RING_IS_CPU(w)) {
			if (began && c->pkt_events == 0)
				c->out->len = c->pkt_start;
			packet_end(c);
			began = 0;
			cpu = TRAWL_RING_CPU_OF(w);
			o += 16;
			continue;
		}
		unsigned n = (w & TYPED_FLAG) ? (unsigned)(w & 0xff) : 0;
		size_t rec = 16 + (size_t)(n + (n & 1)) * 8;
		if (n <= MAX_FIELDS && o + rec <= end && at + rec > c->len) {
			st = damage(c, c->len, "ring file ends inside a sub-buffer");
			break;
		}
		if (n > MAX_FIELDS || o + rec > end) {
			st = damage(c, at, "bad event record");
			break;
		}
		if (!began) {
			if ((st = packet_begin(c, cpu)) != TRAWL_OK)
				break;
			began = 1;
		}
		uint64_t fields[MAX_FIELDS];
		memcpy(fields, c->buf + at + 16, (size_t)n * 8);
		if ((st = put_event(c, t, w, fields)) != TRAWL_OK)
			break;
		o += rec;
	}
	if (began && c->pkt_events == 0)
		c->out->len = c->pkt_start; /* nothing went in */
	packet_end(c);
	return st;
}

/* Sub-buffers still in the ring that stream-N lacks, oldest first. */
static enum trawl_status list_slots(struct rctx *c, uint64_t consumed, struct slot *v, size_t *nv)
{
	size_t n = 0, open = 0;
	for (uint32_t i = 0; i < c->h.nsub; i++) {
		struct trawl_ring_sub s = sub_at(c, i);
		if (s.seq == 0)
			continue;
		uint64_t no = (s.seq - 1) / 2;
		if (no % c->h.nsub != i)
			return damage(c, TRAWL_RING_HEAD + (uint64_t)i * sizeof s, "ring sub-buffer in the wrong slot");
		if (no < consumed)
			continue;
		open += s.seq % 2;
		v[n].no = no;
		v[n].idx = i;
		n++;
	}
	qsort(v, n, sizeof *v, slot_cmp);
	if (open > 1 || (open == 1 && sub_at(c, v[n - 1].idx).seq % 2 == 0))
		return damage(c, TRAWL_RING_HEAD, "ring has an open sub-buffer that is not the last");
	*nv = n;
	return TRAWL_OK;
}

/* The latest counter value the recording could have reached: now, when
 * the reader runs in the same boot as the recorder. */
static uint64_t ticks_bound(const struct rctx *c, const struct ring_now *now)
{
	if (!now || !now->boot_id || !now->boot_id[0] || !now->mono_now ||
	    strncmp(now->boot_id, c->h.boot_id, sizeof c->h.boot_id) != 0)
		return UINT64_MAX;
	/* 1 s and 5 % of the time since the start of slack, for the error of
	 * the recorder's 20 ms clock calibration */
	double el = (double)now->mono_now - (double)c->h.mono0;
	double d = (el * 1.05 + 1e9) / c->h.ns_per_tick + (double)c->h.tsc0;
	return d >= 1.8e19 ? UINT64_MAX : d <= 0 ? 0 : (uint64_t)d;
}

/* Events in the first `to` bytes of sub-buffer idx (header s, ready):
 * -1 when `to` is not where a record starts or a record before it was
 * never written (the consumer only reads stored records), -2 when the
 * file is too short to tell. */
static int64_t events_before(const struct rctx *c, uint32_t idx, const struct trawl_ring_sub *s, uint64_t to)
{
	uint64_t base = c->h.data_off + (uint64_t)idx * c->h.sub_size;
	int64_t n = 0;
	uint64_t o = 0;
	while (o < to) {
		if (base + o + 16 > c->len)
			return -2;
		uint64_t t = bytes_rd64(c->buf + base + o), w = bytes_rd64(c->buf + base + o + 8);
		if (t < s->open_ticks)
			return -1;
		unsigned f = (w & TYPED_FLAG) && !TRAWL_RING_IS_CPU(w) ? (unsigned)(w & 0xff) : 0;
		if (f > MAX_FIELDS)
			return -1;
		n += !TRAWL_RING_IS_CPU(w);
		o += 16 + (uint64_t)(f + (f & 1)) * 8;
	}
	return o == to ? n : -1;
}

/* The journal's position (consumed, coff) and count (expected) against
 * the sub-buffer headers, which the producer writes on its own: the
 * consumer never gets ahead of the producer, expected is ev_begin of the
 * sub-buffer it points into plus the events before coff, and at a
 * sub-buffer's start it is where the one before ended. Sub-buffers
 * overwritten since only bound it. Slots are checked (list_slots). */
static enum trawl_status check_cursor(struct rctx *c, const struct trawl_ring_cursor *cur, uint64_t at)
{
	uint32_t nsub = c->h.nsub, top_i = 0;
	uint64_t top = 0, j = cur->consumed;
	int any = 0;
	for (uint32_t i = 0; i < nsub; i++) {
		struct trawl_ring_sub s = sub_at(c, i);
		if (s.seq && (!any || (s.seq - 1) / 2 > top)) {
			top = (s.seq - 1) / 2;
			top_i = i;
			any = 1;
		}
	}
	if (!any) {
		if (j || cur->coff || cur->expected)
			return damage(c, at + FIELD(consumed), "ring journal counts events its ring never held");
		return TRAWL_OK;
	}
	struct trawl_ring_sub ts = sub_at(c, top_i);
	int top_closed = ts.seq % 2 == 0;
	uint64_t pos = at + FIELD(consumed);
	if (j > top + (uint64_t)top_closed || (j > top && cur->coff))
		return disagree(c, pos, "is ahead of the writer's last", top, top_i);
	uint32_t ji = (uint32_t)(j % nsub);
	struct trawl_ring_sub s = sub_at(c, ji);
	int here = s.seq && (s.seq - 1) / 2 == j;
	if (here && s.ready != j) {
		/* died opening it: the consumer waits for ready */
		if (cur->coff)
			return disagree(c, at + FIELD(coff), "points into never written", j, ji);
	} else if (here) {
		if (s.seq % 2 == 0 && cur->coff > s.used)
			return disagree(c, at + FIELD(coff), "points past the end of", j, ji);
		int64_t n = events_before(c, ji, &s, cur->coff);
		if (n == -1)
			return disagree(c, at + FIELD(coff), "offset is not at a record of", j, ji);
		if (n >= 0 && (cur->coff ? cur->expected != s.ev_begin + (uint64_t)n : cur->expected > s.ev_begin))
			return disagree(c, pos, "event count disagrees with", j, ji);
	} else if (s.seq && (s.seq - 1) / 2 > j) {
		/* overwritten: what it vouches for came before any sub-buffer
		 * still in the ring */
		for (uint32_t i = 0; i < nsub; i++) {
			struct trawl_ring_sub o = sub_at(c, i);
			if (o.seq && o.ready == (o.seq - 1) / 2 && o.ready > j && cur->expected > o.ev_begin)
				return disagree(c, pos, "counts more events than were recorded before", o.ready, i);
		}
	}
	/* at a sub-buffer's start, the one before (still there and closed)
	 * was read to its end: its ev_begin and events make expected */
	if (!cur->coff && j) {
		uint32_t pi = (uint32_t)((j - 1) % nsub);
		struct trawl_ring_sub p = sub_at(c, pi);
		if (p.seq == 2 * (j - 1) + 2 && p.ready == j - 1 && p.used <= c->h.sub_size) {
			int64_t n = events_before(c, pi, &p, p.used);
			if (n >= 0 && cur->expected != p.ev_begin + (uint64_t)n)
				return disagree(c, pos, "event count disagrees with the end of", j - 1, pi);
		}
	}
	return TRAWL_OK;
}

/* Rebuilds exactly what stream-N lacks: the journal's cursor says where the
 * stream file ends, then each sub-buffer still in the ring is read oldest
 * first, bounded in time by the next one's open_ticks (or by now, in the same
 * boot) so damage cannot pass for events. The final loss count goes out in
 * an empty packet, as the recorder's own flush would have written it. */
enum trawl_status ring_recover(const uint8_t *buf, size_t len, const char *name, const struct ring_stream *st,
			       struct ring_classes *cls, const struct ring_now *now, struct ring_out *out,
			       struct trawl_error *err)
{
	struct rctx c = { .buf = buf, .len = len, .name = name, .cls = cls, .out = out, .err = err };
	memset(out, 0, sizeof *out);
	enum trawl_status rc = check_head(&c);
	if (rc)
		return rc;
	out->stream_id = c.h.stream_id;
	out->pid = c.h.pid;
	out->tid = c.h.tid;
	out->signal = c.h.signal;
	out->flushed = (c.h.flags & TRAWL_RING_FLUSHED) != 0;
	struct trawl_ring_cursor cur;
	uint64_t cur_at;
	if ((rc = pick_cursor(&c, st, &cur, &cur_at)) != TRAWL_OK)
		return rc;
	out->keep = cur.file_size;
	out->have_keep = 1;
	c.expected = cur.expected;
	c.gaps = cur.gaps;
	c.packet_seq = cur.packet_seq;
	c.reported = cur.reported;
	c.last_ts = st->last_ts;
	struct slot *v = malloc(c.h.nsub * sizeof *v);
	if (!v)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	size_t nv = 0;
	rc = list_slots(&c, cur.consumed, v, &nv);
	if (rc == TRAWL_OK && (rc = check_cursor(&c, &cur, cur_at)) != TRAWL_OK) {
		/* a journal that disagrees with its ring says nothing of
		 * where stream-N ends: keep it whole, add nothing */
		out->have_keep = 0;
		free(v);
		return rc;
	}
	uint64_t hi_now = ticks_bound(&c, now);
	for (size_t i = 0; rc == TRAWL_OK && i < nv; i++) {
		size_t from = v[i].no == cur.consumed ? (size_t)cur.coff : 0;
		/* events end before the next sub-buffer opened; one that died
		 * opening (not ready) has no valid open_ticks yet */
		uint64_t hi = hi_now;
		for (size_t j = i + 1; j < nv; j++) {
			struct trawl_ring_sub n = sub_at(&c, v[j].idx);
			if (n.ready == v[j].no) {
				hi = n.open_ticks;
				break;
			}
		}
		rc = read_sub(&c, v[i].no, v[i].idx, from, hi);
	}
	free(v);
	/* the final loss count, in an empty packet as the recorder does */
	uint64_t lost = c.gaps + c.h.dropped;
	if (rc != TRAWL_ERR_NOMEM && lost > c.reported && out_reserve(out, PREAMBLE) == 0) {
		c.pkt_start = out->len;
		out->len += PREAMBLE;
		c.pkt_events = 1; /* an empty packet on purpose */
		c.pkt_first = c.pkt_last = c.last_ts ? c.last_ts : c.h.mono0;
		packet_end(&c);
	}
	out->lost = lost > c.reported ? lost : c.reported;
	return rc;
}

void ring_out_release(struct ring_out *out)
{
	free(out->data);
	memset(out, 0, sizeof *out);
}
