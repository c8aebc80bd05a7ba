/* Read-ahead (trawl_reader_options.read_ahead): the reader parses the next
 * batch on a second thread. Every event, effect, string, register name,
 * warning, error and counter must be exactly what the reader gives on the
 * caller's thread alone, and each batch must stay intact while the next
 * one is built. The trace is generated here, so the totals are also
 * checked against what was written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trawl/reader.h"

struct sb {
	char *s;
	size_t n, cap;
};

static void sb_printf(struct sb *b, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		assert_true(k >= 0);
		if ((size_t)k < b->cap - b->n) {
			b->n += (size_t)k;
			return;
		}
		b->cap = (b->cap + (size_t)k) * 2 + 256;
		b->s = realloc(b->s, b->cap);
		assert_non_null(b->s);
	}
}

/* What the generator wrote, to check the totals against. */
struct truth {
	size_t insns, regs, mems, bad, unknown_types;
};

static uint32_t rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* A Fast Models style trace with the shapes that stress batching: effects
 * after each instruction (register, system register, memory with values in
 * the pool), new system register names appearing throughout, unknown
 * record types and malformed lines (warnings in lenient mode), and
 * instructions with long disassembly. bad_at: line number of a malformed
 * line to place (strict-mode test), 0 = malformed lines only if lenient. */
static char *make_trace(size_t ninsns, int with_bad, struct truth *tr, size_t *len)
{
	struct sb b = { 0 };
	uint32_t x = 12345;
	memset(tr, 0, sizeof *tr);
	static const char *const mnem[] = { "add x0, x1, x2", "ldr x3, [sp, #16]",
					    "bl #0x400100", "ret",
					    "stp x29, x30, [sp, #-32]!  // a longer disassembly text here" };
	for (size_t i = 0; i < ninsns; i++) {
		uint32_t r = rnd(&x);
		uint64_t pc = 0x400000 + 4 * (r % 4096);
		sb_printf(&b, "%zu clk %s (%zu) %08llx %08x O EL1h_s : %s\n", i,
			  r % 11 == 0 ? "IS" : "IT", i, (unsigned long long)pc, r,
			  mnem[r % 5]);
		tr->insns++;
		unsigned effects = (r >> 8) % 5;
		for (unsigned k = 0; k < effects; k++) {
			uint32_t q = rnd(&x);
			switch (q % 5) {
			case 0:
				sb_printf(&b, "%zu clk R X%u %016llx\n", i, q % 31,
					  (unsigned long long)q * 0x9e3779b97f4a7c15ull);
				tr->regs++;
				break;
			case 1:
				sb_printf(&b, "%zu clk R SP_EL1 %016llx\n", i,
					  (unsigned long long)q << 4);
				tr->regs++;
				break;
			case 2:
				/* a new name every so often: the name table grows
				 * while earlier batches are being read */
				sb_printf(&b, "%zu clk R SYSREG_%u_EL1 %016llx\n", i,
					  (unsigned)(i / 97) + q % 3, (unsigned long long)q);
				tr->regs++;
				break;
			case 3:
				sb_printf(&b, "%zu clk MW4 %08llx %08x\n", i,
					  (unsigned long long)(0x10000 + (q % 1024) * 4), q);
				tr->mems++;
				break;
			default:
				sb_printf(&b, "%zu clk MR8 %016llx %016llx\n", i,
					  (unsigned long long)(0x20000 + (q % 512) * 8),
					  (unsigned long long)q * 77);
				tr->mems++;
				break;
			}
		}
		if (i % 1000 == 500) {
			/* a record type the parser does not know: warned once each */
			sb_printf(&b, "%zu clk ZZ%zu unknown record\n", i, i / 1000);
			tr->unknown_types++;
		}
		if (with_bad && i % 700 == 350) {
			sb_printf(&b, "%zu clk R X1 not-a-number\n", i);
			tr->bad++;
		}
	}
	*len = b.n;
	return b.s;
}

