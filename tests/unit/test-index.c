/* The index against a naive replay oracle: synthetic event streams are
 * indexed, then a flat-state replay (one array per register, one byte
 * array for memory, back-dating done by a separate first pass) is compared
 * with the index at thousands of random points. Zero mismatches allowed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "synth-events.h"
#include "trawl/index.h"

/* ---- the oracle ---- */

#define NREG_SLOTS 110          /* core ids 0..104, then 2 system registers */
#define MAXCPU 2
#define WIN_BASE 0x7ffe0000ull  /* one window covering stack, heap and block */
#define WIN_LEN 0x40000ull

struct reveal {
	uint64_t key;
	uint8_t v;
};

struct oracle {
	uint8_t rv[MAXCPU][NREG_SLOTS][256], rk[MAXCPU][NREG_SLOTS][256];
	uint8_t *mv, *mk;       /* memory value / written-known */
	uint64_t *key;          /* interval key per byte: 0 start, C+1 clobbered, ~0 written */
	struct reveal **rev;    /* per byte: values revealed per interval */
	size_t *nrev;
};

static int slot(uint32_t reg)
{
	return reg >= TRAWL_REG_SYS_BASE ? 105 + (int)(reg - TRAWL_REG_SYS_BASE) : (int)reg;
}

static uint64_t widx(uint64_t a)
{
	assert_true(a >= WIN_BASE && a < WIN_BASE + WIN_LEN);
	return a - WIN_BASE;
}

static void oracle_init(struct oracle *o)
{
	memset(o->rv, 0, sizeof o->rv);
	memset(o->rk, 0, sizeof o->rk);
	o->mv = calloc(WIN_LEN, 1);
	o->mk = calloc(WIN_LEN, 1);
	o->key = calloc(WIN_LEN, sizeof *o->key);
	o->rev = calloc(WIN_LEN, sizeof *o->rev);
	o->nrev = calloc(WIN_LEN, sizeof *o->nrev);
}

static void oracle_reset(struct oracle *o)
{
	memset(o->rv, 0, sizeof o->rv);
	memset(o->rk, 0, sizeof o->rk);
	memset(o->mv, 0, WIN_LEN);
	memset(o->mk, 0, WIN_LEN);
	memset(o->key, 0, WIN_LEN * sizeof *o->key);
}

static void oracle_free(struct oracle *o)
{
	for (size_t i = 0; i < WIN_LEN; i++)
		free(o->rev[i]);
	free(o->rev);
	free(o->nrev);
	free(o->mv);
	free(o->mk);
	free(o->key);
}

static int revealed(const struct oracle *o, uint64_t i, uint64_t key, uint8_t *v)
{
	for (size_t k = 0; k < o->nrev[i]; k++)
		if (o->rev[i][k].key == key) {
			*v = o->rev[i][k].v;
			return 1;
		}
	return 0;
}

/* Apply event n. pass 1 records reveals; pass 2 just keeps state. */
static void oracle_step(struct oracle *o, const struct synth *s, size_t n, int pass1)
{
	const struct trawl_event *e = &s->ev[n];
	for (uint32_t i = 0; i < e->nregs; i++) {
		const struct trawl_reg_write *w = &s->regs[e->first_reg + i];
		int sl = slot(w->reg);
		for (unsigned b = 0; b < w->size; b++) {
			int k = trawl_known_bit(s->pool, w->known, b);
			o->rv[e->cpu][sl][w->offset + b] = s->pool[w->value + b];
			o->rk[e->cpu][sl][w->offset + b] = (uint8_t)k;
		}
		for (unsigned b = w->offset + w->size; b < w->zext; b++) {
			o->rv[e->cpu][sl][b] = 0;
			o->rk[e->cpu][sl][b] = 1;
		}
	}
	for (uint32_t i = 0; i < e->nmems; i++) {
		const struct trawl_mem_access *m = &s->mems[e->first_mem + i];
		if (m->flags & TRAWL_MEM_ABORTED)
			continue;
		for (uint32_t b = 0; b < m->size; b++) {
			uint64_t x = widx(m->addr + b);
			int k = trawl_known_bit(s->pool, m->known, b);
			uint8_t v = s->pool[m->value + b];
			if (m->flags & TRAWL_MEM_WRITE) {
				o->mv[x] = v;
				o->mk[x] = (uint8_t)k;
				o->key[x] = k ? UINT64_MAX : n + 1;
			} else if (k && !o->mk[x] && o->key[x] != UINT64_MAX && pass1) {
				uint8_t old;
				if (!revealed(o, x, o->key[x], &old)) {
					o->rev[x] = realloc(o->rev[x], (o->nrev[x] + 1) * sizeof **o->rev);
					o->rev[x][o->nrev[x]++] = (struct reveal){ o->key[x], v };
				}
			}
		}
	}
	for (size_t c = 0; c < s->nclob; c++) {
		if (s->clob[c].ev != n)
			continue;
		for (uint64_t b = 0; b < s->clob[c].len; b++) {
			uint64_t x = widx(s->clob[c].addr + b);
			o->mk[x] = 0;
			o->key[x] = n + 1;
		}
	}
}

