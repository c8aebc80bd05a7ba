/* A naive replay oracle for the index: flat state (one 256-byte array per
 * register and core, one entry per memory byte in a hash map), replayed
 * event by event. Back-dating is done in a separate first pass that notes,
 * for each byte and each interval in which nobody wrote it (from the start,
 * or from a clobber: an unknown write or a semihosting call), the first
 * value a read showed. Semihosting calls are decoded here on their own
 * (A64 HLT #0xF000, SYS_READ/SYS_TMPNAM/SYS_GET_CMDLINE/SYS_HEAPINFO/
 * SYS_ELAPSED), not with the index's code.
 *
 * Streams are held as a `struct synth` (synth-events.h): synthetic ones,
 * or real traces copied from a reader by stream_from_trace. */
#ifndef TRAWL_INDEX_ORACLE_H
#define TRAWL_INDEX_ORACLE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth-events.h"
#include "trawl/index.h"
#include "trawl/reader.h"

#define OR_CPUS 4
#define OR_SLOTS (105 + 256)     /* core ids, then system registers */
#define OR_WRITTEN UINT64_MAX

struct or_byte {
	uint64_t addr;
	uint64_t key;           /* 0 start, C+1 clobbered at C, OR_WRITTEN */
	uint8_t v, known;
	uint8_t nrev;
	struct { uint64_t key; uint8_t v; } *rev;
};

struct oracle {
	uint8_t rv[OR_CPUS][OR_SLOTS][256], rk[OR_CPUS][OR_SLOTS][256];
	struct or_byte *b;
	size_t nb, cap;
	uint32_t *slots;
	size_t nslots;
	struct synth_clobber *clob; /* decoded semihosting ranges */
	size_t nclob;
};

static inline int or_slot(uint32_t reg)
{
	if (reg >= TRAWL_REG_SYS_BASE) {
		assert_true(reg - TRAWL_REG_SYS_BASE < 256);
		return 105 + (int)(reg - TRAWL_REG_SYS_BASE);
	}
	return (int)reg;
}

static inline uint32_t or_reg(int slot)
{
	return slot >= 105 ? TRAWL_REG_SYS_BASE + (uint32_t)(slot - 105) : (uint32_t)slot;
}

static inline size_t or_hash(uint64_t a, size_t n)
{
	return (size_t)((a * 0x9e3779b97f4a7c15ull) >> 17) & (n - 1);
}

static struct or_byte *or_get(struct oracle *o, uint64_t a, int create)
{
	if (o->nslots) {
		for (size_t h = or_hash(a, o->nslots);; h = (h + 1) & (o->nslots - 1)) {
			if (!o->slots[h])
				break;
			if (o->b[o->slots[h] - 1].addr == a)
				return &o->b[o->slots[h] - 1];
		}
	}
	if (!create)
		return NULL;
	if ((o->nb + 1) * 2 > o->nslots) {
		size_t n = o->nslots ? o->nslots * 2 : 4096;
		free(o->slots);
		o->slots = calloc(n, sizeof *o->slots);
		o->nslots = n;
		for (size_t i = 0; i < o->nb; i++) {
			size_t h = or_hash(o->b[i].addr, n);
			while (o->slots[h])
				h = (h + 1) & (n - 1);
			o->slots[h] = (uint32_t)i + 1;
		}
	}
	if (o->nb == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 4096;
		o->b = realloc(o->b, o->cap * sizeof *o->b);
	}
	struct or_byte *b = &o->b[o->nb];
	memset(b, 0, sizeof *b);
	b->addr = a;
	size_t h = or_hash(a, o->nslots);
	while (o->slots[h])
		h = (h + 1) & (o->nslots - 1);
	o->slots[h] = (uint32_t)++o->nb;
	return b;
}

static inline int or_revealed(const struct or_byte *b, uint64_t key, uint8_t *v)
{
	for (unsigned k = 0; k < b->nrev; k++)
		if (b->rev[k].key == key) {
			*v = b->rev[k].v;
			return 1;
		}
	return 0;
}

/* Value of byte a now: written, or shown by a read in its interval (in
 * pass 1 only reads so far have been noted). */
static inline int or_value(struct oracle *o, uint64_t a, uint8_t *v)
{
	struct or_byte *b = or_get(o, a, 0);
	if (!b) {
		return 0;
	}
	if (b->known) {
		*v = b->v;
		return 1;
	}
	return b->key != OR_WRITTEN && or_revealed(b, b->key, v);
}