static char *write_temp(const char *text, size_t len)
{
	char *path = strdup("/tmp/trawl-test-ahead-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

struct run {
	struct sb ev;      /* every event, serialised */
	struct sb warn;    /* every warning, in order */
	size_t insns, regs, mems, batches;
	enum trawl_status end;
	struct trawl_error err;
	struct trawl_reader_stats stats;
};

static void on_warn(void *ctx, const struct trawl_error *w)
{
	struct run *r = ctx;
	sb_printf(&r->warn, "%llu:%u %s\n", (unsigned long long)w->line, w->column, w->message);
}

static void dump_bytes(struct sb *b, const uint8_t *pool, uint32_t off, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sb_printf(b, "%02x", pool[off + i]);
}

static void dump_batch(struct run *r, const struct trawl_event_batch *bt)
{
	for (size_t i = 0; i < bt->count; i++) {
		const struct trawl_event *e = &bt->events[i];
		sb_printf(&r->ev, "%llu k%u f%x l%llu+%u o%llu+%llu t%llu c%u",
			  (unsigned long long)e->seq, e->kind, e->flags,
			  (unsigned long long)e->line, e->nlines, (unsigned long long)e->offset,
			  (unsigned long long)e->length, (unsigned long long)e->time, e->cpu);
		if (e->kind == TRAWL_EV_INSN) {
			r->insns++;
			sb_printf(&r->ev, " pc%llx e%x w%u i%u el%u [%.*s] [%.*s]",
				  (unsigned long long)e->u.insn.pc, e->u.insn.encoding,
				  e->u.insn.width, e->u.insn.iset, e->u.insn.el,
				  (int)e->u.insn.mode.len, e->u.insn.mode.ptr,
				  (int)e->u.insn.disasm.len, e->u.insn.disasm.ptr);
		}
		for (uint32_t k = 0; k < e->nregs; k++) {
			const struct trawl_reg_write *w = &bt->regs[e->first_reg + k];
			sb_printf(&r->ev, " R%s+%u:", trawl_reg_names_get(bt->sysregs, w->reg),
				  w->offset);
			dump_bytes(&r->ev, bt->pool, w->value, w->size);
			r->regs++;
		}
		for (uint32_t k = 0; k < e->nmems; k++) {
			const struct trawl_mem_access *m = &bt->mems[e->first_mem + k];
			sb_printf(&r->ev, " M%x@%llx:", m->flags, (unsigned long long)m->addr);
			dump_bytes(&r->ev, bt->pool, m->value, m->size);
			r->mems++;
		}
		sb_printf(&r->ev, "\n");
	}
}

static void read_all(const char *path, int ahead, uint32_t batch_events, size_t window,
		     int lenient, struct run *r)
{
	memset(r, 0, sizeof *r);
	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.lenient = lenient;
	o.batch_events = batch_events;
	o.input.map_window = window;
	o.warn = on_warn;
	o.warn_ctx = r;
	o.read_ahead = ahead;
	struct trawl_reader *rd;
	assert_int_equal(trawl_reader_open(&rd, path, &o, &r->err), TRAWL_OK);
	struct trawl_event_batch bt;
	enum trawl_status st;
	uint64_t last_pos = 0;
	while ((st = trawl_reader_next(rd, &bt, &r->err)) == TRAWL_OK) {
		dump_batch(r, &bt);
		r->batches++;
		/* progress never goes backwards and never passes the file */
		uint64_t pos = trawl_reader_raw_pos(rd);
		assert_true(pos >= last_pos);
		last_pos = pos;
	}
	r->end = st;
	r->stats = *trawl_reader_stats(rd);
	/* asking again after the end gives the end again */
	if (st == TRAWL_END)
		assert_int_equal(trawl_reader_next(rd, &bt, &r->err), TRAWL_END);
	trawl_reader_close(rd);
}

static void assert_same(const struct run *a, const struct run *b)
{
	assert_int_equal(a->ev.n, b->ev.n);
	assert_memory_equal(a->ev.s, b->ev.s, a->ev.n);
	assert_int_equal(a->warn.n, b->warn.n);
	if (a->warn.n)
		assert_memory_equal(a->warn.s, b->warn.s, a->warn.n);
	assert_int_equal(a->end, b->end);
	assert_int_equal(a->batches, b->batches);
	assert_memory_equal(&a->stats, &b->stats, sizeof a->stats);
	if (a->end < 0) {
		assert_string_equal(a->err.message, b->err.message);
		assert_int_equal(a->err.line, b->err.line);
	}
}

static void free_run(struct run *r)
{
	free(r->ev.s);
	free(r->warn.s);
}

/* Lenient mode: everything read, the same way, for batch sizes from one
 * event (a hand-over per instruction) up, and map windows small enough
 * that many events straddle two windows (their text is then copied). */
static void test_same_events_lenient(void **state)
{
	(void)state;
	struct truth tr;
	size_t len;
	char *text = make_trace(6000, 1, &tr, &len);
	char *path = write_temp(text, len);
	const uint32_t batches[] = { 1, 3, 64, 0 };
	const size_t windows[] = { 4096, 65536, 0 };
	for (size_t bi = 0; bi < sizeof batches / sizeof *batches; bi++)
		for (size_t wi = 0; wi < sizeof windows / sizeof *windows; wi++) {
			struct run sync, ahead;
			read_all(path, 0, batches[bi], windows[wi], 1, &sync);
			read_all(path, 1, batches[bi], windows[wi], 1, &ahead);
			assert_int_equal(sync.end, TRAWL_END);
			assert_same(&sync, &ahead);
			/* the totals are what was written */
			assert_int_equal(ahead.insns, tr.insns);
			assert_int_equal(ahead.regs, tr.regs);
			assert_int_equal(ahead.mems, tr.mems);
			assert_int_equal(ahead.stats.bad_lines, tr.bad);
			assert_true(ahead.warn.n > 0);
			free_run(&sync);
			free_run(&ahead);
		}
	unlink(path);
	free(path);
	free(text);
}

/* Strict mode: the events before the first malformed line, then the same
 * error naming that line. */
static void test_same_error_strict(void **state)
{
	(void)state;
	struct truth tr;
	size_t len;
	char *text = make_trace(2000, 1, &tr, &len);
	char *path = write_temp(text, len);
	struct run sync, ahead;
	read_all(path, 0, 16, 4096, 0, &sync);
	read_all(path, 1, 16, 4096, 0, &ahead);
	assert_true(sync.end < 0);
	assert_same(&sync, &ahead);
	/* instructions 0..350 come before the first bad line */
	assert_int_equal(ahead.insns, 351);
	free_run(&sync);
	free_run(&ahead);
	unlink(path);
	free(path);
	free(text);
}

/* A pipe cannot be read ahead (its buffer is reused): the option is
 * ignored and the events are still right. */
static void test_stream_ignored(void **state)
{
	(void)state;
	struct truth tr;
	size_t len;
	char *text = make_trace(500, 0, &tr, &len);
	char *path = write_temp(text, len);
	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.read_ahead = 1;
	o.input.no_mmap = 1;
	o.input.chunk_size = 4096;
	o.batch_events = 5;
	struct trawl_reader *rd;
	struct trawl_error err;
	assert_int_equal(trawl_reader_open(&rd, path, &o, &err), TRAWL_OK);
	struct trawl_event_batch bt;
	size_t insns = 0;
	while (trawl_reader_next(rd, &bt, &err) == TRAWL_OK)
		for (size_t i = 0; i < bt.count; i++)
			insns += bt.events[i].kind == TRAWL_EV_INSN;
	assert_int_equal(insns, tr.insns);
	trawl_reader_close(rd);
	unlink(path);
	free(path);
	free(text);
}

/* Closing in the middle stops the worker (ASan/LSan see any leak). */
static void test_close_early(void **state)
{
	(void)state;
	struct truth tr;
	size_t len;
	char *text = make_trace(3000, 0, &tr, &len);
	char *path = write_temp(text, len);
	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.read_ahead = 1;
	o.batch_events = 8;
	struct trawl_reader *rd;
	struct trawl_error err;
	assert_int_equal(trawl_reader_open(&rd, path, &o, &err), TRAWL_OK);
	struct trawl_event_batch bt;
	for (int i = 0; i < 3; i++)
		assert_int_equal(trawl_reader_next(rd, &bt, &err), TRAWL_OK);
	trawl_reader_close(rd);
	unlink(path);
	free(path);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_events_lenient),
		cmocka_unit_test(test_same_error_strict),
		cmocka_unit_test(test_stream_ignored),
		cmocka_unit_test(test_close_early),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
