/* Synthetic AArch64-like event streams for index tests, the fuzz seed and
 * the benchmark: register writes of every alias shape (x, w with
 * zero-extension, q/d/s into V, partial V<127:64>, SVE z, system
 * registers), loads and stores of 1-64 bytes over a stack and a heap,
 * unaligned and block-crossing, partly unknown values, aborted accesses,
 * two cores, and semihosting SYS_READ calls. The generator also records
 * the semihosting ranges it created, so a test oracle need not decode them.
 */
#ifndef TRAWL_SYNTH_EVENTS_H
#define TRAWL_SYNTH_EVENTS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/event.h"
#include "trawl/reg.h"

struct synth_clobber {
	uint64_t ev, addr, len;
};

struct synth {
	struct trawl_event *ev;
	size_t nev, cap_ev;
	struct trawl_reg_write *regs;
	size_t nregs, cap_regs;
	struct trawl_mem_access *mems;
	size_t nmems, cap_mems;
	uint8_t *pool;
	size_t npool, cap_pool;
	struct synth_clobber *clob;
	size_t nclob, cap_clob;
	struct trawl_reg_names names;
	uint64_t rng;
	uint64_t line, offset, time;
	/* knobs */
	int cpus;               /* 1 or 2 */
	uint64_t heap, heap_len, stack, stack_len;
	int unknown_pct;        /* chance of partly-unknown values */
	int semihost_every;     /* 0 = never */
};