static inline void or_reset(struct oracle *o)
{
	memset(o->rv, 0, sizeof o->rv);
	memset(o->rk, 0, sizeof o->rk);
	for (size_t i = 0; i < o->nb; i++) {
		o->b[i].known = 0;
		o->b[i].key = 0;
		o->b[i].v = 0;
	}
}

static inline struct oracle *or_new(void)
{
	struct oracle *o = calloc(1, sizeof *o);
	return o;
}

static inline void or_free(struct oracle *o)
{
	for (size_t i = 0; i < o->nb; i++)
		free(o->b[i].rev);
	free(o->b);
	free(o->slots);
	free(o->clob);
	free(o);
}

static inline int or_reg_u64(struct oracle *o, int cpu, int slot, unsigned n, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!o->rk[cpu][slot][i])
			return 0;
		v |= (uint64_t)o->rv[cpu][slot][i] << (8 * i);
	}
	*out = v;
	return 1;
}

static inline int or_mem_u64(struct oracle *o, uint64_t a, unsigned n, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		uint8_t x;
		if (!or_value(o, a + i, &x))
			return 0;
		v |= (uint64_t)x << (8 * i);
	}
	*out = v;
	return 1;
}

/* Decode an A64 semihosting call before event e's effects. */
static inline int or_semihost(struct oracle *o, const struct trawl_event *e, uint64_t *addr,
			      uint64_t *len)
{
	if (e->kind != TRAWL_EV_INSN || (e->flags & TRAWL_EVF_CCFAIL) ||
	    e->u.insn.iset != TRAWL_ISET_A64 || e->u.insn.encoding != 0xd45e0000u)
		return 0;
	uint64_t op, p, a, l;
	if (!or_reg_u64(o, e->cpu, 0, 4, &op) || !or_reg_u64(o, e->cpu, 1, 8, &p))
		return 0;
	if (op == 6 || op == 0x0d) {
		if (!or_mem_u64(o, op == 6 ? p + 8 : p, 8, &a) || !or_mem_u64(o, p + 16, 8, &l))
			return 0;
	} else if (op == 0x15) {
		if (!or_mem_u64(o, p, 8, &a) || !or_mem_u64(o, p + 8, 8, &l))
			return 0;
	} else if (op == 0x16) {
		if (!or_mem_u64(o, p, 8, &a))
			return 0;
		l = 32;
	} else if (op == 0x30) {
		a = p;
		l = 8;
	} else {
		return 0;
	}
	if (l == 0 || l > (256u << 20))
		return 0;
	*addr = a;
	*len = l;
	return 1;
}

/* Apply event n; pass 1 notes reveals and decodes semihosting calls. */
static inline void or_step(struct oracle *o, const struct synth *s, size_t n, int pass1)
{
	const struct trawl_event *e = &s->ev[n];
	assert_true(e->cpu < OR_CPUS);
	uint64_t sh_a = 0, sh_l = 0;
	int sh = 0;
	if (pass1) {
		sh = or_semihost(o, e, &sh_a, &sh_l);
		if (sh) {
			o->clob = realloc(o->clob, (o->nclob + 1) * sizeof *o->clob);
			o->clob[o->nclob++] = (struct synth_clobber){ n, sh_a, sh_l };
		}
	} else {
		for (size_t c = 0; c < o->nclob; c++)
			if (o->clob[c].ev == n) {
				sh = 1;
				sh_a = o->clob[c].addr;
				sh_l = o->clob[c].len;
			}
	}
	for (uint32_t i = 0; i < e->nregs; i++) {
		const struct trawl_reg_write *w = &s->regs[e->first_reg + i];
		int sl = or_slot(w->reg);
		for (unsigned b = 0; b < w->size; b++) {
			int k = trawl_known_bit(s->pool, w->known, b);
			o->rv[e->cpu][sl][w->offset + b] = k ? s->pool[w->value + b] : 0;
			o->rk[e->cpu][sl][w->offset + b] = (uint8_t)k;
		}
		for (unsigned b = w->offset + w->size; b < w->zext; b++) {
			o->rv[e->cpu][sl][b] = 0;
			o->rk[e->cpu][sl][b] = 1;
		}
	}
	for (uint32_t i = 0; i < e->nmems; i++) {
		const struct trawl_mem_access *m = &s->mems[e->first_mem + i];
		if (m->flags & (TRAWL_MEM_ABORTED | TRAWL_MEM_FETCH))
			continue;
		for (uint32_t b = 0; b < m->size; b++) {
			struct or_byte *x = or_get(o, m->addr + b, 1);
			int k = trawl_known_bit(s->pool, m->known, b);
			uint8_t v = s->pool[m->value + b];
			if (m->flags & TRAWL_MEM_WRITE) {
				x->v = v;
				x->known = (uint8_t)k;
				x->key = k ? OR_WRITTEN : n + 1;
			} else if ((m->flags & TRAWL_MEM_READ) && k && !x->known &&
				   x->key != OR_WRITTEN && pass1) {
				uint8_t old;
				if (!or_revealed(x, x->key, &old)) {
					x->rev = realloc(x->rev, (x->nrev + 1u) * sizeof *x->rev);
					x->rev[x->nrev].key = x->key;
					x->rev[x->nrev].v = v;
					x->nrev++;
				}
			}
		}
	}
	if (sh)
		for (uint64_t b = 0; b < sh_l; b++) {
			struct or_byte *x = or_get(o, sh_a + b, 1);
			x->known = 0;
			x->key = n + 1;
		}
}

