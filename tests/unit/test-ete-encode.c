/* ETE encoder against trawl's decoder on programs whose every instruction
 * is a branch, so the truth is the list of branch outcomes and targets the
 * test chose:
 *  - a program of `b.ne .+8` only: every taken/not-taken pattern of up to
 *    12 atoms, and runs of E up to 60, must decode to one range per
 *    instruction with exactly those outcomes, using atom packets only (a
 *    direct branch never gets an address packet);
 *  - a program of `br x0` only, with targets picked to repeat recent ones
 *    and to differ from the last in 9, 17, 32 or 64 bits: the ranges start
 *    at exactly those targets, and every address form is used (exact
 *    match, short, long 32 and 64);
 *  - the TRBE model refuses unaligned or inverted buffers, naming the
 *    register.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "trawl/ete-encode.h"
#include "trawl/event.h"

struct bytes {
	uint8_t *p;
	size_t n, cap;
};

static enum trawl_status sink(void *ctx, const uint8_t *d, size_t n, struct trawl_error *err)
{
	struct bytes *b = ctx;
	(void)err;
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
	return TRAWL_OK;
}

struct ranges {
	uint64_t start[4096];
	uint8_t taken[4096];
	size_t n;
};

static void on_elem(void *ctx, const struct trawl_ete_elem *e)
{
	struct ranges *r = ctx;
	if (e->type == TRAWL_ETE_EL_RANGE && r->n < 4096) {
		r->start[r->n] = e->start;
		r->taken[r->n] = e->taken;
		r->n++;
	}
}

/* Decode `b` with the encoder's registers over `img`; the packet counts
 * by type go to `by_type` when given. */
static void decode(const struct bytes *b, struct trawl_ete_image *img, struct ranges *r,
		   uint64_t *by_type)
{
	struct trawl_ete_config cfg;
	struct trawl_ete_flow *f;
	struct trawl_ete_pkt_decoder *d;
	trawl_ete_enc_config(NULL, &cfg);
	memset(r, 0, sizeof *r);
	assert_int_equal(trawl_ete_flow_create(&f, &cfg, img, on_elem, r, NULL), TRAWL_OK);
	assert_int_equal(trawl_ete_pkt_decoder_create(&d, &cfg, trawl_ete_flow_packets, f, NULL),
			 TRAWL_OK);
	trawl_ete_pkt_decoder_feed(d, b->p, b->n);
	trawl_ete_pkt_decoder_finish(d);
	trawl_ete_flow_finish(f);
	const struct trawl_ete_pkt_stats *st = trawl_ete_pkt_decoder_stats(d);
	assert_int_equal(st->bad, 0);
	if (by_type)
		memcpy(by_type, st->by_type, sizeof st->by_type);
	trawl_ete_pkt_decoder_destroy(d);
	trawl_ete_flow_destroy(f);
}

static void add_words(struct trawl_ete_image *img, uint64_t addr, uint32_t word, size_t words)
{
	uint8_t *m = malloc(words * 4);
	assert_non_null(m);
	for (size_t i = 0; i < words; i++)
		memcpy(m + 4 * i, &word, 4);
	assert_int_equal(trawl_ete_image_add(img, addr, m, words * 4, "code", NULL), TRAWL_OK);
	free(m);
}

static struct trawl_ete_image *image_of(uint64_t addr, uint32_t word, size_t words)
{
	struct trawl_ete_image *img;
	assert_int_equal(trawl_ete_image_create(&img, NULL), TRAWL_OK);
	add_words(img, addr, word, words);
	return img;
}

#define BNE8 0x54000041u /* b.ne .+8 */
#define BRX0 0xd61f0000u /* br x0 */

/* Run `n` b.ne instructions from 0x1000 with outcomes `bits` (bit i: the
 * i-th taken), then a final one, and decode: n ranges with those outcomes. */
static void atoms_case(struct trawl_ete_image *img, const uint8_t *taken, size_t n)
{
	struct bytes b = { 0 };
	struct trawl_ete_encoder *e;
	assert_int_equal(trawl_ete_encoder_create(&e, NULL, sink, &b, NULL), TRAWL_OK);
	uint64_t pc = 0x1000;
	struct trawl_ete_enc_insn in = { .enc = BNE8, .size = 4, .isa = TRAWL_ISET_A64, .security = 1 };
	for (size_t i = 0; i <= n; i++) {
		in.pc = pc;
		assert_int_equal(trawl_ete_encoder_insn(e, &in, NULL), TRAWL_OK);
		if (i < n)
			pc += taken[i] ? 8 : 4;
	}
	assert_int_equal(trawl_ete_encoder_finish(e, NULL), TRAWL_OK);
	struct ranges *r = malloc(sizeof *r);
	uint64_t by_type[TRAWL_ETE_PKT_COUNT_];
	decode(&b, img, r, by_type);
	assert_true(r->n >= n);
	pc = 0x1000;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(r->start[i], pc);
		assert_int_equal(r->taken[i], taken[i]);
		pc += taken[i] ? 8 : 4;
	}
	/* only the first address (with context): direct branches never give one */
	uint64_t addrs = 0;
	for (int t = TRAWL_ETE_PKT_ADDR_CTXT_L_32IS0; t <= TRAWL_ETE_PKT_ADDR_L_64IS1; t++)
		if (t != TRAWL_ETE_PKT_TS_MARKER)
			addrs += by_type[t];
	assert_int_equal(addrs, 1);
	free(r);
	free(b.p);
	trawl_ete_encoder_destroy(e);
}

