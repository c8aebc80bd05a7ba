/* ETE packet decoder fast paths against the general per-packet parser.
 *
 * The decoder has two shortcuts: precomputed records for one-byte packets
 * (record mode) and a counting loop that consumes common packets without
 * building records (count mode, no callback). The reference is the same
 * decoder with trawl_ete_pkt_decoder_set_generic(d, 1), where every packet
 * goes through the general parser. For every trace stream of the corpus
 * snapshots ($TRAWL_CORPUS/ete) and for random and mutated buffers, under
 * several configurations and chunkings, the fast paths must give the same
 * packet sequence (every field) and the same counters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/ete.h"

#include "ete-rng.h"

struct pkts {
	struct trawl_ete_packet *p;
	size_t n, cap;
};

static void collect(void *ctx, const struct trawl_ete_packet *pkts, size_t n)
{
	struct pkts *g = ctx;
	if (g->n + n > g->cap) {
		g->cap = (g->n + n) * 2;
		g->p = realloc(g->p, g->cap * sizeof *g->p);
		assert_non_null(g->p);
	}
	memcpy(g->p + g->n, pkts, n * sizeof *pkts);
	g->n += n;
}


/* Fold the decoder's address history into h: counting-only runs have no
 * packets to compare, so their decoded addresses are checked this way. */
static uint64_t hist_digest(const struct trawl_ete_pkt_decoder *d, uint64_t h)
{
	for (unsigned i = 0; i < 3; i++) {
		uint64_t a;
		uint8_t is;
		assert_int_equal(trawl_ete_pkt_decoder_history(d, i, &a, &is), TRAWL_OK);
		h = (h ^ a ^ ((uint64_t)is << 63)) * 0x100000001b3ull + i;
	}
	return h;
}

/* chunk: 0 = all at once, SIZE_MAX = random sizes 1..97. Returns a digest
 * of the address history after every chunk. */
static uint64_t feed(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t len, size_t chunk)
{
	size_t i = 0;
	uint64_t h = 0xcbf29ce484222325ull;
	while (i < len) {
		size_t n = chunk == 0 ? len : chunk == SIZE_MAX ? 1 + rnd() % 97 : chunk;
		if (n > len - i)
			n = len - i;
		trawl_ete_pkt_decoder_feed(d, b + i, n);
		h = hist_digest(d, h);
		i += n;
	}
	trawl_ete_pkt_decoder_finish(d);
	return hist_digest(d, h);
}

static void run(const struct trawl_ete_config *cfg, const uint8_t *b, size_t len, size_t chunk,
		int generic, int records, struct pkts *out, struct trawl_ete_pkt_stats *st,
		uint64_t *hist)
{
	struct trawl_ete_pkt_decoder *d;
	assert_int_equal(trawl_ete_pkt_decoder_create(&d, cfg, records ? collect : NULL, out, NULL),
			 TRAWL_OK);
	trawl_ete_pkt_decoder_set_generic(d, generic);
	uint64_t seed = rng_state;
	*hist = feed(d, b, len, chunk);
	rng_state = seed; /* every run of one case sees the same chunking */
	*st = *trawl_ete_pkt_decoder_stats(d);
	trawl_ete_pkt_decoder_destroy(d);
}

static void same_packet(const struct trawl_ete_packet *a, const struct trawl_ete_packet *b,
			size_t i, const char *what)
{
	int same = a->offset == b->offset && a->addr == b->addr && a->value == b->value &&
		   a->atoms == b->atoms && a->count == b->count && a->cc == b->cc &&
		   a->len == b->len && a->commit == b->commit && a->type == b->type &&
		   a->header == b->header && a->natoms == b->natoms && a->is == b->is &&
		   a->addr_bits == b->addr_bits && a->flags == b->flags &&
		   a->exc_addr_interp == b->exc_addr_interp && a->ite_el == b->ite_el;
	if (same && (a->flags & TRAWL_ETE_PF_HAS_CTX))
		same = a->ctx.el == b->ctx.el && a->ctx.sf == b->ctx.sf && a->ctx.ns == b->ctx.ns &&
		       a->ctx.nse == b->ctx.nse && a->ctx.has_vmid == b->ctx.has_vmid &&
		       a->ctx.has_cid == b->ctx.has_cid && a->ctx.vmid == b->ctx.vmid &&
		       a->ctx.cid == b->ctx.cid;
	if (same && a->type == TRAWL_ETE_PKT_TRACE_INFO)
		same = a->tinfo_key == b->tinfo_key && a->tinfo_spec == b->tinfo_spec &&
		       a->tinfo_cyct == b->tinfo_cyct && a->tinfo_sections == b->tinfo_sections;
	if (!same)
		fail_msg("%s: packet %zu differs: offset %llu/%llu type %s/%s", what, i,
			 (unsigned long long)a->offset, (unsigned long long)b->offset,
			 trawl_ete_pkt_name(a->type), trawl_ete_pkt_name(b->type));
}