/* Run pass 1 over the whole stream, then reset for pass 2. */
static inline struct oracle *or_prepare(const struct synth *s)
{
	struct oracle *o = or_new();
	for (size_t n = 0; n < s->nev; n++)
		or_step(o, s, n, 1);
	or_reset(o);
	return o;
}

/* Copy a whole trace from a reader into a stream. */
static inline enum trawl_status stream_from_trace(struct synth *s, const char *path,
						  const struct trawl_reader_options *opt)
{
	struct trawl_reader *r;
	struct trawl_event_batch b;
	enum trawl_status st = trawl_reader_open(&r, path, opt, NULL);
	if (st)
		return st;
	synth_init(s, 1, 1);
	trawl_reg_names_release(&s->names);
	trawl_reg_names_init(&s->names);
	while ((st = trawl_reader_next(r, &b, NULL)) == TRAWL_OK) {
		for (size_t i = 0; i < b.count; i++) {
			struct trawl_event e = b.events[i];
			memset(&e.u, 0, sizeof e.u);
			if (e.kind == TRAWL_EV_INSN) {
				e.u.insn = b.events[i].u.insn;
				memset(&e.u.insn.mode, 0, sizeof e.u.insn.mode);
				memset(&e.u.insn.disasm, 0, sizeof e.u.insn.disasm);
			}
			e.first_reg = (uint32_t)s->nregs;
			e.first_mem = (uint32_t)s->nmems;
			for (uint32_t k = 0; k < e.nregs; k++) {
				struct trawl_reg_write w = b.regs[b.events[i].first_reg + k];
				uint32_t v = synth_pool(s, w.size);
				memcpy(s->pool + v, b.pool + w.value, w.size);
				if (w.known != TRAWL_ALL_KNOWN) {
					uint32_t kn = synth_pool(s, (w.size + 7u) / 8u);
					memcpy(s->pool + kn, b.pool + w.known, (w.size + 7u) / 8u);
					w.known = kn;
				}
				w.value = v;
				SYNTH_GROW(s->regs, s->nregs, s->cap_regs);
				s->regs[s->nregs++] = w;
			}
			for (uint32_t k = 0; k < e.nmems; k++) {
				struct trawl_mem_access m = b.mems[b.events[i].first_mem + k];
				uint32_t v = synth_pool(s, m.size);
				memcpy(s->pool + v, b.pool + m.value, m.size);
				if (m.known != TRAWL_ALL_KNOWN) {
					uint32_t kn = synth_pool(s, (m.size + 7) / 8);
					memcpy(s->pool + kn, b.pool + m.known, (m.size + 7) / 8);
					m.known = kn;
				}
				m.value = v;
				SYNTH_GROW(s->mems, s->nmems, s->cap_mems);
				s->mems[s->nmems++] = m;
			}
			SYNTH_GROW(s->ev, s->nev, s->cap_ev);
			s->ev[s->nev++] = e;
		}
		for (size_t k = s->names.count; b.sysregs && k < b.sysregs->count; k++)
			trawl_reg_names_intern(&s->names, b.sysregs->names[k],
					       strlen(b.sysregs->names[k]));
	}
	trawl_reader_close(r);
	return st == TRAWL_END ? TRAWL_OK : st;
}

/* ---- comparing an index with the oracle ---- */

static inline uint64_t or_rnd(uint64_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
}