static void atom_patterns(void **state)
{
	(void)state;
	struct trawl_ete_image *img = image_of(0x1000, BNE8, 1024);
	uint8_t taken[64];
	for (size_t n = 1; n <= 12; n++)
		for (uint32_t bits = 0; bits < (1u << n); bits++) {
			for (size_t i = 0; i < n; i++)
				taken[i] = (bits >> i) & 1;
			atoms_case(img, taken, n);
		}
	for (size_t n = 1; n <= 60; n++) { /* runs of E, then one N */
		for (size_t i = 0; i < n; i++)
			taken[i] = i + 1 < n;
		atoms_case(img, taken, n);
		memset(taken, 1, n);
		atoms_case(img, taken, n);
	}
	trawl_ete_image_destroy(img);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void address_forms(void **state)
{
	(void)state;
	static const uint64_t regions[] = { 0x100000, 0x40000000, 0x7f0000000000ull,
					    0x12345660000ull };
	struct trawl_ete_image *img = image_of(regions[0], BRX0, 1 << 15);
	add_words(img, regions[1], BRX0, 1 << 15);
	add_words(img, regions[2], BRX0, 1 << 15);
	add_words(img, regions[3], BRX0, 1 << 15);
	uint64_t *want = malloc(4000 * sizeof *want), seed = 0x9e3779b97f4a7c15ull;
	struct bytes b = { 0 };
	struct trawl_ete_encoder *e;
	assert_int_equal(trawl_ete_encoder_create(&e, NULL, sink, &b, NULL), TRAWL_OK);
	struct trawl_ete_enc_insn in = { .enc = BRX0, .size = 4, .isa = TRAWL_ISET_A64, .security = 1 };
	uint64_t pc = regions[0];
	for (size_t i = 0; i < 4000; i++) {
		want[i] = pc;
		in.pc = pc;
		assert_int_equal(trawl_ete_encoder_insn(e, &in, NULL), TRAWL_OK);
		uint64_t k = rnd(&seed) % 6;
		if (k == 0 && i >= 3) /* one of the last three: exact match */
			pc = want[i - rnd(&seed) % 3];
		else if (k <= 3) /* nearby: 9 or 17 changed bits */
			pc = (pc & ~((1ull << (k == 1 ? 9 : 17)) - 1)) |
			     ((rnd(&seed) << 2) & ((1ull << (k == 1 ? 9 : 17)) - 1));
		else /* another region */
			pc = regions[rnd(&seed) % 4] + ((rnd(&seed) << 2) & 0x1fffc);
	}
	assert_int_equal(trawl_ete_encoder_finish(e, NULL), TRAWL_OK);
	struct ranges *r = malloc(sizeof *r);
	uint64_t by_type[TRAWL_ETE_PKT_COUNT_];
	decode(&b, img, r, by_type);
	assert_true(r->n >= 3999);
	for (size_t i = 0; i < 3999; i++)
		assert_int_equal(r->start[i], want[i]);
	assert_true(by_type[TRAWL_ETE_PKT_ADDR_MATCH] > 0);
	assert_true(by_type[TRAWL_ETE_PKT_ADDR_S_IS0] > 0);
	assert_true(by_type[TRAWL_ETE_PKT_ADDR_L_32IS0] > 0);
	assert_true(by_type[TRAWL_ETE_PKT_ADDR_L_64IS0] > 0);
	free(r);
	free(want);
	free(b.p);
	trawl_ete_encoder_destroy(e);
	trawl_ete_image_destroy(img);
}

static void trbe_checks(void **state)
{
	(void)state;
	struct trawl_ete_trbe_sink *t;
	struct trawl_error err;
	struct trawl_ete_trbe_setup s = { .base = 0x80000000, .limit = 0x80002000 };
	trawl_error_clear(&err);
	s.base = 0x80000800;
	assert_int_equal(trawl_ete_trbe_sink_create(&t, &s, &err), TRAWL_ERR_USAGE);
	assert_non_null(strstr(err.message, "TRBBASER_EL1"));
	s.base = 0x80000000;
	s.limit = 0x80001fff;
	assert_int_equal(trawl_ete_trbe_sink_create(&t, &s, &err), TRAWL_ERR_USAGE);
	assert_non_null(strstr(err.message, "TRBLIMITR_EL1"));
	s.limit = 0x80000000;
	assert_int_equal(trawl_ete_trbe_sink_create(&t, &s, &err), TRAWL_ERR_USAGE);
	/* wrap: 3 x 3000 bytes into 8 KiB leave the pointer at 9000 - 8192 */
	s.limit = 0x80002000;
	s.mode = TRAWL_ETE_TRBE_WRAP;
	s.trigger_at = UINT64_MAX;
	assert_int_equal(trawl_ete_trbe_sink_create(&t, &s, &err), TRAWL_OK);
	uint8_t chunk[3000];
	for (int i = 0; i < 3; i++) {
		memset(chunk, i + 1, sizeof chunk);
		assert_int_equal(trawl_ete_trbe_sink_write(t, chunk, sizeof chunk, NULL), TRAWL_OK);
	}
	const struct trawl_ete_trbe_regs *r = trawl_ete_trbe_sink_regs(t);
	assert_int_equal(r->ptr, 0x80000000 + 9000 - 8192);
	assert_int_equal(r->sr, TRAWL_TRBSR_WRAP | TRAWL_TRBSR_IRQ);
	size_t len;
	const uint8_t *m = trawl_ete_trbe_sink_memory(t, &len);
	assert_int_equal(len, 8192);
	assert_int_equal(m[0], 3);                /* overwritten by the third chunk */
	assert_int_equal(m[807], 3);
	assert_int_equal(m[808], 1);              /* the oldest byte left: the first chunk */
	assert_int_equal(m[3000], 2);
	assert_int_equal(trawl_ete_trbe_sink_lost(t), 0);
	trawl_ete_trbe_sink_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(atom_patterns),
		cmocka_unit_test(address_forms),
		cmocka_unit_test(trbe_checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