static void same_stats(const struct trawl_ete_pkt_stats *a, const struct trawl_ete_pkt_stats *b,
		       const char *what)
{
	if (a->bytes != b->bytes || a->packets != b->packets || a->atoms_e != b->atoms_e ||
	    a->atoms_n != b->atoms_n || a->bad != b->bad || a->unsynced_bytes != b->unsynced_bytes)
		fail_msg("%s: counters differ: packets %llu/%llu atoms %llu,%llu/%llu,%llu bad %llu/%llu",
			 what, (unsigned long long)a->packets, (unsigned long long)b->packets,
			 (unsigned long long)a->atoms_e, (unsigned long long)a->atoms_n,
			 (unsigned long long)b->atoms_e, (unsigned long long)b->atoms_n,
			 (unsigned long long)a->bad, (unsigned long long)b->bad);
	for (int t = 0; t < TRAWL_ETE_PKT_COUNT_; t++)
		if (a->by_type[t] != b->by_type[t])
			fail_msg("%s: %s count %llu/%llu", what, trawl_ete_pkt_name(t),
				 (unsigned long long)a->by_type[t], (unsigned long long)b->by_type[t]);
}

/* The whole comparison for one stream; returns the packet count. */
static size_t check_stream(const struct trawl_ete_config *cfg, const uint8_t *b, size_t len,
			   size_t chunk, const char *what)
{
	struct pkts ref = { 0 }, fast = { 0 }, none = { 0 };
	struct trawl_ete_pkt_stats s_ref, s_fast, s_cnt, s_cnt_gen;
	uint64_t h_ref, h_fast, h_cnt, h_cnt_gen;
	run(cfg, b, len, chunk, 1, 1, &ref, &s_ref, &h_ref);
	run(cfg, b, len, chunk, 0, 1, &fast, &s_fast, &h_fast);
	run(cfg, b, len, chunk, 0, 0, &none, &s_cnt, &h_cnt);
	run(cfg, b, len, chunk, 1, 0, &none, &s_cnt_gen, &h_cnt_gen);
	assert_int_equal(none.n, 0);
	/* the address history after every chunk, the same in all four runs */
	if (h_fast != h_ref || h_cnt != h_ref || h_cnt_gen != h_ref)
		fail_msg("%s: address history differs (records fast %d, counting fast %d, "
			 "counting generic %d)", what, h_fast != h_ref, h_cnt != h_ref,
			 h_cnt_gen != h_ref);
	if (ref.n != fast.n)
		fail_msg("%s: %zu packets generic, %zu fast", what, ref.n, fast.n);
	for (size_t i = 0; i < ref.n; i++)
		same_packet(&ref.p[i], &fast.p[i], i, what);
	/* the generic record run's counters, recounted from its packets */
	assert_int_equal(s_ref.packets, ref.n);
	uint64_t by[TRAWL_ETE_PKT_COUNT_] = { 0 };
	for (size_t i = 0; i < ref.n; i++)
		by[ref.p[i].type]++;
	for (int t = 0; t < TRAWL_ETE_PKT_COUNT_; t++)
		assert_int_equal(by[t], s_ref.by_type[t]);
	char w[128];
	snprintf(w, sizeof w, "%s (records, fast)", what);
	same_stats(&s_ref, &s_fast, w);
	snprintf(w, sizeof w, "%s (counting, fast)", what);
	same_stats(&s_ref, &s_cnt, w);
	snprintf(w, sizeof w, "%s (counting, generic)", what);
	same_stats(&s_ref, &s_cnt_gen, w);
	free(ref.p);
	free(fast.p);
	return ref.n;
}

static struct trawl_ete_config cfg_ete(void)
{
	struct trawl_ete_config c;
	trawl_ete_config_default(&c);
	return c;
}