/* What the oracle says byte a holds now. */
static int oracle_byte(const struct oracle *o, uint64_t a, uint8_t *v)
{
	uint64_t x = widx(a);
	if (o->mk[x]) {
		*v = o->mv[x];
		return 1;
	}
	return o->key[x] != UINT64_MAX && revealed(o, x, o->key[x], v);
}

/* ---- building ---- */

static char *tmp_index(void)
{
	static int n;
	char *p = malloc(64);
	snprintf(p, 64, "/tmp/trawl-test-index-%d-%d.trawlidx", (int)getpid(), n++);
	return p;
}

static struct trawl_index *build(const struct synth *s, const char *path, uint32_t K,
				 size_t sort_mem)
{
	struct trawl_index_build_options opt = { .checkpoint_interval = K,
						 .sort_memory = sort_mem };
	struct trawl_index_builder *b;
	struct trawl_error err;
	assert_int_equal(trawl_index_builder_create(&b, path, &opt, &err), TRAWL_OK);
	/* uneven batches, so state crosses batch boundaries */
	size_t i = 0, step = 1;
	while (i < s->nev) {
		size_t j = i + step < s->nev ? i + step : s->nev;
		struct trawl_event_batch batch = synth_batch(s, i, j);
		enum trawl_status st = trawl_index_builder_add(b, &batch, &err);
		if (st)
			fail_msg("builder_add: %s", err.message);
		i = j;
		step = step * 3 % 1000 + 1;
	}
	assert_int_equal(trawl_index_builder_finish(b, NULL, &err), TRAWL_OK);
	trawl_index_builder_destroy(b);
	struct trawl_index *ix;
	enum trawl_status st = trawl_index_open(&ix, path, NULL, &err);
	if (st)
		fail_msg("open: %s", err.message);
	return ix;
}

/* ---- comparisons ---- */

static uint64_t rnd(uint64_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 7;
	*r ^= *r << 17;
	return *r;
}

static void compare_regs(const struct oracle *o, const struct trawl_index *ix, uint64_t n,
			 int cpus, struct trawl_index_regs *r)
{
	struct trawl_error err;
	for (int c = 0; c < cpus; c++) {
		assert_int_equal(trawl_index_regs_at(ix, n, (uint16_t)c, r, &err), TRAWL_OK);
		for (int sl = 0; sl < NREG_SLOTS; sl++) {
			uint32_t reg = sl >= 105 ? TRAWL_REG_SYS_BASE + (uint32_t)(sl - 105) : (uint32_t)sl;
			const uint8_t *v, *k;
			uint32_t w = trawl_index_regs_view(r, reg, &v, &k);
			for (uint32_t b = 0; b < 256; b++) {
				int ok = b < w ? k[b] : 0;
				if (ok != o->rk[c][sl][b] || (ok && v[b] != o->rv[c][sl][b]))
					fail_msg("event %llu cpu %d reg %u byte %u: index %d/%02x, "
						 "oracle %d/%02x",
						 (unsigned long long)n, c, reg, b, ok, ok ? v[b] : 0,
						 o->rk[c][sl][b], o->rv[c][sl][b]);
			}
		}
	}
}

