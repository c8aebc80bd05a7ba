/* ETE/ETMv4 packet decoder: every packet type, every atom format and each
 * address compression case, with values worked out by hand from the
 * encodings (comments show the arithmetic). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "trawl/ete.h"

#define MAXP 256

struct got {
	struct trawl_ete_packet p[MAXP];
	size_t n;
};

static void collect(void *ctx, const struct trawl_ete_packet *pkts, size_t n)
{
	struct got *g = ctx;
	for (size_t i = 0; i < n && g->n < MAXP; i++)
		g->p[g->n++] = pkts[i];
}

static const uint8_t async_bytes[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80 };

static struct trawl_ete_config ete_cfg(void)
{
	struct trawl_ete_config c;
	memset(&c, 0, sizeof c);
	c.idr0 = 0x2801cea1;   /* QSUPP=3, COMMOPT, CCI, 64-bit TS */
	c.idr1 = 0x4100fff0;
	c.idr2 = 0xd0001088;   /* CID 32 bits, VMID 32 bits (4), CCSIZE 8 -> 20 bits */
	c.idr8 = 0;
	c.configr = 0x1;
	c.devarch = 0x47735a13; /* ETE, revision 3 (ITE) */
	assert_int_equal(trawl_ete_config_derive(&c, NULL), TRAWL_OK);
	return c;
}

/* Decode A-Sync + body (chunk = 0: all at once). Returns packets after the
 * A-Sync. */
static void decode(const struct trawl_ete_config *cfg, const uint8_t *body, size_t len,
		   size_t chunk, struct got *g)
{
	struct trawl_ete_pkt_decoder *d;
	uint8_t buf[512];
	assert_true(len + 12 <= sizeof buf);
	memcpy(buf, async_bytes, 12);
	memcpy(buf + 12, body, len);
	memset(g, 0, sizeof *g);
	assert_int_equal(trawl_ete_pkt_decoder_create(&d, cfg, collect, g, NULL), TRAWL_OK);
	size_t total = len + 12;
	if (!chunk)
		chunk = total;
	for (size_t i = 0; i < total; i += chunk)
		trawl_ete_pkt_decoder_feed(d, buf + i, total - i < chunk ? total - i : chunk);
	trawl_ete_pkt_decoder_finish(d);
	trawl_ete_pkt_decoder_destroy(d);
	assert_true(g->n >= 1);
	assert_int_equal(g->p[0].type, TRAWL_ETE_PKT_ASYNC);
	assert_int_equal(g->p[0].offset, 0);
	/* drop the A-Sync */
	memmove(g->p, g->p + 1, (g->n - 1) * sizeof g->p[0]);
	g->n--;
}

static void test_atoms(void **state)
{
	(void)state;
	struct trawl_ete_config c = ete_cfg();
	struct got g;
	/* F1 F6/F7; F2 D8-DB bits 1:0; F3 F8-FF bits 2:0; F4 DC-DF pattern
	 * table; F5 D5-D7,F5; F6 C0-D4,E0-F4: (h&0x1f)+3 E then E (bit5=0) or N */
	const uint8_t b[] = { 0xf6, 0xf7, 0xd9, 0xfa, 0xdc, 0xdd, 0xde, 0xdf, 0xd5, 0xd6, 0xd7,
			      0xf5, 0xc0, 0xe0, 0xd4, 0xf4 };
	static const char *const want[] = {
		"N", "E", "EN", "NEN", "NEEE", "NNNN", "NENE", "ENEN", "NNNNN", "NENEN", "ENENE",
		"NEEEE", "EEEE", "EEEN",
		"EEEEEEEEEEEEEEEEEEEEEEEE", /* 0xd4: 20+3 E + E */
		"EEEEEEEEEEEEEEEEEEEEEEEN", /* 0xf4: 23 E + N */
	};
	static const uint8_t fmt[] = { 1, 1, 2, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6 };
	decode(&c, b, sizeof b, 0, &g);
	assert_int_equal(g.n, sizeof b);
	for (size_t i = 0; i < sizeof b; i++) {
		char s[40];
		unsigned k;
		for (k = 0; k < g.p[i].natoms; k++)
			s[k] = ((g.p[i].atoms >> k) & 1) ? 'E' : 'N';
		s[k] = 0;
		assert_string_equal(s, want[i]);
		assert_int_equal(g.p[i].type, TRAWL_ETE_PKT_ATOM_F1 + fmt[i] - 1);
		assert_int_equal(g.p[i].offset, 12 + i);
		assert_int_equal(g.p[i].len, 1);
	}
}