static struct trawl_ete_config cfg_ete_full(void)
{
	struct trawl_ete_config c;
	memset(&c, 0, sizeof c);
	c.idr0 = 0x2801cea1;   /* Q, COMMOPT + CCI (no commit sections) */
	c.idr1 = 0x4100fff0;
	c.idr2 = 0xd0001088;   /* 32-bit context ID and VMID */
	c.idr8 = 32;
	c.configr = 0x1001;
	c.devarch = 0x47735a13; /* ETE revision 3: ITE */
	assert_int_equal(trawl_ete_config_derive(&c, NULL), TRAWL_OK);
	return c;
}

/* COMMOPT = 0: cycle count format 1 carries a commit field first */
static struct trawl_ete_config cfg_ete_commit(void)
{
	struct trawl_ete_config c;
	trawl_ete_config_default(&c);
	c.idr0 &= ~(1u << 29);
	assert_int_equal(trawl_ete_config_derive(&c, NULL), TRAWL_OK);
	assert_false(c.commopt1);
	return c;
}

static struct trawl_ete_config cfg_etm4(void)
{
	struct trawl_ete_config c;
	memset(&c, 0, sizeof c);
	c.idr0 = 0x28000ea1;
	c.idr1 = 0x4100f424;   /* ETMv4.2 */
	c.idr2 = 0x00000488;
	c.idr8 = 0;
	c.configr = 0x1;
	c.devarch = 0;
	assert_int_equal(trawl_ete_config_derive(&c, NULL), TRAWL_OK);
	return c;
}

/* ----------------------------------------------------------- random input */

/* A plausible stream: A-Syncs, then packets drawn mostly from the kinds the
 * fast paths take (atoms, cycle counts, addresses), the rest from every
 * header, with random payload bytes; some buffers then get bytes flipped. */
static size_t gen_stream(uint8_t *b, size_t cap)
{
	static const uint8_t common[] = {
		0xF6, 0xF7, 0xD8, 0xDB, 0xF8, 0xFD, 0xDC, 0xDF, 0xD5, 0xF5, 0xC0, 0xE3, 0xFF,
		0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x1F, 0x95, 0x96, 0x9A, 0x9B, 0x9D, 0x9E, 0x90,
		0x91, 0x92, 0xB0, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0x71, 0x70, 0x04, 0x88,
	};
	size_t n = 0;
	while (n + 40 < cap) {
		uint64_t r = rnd();
		if (r % 97 == 0 || n == 0) {
			memset(b + n, 0, 11);
			b[n + 11] = 0x80;
			n += 12;
			continue;
		}
		uint8_t h = (r >> 8) % 4 ? common[(r >> 16) % sizeof common] : (uint8_t)(r >> 24);
		b[n++] = h;
		/* payload: continuation-style bytes, short runs of bit 7 */
		unsigned plen = (unsigned)((r >> 32) % 10);
		for (unsigned i = 0; i < plen; i++) {
			uint8_t v = (uint8_t)rnd();
			if (i + 1 < plen && (r >> (40 + i)) % 3)
				v |= 0x80;
			b[n++] = v;
		}
	}
	return n;
}

static void random_buffers(void **state)
{
	(void)state;
	static uint8_t buf[65536];
	struct trawl_ete_config cfgs[4] = { cfg_ete(), cfg_ete_full(), cfg_etm4(), cfg_ete_commit() };
	size_t total = 0;
	rng_state = 0x9e3779b97f4a7c15ull;
	for (int iter = 0; iter < 60; iter++) {
		size_t len;
		if (iter % 5 == 4) { /* pure noise with a sync somewhere */
			len = 4096 + rnd() % 4096;
			for (size_t i = 0; i < len; i++)
				buf[i] = (uint8_t)rnd();
			size_t at = rnd() % (len - 12);
			memset(buf + at, 0, 11);
			buf[at + 11] = 0x80;
		} else {
			len = gen_stream(buf, 2048 + rnd() % (sizeof buf - 2048));
			if (iter % 3 == 1)
				for (int k = 0; k < 20; k++)
					buf[rnd() % len] = (uint8_t)rnd();
		}
		char what[64];
		snprintf(what, sizeof what, "random buffer %d", iter);
		const struct trawl_ete_config *c = &cfgs[iter % 4];
		total += check_stream(c, buf, len, 0, what);
		check_stream(c, buf, len, SIZE_MAX, what);
		check_stream(c, buf, len, 1, what);
	}
	assert_true(total > 10000);
}