static void compare_mem(const struct oracle *o, const struct trawl_index *ix, uint64_t n,
			uint64_t addr, size_t len)
{
	uint8_t val[512], known[64];
	struct trawl_error err;
	assert_true(len <= sizeof val);
	assert_int_equal(trawl_index_mem_at(ix, n, addr, len, val, known, &err), TRAWL_OK);
	for (size_t i = 0; i < len; i++) {
		uint8_t v = 0;
		int ok = oracle_byte(o, addr + i, &v);
		int got = (known[i / 8] >> (i % 8)) & 1;
		if (ok != got || (ok && v != val[i]))
			fail_msg("event %llu mem 0x%llx: index %d/%02x, oracle %d/%02x",
				 (unsigned long long)n, (unsigned long long)(addr + i), got,
				 got ? val[i] : 0, ok, v);
	}
}

/* Naive last/next write of a memory range: scan the event list. */
static int naive_write_mem(const struct synth *s, uint64_t n, uint64_t a, uint64_t len, int dir,
			   uint64_t *out)
{
	for (int64_t e = dir < 0 ? (int64_t)n : (int64_t)n + 1; e >= 0 && (size_t)e < s->nev;
	     e += dir) {
		const struct trawl_event *ev = &s->ev[e];
		for (uint32_t i = 0; i < ev->nmems; i++) {
			const struct trawl_mem_access *m = &s->mems[ev->first_mem + i];
			if ((m->flags & TRAWL_MEM_WRITE) && !(m->flags & TRAWL_MEM_ABORTED) &&
			    m->addr < a + len && a < m->addr + m->size) {
				*out = (uint64_t)e;
				return 1;
			}
		}
		for (size_t c = 0; c < s->nclob; c++)
			if (s->clob[c].ev == (uint64_t)e && s->clob[c].addr < a + len &&
			    a < s->clob[c].addr + s->clob[c].len) {
				*out = (uint64_t)e;
				return 1;
			}
	}
	return 0;
}

static int naive_write_reg(const struct synth *s, uint64_t n, uint16_t cpu, uint32_t reg,
			   unsigned off, unsigned size, int dir, uint64_t *out)
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

struct change_set {
	uint8_t reg[MAXCPU][NREG_SLOTS];
	uint8_t *mem;
};

static int collect_change(void *ctx, const struct trawl_index_change *c)
{
	struct change_set *cs = ctx;
	if (!c->is_mem) {
		cs->reg[c->cpu][slot(c->reg)] = 1;
		return 0;
	}
	for (uint64_t i = 0; i < c->len; i++)
		cs->mem[widx(c->addr + i)] = 1;
	return 0;
}

static uint64_t oracle_mem_base[] = { 0x7fff0000ull, 0x80010000ull - 3 };