static void test_addresses(void **state)
{
	(void)state;
	struct trawl_ete_config c = ete_cfg();
	struct got g;
	const uint8_t b[] = {
		/* long 64 IS0 0xffffffc000592b64: b0 = (a>>2)&0x7f = 0x59,
		 * b1 = (a>>9)&0x7f = 0x15, b2..b7 = bytes 2..7 */
		0x9d, 0x59, 0x15, 0x59, 0x00, 0xc0, 0xff, 0xff, 0xff,
		/* short IS0, one byte: bits 8:2 = 0x13 -> low 9 bits 0x04c */
		0x95, 0x13,
		/* short IS0, two bytes: 0xf6 -> bits 8:2 = 0x76, more; 0x18 ->
		 * bits 16:9: low 17 bits = 0x18<<9 | 0x76<<2 = 0x31d8 */
		0x95, 0xf6, 0x18,
		/* short IS1, one byte: bits 7:1 = 0x05 -> low 8 bits 0x0a */
		0x96, 0x05,
		/* long 32 IS1 0x00012345 (bit0 of IS1 address dropped):
		 * b0 = (a>>1)&0x7f = 0x22, b1 = (a>>8)&0xff = 0x23, b2 = 0x01, b3 = 0 */
		0x9b, 0x22, 0x23, 0x01, 0x00,
		/* exact match index 1 -> the address before the last */
		0x91,
		/* long 64 IS1 0x0000001234567890 */
		0x9e, 0x48, 0x78, 0x56, 0x34, 0x12, 0x00, 0x00, 0x00,
		/* exact match index 2 */
		0x92,
	};
	decode(&c, b, sizeof b, 0, &g);
	assert_int_equal(g.n, 8);
	assert_int_equal(g.p[0].type, TRAWL_ETE_PKT_ADDR_L_64IS0);
	assert_true(g.p[0].addr == 0xffffffc000592b64ull);
	assert_int_equal(g.p[1].type, TRAWL_ETE_PKT_ADDR_S_IS0);
	assert_true(g.p[1].addr == 0xffffffc000592a4cull); /* 0x...592b64 & ~0x1ff | 0x4c */
	assert_int_equal(g.p[1].addr_bits, 9);
	assert_true(g.p[2].addr == 0xffffffc0005831d8ull); /* & ~0x1ffff | 0x31d8 */
	assert_int_equal(g.p[2].addr_bits, 17);
	assert_int_equal(g.p[2].len, 3);
	assert_int_equal(g.p[3].type, TRAWL_ETE_PKT_ADDR_S_IS1);
	assert_true(g.p[3].addr == 0xffffffc00058310aull); /* & ~0xff | 0x0a */
	assert_int_equal(g.p[3].is, 1);
	assert_int_equal(g.p[4].type, TRAWL_ETE_PKT_ADDR_L_32IS1);
	assert_true(g.p[4].addr == 0xffffffc000012344ull); /* upper 32 bits kept */
	/* history now: [0]=...12344 [1]=...58310a [2]=...5831d8 */
	assert_int_equal(g.p[5].type, TRAWL_ETE_PKT_ADDR_MATCH);
	assert_true(g.p[5].addr == 0xffffffc00058310aull);
	assert_int_equal(g.p[6].type, TRAWL_ETE_PKT_ADDR_L_64IS1);
	assert_true(g.p[6].addr == 0x0000001234567890ull);
	/* history: [0]=0x1234567890 [1]=...58310a (match pushed) [2]=...12344 */
	assert_int_equal(g.p[7].type, TRAWL_ETE_PKT_ADDR_MATCH);
	assert_true(g.p[7].addr == 0xffffffc000012344ull);
}

