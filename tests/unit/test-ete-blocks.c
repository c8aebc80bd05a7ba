/* The flow decoder's block cache and atom fast path against the uncached
 * walk (trawl_ete_flow_set_generic: every block walked afresh from the
 * image, every packet through on_packet).
 *
 * - a hand-made A64 program, decoded cold and warm, with and without the
 *   return stack: the ranges are computed by hand;
 * - a commit that releases part of a packet's atoms, by hand;
 * - a context change (AArch64 -> AArch32) at an address whose block is
 *   cached: the walk must start again in the new instruction set;
 * - a region added to the image between two batches where the first batch
 *   found no image: the cached "no image" block must be forgotten;
 * - random images (A64, A32 and T32 code with every branch kind, holes)
 *   and random packet streams under four configurations (speculation,
 *   return stack, ETMv4), fed in random batch sizes: the cached decoder
 *   must give exactly the elements of the uncached one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "trawl/ete.h"
#include "trawl/event.h"

#include "ete-rng.h"

struct elems {
	struct trawl_ete_elem *e;
	size_t n, cap;
};

static void on_elem(void *ctx, const struct trawl_ete_elem *e)
{
	struct elems *s = ctx;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->e = realloc(s->e, s->cap * sizeof *s->e);
		assert_non_null(s->e);
	}
	s->e[s->n++] = *e;
}

/* Field by field: padding inside the context is not part of the answer. */
static void assert_elem_equal(const struct trawl_ete_elem *a, const struct trawl_ete_elem *b,
			      size_t i)
{
	if (a->offset != b->offset || a->type != b->type || a->isa != b->isa ||
	    a->taken != b->taken || a->last_cls != b->last_cls || a->last_flags != b->last_flags ||
	    a->last_size != b->last_size || a->el != b->el || a->start != b->start ||
	    a->end != b->end || a->value != b->value || a->count != b->count || a->cc != b->cc ||
	    a->ctx.el != b->ctx.el || a->ctx.sf != b->ctx.sf || a->ctx.ns != b->ctx.ns ||
	    a->ctx.nse != b->ctx.nse || a->ctx.has_vmid != b->ctx.has_vmid ||
	    a->ctx.has_cid != b->ctx.has_cid || a->ctx.vmid != b->ctx.vmid || a->ctx.cid != b->ctx.cid)
		fail_msg("element %zu differs: %s off %llu [%llx,%llx) n %u t %u vs %s off %llu "
			 "[%llx,%llx) n %u t %u",
			 i, trawl_ete_elem_name(a->type), (unsigned long long)a->offset,
			 (unsigned long long)a->start, (unsigned long long)a->end, a->count, a->taken,
			 trawl_ete_elem_name(b->type), (unsigned long long)b->offset,
			 (unsigned long long)b->start, (unsigned long long)b->end, b->count, b->taken);
}

static struct trawl_ete_packet pk(int type, uint64_t off)
{
	struct trawl_ete_packet p;
	memset(&p, 0, sizeof p);
	p.type = (uint8_t)type;
	p.offset = off;
	return p;
}

static struct trawl_ete_packet addr64(uint64_t a, uint64_t off)
{
	struct trawl_ete_packet p = pk(TRAWL_ETE_PKT_ADDR_L_64IS0, off);
	p.addr = a;
	p.flags = TRAWL_ETE_PF_HAS_ADDR;
	return p;
}

static struct trawl_ete_packet addr_ctx(uint64_t a, int sf, uint64_t off)
{
	struct trawl_ete_packet p = pk(TRAWL_ETE_PKT_ADDR_CTXT_L_64IS0, off);
	p.addr = a;
	p.flags = TRAWL_ETE_PF_HAS_ADDR | TRAWL_ETE_PF_HAS_CTX;
	p.ctx.el = 1;
	p.ctx.sf = (uint8_t)sf;
	return p;
}

/* n atoms, atom i taken when bit i of bits is set */
static struct trawl_ete_packet atoms(uint32_t bits, unsigned n, uint64_t off)
{
	struct trawl_ete_packet p = pk(n == 1 ? TRAWL_ETE_PKT_ATOM_F1 : TRAWL_ETE_PKT_ATOM_F6, off);
	p.natoms = (uint8_t)n;
	p.atoms = bits;
	return p;
}

