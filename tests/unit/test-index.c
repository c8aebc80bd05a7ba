/* The index against a naive replay oracle (index-oracle.h) on synthetic
 * event streams: every alias shape, partly unknown values, unaligned and
 * block-crossing accesses, back-dated reads, semihosting, two cores, tiny
 * sort buffers. Thousands of random points, zero mismatches allowed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "index-oracle.h"
#include "trawl/ete.h"

static char *tmp_index(void)
{
	static int n;
	char *p = malloc(64);
	snprintf(p, 64, "/tmp/trawl-test-index-%d-%d.trawlidx", (int)getpid(), n++);
	return p;
}

/* The oracle decodes semihosting on its own: it must find exactly the
 * calls the generator made. */
static void check_semihosting_decoded(const struct synth *s)
{
	struct oracle *o = or_prepare(s);
	assert_int_equal(o->nclob, s->nclob);
	for (size_t i = 0; i < s->nclob; i++) {
		assert_int_equal(o->clob[i].ev, s->clob[i].ev);
		assert_int_equal(o->clob[i].addr, s->clob[i].addr);
		assert_int_equal(o->clob[i].len, s->clob[i].len);
	}
	or_free(o);
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
	make_stream(&s, 1, 1, 12000);
	char *path = tmp_index();
	struct trawl_index *ix = oracle_build(&s, path, 64, 0);
	assert_int_equal(trawl_index_event_count(ix), s.nev);
	check_semihosting_decoded(&s);
	assert_true(s.nclob > 10);
	oracle_check(&s, ix, 1200, 7);
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
	while (s.nev < 10000)
		synth_event(&s);
	char *path = tmp_index();
	struct trawl_index *ix = oracle_build(&s, path, 7, 4096);
	check_semihosting_decoded(&s);
	oracle_check(&s, ix, 1200, 11);
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
	struct trawl_index *ix = oracle_build(&s, path, 256, 0);
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
		/* every field of the (packed) event record is the stream's */
		int insn = x->kind == TRAWL_EV_INSN;
		assert_int_equal(e.line, x->line ? x->line : i + 1);
		assert_int_equal(e.offset, x->offset);
		assert_int_equal(e.length, x->length);
		assert_int_equal(e.time, x->time);
		assert_int_equal(e.cpu, x->cpu);
		assert_int_equal(e.flags, x->flags & 0xff);
		assert_int_equal(e.kind, x->kind);
		assert_int_equal(e.pc, insn ? x->u.insn.pc : 0);
		assert_int_equal(e.encoding, insn ? x->u.insn.encoding : 0);
		assert_int_equal(e.iset, insn ? x->u.insn.iset : 0);
		assert_int_equal(e.width, insn ? x->u.insn.width : 0);
		assert_int_equal(e.el, insn ? x->u.insn.el : 0xff);
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

/* A write failure in the middle of a build (here a file-size limit, as a
 * full disk would) leaves neither the index nor its temporary file, and an
 * older index stays as it was. */
/* A sequential scan in windows gives exactly the events read one at a
 * time, across window edges and at the end; reads past the end fail. */
static void windowed_scan(void **state)
{
	(void)state;
	struct synth s;
	make_stream(&s, 3, 1, 3000);
	char *path = tmp_index();
	struct trawl_index *ix = oracle_build(&s, path, 64, 0);
	uint64_t n = trawl_index_event_count(ix);
	struct trawl_index_event *a = calloc(n, sizeof *a), *w = calloc(n, sizeof *w);
	struct trawl_error err;
	for (uint64_t i = 0; i < n; i++)
		assert_int_equal(trawl_index_event(ix, i, &a[i], &err), TRAWL_OK);
	static const size_t steps[] = { 1, 255, 256, 257, 1000, 4096 };
	for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
		memset(w, 0, n * sizeof *w); /* padding stays 0, as in a */
		for (uint64_t i = 0; i < n; i += steps[k]) {
			size_t c = n - i < steps[k] ? (size_t)(n - i) : steps[k];
			assert_int_equal(trawl_index_events(ix, i, c, w + i, &err), TRAWL_OK);
		}
		assert_memory_equal(a, w, n * sizeof *w);
	}
	assert_int_equal(trawl_index_events(ix, n, 0, w, &err), TRAWL_OK);
	assert_int_equal(trawl_index_events(ix, n - 1, 2, w, &err), TRAWL_ERR_NOT_FOUND);
	assert_int_equal(trawl_index_events(ix, n + 1, 0, w, &err), TRAWL_ERR_NOT_FOUND);
	free(a);
	free(w);
	trawl_index_close(ix);
	unlink(path);
	free(path);
	synth_free(&s);
}