static inline void or_compare_regs(struct oracle *o, const struct trawl_index *ix, uint64_t n,
				   int cpus, struct trawl_index_regs *r)
{
	struct trawl_error err;
	for (int c = 0; c < cpus; c++) {
		assert_int_equal(trawl_index_regs_at(ix, n, (uint16_t)c, r, &err), TRAWL_OK);
		for (int sl = 0; sl < OR_SLOTS; sl++) {
			const uint8_t *v, *k;
			uint32_t w = trawl_index_regs_view(r, or_reg(sl), &v, &k);
			for (uint32_t b = 0; b < 256; b++) {
				int ok = b < w ? k[b] : 0;
				if (ok != o->rk[c][sl][b] || (ok && v[b] != o->rv[c][sl][b]))
					fail_msg("event %llu cpu %d reg %u byte %u: index %d/%02x, "
						 "oracle %d/%02x",
						 (unsigned long long)n, c, or_reg(sl), b, ok,
						 ok ? v[b] : 0, o->rk[c][sl][b], o->rv[c][sl][b]);
			}
		}
	}
}

static inline void or_compare_mem(struct oracle *o, const struct trawl_index *ix, uint64_t n,
				  uint64_t addr, size_t len)
{
	uint8_t val[512], known[64];
	struct trawl_error err;
	assert_true(len <= sizeof val);
	assert_int_equal(trawl_index_mem_at(ix, n, addr, len, val, known, &err), TRAWL_OK);
	for (size_t i = 0; i < len; i++) {
		uint8_t v = 0;
		int ok = or_value(o, addr + i, &v);
		int got = (known[i / 8] >> (i % 8)) & 1;
		if (ok != got || (ok && v != val[i]))
			fail_msg("event %llu mem 0x%llx: index %d/%02x, oracle %d/%02x",
				 (unsigned long long)n, (unsigned long long)(addr + i), got,
				 got ? val[i] : 0, ok, v);
	}
}

/* Naive last (dir < 0) or next (dir > 0) write: scan the events. */
static inline int or_naive_write_mem(const struct oracle *o, const struct synth *s, uint64_t n,
				     uint64_t a, uint64_t len, int dir, uint64_t *out)
{
	for (int64_t e = dir < 0 ? (int64_t)n : (int64_t)n + 1; e >= 0 && (size_t)e < s->nev;
	     e += dir) {
		const struct trawl_event *ev = &s->ev[e];
		for (uint32_t i = 0; i < ev->nmems; i++) {
			const struct trawl_mem_access *m = &s->mems[ev->first_mem + i];
			if ((m->flags & TRAWL_MEM_WRITE) &&
			    !(m->flags & (TRAWL_MEM_ABORTED | TRAWL_MEM_FETCH)) &&
			    m->addr < a + len && a < m->addr + m->size) {
				*out = (uint64_t)e;
				return 1;
			}
		}
		for (size_t c = 0; c < o->nclob; c++)
			if (o->clob[c].ev == (uint64_t)e && o->clob[c].addr < a + len &&
			    a < o->clob[c].addr + o->clob[c].len) {
				*out = (uint64_t)e;
				return 1;
			}
	}
	return 0;
}

static inline int or_naive_write_reg(const struct synth *s, uint64_t n, uint16_t cpu,
				     uint32_t reg, unsigned off, unsigned size, int dir,
				     uint64_t *out)
{
	for (int64_t e = dir < 0 ? (int64_t)n : (int64_t)n + 1; e >= 0 && (size_t)e < s->nev;
	     e += dir) {
		const struct trawl_event *ev = &s->ev[e];
		if (ev->cpu != cpu)
			continue;
		for (uint32_t i = 0; i < ev->nregs; i++) {
			const struct trawl_reg_write *w = &s->regs[ev->first_reg + i];
			unsigned hi = w->offset + w->size > w->zext ? w->offset + w->size : w->zext;
			if (w->reg == reg && w->offset < off + size && off < hi) {
				*out = (uint64_t)e;
				return 1;
			}
		}
	}
	return 0;
}

struct or_changes {
	uint8_t reg[OR_CPUS][OR_SLOTS];
	uint8_t *mem;           /* by oracle byte index */
	struct oracle *o;
};