static void cfg_make(struct trawl_ete_config *cfg, uint32_t maxspec, int rs, int ete)
{
	trawl_ete_config_default(cfg);
	cfg->idr8 = maxspec;
	if (rs)
		cfg->configr |= 1u << 12;
	if (!ete)
		cfg->devarch = 0x47704a13; /* ETMv4.1 */
	assert_int_equal(trawl_ete_config_derive(cfg, NULL), TRAWL_OK);
}

/* Decode pkts[0, n) in batches of the given sizes (cycled), cached or not. */
static void run(const struct trawl_ete_config *cfg, struct trawl_ete_image *img,
		const struct trawl_ete_packet *pkts, size_t n, const size_t *cuts, size_t ncuts,
		int generic, struct elems *out)
{
	struct trawl_ete_flow *f;
	assert_int_equal(trawl_ete_flow_create(&f, cfg, img, on_elem, out, NULL), TRAWL_OK);
	trawl_ete_flow_set_generic(f, generic);
	for (size_t i = 0, c = 0; i < n; c++) {
		size_t k = cuts[c % ncuts];
		if (k > n - i)
			k = n - i;
		trawl_ete_flow_packets(f, pkts + i, k);
		i += k;
	}
	trawl_ete_flow_finish(f);
	const struct trawl_ete_flow_stats *st = trawl_ete_flow_stats(f);
	/* the counters agree with the elements themselves */
	uint64_t ranges = 0, insns = 0;
	for (size_t i = 0; i < out->n; i++)
		if (out->e[i].type == TRAWL_ETE_EL_RANGE) {
			ranges++;
			insns += out->e[i].count;
		}
	assert_int_equal(st->ranges, ranges);
	assert_int_equal(st->instructions, insns);
	trawl_ete_flow_destroy(f);
}

static void assert_same(const struct elems *a, const struct elems *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		assert_elem_equal(&a->e[i], &b->e[i], i);
}

/* Only the ranges, in order, as (start, end, count, taken). */
static void assert_ranges(const struct elems *s, const uint64_t (*want)[4], size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct trawl_ete_elem *e = &s->e[i];
		if (e->type != TRAWL_ETE_EL_RANGE)
			continue;
		assert_true(k < n);
		if (e->start != want[k][0] || e->end != want[k][1] || e->count != want[k][2] ||
		    e->taken != want[k][3])
			fail_msg("range %zu: [%llx,%llx) %u %u, want [%llx,%llx) %llu %llu", k,
				 (unsigned long long)e->start, (unsigned long long)e->end, e->count,
				 e->taken, (unsigned long long)want[k][0],
				 (unsigned long long)want[k][1], (unsigned long long)want[k][2],
				 (unsigned long long)want[k][3]);
		k++;
	}
	assert_int_equal(k, n);
}

static void put32(uint8_t *b, uint32_t w)
{
	b[0] = (uint8_t)w;
	b[1] = (uint8_t)(w >> 8);
	b[2] = (uint8_t)(w >> 16);
	b[3] = (uint8_t)(w >> 24);
}

/* 0x1000 nop; 0x1004 b.ne 0x1000; 0x1008 bl 0x1010; 0x100c ret;
 * 0x1010 isb; 0x1014 ret */
static const uint32_t prog[] = { 0xd503201f, 0x54ffffe1, 0x94000002,
				 0xd65f03c0, 0xd5033fdf, 0xd65f03c0 };

static struct trawl_ete_image *prog_image(void)
{
	uint8_t b[sizeof prog];
	for (size_t i = 0; i < sizeof prog / 4; i++)
		put32(b + 4 * i, prog[i]);
	struct trawl_ete_image *img;
	assert_int_equal(trawl_ete_image_create(&img, NULL), TRAWL_OK);
	assert_int_equal(trawl_ete_image_add(img, 0x1000, b, sizeof b, "prog", NULL), TRAWL_OK);
	return img;
}