static void failed_build_leaves_nothing(void **state)
{
	struct synth s;
	make_stream(&s, 5, 1, 30000);
	char *path = tmp_index();
	struct trawl_index *ix = oracle_build(&s, path, 128, 0);
	trawl_index_close(ix);
	struct stat before;
	assert_int_equal(stat(path, &before), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit rl = { 64 << 10, 64 << 10 };
		setrlimit(RLIMIT_FSIZE, &rl);
		struct trawl_index_builder *b;
		struct trawl_error err;
		struct trawl_index_build_options o = { .kind = oracle_kind };
		if (trawl_index_builder_create(&b, path, &o, &err))
			_exit(3);
		struct trawl_event_batch batch = synth_batch(&s, 0, s.nev);
		enum trawl_status st = trawl_index_builder_add(b, &batch, &err);
		if (!st)
			st = trawl_index_builder_finish(b, NULL, &err);
		trawl_index_builder_destroy(b);
		_exit(st == TRAWL_ERR_IO ? 0 : 4);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	struct stat after;
	assert_int_equal(stat(path, &after), 0);
	assert_int_equal(after.st_size, before.st_size);
	assert_int_equal(after.st_ino, before.st_ino);
	char tmp[128];
	snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)pid);
	assert_int_not_equal(access(tmp, F_OK), 0);
	struct trawl_error err;
	assert_int_equal(trawl_index_open(&ix, path, NULL, &err), TRAWL_OK);
	trawl_index_close(ix);
	unlink(path);
	free(path);
	synth_free(&s);
}

/* The identity rules (docs/index.md, "Identity"): which stat and hash
 * combinations match, worked out by hand. */
static void identity_rules(void **state)
{
	(void)state;
	struct synth s;
	make_stream(&s, 5, 1, 50);
	char *path = tmp_index();
	struct trawl_index_builder *b;
	struct trawl_error err;
	struct trawl_trace_id id = { .size = 1000, .mtime_ns = 5000000000ull,
				     .ctime_ns = 6000000000ull, .ino = 7, .dev = 8, .hash = 0x1234,
				     .hashed = 1, .source = 1, .reader = TRAWL_ID_LENIENT,
				     .skipped = 3, .taken_ns = 9000000000ull };
	assert_int_equal(trawl_index_builder_create(&b, path, NULL, &err), TRAWL_OK);
	struct trawl_event_batch batch = synth_batch(&s, 0, s.nev);
	assert_int_equal(trawl_index_builder_add(b, &batch, &err), TRAWL_OK);
	assert_int_equal(trawl_index_builder_finish(b, &id, &err), TRAWL_OK);
	trawl_index_builder_destroy(b);
	struct trawl_index *ix;
	assert_int_equal(trawl_index_open(&ix, path, NULL, &err), TRAWL_OK);
	assert_int_equal(trawl_index_skipped_lines(ix), 3);
	assert_int_equal(trawl_index_reader_options(ix), TRAWL_ID_LENIENT);
	struct trawl_trace_id q = id;
	q.hashed = 0;
	/* same stat, changed 3 s before it was recorded: used without a hash */
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_SAME);
	/* other size: stale at once; other options: options */
	q.size = 1001;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_STALE);
	q = id;
	q.hashed = 0;
	q.reader = 0;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_OPTIONS);
	/* ctime moved (touch -r, cp -a, chmod): the hash decides */
	q = id;
	q.hashed = 0;
	q.ctime_ns += 1;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_UNSURE);
	q.hashed = 1;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_SAME);
	q.hash = 0x1235;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_STALE);
	/* other inode (mv over it, cp) or device: the hash decides */
	q = id;
	q.hashed = 0;
	q.ino = 70;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_UNSURE);
	trawl_index_close(ix);
	/* racy: the trace changed within 2 s of when its stat was recorded,
	 * so the same stat does not prove the same content */
	id.taken_ns = id.ctime_ns + 1000000000ull;
	assert_int_equal(trawl_index_builder_create(&b, path, NULL, &err), TRAWL_OK);
	assert_int_equal(trawl_index_builder_add(b, &batch, &err), TRAWL_OK);
	assert_int_equal(trawl_index_builder_finish(b, &id, &err), TRAWL_OK);
	trawl_index_builder_destroy(b);
	assert_int_equal(trawl_index_open(&ix, path, NULL, &err), TRAWL_OK);
	q = id;
	q.hashed = 0;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_UNSURE);
	q.hashed = 1;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_SAME);
	q.hash = 1;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_STALE);
	/* another reader's options (an ETE decoder's, say) make another index */
	q = id;
	q.reader_hash = 77;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_OPTIONS);
	q.source = TRAWL_INDEX_SOURCE_ETE;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_STALE);
	/* an index without a reader version (as every one before key 7)
	 * against the ETE reader's: stale, rebuilt (it was used) */
	q = id;
	q.reader_version = TRAWL_ETE_READER_VERSION;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_STALE);
	trawl_index_close(ix);
	/* key 7 is written and read back: the same version matches, another
	 * (a reader that changed) does not */
	id.reader_version = 3;
	assert_int_equal(trawl_index_builder_create(&b, path, NULL, &err), TRAWL_OK);
	assert_int_equal(trawl_index_builder_add(b, &batch, &err), TRAWL_OK);
	assert_int_equal(trawl_index_builder_finish(b, &id, &err), TRAWL_OK);
	trawl_index_builder_destroy(b);
	assert_int_equal(trawl_index_open(&ix, path, NULL, &err), TRAWL_OK);
	struct trawl_index_info info;
	trawl_index_get_info(ix, &info);
	assert_int_equal(info.reader_version, 3);
	q = id;
	q.hashed = 1;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_SAME);
	q.reader_version = 4;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_STALE);
	q.reader_version = 0;
	assert_int_equal(trawl_index_match(ix, &q), TRAWL_INDEX_STALE);
	trawl_index_close(ix);
	unlink(path);
	free(path);
	synth_free(&s);
}