/* Run the oracle over s, checking ix at npoints random events. */
static void check_against_oracle(const struct synth *s, const struct trawl_index *ix,
				 int npoints, uint64_t seed)
{
	struct oracle *o = malloc(sizeof *o);
	oracle_init(o);
	for (size_t n = 0; n < s->nev; n++)
		oracle_step(o, s, n, 1);
	oracle_reset(o);

	uint64_t r = seed | 1;
	uint64_t *pts = malloc((size_t)npoints * sizeof *pts);
	for (int i = 0; i < npoints; i++)
		pts[i] = rnd(&r) % s->nev;
	pts[0] = 0;
	pts[1] = s->nev - 1;
	for (int i = 0; i < npoints; i++)
		for (int j = i + 1; j < npoints; j++)
			if (pts[j] < pts[i]) {
				uint64_t t = pts[i];
				pts[i] = pts[j];
				pts[j] = t;
			}
	struct trawl_index_regs regs;
	trawl_index_regs_init(&regs);
	struct trawl_error err;
	/* a snapshot of the oracle at one point, to test changes() later */
	struct oracle *o1 = malloc(sizeof *o1);
	memset(o1, 0, sizeof *o1);
	uint8_t *mv1 = malloc(WIN_LEN), *mk1 = malloc(WIN_LEN), *have1 = malloc(WIN_LEN);
	uint64_t ev1 = UINT64_MAX;
	size_t n = 0;
	for (int p = 0; p < npoints; p++) {
		for (; n <= pts[p]; n++)
			oracle_step(o, s, n, 0);
		uint64_t at = pts[p];
		compare_regs(o, ix, at, s->cpus, &regs);
		for (int k = 0; k < 4; k++) {
			uint64_t base = oracle_mem_base[rnd(&r) % 2];
			uint64_t len = 1 + rnd(&r) % 130;
			uint64_t a = base - 8 + rnd(&r) % 4096;
			compare_mem(o, ix, at, a, len);
		}
		if (p % 4 == 0) {
			uint64_t a = oracle_mem_base[rnd(&r) % 2] + rnd(&r) % 4000, len = 1 + rnd(&r) % 16;
			for (int dir = -1; dir <= 1; dir += 2) {
				uint64_t want = 0, got = 0;
				int has = naive_write_mem(s, at, a, len, dir, &want);
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
			uint16_t cpu = (uint16_t)(rnd(&r) % (uint64_t)s->cpus);
			static const uint32_t qr[][3] = { { 3, 0, 4 }, { 3, 4, 4 }, { 40, 8, 8 },
							  { 41, 16, 16 }, { 1024, 0, 8 }, { 31, 0, 8 } };
			const uint32_t *q = qr[rnd(&r) % 6];
			for (int dir = -1; dir <= 1; dir += 2) {
				uint64_t want = 0, got = 0;
				int has = naive_write_reg(s, at, cpu, q[0], q[1], q[2], dir, &want);
				enum trawl_status st =
					dir < 0 ? trawl_index_last_write_reg(ix, at, cpu, q[0], q[1], q[2], &got, &err)
						: trawl_index_next_write_reg(ix, at, cpu, q[0], q[1], q[2], &got, &err);
				assert_int_equal(st, has ? TRAWL_OK : TRAWL_ERR_NOT_FOUND);
				if (has)
					assert_int_equal(got, want);
			}
		}
		if (p % 50 == 10) {
			/* remember this point's state for a changes() check */
			memcpy(o1->rv, o->rv, sizeof o->rv);
			memcpy(o1->rk, o->rk, sizeof o->rk);
			for (uint64_t a = 0; a < WIN_LEN; a++) {
				uint8_t v = 0;
				have1[a] = (uint8_t)oracle_byte(o, WIN_BASE + a, &v);
				mv1[a] = v;
			}
			ev1 = at;
		} else if (p % 50 == 40 && ev1 != UINT64_MAX && ev1 < at) {
			struct change_set cs;
			memset(cs.reg, 0, sizeof cs.reg);
			cs.mem = calloc(WIN_LEN, 1);
			assert_int_equal(trawl_index_changes(ix, ev1, at, collect_change, &cs, &err),
					 TRAWL_OK);
			for (int c = 0; c < s->cpus; c++)
				for (int sl = 0; sl < NREG_SLOTS; sl++) {
					int diff = 0;
					for (int b = 0; b < 256; b++)
						diff |= o1->rk[c][sl][b] != o->rk[c][sl][b] ||
							(o->rk[c][sl][b] && o1->rv[c][sl][b] != o->rv[c][sl][b]);
					if (diff != cs.reg[c][sl])
						fail_msg("changes %llu..%llu: cpu %d slot %d: index %d oracle %d",
							 (unsigned long long)ev1, (unsigned long long)at,
							 c, sl, cs.reg[c][sl], diff);
				}
			for (uint64_t a = 0; a < WIN_LEN; a++) {
				uint8_t v = 0;
				int k = oracle_byte(o, WIN_BASE + a, &v);
				int diff = k != have1[a] || (k && v != mv1[a]);
				if (diff != cs.mem[a])
					fail_msg("changes %llu..%llu: byte 0x%llx: index %d oracle %d",
						 (unsigned long long)ev1, (unsigned long long)at,
						 (unsigned long long)(WIN_BASE + a), cs.mem[a], diff);
			}
			free(cs.mem);
		}
	}
	trawl_index_regs_release(&regs);
	free(pts);
	free(mv1);
	free(mk1);
	free(have1);
	free(o1);
	oracle_free(o);
	free(o);
}

static void make_stream(struct synth *s, uint64_t seed, int cpus, size_t nev)
{
	synth_init(s, seed, cpus);
	while (s->nev < nev)
		synth_event(s);
}

static void single_core_matches_oracle(void **state)
{
	struct synth s;
	make_stream(&s, 1, 1, 20000);
	char *path = tmp_index();
	struct trawl_index *ix = build(&s, path, 64, 0);
	assert_int_equal(trawl_index_event_count(ix), s.nev);
	check_against_oracle(&s, ix, 2000, 7);
	trawl_index_close(ix);
	unlink(path);
	free(path);
	synth_free(&s);
}

/* Two cores, lots of unknown bytes and semihosting; tiny sorter memory so
 * the external merge of several runs is exercised. */
static void multi_core_small_runs_match_oracle(void **state)
{
	struct synth s;
	synth_init(&s, 2, 2);
	s.unknown_pct = 30;
	s.semihost_every = 50;
	while (s.nev < 15000)
		synth_event(&s);
	char *path = tmp_index();
	struct trawl_index *ix = build(&s, path, 7, 4096);
	check_against_oracle(&s, ix, 2000, 11);
	trawl_index_close(ix);
	unlink(path);
	free(path);
	synth_free(&s);
}

/* Line, time and byte-offset maps against a scan; PC visits. */
static void maps_and_pcs(void **state)
{
	struct synth s;
	make_stream(&s, 3, 1, 5000);
	char *path = tmp_index();
	struct trawl_index *ix = build(&s, path, 256, 0);
	struct trawl_error err;
	uint64_t ev;
	assert_int_equal(trawl_index_event_at_line(ix, 0, &ev, &err), TRAWL_ERR_NOT_FOUND);
	uint64_t last = s.ev[s.nev - 1].line + s.ev[s.nev - 1].nlines - 1;
	for (uint64_t line = 1; line <= last; line += 7) {
		size_t want = 0;
		while (want + 1 < s.nev && s.ev[want + 1].line <= line)
			want++;
		assert_int_equal(trawl_index_event_at_line(ix, line, &ev, &err), TRAWL_OK);
		assert_int_equal(ev, want);
		struct trawl_index_event e;
		assert_int_equal(trawl_index_event(ix, ev, &e, &err), TRAWL_OK);
		assert_int_equal(e.line, s.ev[want].line);
		assert_int_equal(e.offset, s.ev[want].offset);
		assert_int_equal(trawl_index_event_at_offset(ix, e.offset + 3, &ev, &err), TRAWL_OK);
		assert_int_equal(ev, want);
		assert_int_equal(trawl_index_event_at_time(ix, s.ev[want].time, &ev, &err), TRAWL_OK);
		assert_int_equal(ev, want);
	}
	assert_int_equal(trawl_index_event_at_line(ix, last + 1, &ev, &err), TRAWL_ERR_NOT_FOUND);
	for (uint64_t pc = 0x400000; pc < 0x400000 + 4 * 64; pc += 4) {
		uint64_t want = 0;
		for (size_t i = 0; i < s.nev; i++)
			want += s.ev[i].kind == TRAWL_EV_INSN && s.ev[i].u.insn.pc == pc;
		assert_int_equal(trawl_index_pc_count(ix, pc), want);
		uint64_t prev = 0;
		for (uint64_t i = 0; i < want; i++) {
			assert_int_equal(trawl_index_pc_visit(ix, pc, i, &ev, &err), TRAWL_OK);
			assert_true(i == 0 || ev > prev);
			assert_int_equal(s.ev[ev].u.insn.pc, pc);
			if (i) {
				uint64_t st;
				assert_int_equal(trawl_index_pc_step(ix, pc, ev, -1, &st, &err), TRAWL_OK);
				assert_int_equal(st, prev);
				assert_int_equal(trawl_index_pc_step(ix, pc, prev, 1, &st, &err), TRAWL_OK);
				assert_int_equal(st, ev);
			}
			prev = ev;
		}
	}
	/* call depth: BL (0x94..) +1, BLR +1, RET -1, on executed A64 insns */
	int32_t depth = 0;
	for (size_t i = 0; i < s.nev; i++) {
		struct trawl_index_event e;
		assert_int_equal(trawl_index_event(ix, i, &e, &err), TRAWL_OK);
		assert_int_equal(e.depth, depth);
		const struct trawl_event *x = &s.ev[i];
		if (x->kind == TRAWL_EV_INSN && !(x->flags & TRAWL_EVF_CCFAIL)) {
			uint32_t enc = x->u.insn.encoding;
			depth += enc == 0x94000010u || enc == 0xd63f0020u;
			depth -= enc == 0xd65f03c0u;
		}
	}
	trawl_index_close(ix);
	unlink(path);
	free(path);
	synth_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(single_core_matches_oracle),
		cmocka_unit_test(multi_core_small_runs_match_oracle),
		cmocka_unit_test(maps_and_pcs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