/* The loop twice (cold blocks, then linked ones), by hand: E E N on the
 * b.ne, E on the bl, E on the isb, E on the ret; with the return stack the
 * ret goes back to 0x100c (the bl's return address) and that ret's E
 * empties the stack. A last atom has nowhere to go and gives nothing. */
static void test_hand(void **state)
{
	(void)state;
	struct trawl_ete_image *img = prog_image();
	for (int rs = 0; rs < 2; rs++) {
		struct trawl_ete_config cfg;
		cfg_make(&cfg, 0, rs, 1);
		struct trawl_ete_packet p[32];
		size_t n = 0;
		p[n++] = pk(TRAWL_ETE_PKT_TRACE_INFO, 0);
		for (int round = 0; round < 2; round++) {
			p[n++] = addr_ctx(0x1000, 1, 10 + 10 * round);
			p[n++] = atoms(0x3, 3, 11 + 10 * round); /* E E N */
			p[n++] = atoms(0x7, 3, 12 + 10 * round); /* bl, isb, ret: E E E */
			p[n++] = atoms(0x1, 1, 13 + 10 * round); /* rs: ret at 0x100c */
			p[n++] = atoms(0x1, 1, 14 + 10 * round); /* nowhere */
		}
		static const uint64_t want0[][4] = {
			{ 0x1000, 0x1008, 2, 1 }, { 0x1000, 0x1008, 2, 1 }, { 0x1000, 0x1008, 2, 0 },
			{ 0x1008, 0x100c, 1, 1 }, { 0x1010, 0x1014, 1, 1 }, { 0x1014, 0x1018, 1, 1 },
		};
		static const uint64_t want1[][4] = {
			{ 0x1000, 0x1008, 2, 1 }, { 0x1000, 0x1008, 2, 1 }, { 0x1000, 0x1008, 2, 0 },
			{ 0x1008, 0x100c, 1, 1 }, { 0x1010, 0x1014, 1, 1 }, { 0x1014, 0x1018, 1, 1 },
			{ 0x100c, 0x1010, 1, 1 },
		};
		const uint64_t(*want)[4] = rs ? want1 : want0;
		size_t nw = rs ? 7 : 6;
		uint64_t both[14][4];
		for (size_t i = 0; i < nw; i++) {
			memcpy(both[i], want[i], sizeof both[i]);
			memcpy(both[nw + i], want[i], sizeof both[i]);
		}
		for (int generic = 0; generic < 2; generic++) {
			struct elems got = { 0 };
			static const size_t one[] = { 1 }, all[] = { 32 };
			run(&cfg, img, p, n, generic ? one : all, 1, generic, &got);
			assert_ranges(&got, (const uint64_t(*)[4])both, 2 * nw);
			free(got.e);
		}
	}
	trawl_ete_image_destroy(img);
}

/* Speculation (MaxSpec 8): four E atoms on the b.ne loop are held; a
 * commit of 2 releases exactly two of them (part of one packet's run), a
 * commit of 1 one more, and the last is never committed. */
static void test_commit_part(void **state)
{
	(void)state;
	struct trawl_ete_image *img = prog_image();
	struct trawl_ete_config cfg;
	cfg_make(&cfg, 8, 0, 1);
	for (int generic = 0; generic < 2; generic++) {
		struct trawl_ete_flow *f;
		struct elems got = { 0 };
		assert_int_equal(trawl_ete_flow_create(&f, &cfg, img, on_elem, &got, NULL), TRAWL_OK);
		trawl_ete_flow_set_generic(f, generic);
		struct trawl_ete_packet p[4];
		p[0] = pk(TRAWL_ETE_PKT_TRACE_INFO, 0);
		p[1] = addr_ctx(0x1000, 1, 1);
		p[2] = atoms(0xf, 4, 2);
		trawl_ete_flow_packets(f, p, 3);
		static const uint64_t want[][4] = {
			{ 0x1000, 0x1008, 2, 1 }, { 0x1000, 0x1008, 2, 1 }, { 0x1000, 0x1008, 2, 1 },
		};
		assert_ranges(&got, want, 0);
		p[0] = pk(TRAWL_ETE_PKT_COMMIT, 3);
		p[0].count = 2;
		trawl_ete_flow_packets(f, p, 1);
		assert_ranges(&got, want, 2);
		p[0].count = 1;
		trawl_ete_flow_packets(f, p, 1);
		assert_ranges(&got, want, 3);
		trawl_ete_flow_finish(f);
		assert_ranges(&got, want, 3);
		trawl_ete_flow_destroy(f);
		free(got.e);
	}
	trawl_ete_image_destroy(img);
}