/* A source without text (decoded trace: line 0 on every event) feeds the
 * same builder: each event's line is its ordinal (1-based, one line), the
 * index says it has no text, and every answer is still the replay's. */
static void source_without_text(void **state)
{
	(void)state;
	struct synth s;
	make_stream(&s, 11, 2, 3000);
	for (size_t i = 0; i < s.nev; i++) {
		s.ev[i].line = 0;
		s.ev[i].nlines = 0;
	}
	char *path = tmp_index();
	struct trawl_index *ix = oracle_build(&s, path, 32, 0);
	struct trawl_index_info info;
	trawl_index_get_info(ix, &info);
	assert_true(info.no_text);
	assert_int_equal(info.lines, s.nev);
	for (uint64_t i = 0; i < s.nev; i += 97) {
		struct trawl_index_event e;
		uint64_t ev;
		assert_int_equal(trawl_index_event(ix, i, &e, NULL), TRAWL_OK);
		assert_int_equal(e.line, i + 1);
		assert_int_equal(e.nlines, 1);
		assert_int_equal(trawl_index_event_at_line(ix, i + 1, &ev, NULL), TRAWL_OK);
		assert_int_equal(ev, i);
	}
	oracle_check(&s, ix, 300, 5);
	trawl_index_close(ix);
	unlink(path);
	free(path);
	synth_free(&s);
}

/* Event fields at the edges of what a packed block holds (format 6):
 * in one block PCs 0 and 2^64-4 and encodings 0 and 2^32-1, times, lines
 * and offsets that jump by up to 2^62 between blocks and inside one, a
 * length past 2^32 (saturated), an event of 100000 lines, a call depth
 * that goes below zero, and register writes whose byte range ends at 256
 * (a 2048-bit z register). Truth: the stream itself, the depth counted by
 * hand from the encodings, and the writes placed by hand. */
