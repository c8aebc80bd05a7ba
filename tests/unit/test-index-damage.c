/* Mutation campaign: damaged index files must never give a wrong answer.
 *
 * One index is built from a synthetic stream (two cores, unknown bytes,
 * semihosting, K = 16). A fixed set of queries (registers, memory,
 * last/next writes, PC visits, line lookups, event records, changes) is
 * answered from the undamaged file: that is the oracle (test-index.c
 * checks those answers against a replay). Then the file is damaged in many
 * ways (bit flips, overwritten bytes, zeroed 64 B and 4 KiB runs,
 * truncation, appended garbage, swapped and duplicated 4 KiB pages), and
 * the same queries run in this process against each damaged file. Every
 * mutation ends as "same answers", "detected" (open or a query fails with
 * an error status, the rest of the answers being the oracle's) or "silent
 * wrong" (a query succeeded with another answer): zero silent wrong
 * answers are allowed, and a crash ends the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "index-oracle.h"

#if defined(__SANITIZE_ADDRESS__)
#define MUTATIONS 300   /* the ASan build: fewer, every access checked */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MUTATIONS 300
#endif
#endif
#ifndef MUTATIONS
#define MUTATIONS 3000
#endif
#define TIME_CAP_S 40.0 /* per index kind */

enum qkind { Q_REGS, Q_MEM, Q_LASTW_MEM, Q_NEXTW_MEM, Q_LASTW_REG, Q_NEXTW_REG, Q_PC,
	     Q_LINE, Q_EVENTS, Q_CHANGES, Q_TIME, Q_KINDS };

struct query {
	enum qkind kind;
	uint64_t ev, ev2, addr, len, pc, line;
	uint16_t cpu;
	uint32_t reg;
};

struct answer {
	int status;
	uint64_t fp;            /* hash of everything the query returned */
};

static int collect_change(void *ctx, const struct trawl_index_change *c)
{
	XXH3_state_t *h = ctx;
	uint64_t v[5] = { (uint64_t)c->is_mem, c->cpu, c->reg, c->addr, c->len };
	XXH3_64bits_update(h, v, sizeof v);
	return 0;
}

static void run_query(const struct trawl_index *ix, const struct query *q, struct answer *a)
{
	XXH3_state_t *h = XXH3_createState();
	XXH3_64bits_reset(h);
	struct trawl_error err;
	enum trawl_status st = TRAWL_OK;
	uint64_t out = 0;
	uint8_t val[256], kn[32];
	struct trawl_index_regs r;
	struct trawl_index_event evs[8];
	switch (q->kind) {
	case Q_REGS:
		trawl_index_regs_init(&r);
		st = trawl_index_regs_at(ix, q->ev, q->cpu, &r, &err);
		if (!st) {
			XXH3_64bits_update(h, r.value, r.size);
			XXH3_64bits_update(h, r.known, r.size);
		}
		trawl_index_regs_release(&r);
		break;
	case Q_MEM:
		memset(val, 0, sizeof val);
		st = trawl_index_mem_at(ix, q->ev, q->addr, (size_t)q->len, val, kn, &err);
		if (!st) {
			for (size_t i = 0; i < q->len; i++)
				if (!((kn[i / 8] >> (i % 8)) & 1))
					val[i] = 0;
			XXH3_64bits_update(h, val, (size_t)q->len);
			XXH3_64bits_update(h, kn, (size_t)(q->len + 7) / 8);
		}
		break;
	case Q_LASTW_MEM:
		st = trawl_index_last_write_mem(ix, q->ev, q->addr, q->len, &out, &err);
		break;
	case Q_NEXTW_MEM:
		st = trawl_index_next_write_mem(ix, q->ev, q->addr, q->len, &out, &err);
		break;
	case Q_LASTW_REG:
		st = trawl_index_last_write_reg(ix, q->ev, q->cpu, q->reg, 0, 8, &out, &err);
		break;
	case Q_NEXTW_REG:
		st = trawl_index_next_write_reg(ix, q->ev, q->cpu, q->reg, 0, 8, &out, &err);
		break;
	case Q_PC: {
		uint64_t n = trawl_index_pc_count(ix, q->pc), v[3] = { n, 0, 0 };
		if (n && !(st = trawl_index_pc_visit(ix, q->pc, n / 2, &v[1], &err)))
			st = trawl_index_pc_step(ix, q->pc, q->ev, 1, &v[2], &err);
		if (st == TRAWL_ERR_NOT_FOUND)
			st = TRAWL_OK;
		if (!st)
			st = trawl_index_damage(ix, &err); /* pc_count has no status */
		XXH3_64bits_update(h, v, sizeof v);
		break;
	}
	case Q_LINE:
		st = trawl_index_event_at_line(ix, q->line, &out, &err);
		break;
	case Q_TIME:
		st = trawl_index_event_at_time(ix, q->line, &out, &err);
		break;
	case Q_EVENTS:
		memset(evs, 0, sizeof evs);
		st = trawl_index_events(ix, q->ev, 8, evs, &err);
		if (!st)
			XXH3_64bits_update(h, evs, sizeof evs);
		break;
	case Q_CHANGES:
		st = trawl_index_changes(ix, q->ev, q->ev2, collect_change, h, &err);
		break;
	default:
		break;
	}
	XXH3_64bits_update(h, &out, sizeof out);
	a->status = st;
	a->fp = XXH3_64bits_digest(h);
	XXH3_freeState(h);
}