/* 0x2000 A64 b; 0x2004 A64 ands / A32 b 0x200c; 0x2008 A64 b; 0x200c A32
 * bx lr. An AArch64 N at 0x2000 links the A64 block [0x2004, 0x200c) (a
 * direct branch: one the atom fast path follows); after a context packet
 * says AArch32 (no address packet, so that block stays current) the next
 * atom must walk 0x2004 as A32: one instruction, a taken b. */
static void test_isa_change(void **state)
{
	(void)state;
	uint8_t b[16];
	put32(b, 0x14000002);  /* A64 b 0x2008 */
	put32(b + 4, 0xea000000); /* A32 b 0x200c (pc + 8) */
	put32(b + 8, 0x14000002); /* A64 b 0x2010 */
	put32(b + 12, 0xe12fff1e); /* A32 bx lr */
	struct trawl_ete_image *img;
	assert_int_equal(trawl_ete_image_create(&img, NULL), TRAWL_OK);
	assert_int_equal(trawl_ete_image_add(img, 0x2000, b, sizeof b, "p", NULL), TRAWL_OK);
	struct trawl_ete_config cfg;
	cfg_make(&cfg, 0, 0, 1);
	struct trawl_ete_packet p[8];
	size_t n = 0;
	p[n++] = pk(TRAWL_ETE_PKT_TRACE_INFO, 0);
	p[n++] = addr_ctx(0x2000, 1, 1);
	p[n++] = atoms(0x0, 1, 2); /* A64 b not taken (as if): pc 0x2004 */
	struct trawl_ete_packet c = pk(TRAWL_ETE_PKT_CTXT, 3);
	c.flags = TRAWL_ETE_PF_HAS_CTX;
	c.ctx.el = 1;
	c.ctx.sf = 0;
	p[n++] = c;
	p[n++] = atoms(0x1, 1, 4); /* A32 b at 0x2004 taken: 0x200c */
	p[n++] = atoms(0x1, 1, 5); /* A32 bx lr at 0x200c */
	static const uint64_t want[][4] = {
		{ 0x2000, 0x2004, 1, 0 }, { 0x2004, 0x2008, 1, 1 }, { 0x200c, 0x2010, 1, 1 },
	};
	for (int generic = 0; generic < 2; generic++) {
		struct elems got = { 0 };
		static const size_t all[] = { 8 };
		run(&cfg, img, p, n, all, 1, generic, &got);
		assert_ranges(&got, want, 3);
		for (size_t i = 0; i < got.n; i++)
			if (got.e[i].type == TRAWL_ETE_EL_RANGE && got.e[i].start != 0x2000)
				assert_int_equal(got.e[i].isa, TRAWL_ISET_A32);
		free(got.e);
	}
	trawl_ete_image_destroy(img);
}

/* First batch: atoms at 0x3000, where the image has nothing (one no-image
 * element). Then the code arrives (a region added between batches) and
 * the same atoms must decode to ranges, not to the cached gap. */