static void test_context(void **state)
{
	(void)state;
	struct trawl_ete_config c = ete_cfg();
	struct got g;
	const uint8_t b[] = {
		0x80,                         /* context: same */
		0x81, 0x31,                   /* EL1, SF, NS */
		0x81, 0xc2, 0x78, 0x56, 0x34, 0x12, 0xef, 0xbe, 0xad, 0xde, /* EL2 VMID CID */
		/* address+context 32-bit IS0 0x000c36cc, EL1 NS AArch64:
		 * b0 = (0xc36cc>>2)&0x7f = 0x33, b1 = (0xc36cc>>9)&0x7f = 0x1b, b2 = 0x0c */
		0x82, 0x33, 0x1b, 0x0c, 0x00, 0x31,
	};
	decode(&c, b, sizeof b, 0, &g);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.p[0].type, TRAWL_ETE_PKT_CTXT);
	assert_false(g.p[0].flags & TRAWL_ETE_PF_HAS_CTX);
	assert_true(g.p[1].flags & TRAWL_ETE_PF_HAS_CTX);
	assert_int_equal(g.p[1].ctx.el, 1);
	assert_int_equal(g.p[1].ctx.sf, 1);
	assert_int_equal(g.p[1].ctx.ns, 1);
	assert_int_equal(g.p[2].ctx.el, 2);
	assert_int_equal(g.p[2].ctx.sf, 0);
	assert_true(g.p[2].ctx.has_vmid && g.p[2].ctx.has_cid);
	assert_int_equal(g.p[2].ctx.vmid, 0x12345678);
	assert_int_equal(g.p[2].ctx.cid, 0xdeadbeef);
	assert_int_equal(g.p[2].len, 10);
	assert_int_equal(g.p[3].type, TRAWL_ETE_PKT_ADDR_CTXT_L_32IS0);
	assert_true(g.p[3].addr == 0xc36cc);
	assert_int_equal(g.p[3].ctx.el, 1);
}

static void test_info_time_exceptions(void **state)
{
	(void)state;
	struct trawl_ete_config c = ete_cfg();
	struct got g;
	const uint8_t b[] = {
		0x01, 0x0f, 0x01, 0x05, 0x83, 0x01, 0x20, /* TINFO INFO=1 KEY=5 SPEC=0x83 CYCT=32 */
		0x02, 0xd7, 0xdf, 0x01,                     /* TS 0x57 | 0x5f<<7 | 1<<14 = 0x6fd7 */
		0x02, 0x05,                                 /* 7 low bits replaced: 0x6f85 */
		0x03, 0x81, 0x01, 0x0a,                     /* TS 0x81 (cc=10) */
		0x04,                                       /* trace on */
		0x06, 0x1d,                                 /* exception IRQ (0x0e), E0=1 */
		0x06, 0x31, 0x70,                           /* ETE: transaction failure, 3 bytes */
		0x06, 0x01, 0x70,                           /* ETE: PE reset, 3 bytes */
		0x0a, 0x0b,                                 /* TSTART, TCOMMIT */
		0x09, 0x01, 0xff, 0xff, 0x0f, 0, 0, 0, 0, 0, /* ITE EL1 0xfffff */
		0x70, 0x7a, 0x88,                           /* ignore, event 0xa, TS marker */
		0x00, 0x03, 0x00, 0x05,                     /* discard, overflow */
	};
	decode(&c, b, sizeof b, 0, &g);
	assert_int_equal(g.n, 16);
	assert_int_equal(g.p[0].type, TRAWL_ETE_PKT_TRACE_INFO);
	assert_int_equal(g.p[0].value, 1);
	assert_int_equal(g.p[0].tinfo_key, 5);
	assert_int_equal(g.p[0].tinfo_spec, 0x83);
	assert_int_equal(g.p[0].tinfo_cyct, 0x20);
	assert_int_equal(g.p[0].len, 7);
	assert_int_equal(g.p[1].type, TRAWL_ETE_PKT_TIMESTAMP);
	assert_true(g.p[1].value == 0x6fd7);
	assert_true(g.p[2].value == 0x6f85);
	/* 0x81 0x01: 0x01 | 0x01<<7 = 0x81 in 14 bits: 0x6f85 & ~0x3fff | 0x81 */
	assert_true(g.p[3].value == 0x4081);
	assert_true(g.p[3].flags & TRAWL_ETE_PF_HAS_CC);
	assert_int_equal(g.p[3].cc, 10);
	assert_int_equal(g.p[4].type, TRAWL_ETE_PKT_TRACE_ON);
	assert_int_equal(g.p[5].type, TRAWL_ETE_PKT_EXCEPT);
	assert_int_equal(g.p[5].count, 0x0e);
	assert_int_equal(g.p[5].exc_addr_interp, 1);
	assert_int_equal(g.p[6].type, TRAWL_ETE_PKT_TRANS_FAIL);
	assert_int_equal(g.p[6].len, 3);
	assert_int_equal(g.p[7].type, TRAWL_ETE_PKT_PE_RESET);
	assert_int_equal(g.p[8].type, TRAWL_ETE_PKT_TRANS_ST);
	assert_int_equal(g.p[9].type, TRAWL_ETE_PKT_TRANS_COMMIT);
	assert_int_equal(g.p[10].type, TRAWL_ETE_PKT_ITE);
	assert_int_equal(g.p[10].ite_el, 1);
	assert_true(g.p[10].value == 0xfffff);
	assert_int_equal(g.p[11].type, TRAWL_ETE_PKT_IGNORE);
	assert_int_equal(g.p[12].type, TRAWL_ETE_PKT_EVENT);
	assert_int_equal(g.p[12].count, 0xa);
	assert_int_equal(g.p[13].type, TRAWL_ETE_PKT_TS_MARKER);
	assert_int_equal(g.p[14].type, TRAWL_ETE_PKT_DISCARD);
	assert_int_equal(g.p[15].type, TRAWL_ETE_PKT_OVERFLOW);
}