/* A fixed query set spread over the trace: events, addresses and registers
 * the stream used. */
static size_t make_queries(const struct synth *s, struct query *q, size_t max)
{
	uint64_t rng = 12345;
	size_t n = 0;
	while (n < max) {
		struct query *x = &q[n];
		memset(x, 0, sizeof *x);
		x->kind = (enum qkind)(n % Q_KINDS);
		x->ev = or_rnd(&rng) % s->nev;
		x->ev2 = x->ev + 1 + or_rnd(&rng) % 40 < s->nev ? x->ev + 1 + or_rnd(&rng) % 40
							: s->nev - 1;
		if (x->ev2 < x->ev)
			x->ev2 = x->ev;
		const struct trawl_mem_access *m = &s->mems[or_rnd(&rng) % s->nmems];
		x->addr = m->addr;
		x->len = m->size ? m->size : 1;
		if (x->kind == Q_MEM)
			x->len = 1 + or_rnd(&rng) % 200;
		x->cpu = (uint16_t)(or_rnd(&rng) % (uint64_t)s->cpus);
		x->reg = (uint32_t)(or_rnd(&rng) % 8);
		const struct trawl_event *e = &s->ev[or_rnd(&rng) % s->nev];
		x->pc = e->kind == TRAWL_EV_INSN ? e->u.insn.pc : 0;
		x->line = e->line + or_rnd(&rng) % 3;
		if (x->kind == Q_TIME)
			x->line = e->time;
		n++;
	}
	return n;
}

enum outcome { SAME, DETECTED, SILENT, OUTCOMES };

static enum outcome run_all(const char *path, const struct query *q, size_t nq,
			    const struct answer *want, size_t *first_bad)
{
	struct trawl_index *ix;
	struct trawl_error err;
	if (trawl_index_open(&ix, path, NULL, &err))
		return DETECTED;
	enum outcome o = SAME;
	for (size_t i = 0; i < nq; i++) {
		struct answer a;
		run_query(ix, &q[i], &a);
		if (a.status == want[i].status && a.fp == want[i].fp)
			continue;
		if (a.status == TRAWL_ERR_CORRUPT) {
			o = DETECTED;
			continue;
		}
		*first_bad = i;
		o = SILENT;
		break;
	}
	trawl_index_close(ix);
	return o;
}

struct mutation {
	uint64_t off, len;      /* bytes changed, to restore */
	uint64_t size;          /* file size after the mutation */
	const char *what;
};