static void test_image_added(void **state)
{
	(void)state;
	struct trawl_ete_image *img;
	assert_int_equal(trawl_ete_image_create(&img, NULL), TRAWL_OK);
	struct trawl_ete_config cfg;
	cfg_make(&cfg, 0, 0, 1);
	struct trawl_ete_flow *f;
	struct elems got = { 0 };
	assert_int_equal(trawl_ete_flow_create(&f, &cfg, img, on_elem, &got, NULL), TRAWL_OK);
	struct trawl_ete_packet p[4];
	p[0] = pk(TRAWL_ETE_PKT_TRACE_INFO, 0);
	p[1] = addr_ctx(0x3000, 1, 1);
	p[2] = atoms(0x1, 1, 2);
	trawl_ete_flow_packets(f, p, 3);
	assert_int_equal(got.n, 2); /* context, no image */
	assert_int_equal(got.e[1].type, TRAWL_ETE_EL_NACC);
	assert_int_equal(got.e[1].value, 0x3000);
	uint8_t b[8];
	put32(b, 0xd503201f);     /* nop */
	put32(b + 4, 0x17ffffff); /* b 0x3000 */
	uint64_t g = trawl_ete_image_generation(img);
	assert_int_equal(trawl_ete_image_add(img, 0x3000, b, sizeof b, "late", NULL), TRAWL_OK);
	assert_true(trawl_ete_image_generation(img) != g);
	got.n = 0;
	p[0] = addr64(0x3000, 3);
	p[1] = atoms(0x3, 2, 4);
	trawl_ete_flow_packets(f, p, 2);
	static const uint64_t want[][4] = { { 0x3000, 0x3008, 2, 1 }, { 0x3000, 0x3008, 2, 1 } };
	assert_ranges(&got, want, 2);
	for (size_t i = 0; i < got.n; i++)
		assert_int_not_equal(got.e[i].type, TRAWL_ETE_EL_NACC);
	trawl_ete_flow_destroy(f);
	trawl_ete_image_destroy(img);
	free(got.e);
}

/* ---- random images and streams */


#define A64_BASE 0x10000u
#define A32_BASE 0x20000u
#define T32_BASE 0x30000u
#define CODE_BYTES 0x1000u

/* A word offset inside a region of `bytes`, mostly near pc */
static int32_t rel(uint32_t pc, uint32_t base, uint32_t unit)
{
	uint32_t n = CODE_BYTES / unit;
	uint32_t to = base + (uint32_t)(rnd() % (n + n / 8)) * unit; /* 1/9 beyond the end */
	return (int32_t)(to - pc);
}

static uint32_t a64_word(uint32_t pc)
{
	unsigned r = (unsigned)(rnd() % 100);
	int32_t d = rel(pc, A64_BASE, 4) / 4;
	if (r < 55)
		return 0xd503201f; /* nop */
	if (r < 67)
		return 0x54000000 | (((uint32_t)d & 0x7ffff) << 5) | (uint32_t)(rnd() % 14);
	if (r < 72)
		return 0x14000000 | ((uint32_t)d & 0x3ffffff); /* b */
	if (r < 78)
		return 0x94000000 | ((uint32_t)d & 0x3ffffff); /* bl */
	if (r < 82)
		return 0xb4000000 | (((uint32_t)d & 0x7ffff) << 5); /* cbz x0 */
	if (r < 85)
		return 0x36000000 | (((uint32_t)d & 0x3fff) << 5); /* tbz w0, #0 */
	if (r < 90)
		return 0xd65f03c0; /* ret */
	if (r < 93)
		return 0xd61f0000; /* br x0 */
	if (r < 95)
		return 0xd63f0000; /* blr x0 */
	if (r < 97)
		return 0xd5033fdf; /* isb */
	if (r < 99)
		return 0xd503207f; /* wfi: P0 in ETE only */
	return 0xd69f03e0; /* eret */
}

static uint32_t a32_word(uint32_t pc)
{
	unsigned r = (unsigned)(rnd() % 100);
	int32_t d = (rel(pc, A32_BASE, 4) - 8) / 4;
	if (r < 55)
		return 0xe320f000; /* nop */
	if (r < 70)
		return 0x0a000000 | ((uint32_t)d & 0xffffff); /* beq */
	if (r < 78)
		return 0xeb000000 | ((uint32_t)d & 0xffffff); /* bl */
	if (r < 86) { /* blx to T32 */
		int32_t t = (int32_t)(T32_BASE + (uint32_t)(rnd() % (CODE_BYTES / 2)) * 2 - pc - 8);
		return 0xfa000000 | (((uint32_t)t >> 2) & 0xffffff) | ((((uint32_t)t >> 1) & 1) << 24);
	}
	if (r < 94)
		return 0xe12fff1e; /* bx lr */
	return 0xe8bd8000; /* pop {pc} */
}