static void test_speculation_and_cc(void **state)
{
	(void)state;
	struct trawl_ete_config c = ete_cfg();
	c.idr0 &= ~(1u << 29);   /* commit sections present */
	c.idr8 = 32;             /* MaxSpec 32 */
	assert_int_equal(trawl_ete_config_derive(&c, NULL), TRAWL_OK);
	struct got g;
	const uint8_t b[] = {
		0x01, 0x08, 0x04,   /* TINFO with CYCT = 4 (cycle count threshold) */
		0x2d, 0x85, 0x01,   /* commit 0x05 | 1<<7 = 133 */
		0x2e, 0x04,         /* cancel F1: 4 */
		0x2f, 0x02,         /* cancel F1 + mispredict: 2 */
		0x30, 0x31, 0x32, 0x33, /* mispredict: -, E, EE, N */
		0x35,               /* cancel F2: E, cancel 1 */
		0x3d,               /* cancel F3: E, cancel (2)+2 = 4 */
		0x0e, 0x03, 0x05,   /* CC F1: commit 3, count 5 + 4 */
		0x0f, 0x02,         /* CC F1 unknown count: commit 2 */
		0x0c, 0x37,         /* CC F2 F=0: commit 3+1, count 7 + 4 */
		0x0d, 0x37,         /* CC F2 F=1: commit 3 + 32 - 15 = 20 */
		0x1b,               /* CC F3: commit (2)+1, count 3 + 4 */
	};
	decode(&c, b, sizeof b, 0, &g);
	assert_int_equal(g.n, 15);
	assert_int_equal(g.p[1].type, TRAWL_ETE_PKT_COMMIT);
	assert_int_equal(g.p[1].count, 133);
	assert_int_equal(g.p[2].type, TRAWL_ETE_PKT_CANCEL_F1);
	assert_int_equal(g.p[2].count, 4);
	assert_int_equal(g.p[3].type, TRAWL_ETE_PKT_CANCEL_F1_MISPRED);
	assert_int_equal(g.p[3].count, 2);
	assert_int_equal(g.p[4].natoms, 0);
	assert_int_equal(g.p[5].natoms, 1);
	assert_int_equal(g.p[5].atoms, 1);
	assert_int_equal(g.p[6].natoms, 2);
	assert_int_equal(g.p[6].atoms, 3);
	assert_int_equal(g.p[7].natoms, 1);
	assert_int_equal(g.p[7].atoms, 0);
	assert_int_equal(g.p[8].type, TRAWL_ETE_PKT_CANCEL_F2);
	assert_int_equal(g.p[8].count, 1);
	assert_int_equal(g.p[9].type, TRAWL_ETE_PKT_CANCEL_F3);
	assert_int_equal(g.p[9].count, 4);
	assert_int_equal(g.p[9].natoms, 1);
	assert_int_equal(g.p[10].type, TRAWL_ETE_PKT_CCNT_F1);
	assert_int_equal(g.p[10].commit, 3);
	assert_int_equal(g.p[10].cc, 9);
	assert_int_equal(g.p[11].commit, 2);
	assert_true(g.p[11].flags & TRAWL_ETE_PF_CC_UNKNOWN);
	assert_int_equal(g.p[12].type, TRAWL_ETE_PKT_CCNT_F2);
	assert_int_equal(g.p[12].commit, 4);
	assert_int_equal(g.p[12].cc, 11);
	assert_int_equal(g.p[13].commit, 20);
	assert_int_equal(g.p[14].type, TRAWL_ETE_PKT_CCNT_F3);
	assert_int_equal(g.p[14].commit, 3);
	assert_int_equal(g.p[14].cc, 7);
}