static inline int or_collect_change(void *ctx, const struct trawl_index_change *c)
{
	struct or_changes *cs = ctx;
	if (!c->is_mem) {
		cs->reg[c->cpu][or_slot(c->reg)] = 1;
		return 0;
	}
	for (uint64_t i = 0; i < c->len; i++) {
		struct or_byte *b = or_get(cs->o, c->addr + i, 0);
		if (!b)
			fail_msg("changes: byte 0x%llx never touched", (unsigned long long)(c->addr + i));
		cs->mem[b - cs->o->b] = 1;
	}
	return 0;
}

/* Replay s, checking ix at npoints random events: all registers of every
 * core, random memory ranges around touched bytes, last/next writes of
 * memory and registers, and changes() between pairs of points. */
static inline void oracle_check(const struct synth *s, const struct trawl_index *ix,
				int npoints, uint64_t seed)
{
	struct oracle *o = or_prepare(s);
	uint64_t r = seed | 1;
	uint64_t *pts = malloc((size_t)npoints * sizeof *pts);
	int cpus = 1;
	for (size_t i = 0; i < s->nev; i++)
		if (s->ev[i].cpu + 1 > cpus)
			cpus = s->ev[i].cpu + 1;
	for (int i = 0; i < npoints; i++)
		pts[i] = or_rnd(&r) % s->nev;
	pts[0] = 0;
	if (npoints > 1)
		pts[1] = s->nev - 1;
	for (int i = 1; i < npoints; i++)
		for (int j = i; j > 0 && pts[j] < pts[j - 1]; j--) {
			uint64_t t = pts[j];
			pts[j] = pts[j - 1];
			pts[j - 1] = t;
		}
	struct trawl_index_regs regs;
	trawl_index_regs_init(&regs);
	struct trawl_error err;
	uint8_t (*rv1)[OR_SLOTS][256] = malloc(sizeof o->rv), (*rk1)[OR_SLOTS][256] = malloc(sizeof o->rk);
	uint8_t *mv1 = malloc(o->nb + 1), *mk1 = malloc(o->nb + 1);
	uint64_t ev1 = UINT64_MAX;
	size_t n = 0;
	for (int p = 0; p < npoints; p++) {
		for (; n <= pts[p]; n++)
			or_step(o, s, n, 0);
		uint64_t at = pts[p];
		or_compare_regs(o, ix, at, cpus, &regs);
		for (int k = 0; k < 4 && o->nb; k++) {
			uint64_t t = o->b[or_rnd(&r) % o->nb].addr, d = or_rnd(&r) % 24;
			uint64_t a = t >= d ? t - d : 0, len = 1 + or_rnd(&r) % 130;
			if (a + len < a)
				len = UINT64_MAX - a;
			if (len)
				or_compare_mem(o, ix, at, a, len);
		}
		if (p % 4 == 0 && o->nb) {
			uint64_t a = o->b[or_rnd(&r) % o->nb].addr, len = 1 + or_rnd(&r) % 16;
			a = a >= 8 ? a - or_rnd(&r) % 8 : a;
			if (a + len < a)
				len = UINT64_MAX - a + 1 > 1 ? UINT64_MAX - a : 1;
			for (int dir = -1; dir <= 1; dir += 2) {
				uint64_t want = 0, got = 0;
				int has = or_naive_write_mem(o, s, at, a, len, dir, &want);
				enum trawl_status st = dir < 0
					? trawl_index_last_write_mem(ix, at, a, len, &got, &err)
					: trawl_index_next_write_mem(ix, at, a, len, &got, &err);
				assert_int_equal(st, has ? TRAWL_OK : TRAWL_ERR_NOT_FOUND);
				if (has && got != want)
					fail_msg("%s write of 0x%llx+%llu from %llu: index %llu, naive %llu",
						 dir < 0 ? "last" : "next", (unsigned long long)a,
						 (unsigned long long)len, (unsigned long long)at,
						 (unsigned long long)got, (unsigned long long)want);
			}
			uint16_t cpu = (uint16_t)(or_rnd(&r) % (uint64_t)cpus);
			static const uint32_t qr[][3] = { { 3, 0, 4 }, { 3, 4, 4 }, { 40, 8, 8 },
							  { 41, 16, 16 }, { 1024, 0, 8 }, { 31, 0, 8 },
							  { 0, 0, 8 }, { 30, 0, 8 } };
			const uint32_t *q = qr[or_rnd(&r) % 8];
			for (int dir = -1; dir <= 1; dir += 2) {
				uint64_t want = 0, got = 0;
				int has = or_naive_write_reg(s, at, cpu, q[0], q[1], q[2], dir, &want);
				enum trawl_status st =
					dir < 0 ? trawl_index_last_write_reg(ix, at, cpu, q[0], q[1], q[2], &got, &err)
						: trawl_index_next_write_reg(ix, at, cpu, q[0], q[1], q[2], &got, &err);
				assert_int_equal(st, has ? TRAWL_OK : TRAWL_ERR_NOT_FOUND);
				if (has)
					assert_int_equal(got, want);
			}
		}
		if (p % 50 == 10) {
			memcpy(rv1, o->rv, sizeof o->rv);
			memcpy(rk1, o->rk, sizeof o->rk);
			for (size_t i = 0; i < o->nb; i++) {
				mv1[i] = 0;
				mk1[i] = (uint8_t)or_value(o, o->b[i].addr, &mv1[i]);
			}
			ev1 = at;
		} else if (p % 50 == 40 && ev1 != UINT64_MAX && ev1 < at) {
			struct or_changes cs;
			memset(cs.reg, 0, sizeof cs.reg);
			cs.mem = calloc(o->nb + 1, 1);
			cs.o = o;
			assert_int_equal(trawl_index_changes(ix, ev1, at, or_collect_change, &cs, &err),
					 TRAWL_OK);
			for (int c = 0; c < cpus; c++)
				for (int sl = 0; sl < OR_SLOTS; sl++) {
					int diff = 0;
					for (int b = 0; b < 256; b++)
						diff |= rk1[c][sl][b] != o->rk[c][sl][b] ||
							(o->rk[c][sl][b] && rv1[c][sl][b] != o->rv[c][sl][b]);
					if (diff != cs.reg[c][sl])
						fail_msg("changes %llu..%llu: cpu %d reg %u: index %d oracle %d",
							 (unsigned long long)ev1, (unsigned long long)at,
							 c, or_reg(sl), cs.reg[c][sl], diff);
				}
			for (size_t i = 0; i < o->nb; i++) {
				uint8_t v = 0;
				int k = or_value(o, o->b[i].addr, &v);
				int diff = k != mk1[i] || (k && v != mv1[i]);
				if (diff != cs.mem[i])
					fail_msg("changes %llu..%llu: byte 0x%llx: index %d oracle %d",
						 (unsigned long long)ev1, (unsigned long long)at,
						 (unsigned long long)o->b[i].addr, cs.mem[i], diff);
			}
			free(cs.mem);
		}
	}
	trawl_index_regs_release(&regs);
	free(pts);
	free(rv1);
	free(rk1);
	free(mv1);
	free(mk1);
	or_free(o);
}