/* Boundaries: the fast loop stops FAST_MAX bytes before the end of each
 * chunk; every cut position of a short stream is tried. */
static void every_cut(void **state)
{
	(void)state;
	static const uint8_t body[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x01, 0x00, 0x04,
		0x9D, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80,  /* 64-bit address */
		0xF7, 0x95, 0x81, 0x02, 0x0E, 0x85, 0x01, 0x22,        /* atom, short, CC F1 */
		0x9A, 0x11, 0x22, 0x33, 0x44, 0x91, 0xDB, 0x0C, 0x35,  /* long, match, atoms, CC F2 */
		0x96, 0x7F, 0xB4, 0x05, 0xB8, 1, 2, 3, 4, 5, 6, 7, 8,  /* short, source */
		0x0F, 0x83, 0x83, 0x83, 0x83, 0x83, 0x01,              /* CC F1: field too long */
		0xF6, 0xF7,
	};
	struct trawl_ete_config c = cfg_ete();
	for (size_t cut = 1; cut < sizeof body; cut++) {
		char what[64];
		snprintf(what, sizeof what, "chunk size %zu", cut);
		check_stream(&c, body, sizeof body, cut, what);
	}
}

/* The counting loop dispatches on the kinds of two bytes at once (a
 * one-byte packet and what follows it): runs of every length 0..21 of
 * one-byte packets (atoms, cycle count F3, an event, Trace On) between each
 * multi-byte kind, so runs end at both offsets of a pair, near the end of
 * the loop's range and at every offset of the chunk. The dispatch also
 * sees the second byte's bit 7 (a payload's continuation bit): short
 * addresses and cycle count fields of each length follow both a dispatch
 * and a one-byte packet. */
static size_t atom_runs_stream(uint8_t *buf, size_t cap, int commit)
{
	static const uint8_t ones[] = { 0xF8, 0xC0, 0x12, 0xDB, 0xF6, 0x1F, 0xE5, 0xDD, 0xD5, 0x71, 0x04 };
	static const uint8_t multi[][6] = {
		{ 2, 0x0C, 0x35 }, { 2, 0x95, 0x11 }, { 3, 0x95, 0x91, 0x22 }, { 2, 0x96, 0x7F },
		{ 5, 0x9A, 0x11, 0x22, 0x33, 0x44 }, { 1, 0x91 }, { 2, 0xB4, 0x05 }, { 2, 0x0E, 0x01 },
		{ 5, 0x9B, 0x81, 0x02, 0x03, 0x04 }, { 1, 0x92 }, { 3, 0x96, 0x80, 0x7F },
		{ 3, 0x0E, 0x81, 0x02 }, { 4, 0x0E, 0xFF, 0x82, 0x03 }, { 1, 0x0F },
		{ 3, 0xB5, 0xC4, 0x01 },
	};
	size_t n = 0;
	memset(buf, 0, 11);
	buf[11] = 0x80;
	buf[12] = 0x01;
	buf[13] = 0x00;
	n = 14;
	unsigned k = 0;
	for (unsigned run = 0; run <= 21; run++) {
		for (size_t m = 0; m < sizeof multi / sizeof multi[0]; m++) {
			for (unsigned i = 0; i < run; i++)
				buf[n++] = ones[k++ % sizeof ones];
			uint8_t h = multi[m][1];
			buf[n++] = h;
			/* COMMOPT = 0: a commit field (1 or 2 bytes) before the
			 * cycle count field, which 0x0F does not have */
			if (commit && (h == 0x0E || h == 0x0F)) {
				if (m & 1)
					buf[n++] = 0x83;
				buf[n++] = 0x04;
			}
			memcpy(buf + n, multi[m] + 2, multi[m][0] - 1u);
			n += multi[m][0] - 1u;
			assert_true(n + 40 < cap);
		}
	}
	return n;
}