static void test_q(void **state)
{
	(void)state;
	struct trawl_ete_config c = ete_cfg();
	struct got g;
	const uint8_t b[] = {
		0x9a, 0x00, 0x08, 0x01, 0x00, /* 0x11000 */
		0xa5, 0x0c, 0x04,             /* short IS0: low 9 bits 0x030, count 4 */
		0xaa, 0x34, 0x3f, 0x06, 0x00, 0x03, /* long IS0 0x67ed0, count 3 */
		0xa0, 0x07,                   /* exact match 0, count 7 */
		0xac, 0x02,                   /* count only */
		0xaf,                         /* neither */
	};
	decode(&c, b, sizeof b, 0, &g);
	assert_int_equal(g.n, 6);
	assert_true(g.p[1].addr == 0x11030);
	assert_int_equal(g.p[1].count, 4);
	assert_true(g.p[2].addr == 0x67ed0);
	assert_int_equal(g.p[2].count, 3);
	assert_true(g.p[3].addr == 0x67ed0);
	assert_int_equal(g.p[3].count, 7);
	assert_false(g.p[4].flags & TRAWL_ETE_PF_HAS_ADDR);
	assert_int_equal(g.p[4].count, 2);
	assert_false(g.p[5].flags & TRAWL_ETE_PF_HAS_COUNT);
	/* ETMv4 without Q support: 0xa5 is reserved */
	c = ete_cfg();
	c.idr0 = 0x08000ca1;
	c.devarch = 0;
	c.idr1 = 0x4200f410;
	assert_int_equal(trawl_ete_config_derive(&c, NULL), TRAWL_OK);
	decode(&c, b, sizeof b, 0, &g);
	assert_int_equal(g.p[1].type, TRAWL_ETE_PKT_BAD);
	assert_int_equal(g.p[1].count, TRAWL_ETE_BAD_RESERVED);
	assert_int_equal(g.p[1].offset, 12 + 5);
}

static void test_source_addresses(void **state)
{
	(void)state;
	struct trawl_ete_config c = ete_cfg();
	struct got g;
	const uint8_t b[] = {
		0xb6, 0x46, 0x3f, 0x05, 0x00, /* src long 32 IS0 0x57f18 */
		0xb4, 0x40,                   /* src short IS0: low 9 bits 0x100 */
		0xb5, 0x7c,                   /* src short IS1: low 8 bits 0xf8 */
		0xb0,                         /* src exact match 0 */
	};
	decode(&c, b, sizeof b, 0, &g);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.p[0].type, TRAWL_ETE_PKT_SRC_ADDR_L_32IS0);
	assert_true(g.p[0].addr == 0x57f18);
	assert_int_equal(g.p[1].type, TRAWL_ETE_PKT_SRC_ADDR_S_IS0);
	assert_true(g.p[1].addr == 0x57f00);
	assert_int_equal(g.p[2].type, TRAWL_ETE_PKT_SRC_ADDR_S_IS1);
	assert_true(g.p[2].addr == 0x57ff8);
	assert_int_equal(g.p[3].type, TRAWL_ETE_PKT_SRC_ADDR_MATCH);
	assert_true(g.p[3].addr == 0x57ff8);
}