/* Damage the file in place; returns what to restore. */
static struct mutation mutate(int fd, const uint8_t *orig, uint64_t size, unsigned kind,
			      uint64_t *rng)
{
	struct mutation m = { 0, 0, size, "" };
	uint8_t buf[8192];
	uint64_t at = or_rnd(rng) % size;
	if (or_rnd(rng) % 8 == 0)
		at = or_rnd(rng) % 1024; /* the header, more often */
	switch (kind % 8) {
	case 0: { /* flip 1-3 bits */
		m.what = "bit flip";
		m.off = at;
		m.len = 1;
		buf[0] = orig[at];
		for (unsigned k = 0, n = 1 + (unsigned)(or_rnd(rng) % 3); k < n; k++)
			buf[0] ^= (uint8_t)(1u << (or_rnd(rng) % 8));
		if (buf[0] == orig[at])
			buf[0] ^= 1;
		break;
	}
	case 1: /* overwrite 1-8 bytes */
		m.what = "bytes";
		m.off = at;
		m.len = 1 + or_rnd(rng) % 8;
		if (m.off + m.len > size)
			m.len = size - m.off;
		for (uint64_t i = 0; i < m.len; i++)
			buf[i] = (uint8_t)or_rnd(rng);
		break;
	case 2: /* zeroed 64-byte run */
	case 3: /* zeroed 4 KiB run, aligned half the time */
		m.what = kind % 8 == 2 ? "zero 64 B" : "zero 4 KiB";
		m.len = kind % 8 == 2 ? 64 : 4096;
		m.off = kind % 8 == 3 && or_rnd(rng) % 2 ? at & ~(uint64_t)4095 : at;
		if (m.off + m.len > size)
			m.len = size - m.off;
		memset(buf, 0, (size_t)m.len);
		break;
	case 4: /* truncation */
		m.what = "truncate";
		m.size = at;
		if (ftruncate(fd, (off_t)m.size) != 0)
			fail_msg("ftruncate");
		return m;
	case 5: { /* appended garbage */
		m.what = "append";
		m.off = size;
		m.len = 1 + or_rnd(rng) % 5000;
		m.size = size + m.len;
		for (uint64_t i = 0; i < m.len; i++)
			buf[i] = (uint8_t)or_rnd(rng);
		break;
	}
	case 6: /* two 4 KiB pages swapped */
	case 7: { /* one page copied over another */
		uint64_t pages = size / 4096;
		uint64_t a = or_rnd(rng) % pages, b = or_rnd(rng) % pages;
		if (a == b)
			b = (a + 1) % pages;
		if (a > b) {
			uint64_t t = a;
			a = b;
			b = t;
		}
		m.what = kind % 8 == 6 ? "swap pages" : "duplicate page";
		m.off = a * 4096;
		m.len = (b - a + 1) * 4096;
		if (m.len > sizeof buf) {
			/* write the two pages separately; restore the span */
			uint8_t pa[4096], pb[4096];
			memcpy(pa, orig + a * 4096, 4096);
			memcpy(pb, orig + b * 4096, 4096);
			if (pwrite(fd, kind % 8 == 6 ? pb : pa, 4096, (off_t)(a * 4096)) != 4096 ||
			    pwrite(fd, pa, 4096, (off_t)(b * 4096)) != 4096)
				fail_msg("pwrite");
			if (kind % 8 == 7) /* a copied over b: a stays */
				m.off = b * 4096, m.len = 4096;
			return m;
		}
		memcpy(buf, orig + m.off, (size_t)m.len);
		if (kind % 8 == 6)
			memcpy(buf, orig + b * 4096, 4096);
		memcpy(buf + (b - a) * 4096, orig + a * 4096, 4096);
		break;
	}
	}
	if (pwrite(fd, buf, (size_t)m.len, (off_t)m.off) != (ssize_t)m.len)
		fail_msg("pwrite");
	return m;
}