/* A T32 halfword or a 32-bit pair (first halfword low); *size set */
static uint32_t t32_insn(uint32_t pc, unsigned *size)
{
	unsigned r = (unsigned)(rnd() % 100);
	*size = 2;
	if (r < 55)
		return 0xbf00; /* nop */
	if (r < 68) {
		int32_t d = (rel(pc, T32_BASE, 2) - 4) / 2;
		return 0xd000 | ((uint32_t)(rnd() % 14) << 8) | ((uint32_t)d & 0xff); /* b<c> */
	}
	if (r < 76) {
		int32_t d = (rel(pc, T32_BASE, 2) - 4) / 2;
		return 0xe000 | ((uint32_t)d & 0x7ff); /* b */
	}
	if (r < 86)
		return 0x4770; /* bx lr */
	*size = 4;
	/* bl (T32) or blx (to A32): S = 0, J1 = J2 = 1, so I1 = I2 = 0 */
	int blx = r >= 93;
	uint32_t to = blx ? A32_BASE + (uint32_t)(rnd() % (CODE_BYTES / 4)) * 4
			  : T32_BASE + (uint32_t)(rnd() % (CODE_BYTES / 2)) * 2;
	uint32_t from = blx ? ((pc + 4) & ~3u) : pc + 4;
	uint32_t off = (to - from) & 0x3fffff; /* 22 bits: imm10:imm11:0 */
	uint32_t h1 = 0xf000 | ((off >> 12) & 0x3ff);
	uint32_t h2 = (blx ? 0xe800 : 0xf800) | ((off >> 1) & 0x7ff);
	if (blx)
		h2 &= ~1u;
	return h1 | (h2 << 16);
}

static struct trawl_ete_image *random_image(void)
{
	static uint8_t a64[CODE_BYTES], a32[CODE_BYTES], t32[CODE_BYTES + 4];
	for (uint32_t i = 0; i < CODE_BYTES; i += 4) {
		put32(a64 + i, a64_word(A64_BASE + i));
		put32(a32 + i, a32_word(A32_BASE + i));
	}
	for (uint32_t i = 0; i < CODE_BYTES;) {
		unsigned size;
		uint32_t w = t32_insn(T32_BASE + i, &size);
		t32[i] = (uint8_t)w;
		t32[i + 1] = (uint8_t)(w >> 8);
		if (size == 4) {
			t32[i + 2] = (uint8_t)(w >> 16);
			t32[i + 3] = (uint8_t)(w >> 24);
		}
		i += size;
	}
	struct trawl_ete_image *img;
	assert_int_equal(trawl_ete_image_create(&img, NULL), TRAWL_OK);
	assert_int_equal(trawl_ete_image_add(img, A64_BASE, a64, CODE_BYTES, "a64", NULL), TRAWL_OK);
	assert_int_equal(trawl_ete_image_add(img, A32_BASE, a32, CODE_BYTES, "a32", NULL), TRAWL_OK);
	assert_int_equal(trawl_ete_image_add(img, T32_BASE, t32, CODE_BYTES, "t32", NULL), TRAWL_OK);
	return img;
}

/* A stream of mostly atoms, with addresses (A64, or AArch32 with the
 * context to match), exceptions, cycle counts, timestamps and, under
 * speculation, commits, cancels and mispredicts. */