/* Every chunking gives the same packets as one feed. */
static void test_chunks(void **state)
{
	(void)state;
	struct trawl_ete_config c = ete_cfg();
	const uint8_t b[] = { 0x01, 0x0f, 0x01, 0x05, 0x83, 0x01, 0x20, 0x9d, 0x59, 0x15, 0x59,
			      0x00, 0xc0, 0xff, 0xff, 0xff, 0xf7, 0x02, 0xd7, 0xdf, 0x01, 0x95,
			      0xf6, 0x18, 0x81, 0xc2, 0x78, 0x56, 0x34, 0x12, 0xef, 0xbe, 0xad,
			      0xde, 0xdb, 0x09, 0x01, 0xff, 0xff, 0x0f, 0, 0, 0, 0, 0 };
	static struct got whole, part;
	decode(&c, b, sizeof b, 0, &whole);
	for (size_t ch = 1; ch <= 13; ch++) {
		decode(&c, b, sizeof b, ch, &part);
		assert_int_equal(part.n, whole.n);
		for (size_t i = 0; i < whole.n; i++) {
			assert_int_equal(part.p[i].type, whole.p[i].type);
			assert_int_equal(part.p[i].offset, whole.p[i].offset);
			assert_true(part.p[i].addr == whole.p[i].addr);
			assert_true(part.p[i].value == whole.p[i].value);
			assert_int_equal(part.p[i].len, whole.p[i].len);
		}
	}
}

/* No A-Sync: everything is reported as unsynchronised; then sync found
 * after garbage with extra zeros counted as skipped. */
static void test_sync(void **state)
{
	(void)state;
	struct trawl_ete_config c = ete_cfg();
	struct got g;
	struct trawl_ete_pkt_decoder *d;
	memset(&g, 0, sizeof g);
	assert_int_equal(trawl_ete_pkt_decoder_create(&d, &c, collect, &g, NULL), TRAWL_OK);
	const uint8_t junk[] = { 0xf7, 0x9a, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0xf6 };
	trawl_ete_pkt_decoder_feed(d, junk, sizeof junk);
	trawl_ete_pkt_decoder_finish(d);
	/* 3 junk bytes + 2 extra zeros skipped, A-Sync at 5, atom at 17 */
	assert_int_equal(g.n, 3);
	assert_int_equal(g.p[0].type, TRAWL_ETE_PKT_NOTSYNC);
	assert_int_equal(g.p[0].count, 5);
	assert_int_equal(g.p[1].type, TRAWL_ETE_PKT_ASYNC);
	assert_int_equal(g.p[1].offset, 5);
	assert_int_equal(g.p[2].type, TRAWL_ETE_PKT_ATOM_F1);
	assert_int_equal(g.p[2].offset, 17);
	assert_int_equal(trawl_ete_pkt_decoder_stats(d)->unsynced_bytes, 5);
	trawl_ete_pkt_decoder_destroy(d);
}

static void test_config(void **state)
{
	(void)state;
	struct trawl_ete_config c = ete_cfg();
	assert_true(c.is_ete);
	assert_int_equal(c.arch_minor, 3);
	assert_int_equal(c.cid_bytes, 4);
	assert_int_equal(c.vmid_bytes, 4);
	assert_int_equal(c.cc_bits, 20);
	assert_true(c.q_supported);
	assert_true(c.commopt1);
	c.idr2 = 0x20; /* context ID size 1: reserved */
	struct trawl_error err;
	assert_int_equal(trawl_ete_config_derive(&c, &err), TRAWL_ERR_FORMAT);
	assert_non_null(strstr(err.message, "context ID size"));
	c = ete_cfg();
	c.configr = 0x1001;
	assert_int_equal(trawl_ete_config_derive(&c, NULL), TRAWL_OK);
	assert_true(c.return_stack);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atoms),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_context),
		cmocka_unit_test(test_info_time_exceptions),
		cmocka_unit_test(test_speculation_and_cc),
		cmocka_unit_test(test_q),
		cmocka_unit_test(test_source_addresses),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_sync),
		cmocka_unit_test(test_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