static void atom_runs(void **state)
{
	(void)state;
	static uint8_t buf[8192];
	/* with COMMOPT = 1 and = 0: the counting loop has its own handlers
	 * for cycle count format 1 without a commit field */
	struct trawl_ete_config cfgs[2] = { cfg_ete(), cfg_ete_commit() };
	rng_state = 0x13198a2e03707344ull;
	for (int ci = 0; ci < 2; ci++) {
		const struct trawl_ete_config *c = &cfgs[ci];
		size_t n = atom_runs_stream(buf, sizeof buf, ci);
		char what[64];
		snprintf(what, sizeof what, "atom runs, COMMOPT %d", !ci);
		size_t total = check_stream(c, buf, n, 0, what);
		assert_true(total > 2000);
		for (size_t cut = 1; cut <= 40; cut++) {
			snprintf(what, sizeof what, "atom runs, COMMOPT %d, chunk size %zu", !ci, cut);
			check_stream(c, buf, n, cut, what);
		}
		snprintf(what, sizeof what, "atom runs, COMMOPT %d, random chunks", !ci);
		check_stream(c, buf, n, SIZE_MAX, what);
	}
}

/* ---------------------------------------------------------------- corpus */

struct streams {
	uint8_t *b[128];
	size_t n[128], cap[128];
};

static void on_id(void *ctx, uint8_t id, const uint8_t *data, size_t n, uint64_t offset)
{
	(void)offset;
	struct streams *s = ctx;
	id &= 0x7f;
	if (s->n[id] + n > s->cap[id]) {
		s->cap[id] = (s->n[id] + n) * 2;
		s->b[id] = realloc(s->b[id], s->cap[id]);
		assert_non_null(s->b[id]);
	}
	memcpy(s->b[id] + s->n[id], data, n);
	s->n[id] += n;
}

static size_t check_snapshot(const char *dir)
{
	struct trawl_ete_snapshot *s;
	struct trawl_error err;
	size_t total = 0;
	if (trawl_ete_snapshot_open(&s, dir, &err) != TRAWL_OK)
		fail_msg("%s: cannot open", dir);
	for (size_t i = 0; i < s->nbuffers; i++) {
		const struct trawl_ete_buffer *b = &s->buffers[i];
		if (!strcmp(b->format, "source_data")) {
			const struct trawl_ete_source *src = trawl_ete_snapshot_source(s, -1);
			total += check_stream(&src->cfg, b->data, b->len, 0, dir);
			check_stream(&src->cfg, b->data, b->len, SIZE_MAX, dir);
			continue;
		}
		struct streams *st = calloc(1, sizeof *st);
		struct trawl_ete_deformatter *df;
		int tpiu = !strcmp(b->format, "dstream_coresight") ? 2 : 0;
		assert_int_equal(trawl_ete_deformatter_create(&df, tpiu, on_id, st, NULL), TRAWL_OK);
		trawl_ete_deformatter_feed(df, b->data, b->len);
		trawl_ete_deformatter_finish(df);
		trawl_ete_deformatter_destroy(df);
		for (int id = 1; id < 128; id++) {
			const struct trawl_ete_source *src = trawl_ete_snapshot_source(s, id);
			if (st->n[id] && src) {
				total += check_stream(&src->cfg, st->b[id], st->n[id], 0, dir);
				check_stream(&src->cfg, st->b[id], st->n[id], SIZE_MAX, dir);
			}
			free(st->b[id]);
		}
		free(st);
	}
	trawl_ete_snapshot_close(s);
	return total;
}

static void corpus_snapshots(void **state)
{
	(void)state;
	const char *c = getenv("TRAWL_CORPUS");
	if (!c || !*c) {
		fprintf(stderr, "TRAWL_CORPUS not set: corpus comparison skipped\n");
		skip();
	}
	static const char *const groups[] = { "ete/ete", "ete/etmv4" };
	size_t nsnap = 0, total = 0;
	rng_state = 0x243f6a8885a308d3ull;
	for (size_t g = 0; g < 2; g++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", c, groups[g]);
		DIR *dp = opendir(path);
		if (!dp)
			continue;
		struct dirent *e;
		while ((e = readdir(dp))) {
			if (e->d_name[0] == '.')
				continue;
			char dir[4096 + 256], ini[4096 + 300];
			snprintf(dir, sizeof dir, "%s/%s", path, e->d_name);
			snprintf(ini, sizeof ini, "%s/snapshot.ini", dir);
			FILE *fp = fopen(ini, "r");
			if (!fp)
				continue;
			fclose(fp);
			total += check_snapshot(dir);
			nsnap++;
		}
		closedir(dp);
	}
	if (!nsnap) {
		fprintf(stderr, "no ETE snapshots under %s/ete: skipped\n", c);
		skip();
	}
	assert_true(total > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_cut),
		cmocka_unit_test(atom_runs),
		cmocka_unit_test(random_buffers),
		cmocka_unit_test(corpus_snapshots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