static size_t random_stream(struct trawl_ete_packet *p, size_t cap, int spec)
{
	size_t n = 0;
	uint64_t off = 0;
	p[n++] = pk(TRAWL_ETE_PKT_TRACE_INFO, off++);
	p[n++] = addr_ctx(A64_BASE, 1, off++);
	while (n < cap - 4) {
		unsigned r = (unsigned)(rnd() % 100);
		if (r < 60) {
			unsigned k = 1 + (unsigned)(rnd() % 24);
			p[n++] = atoms((uint32_t)rnd(), k, off++);
		} else if (r < 70) {
			unsigned w = (unsigned)(rnd() % 3);
			uint64_t base = w == 0 ? A64_BASE : w == 1 ? A32_BASE : T32_BASE;
			uint64_t a = base + (rnd() % CODE_BYTES) / (w == 2 ? 2 : 4) * (w == 2 ? 2 : 4);
			if (rnd() % 3 == 0) {
				p[n] = addr_ctx(a, w == 0, off++);
				p[n].type = w == 2 ? TRAWL_ETE_PKT_ADDR_CTXT_L_64IS1
						   : TRAWL_ETE_PKT_ADDR_CTXT_L_64IS0;
			} else {
				p[n] = addr64(a, off++);
				if (w == 2)
					p[n].type = TRAWL_ETE_PKT_ADDR_L_64IS1;
			}
			p[n++].is = w == 2;
		} else if (r < 78) {
			p[n] = pk(TRAWL_ETE_PKT_CCNT_F1, off++);
			p[n].flags = TRAWL_ETE_PF_HAS_CC;
			p[n++].cc = (uint32_t)(rnd() % 1000);
		} else if (r < 81) {
			p[n] = pk(TRAWL_ETE_PKT_EXCEPT, off++);
			p[n++].count = (uint32_t)(rnd() % 8);
			p[n++] = addr64(A64_BASE + (rnd() % CODE_BYTES) / 4 * 4, off++);
		} else if (r < 84) {
			p[n] = pk(TRAWL_ETE_PKT_TIMESTAMP, off++);
			p[n++].value = rnd();
		} else if (r < 86) {
			/* a context restated (or changed) without an address */
			p[n] = pk(TRAWL_ETE_PKT_CTXT, off++);
			p[n].flags = TRAWL_ETE_PF_HAS_CTX;
			p[n].ctx.el = 1;
			p[n++].ctx.sf = rnd() % 4 != 0;
		} else if (r < 87) {
			p[n++] = pk(TRAWL_ETE_PKT_TRACE_ON, off++);
		} else if (spec && r < 95) {
			p[n] = pk(TRAWL_ETE_PKT_COMMIT, off++);
			p[n++].count = 1 + (uint32_t)(rnd() % 12);
		} else if (spec && r < 97) {
			p[n] = pk(TRAWL_ETE_PKT_CANCEL_F1, off++);
			p[n++].count = 1 + (uint32_t)(rnd() % 3);
		} else if (spec && r < 98) {
			p[n++] = pk(TRAWL_ETE_PKT_MISPREDICT, off++);
		} else {
			p[n++] = atoms((uint32_t)rnd(), 3, off++);
		}
	}
	return n;
}

static void test_random(void **state)
{
	(void)state;
	static const struct {
		uint32_t maxspec;
		int rs, ete;
	} cfgs[] = { { 0, 0, 1 }, { 0, 1, 1 }, { 16, 0, 1 }, { 0, 0, 0 } };
	enum { CAP = 20000 };
	struct trawl_ete_packet *p = malloc(CAP * sizeof *p);
	assert_non_null(p);
	rng_state = 0x9e3779b97f4a7c15ull;
	uint64_t ranges = 0;
	for (int round = 0; round < 6; round++) {
		struct trawl_ete_image *img = random_image();
		for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
			struct trawl_ete_config cfg;
			cfg_make(&cfg, cfgs[c].maxspec, cfgs[c].rs, cfgs[c].ete);
			size_t n = random_stream(p, CAP, cfgs[c].maxspec != 0);
			size_t cuts[5];
			for (int i = 0; i < 5; i++)
				cuts[i] = 1 + (size_t)(rnd() % (i < 2 ? 4 : 600));
			struct elems ref = { 0 }, got = { 0 }, whole = { 0 };
			static const size_t one[] = { 1 };
			run(&cfg, img, p, n, one, 1, 1, &ref);
			run(&cfg, img, p, n, cuts, 5, 0, &got);
			assert_same(&ref, &got);
			static const size_t all[] = { CAP };
			run(&cfg, img, p, n, all, 1, 0, &whole);
			assert_same(&ref, &whole);
			for (size_t i = 0; i < ref.n; i++)
				ranges += ref.e[i].type == TRAWL_ETE_EL_RANGE;
			free(ref.e);
			free(got.e);
			free(whole.e);
		}
		trawl_ete_image_destroy(img);
	}
	/* the streams did reach the code (not only gaps and dropped atoms) */
	assert_true(ranges > 50000);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand),
		cmocka_unit_test(test_commit_part),
		cmocka_unit_test(test_isa_change),
		cmocka_unit_test(test_image_added),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