static void restore(int fd, const uint8_t *orig, uint64_t size, const struct mutation *m)
{
	if (m->size != size && ftruncate(fd, (off_t)size) != 0)
		fail_msg("ftruncate");
	if (m->size > size || m->size < size) {
		/* truncation lost the tail; appending only added bytes */
		if (m->size < size &&
		    pwrite(fd, orig + m->size, (size_t)(size - m->size), (off_t)m->size) !=
			    (ssize_t)(size - m->size))
			fail_msg("pwrite");
		return;
	}
	if (pwrite(fd, orig + m->off, (size_t)m->len, (off_t)m->off) != (ssize_t)m->len)
		fail_msg("pwrite");
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void no_silent_wrong_answers(void **state)
{
	(void)state;
	struct synth s;
	synth_init(&s, 7, 2);
	s.unknown_pct = 20;
	s.semihost_every = 80;
	while (s.nev < 6000)
		synth_event(&s);
	char path[96];
	snprintf(path, sizeof path, "/tmp/trawl-test-damage-%d.trawlidx", (int)getpid());
	struct trawl_index *ix = oracle_build(&s, path, 16, 0);
	static struct query q[220];
	static struct answer want[220];
	size_t nq = make_queries(&s, q, 220);
	for (size_t i = 0; i < nq; i++)
		run_query(ix, &q[i], &want[i]);
	trawl_index_close(ix);
	size_t ok = 0;
	for (size_t i = 0; i < nq; i++)
		ok += want[i].status == TRAWL_OK;
	assert_true(ok > nq / 2); /* the query set asks real questions */

	int fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	struct stat sb;
	assert_int_equal(fstat(fd, &sb), 0);
	uint64_t size = (uint64_t)sb.st_size;
	uint8_t *orig = malloc((size_t)size);
	assert_true(orig && pread(fd, orig, (size_t)size, 0) == (ssize_t)size);
	printf("index of %zu events: %llu bytes, %zu queries\n", s.nev, (unsigned long long)size,
	       nq);

	size_t count[OUTCOMES] = { 0 }, by_kind[8][OUTCOMES];
	memset(by_kind, 0, sizeof by_kind);
	uint64_t rng = 99;
	double t0 = now_s();
	int n;
	for (n = 0; n < MUTATIONS && now_s() - t0 < TIME_CAP_S; n++) {
		unsigned kind = (unsigned)n % 8;
		struct mutation m = mutate(fd, orig, size, kind, &rng);
		size_t bad = 0;
		enum outcome o = run_all(path, q, nq, want, &bad);
		count[o]++;
		by_kind[kind][o]++;
		if (o == SILENT)
			print_message("silent wrong answer: %s at %llu (+%llu), query %zu (kind %d)\n",
				      m.what, (unsigned long long)m.off,
				      (unsigned long long)m.len, bad, (int)q[bad].kind);
		restore(fd, orig, size, &m);
	}
	static const char *const kinds[8] = { "bit flip", "bytes", "zero 64 B", "zero 4 KiB",
					       "truncate", "append", "swap pages",
					       "duplicate page" };
	for (int k = 0; k < 8; k++)
		printf("  %-15s same %4zu  detected %4zu  silent wrong %zu\n", kinds[k],
		       by_kind[k][SAME], by_kind[k][DETECTED], by_kind[k][SILENT]);
	printf("%d mutations in %.1f s: same answer %zu, detected (error status) %zu, "
	       "silent wrong %zu, crash 0\n",
	       n, now_s() - t0, count[SAME], count[DETECTED], count[SILENT]);
	/* the file is back to its original: every answer is the oracle's */
	size_t bad = 0;
	assert_int_equal(run_all(path, q, nq, want, &bad), SAME);
	close(fd);
	unlink(path);
	free(orig);
	synth_free(&s);
	assert_int_equal(count[SILENT], 0);
	assert_true(n >= (MUTATIONS < 1000 ? MUTATIONS : 1000));
	assert_true(count[DETECTED] > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_silent_wrong_answers),
	};
	return oracle_run_kinds(tests, sizeof tests / sizeof tests[0]);
}