static void extreme_fields(void **state)
{
	(void)state;
	struct synth s;
	make_stream(&s, 13, 2, 900);
	uint64_t add_line = 0, add_off = 0, add_time = 0;
	for (size_t i = 0; i < s.nev; i++) {
		struct trawl_event *x = &s.ev[i];
		add_line += i == 400 ? (uint64_t)1 << 40 : i == 401 ? 5 : 0;
		add_off += i == 450 ? (uint64_t)1 << 44 : 0;
		add_time += i == 300 ? (uint64_t)1 << 40 : i == 600 ? (uint64_t)1 << 62 : 0;
		x->line += add_line;
		x->offset += add_off;
		x->time += add_time;
		if (x->kind == TRAWL_EV_INSN && i >= 256 && i < 512) {
			x->u.insn.pc = i % 2 ? 0 : UINT64_MAX - 3;
			x->u.insn.encoding = i % 3 == 0 ? 0 : i % 3 == 1 ? UINT32_MAX : x->u.insn.encoding;
		}
		if (x->kind == TRAWL_EV_INSN && i < 200)
			x->u.insn.encoding = 0xd65f03c0u; /* RET: the depth goes below 0 */
	}
	s.ev[520].length = 5000000000ull;
	s.ev[400].nlines = 100000;
	/* z3 bytes [224, 256) at event 700, [240, 256) at 701 (cpu 0) */
	for (size_t i = 700; i < 702; i++) {
		struct trawl_event *x = &s.ev[i];
		x->cpu = 0;
		SYNTH_GROW(s.regs, s.nregs, s.cap_regs);
		struct trawl_reg_write *w = &s.regs[s.nregs];
		memset(w, 0, sizeof *w);
		w->reg = TRAWL_REG_V0 + 3;
		w->offset = i == 700 ? 224 : 240;
		w->size = i == 700 ? 32 : 16;
		w->value = synth_pool(&s, w->size);
		memset(s.pool + w->value, (int)i, w->size);
		w->known = TRAWL_ALL_KNOWN;
		x->first_reg = (uint32_t)s.nregs++;
		x->nregs = 1;
		x->nmems = 0;
	}
	char *path = tmp_index();
	struct trawl_index *ix = oracle_build(&s, path, 64, 0);
	struct trawl_error err;
	int32_t depth[2] = { 0, 0 }, lowest = 0; /* per core */
	for (size_t i = 0; i < s.nev; i++) {
		struct trawl_index_event e;
		const struct trawl_event *x = &s.ev[i];
		int insn = x->kind == TRAWL_EV_INSN;
		uint64_t ev;
		assert_int_equal(trawl_index_event(ix, i, &e, &err), TRAWL_OK);
		assert_int_equal(e.line, x->line);
		assert_int_equal(e.nlines, x->nlines);
		assert_int_equal(e.offset, x->offset);
		assert_int_equal(e.length, x->length > UINT32_MAX ? UINT32_MAX : x->length);
		assert_int_equal(e.time, x->time);
		assert_int_equal(e.cpu, x->cpu);
		assert_int_equal(e.pc, insn ? x->u.insn.pc : 0);
		assert_int_equal(e.encoding, insn ? x->u.insn.encoding : 0);
		assert_int_equal(e.depth, depth[x->cpu]);
		if (insn && !(x->flags & TRAWL_EVF_CCFAIL)) {
			uint32_t enc = x->u.insn.encoding;
			depth[x->cpu] += enc == 0x94000010u || enc == 0xd63f0020u;
			depth[x->cpu] -= enc == 0xd65f03c0u;
			lowest = depth[x->cpu] < lowest ? depth[x->cpu] : lowest;
		}
		/* the searches land on i for its own values (times can repeat:
		 * then on the last event with that time) */
		assert_int_equal(trawl_index_event_at_line(ix, x->line, &ev, &err), TRAWL_OK);
		assert_int_equal(ev, i);
		assert_int_equal(trawl_index_event_at_offset(ix, x->offset, &ev, &err), TRAWL_OK);
		assert_int_equal(ev, i);
		size_t last = i;
		while (last + 1 < s.nev && s.ev[last + 1].time == x->time)
			last++;
		assert_int_equal(trawl_index_event_at_time(ix, x->time, &ev, &err), TRAWL_OK);
		assert_int_equal(ev, last);
		if (i && x->time > s.ev[i - 1].time) {
			assert_int_equal(trawl_index_event_at_time(ix, x->time - 1, &ev, &err), TRAWL_OK);
			assert_int_equal(ev, i - 1);
		}
	}
	assert_true(lowest < -50);
	uint64_t got;
	/* byte 255 of z3: last written at 701; bytes [224, 240) at 700 */
	assert_int_equal(trawl_index_last_write_reg(ix, 800, 0, TRAWL_REG_V0 + 3, 255, 1, &got, &err),
			 TRAWL_OK);
	assert_int_equal(got, 701);
	assert_int_equal(trawl_index_last_write_reg(ix, 800, 0, TRAWL_REG_V0 + 3, 224, 16, &got, &err),
			 TRAWL_OK);
	assert_int_equal(got, 700);
	assert_int_equal(trawl_index_next_write_reg(ix, 650, 0, TRAWL_REG_V0 + 3, 250, 6, &got, &err),
			 TRAWL_OK);
	assert_int_equal(got, 700);
	struct trawl_index_regs r;
	trawl_index_regs_init(&r);
	assert_int_equal(trawl_index_regs_at(ix, 701, 0, &r, &err), TRAWL_OK);
	const uint8_t *v, *k;
	assert_true(trawl_index_regs_view(&r, TRAWL_REG_V0 + 3, &v, &k) == 256);
	assert_int_equal(v[230], 700 & 0xff);
	assert_int_equal(v[255], 701 & 0xff);
	assert_true(k[224] && k[255]);
	trawl_index_regs_release(&r);
	oracle_check(&s, ix, 300, 3);
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
		cmocka_unit_test(failed_build_leaves_nothing),
		cmocka_unit_test(windowed_scan),
		cmocka_unit_test(identity_rules),
		cmocka_unit_test(source_without_text),
		cmocka_unit_test(extreme_fields),
	};
	return oracle_run_kinds(tests, sizeof tests / sizeof tests[0]);
}