static inline uint64_t synth_rand(struct synth *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

static inline unsigned synth_pick(struct synth *s, unsigned n)
{
	return (unsigned)(synth_rand(s) % n);
}

#define SYNTH_GROW(arr, n, cap)                                                     \
	do {                                                                         \
		if ((n) == (cap)) {                                                  \
			(cap) = (cap) ? (cap) * 2 : 1024;                            \
			(arr) = realloc((arr), (cap) * sizeof *(arr));               \
		}                                                                    \
	} while (0)

static inline uint32_t synth_pool(struct synth *s, size_t n)
{
	while (s->npool + n + 64 > s->cap_pool) {
		s->cap_pool = s->cap_pool ? s->cap_pool * 2 : 1 << 16;
		s->pool = realloc(s->pool, s->cap_pool);
	}
	uint32_t off = (uint32_t)s->npool;
	s->npool += n;
	return off;
}

static inline void synth_init(struct synth *s, uint64_t seed, int cpus)
{
	memset(s, 0, sizeof *s);
	s->rng = seed * 2654435761u + 88172645463325252ull;
	s->cpus = cpus;
	s->stack = 0x7fff0000;
	s->stack_len = 2048;
	s->heap = 0x80010000 - 3;  /* odd start: unaligned accesses */
	s->heap_len = 4096;
	s->unknown_pct = 5;
	s->semihost_every = 500;
	s->line = 1;
	trawl_reg_names_init(&s->names);
	trawl_reg_names_intern(&s->names, "SCTLR_EL1", 9);
	trawl_reg_names_intern(&s->names, "TTBR0_EL1", 9);
}

static inline void synth_free(struct synth *s)
{
	free(s->ev);
	free(s->regs);
	free(s->mems);
	free(s->pool);
	free(s->clob);
	trawl_reg_names_release(&s->names);
}

/* Fill n bytes of value (and maybe a known-mask) in the pool. */
static inline void synth_value(struct synth *s, size_t n, uint32_t *value, uint32_t *known,
			       int allow_unknown)
{
	*value = synth_pool(s, n);
	for (size_t i = 0; i < n; i++)
		s->pool[*value + i] = (uint8_t)synth_rand(s);
	*known = TRAWL_ALL_KNOWN;
	if (allow_unknown && (int)synth_pick(s, 100) < s->unknown_pct) {
		*known = synth_pool(s, (n + 7) / 8);
		for (size_t i = 0; i < (n + 7) / 8; i++)
			s->pool[*known + i] = (uint8_t)synth_rand(s);
	}
}

static inline void synth_reg(struct synth *s, uint32_t reg, unsigned off, unsigned size,
			     unsigned zext, int allow_unknown)
{
	SYNTH_GROW(s->regs, s->nregs, s->cap_regs);
	struct trawl_reg_write *w = &s->regs[s->nregs++];
	memset(w, 0, sizeof *w);
	w->reg = reg;
	w->offset = (uint16_t)off;
	w->size = (uint16_t)size;
	w->zext = (uint16_t)zext;
	synth_value(s, size, &w->value, &w->known, allow_unknown);
}

static inline void synth_reg_value(struct synth *s, uint32_t reg, unsigned size, uint64_t v)
{
	synth_reg(s, reg, 0, size, 0, 0);
	for (unsigned i = 0; i < size; i++)
		s->pool[s->regs[s->nregs - 1].value + i] = (uint8_t)(v >> (8 * i));
}

static inline void synth_mem(struct synth *s, uint64_t addr, uint32_t size, uint32_t flags,
			     int allow_unknown)
{
	SYNTH_GROW(s->mems, s->nmems, s->cap_mems);
	struct trawl_mem_access *m = &s->mems[s->nmems++];
	memset(m, 0, sizeof *m);
	m->addr = addr;
	m->size = size;
	m->flags = flags;
	synth_value(s, size, &m->value, &m->known, allow_unknown);
}

static inline void synth_mem_value(struct synth *s, uint64_t addr, uint32_t size, uint64_t v)
{
	synth_mem(s, addr, size, TRAWL_MEM_WRITE, 0);
	for (unsigned i = 0; i < size; i++)
		s->pool[s->mems[s->nmems - 1].value + i] = (uint8_t)(v >> (8 * i));
}

static inline struct trawl_event *synth_begin(struct synth *s, uint16_t kind, uint64_t pc,
					      uint32_t enc, uint16_t cpu)
{
	SYNTH_GROW(s->ev, s->nev, s->cap_ev);
	struct trawl_event *e = &s->ev[s->nev];
	memset(e, 0, sizeof *e);
	e->seq = s->nev;
	e->kind = kind;
	e->cpu = cpu;
	e->time = s->time;
	e->time_unit = TRAWL_TIME_CLK;
	e->line = s->line;
	e->offset = s->offset;
	e->first_reg = (uint32_t)s->nregs;
	e->first_mem = (uint32_t)s->nmems;
	if (kind == TRAWL_EV_INSN) {
		e->u.insn.pc = pc;
		e->u.insn.encoding = enc;
		e->u.insn.width = 4;
		e->u.insn.iset = TRAWL_ISET_A64;
		e->u.insn.el = 1;
	}
	return e;
}

static inline void synth_end(struct synth *s)
{
	struct trawl_event *e = &s->ev[s->nev];
	e->nregs = (uint32_t)(s->nregs - e->first_reg);
	e->nmems = (uint32_t)(s->nmems - e->first_mem);
	e->nlines = 1 + e->nregs + e->nmems;
	e->length = 60u * e->nlines;
	s->line += e->nlines + (synth_pick(s, 50) == 0); /* sometimes a blank line */
	s->offset += e->length + 1;
	s->time += 1 + synth_pick(s, 3);
	s->nev++;
}

static inline uint64_t synth_addr(struct synth *s, uint32_t size)
{
	if (synth_pick(s, 2))
		return s->stack + synth_pick(s, (unsigned)(s->stack_len - size));
	return s->heap + synth_pick(s, (unsigned)(s->heap_len - size));
}

/* A semihosting SYS_READ of len bytes into buf: the parameter block is
 * stored first, x0/x1 set, then HLT #0xF000. */
static inline void synth_semihost(struct synth *s, uint16_t cpu)
{
	uint64_t blockp = s->heap + s->heap_len + 64;
	uint64_t buf = synth_addr(s, 64), len = 1 + synth_pick(s, 64);
	synth_begin(s, TRAWL_EV_INSN, 0x1000, 0xa9000000u, cpu);
	synth_mem_value(s, blockp, 8, 3);
	synth_mem_value(s, blockp + 8, 8, buf);
	synth_mem_value(s, blockp + 16, 8, len);
	synth_end(s);
	synth_begin(s, TRAWL_EV_INSN, 0x1004, 0xd2800000u, cpu);
	synth_reg_value(s, TRAWL_REG_X0, 8, 6);
	synth_reg_value(s, TRAWL_REG_X0 + 1, 8, blockp);
	synth_end(s);
	synth_begin(s, TRAWL_EV_INSN, 0x1008, 0xd45e0000u, cpu);
	synth_reg_value(s, TRAWL_REG_X0, 8, 0);
	SYNTH_GROW(s->clob, s->nclob, s->cap_clob);
	s->clob[s->nclob++] = (struct synth_clobber){ s->nev, buf, len };
	synth_end(s);
}

static inline void synth_event(struct synth *s)
{
	uint16_t cpu = (uint16_t)(s->cpus > 1 ? synth_pick(s, (unsigned)s->cpus) : 0);
	if (s->semihost_every && synth_pick(s, (unsigned)s->semihost_every) == 0) {
		synth_semihost(s, cpu);
		return;
	}
	static const uint32_t encs[] = { 0x94000010u, 0xd65f03c0u, 0xd63f0020u, 0x8b020020u,
					 0xf9400020u, 0xf9000020u, 0xa9bf7bfdu, 0x91000400u };
	uint64_t pc = 0x400000 + 4 * synth_pick(s, 64);
	uint16_t kind = synth_pick(s, 30) ? TRAWL_EV_INSN : TRAWL_EV_STATE;
	synth_begin(s, kind, pc, encs[synth_pick(s, 8)], cpu);
	if (synth_pick(s, 40) == 0)
		s->ev[s->nev].flags |= TRAWL_EVF_CCFAIL;
	unsigned nr = synth_pick(s, 3);
	for (unsigned i = 0; i < nr; i++) {
		unsigned n = synth_pick(s, 31);
		switch (synth_pick(s, 12)) {
		case 0: case 1: case 2: case 3:
			synth_reg(s, TRAWL_REG_X0 + n, 0, 8, 0, 1);
			break;
		case 4: case 5:
			synth_reg(s, TRAWL_REG_X0 + n, 0, 4, 8, 1);     /* w: zero-extends */
			break;
		case 6:
			synth_reg(s, TRAWL_REG_V0 + n % 4, 0, 16, 0, 1); /* q */
			break;
		case 7:
			synth_reg(s, TRAWL_REG_V0 + n % 4, 0, 4 << synth_pick(s, 2), 16, 1); /* s/d */
			break;
		case 8:
			synth_reg(s, TRAWL_REG_V0 + n % 4, 8, 8, 0, 1);  /* V<127:64> */
			break;
		case 9:
			synth_reg(s, TRAWL_REG_V0 + n % 4, 0, 32, 0, 1); /* z (256-bit) */
			break;
		case 10:
			synth_reg(s, TRAWL_REG_SYS_BASE + n % 2, 0, 8, 0, 1);
			break;
		default:
			synth_reg(s, TRAWL_REG_SP, 0, 8, 0, 0);
			break;
		}
	}
	unsigned nm = synth_pick(s, 4) == 0 ? 0 : 1 + synth_pick(s, 2);
	for (unsigned i = 0; i < nm; i++) {
		static const uint32_t sizes[] = { 1, 2, 4, 8, 8, 8, 16, 3, 64, 32 };
		uint32_t size = sizes[synth_pick(s, 10)];
		uint32_t flags = synth_pick(s, 2) ? TRAWL_MEM_READ : TRAWL_MEM_WRITE;
		if (synth_pick(s, 100) == 0)
			flags |= TRAWL_MEM_ABORTED;
		synth_mem(s, synth_addr(s, size), size, flags, 1);
	}
	synth_end(s);
}

/* A batch over events [from, to) of s. */
static inline struct trawl_event_batch synth_batch(const struct synth *s, size_t from, size_t to)
{
	struct trawl_event_batch b;
	memset(&b, 0, sizeof b);
	b.events = s->ev + from;
	b.count = to - from;
	b.regs = s->regs;
	b.mems = s->mems;
	b.pool = s->pool;
	b.sysregs = &s->names;
	return b;
}

#endif