/* The index kind oracle_build makes: every kind must give the oracle's
 * answers, so the tests run once per kind (oracle_run_kinds). */
static uint32_t oracle_kind = TRAWL_INDEX_KIND_FULL;

/* Run a cmocka group once for every index kind trawl knows. */
static inline int oracle_run_kinds(const struct CMUnitTest *tests, size_t n)
{
	int rc = 0;
	for (size_t i = 0; (oracle_kind = trawl_index_kind_list(i)) != 0; i++) {
		print_message("index kind: %s\n", trawl_index_kind_name(oracle_kind));
		rc |= _cmocka_run_group_tests(trawl_index_kind_name(oracle_kind), tests, n, NULL,
					      NULL);
	}
	return rc;
}

/* Build an index of s in uneven batches (state crosses batch boundaries). */
static inline struct trawl_index *oracle_build(const struct synth *s, const char *path,
					       uint32_t K, size_t sort_mem)
{
	struct trawl_index_build_options opt = { .checkpoint_interval = K,
						 .sort_memory = sort_mem,
						 .kind = oracle_kind };
	struct trawl_index_builder *b;
	struct trawl_error err;
	assert_int_equal(trawl_index_builder_create(&b, path, &opt, &err), TRAWL_OK);
	size_t i = 0, step = 1;
	while (i < s->nev) {
		size_t j = i + step < s->nev ? i + step : s->nev;
		struct trawl_event_batch batch = synth_batch(s, i, j);
		if (trawl_index_builder_add(b, &batch, &err))
			fail_msg("builder_add: %s", err.message);
		i = j;
		step = step * 3 % 1000 + 1;
	}
	assert_int_equal(trawl_index_builder_finish(b, NULL, &err), TRAWL_OK);
	trawl_index_builder_destroy(b);
	struct trawl_index *ix;
	if (trawl_index_open(&ix, path, NULL, &err))
		fail_msg("open: %s", err.message);
	return ix;
}

#endif
