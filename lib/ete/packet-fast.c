/* The ETE packet decoder's fast paths: runs of the common packets (atoms,
 * cycle counts, addresses) decoded without bounds checks while FAST_MAX
 * bytes remain, one for counting only (ete_count_fast, a threaded loop)
 * and one writing packet records (ete_records_fast). Anything else, and
 * the last bytes of a run, go through parse_one in packet.c; both paths
 * must give exactly what parse_one gives (tests/unit/test-ete-fastpath.c
 * compares them). Kept apart from packet.c because they are measured hot
 * loops with their own shape (see docs/architecture.md): they are the
 * allowed exceptions to the function-length rule.
 */
#include <string.h>

#include "ete/packet-int.h"

/* Length of a continuation field of at most max bytes at q (no bounds
 * check: the caller leaves room), 0 when it runs longer. */
static inline size_t fast_cont(const uint8_t *q, size_t max, uint64_t *val)
{
	uint64_t v = 0;
	for (size_t i = 0; i < max; i++) {
		v |= (uint64_t)(q[i] & 0x7f) << (7 * i);
		if (!(q[i] & 0x80)) {
			*val = v;
			return i + 1;
		}
	}
	return 0;
}

/* Records fast path over b[pos, end), where end leaves FAST_MAX bytes of
 * the run after it, so no read needs a bounds check. Common packets are
 * consumed with one kind lookup and written into the batch as parse_one
 * would write them; addresses are decoded into a register copy of the
 * history. Returns at the first header the fast path does not handle (or
 * at end). */
size_t ete_records_fast(struct trawl_ete_pkt_decoder *d, const uint8_t *b, size_t pos,
			size_t end, uint64_t base)
{
	const uint8_t *fk = d->fast;
	struct trawl_ete_packet *batch = d->batch, *a = NULL;
	size_t nb = d->nbatch;
	/* addresses from packets have bit 0 clear: it holds the IS bit here */
	uint64_t a0 = d->hist[0].addr | d->hist[0].is, a1 = d->hist[1].addr | d->hist[1].is,
		 a2 = d->hist[2].addr | d->hist[2].is;
#define FAST_REC()                                         \
	do {                                               \
		if (nb == BATCH_MAX) {                     \
			d->nbatch = nb;                    \
			ete_pkt_flush(d);                  \
			nb = 0;                            \
		}                                          \
		a = &batch[nb++];                          \
	} while (0)
	while (pos < end) {
		uint8_t h = b[pos];
		unsigned k = fk[h];
		/* runs of one-byte packets (atoms, cycle count F3, events) */
		while (__builtin_expect(k == FK_ONE, 1)) {
			FAST_REC();
			*a = d->tmpl[h];
			a->offset = base + pos;
			if (d->one_byte[h] == 2)
				a->cc += d->cc_threshold;
			if (++pos >= end)
				goto out;
			h = b[pos];
			k = fk[h];
		}
		const uint8_t *q = b + pos + 1;
		uint64_t na, v;
		unsigned len, bits = 0;
		if (k == FK_CC2) {
			FAST_REC();
			memset(a, 0, sizeof *a);
			int off = (h & 1) ? (int)d->cfg.max_spec - 15 : 1;
			int c = ((q[0] >> 4) & 0xf) + off;
			a->commit = (uint16_t)(c < 0 ? 0 : c);
			a->flags = TRAWL_ETE_PF_HAS_COMMIT | TRAWL_ETE_PF_HAS_CC;
			a->cc = d->cc_threshold + (q[0] & 0xf);
			a->offset = base + pos;
			a->type = d->htype[h];
			a->header = h;
			a->len = 2;
			pos += 2;
			continue;
		}
		if (k == FK_S0 || k == FK_S1) {
			unsigned sh = k == FK_S0 ? 2 : 1, more = q[0] >> 7;
			v = (uint64_t)(q[0] & 0x7f) << sh;
			v |= ((uint64_t)q[1] << (7 + sh)) & (0 - (uint64_t)more);
			bits = 7 + sh + 8 * more;
			uint64_t mask = (1ull << bits) - 1;
			na = (a0 & ~mask) | v | (k == FK_S1);
			len = 2 + more;
		} else if (k >= FK_L32_0 && k <= FK_L64_1) {
			unsigned is = k == FK_L32_1 || k == FK_L64_1;
			if (is)
				v = ((uint64_t)(q[0] & 0x7f) << 1) | ((uint64_t)q[1] << 8);
			else
				v = ((uint64_t)(q[0] & 0x7f) << 2) | ((uint64_t)(q[1] & 0x7f) << 9);
			v |= ((uint64_t)q[2] << 16) | ((uint64_t)q[3] << 24) | is;
			if (k >= FK_L64_0) {
				na = v | ((uint64_t)q[4] << 32) | ((uint64_t)q[5] << 40) |
				     ((uint64_t)q[6] << 48) | ((uint64_t)q[7] << 56);
				len = 9;
				bits = 64;
			} else {
				na = (a0 & 0xffffffff00000000ull) | v;
				len = 5;
				bits = 32;
			}
		} else if (k == FK_CC1) {
			/* a too-long field is left to parse_one, which reports it */
			uint64_t commit = 0, cc = 0;
			size_t n = 1, r;
			if (!d->cfg.commopt1) {
				r = fast_cont(q, CONT_MAX, &commit);
				if (!r)
					break;
				n += r;
			}
			if (!(h & 1)) {
				r = fast_cont(b + pos + n, 3, &cc);
				if (!r)
					break;
				n += r;
			}
			FAST_REC();
			memset(a, 0, sizeof *a);
			if (!d->cfg.commopt1) {
				a->commit = (uint16_t)(commit > 0xffff ? 0xffff : commit);
				a->flags |= TRAWL_ETE_PF_HAS_COMMIT;
			}
			if (!(h & 1)) {
				a->cc = (uint32_t)cc + d->cc_threshold;
				a->flags |= TRAWL_ETE_PF_HAS_CC;
			} else {
				a->flags |= TRAWL_ETE_PF_CC_UNKNOWN;
			}
			a->offset = base + pos;
			a->type = d->htype[h];
			a->header = h;
			a->len = (uint16_t)n;
			pos += n;
			continue;
		} else if (k == FK_MATCH) {
			unsigned idx = h & 3;
			na = idx == 0 ? a0 : idx == 1 ? a1 : a2;
			len = 1;
		} else {
			break;
		}
		FAST_REC();
		memset(a, 0, sizeof *a);
		a->offset = base + pos;
		a->addr = na & ~1ull;
		a->is = (uint8_t)(na & 1);
		a->addr_bits = (uint8_t)bits;
		a->flags = TRAWL_ETE_PF_HAS_ADDR;
		a->type = d->htype[h];
		a->header = h;
		a->len = (uint16_t)len;
		if (k == FK_MATCH)
			a->count = h & 3;
		pos += len;
		a2 = a1;
		a1 = a0;
		a0 = na;
	}
out:
#undef FAST_REC
	d->nbatch = nb;
	d->hist[0].addr = a0 & ~1ull;
	d->hist[1].addr = a1 & ~1ull;
	d->hist[2].addr = a2 & ~1ull;
	d->hist[0].is = a0 & 1;
	d->hist[1].is = a1 & 1;
	d->hist[2].is = a2 & 1;
	return pos;
}

/* Four payload bytes in wire order, first byte lowest: one load on
 * little-endian hosts. */
static inline uint32_t load_le32(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t x;
	memcpy(&x, p, sizeof x);
	return x;
#else
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

/* Low 32 bits of a long address from its first four payload bytes x (as
 * load_le32 gives them), with the IS bit in bit 0. IS0: bytes 0 and 1 hold
 * 7 bits each from bit 2; IS1: byte 0 holds 7 bits from bit 1; the other
 * bytes as they are. */
static inline uint64_t long_low_is0(uint32_t x)
{
	return ((x & 0x7f) << 2) | ((x & 0x7f00) << 1) | (x & 0xffff0000u);
}

static inline uint64_t long_low_is1(uint32_t x)
{
	return ((x & 0x7f) << 1) | (x & 0xffffff00u) | 1;
}

/* Counting fast path over b[pos, end), pos < end, with FAST_MAX bytes of
 * the run after end (no read needs a bounds check). Every packet kind is a
 * branch on data, so the loop is threaded (each handler ends with its own
 * indirect jump, the predictor's context) and dispatches on the kinds of
 * two bytes at once: a one-byte packet (most packets: atoms, cycle count
 * F3, events) and whatever follows it cost one dispatch, not two, and each
 * multi-byte kind has its own code with constant shifts and lengths. The
 * second byte's index also carries its bit 7, which is the continuation
 * bit when it is a payload: so a short address or a cycle count (COMMOPT
 * = 1) after a dispatch already knows its length, and the jump that knows
 * it is the dispatch itself, with no branch of its own (the predictor sees
 * the pair). Where the length is still a branch (after a one-byte packet),
 * it is a branch, not arithmetic, so the position never waits for a
 * payload load. An indirect jump costs about 3.5 cycles here even when it
 * always goes to the same place (a loop of nothing else, measured), so
 * each dispatch first takes pairs of atoms (two thirds of the bench's
 * packets, in runs of up to 8 between cycle counts) in a loop of its own,
 * a conditional branch per pair (+20% on bench-ete-encoded.sh's input, see
 * docs/ete.md). GCC must not merge the handlers' dispatches into shared
 * ones (-fno-crossjumping for this file, CMakeLists.txt): merged, the loop
 * ran 8% slower on bench-ete.sh's repeated sample. Addresses are decoded into a register copy of the
 * history exactly as parse_one does. Returns at the first header it does
 * not handle (or at or past end - 1). Kept out of line: inside decode_run (with
 * parse_one inlined) the history no longer fits in registers. Its place in
 * memory is pinned: on the bench machine (a Xeon, Sapphire Rapids class)
 * the loop ran 10-20% slower when an unrelated change moved its start from
 * 16 to 0 or 48 bytes past a 64-byte boundary (the handlers and their
 * indirect jumps fall differently across cache lines), so it starts on a
 * 64-byte boundary followed by 16 bytes of no-ops, run once per call. */
__attribute__((noinline, aligned(64), patchable_function_entry(16, 0))) size_t ete_count_fast(struct trawl_ete_pkt_decoder *d, const uint8_t *b,
						size_t pos, size_t end, uint32_t (*cnt)[256])
{
#define ALL16(l) l, l, l, l, l, l, l, l, l, l, l, l, l, l, l, l
#define ONES                                                                              \
	&&one_slow, &&one_one, &&one_cc2, &&one_s0, &&one_s1, &&one_l32_0, &&one_l32_1,   \
		&&one_l64_0, &&one_l64_1, &&one_match, &&one_cc1, &&one_cc1c, &&one_slow, \
		&&one_slow, &&one_slow, &&one_slow
	/* indexed by d->crow[b[pos]] + d->ccol[b[pos + 1]] */
	static const void *const pairs[CK_KINDS * 32] = {
		[FK_SLOW * 32] = ALL16(&&slow), ALL16(&&slow),
		[FK_ONE * 32] = ONES, ONES,
		[FK_CC2 * 32] = ALL16(&&cc2), ALL16(&&cc2),
		[FK_S0 * 32] = ALL16(&&s0_2), ALL16(&&s0_3),
		[FK_S1 * 32] = ALL16(&&s1_2), ALL16(&&s1_3),
		[FK_L32_0 * 32] = ALL16(&&l32_0), ALL16(&&l32_0),
		[FK_L32_1 * 32] = ALL16(&&l32_1), ALL16(&&l32_1),
		[FK_L64_0 * 32] = ALL16(&&l64_0), ALL16(&&l64_0),
		[FK_L64_1 * 32] = ALL16(&&l64_1), ALL16(&&l64_1),
		[FK_MATCH * 32] = ALL16(&&match), ALL16(&&match),
		[FK_CC1 * 32] = ALL16(&&cc1), ALL16(&&cc1),
		[CK_CC1C * 32] = ALL16(&&cc1c_2), ALL16(&&cc1c_3),
	};
#undef ONES
#undef ALL16
	const uint16_t *crow = d->crow;
	const uint8_t *ccol = d->ccol;
	uint32_t *c0 = cnt[0], *c1 = cnt[1];
	/* addresses from packets have bit 0 clear: it holds the IS bit here */
	uint64_t a0 = d->hist[0].addr | d->hist[0].is, a1 = d->hist[1].addr | d->hist[1].is,
		 a2 = d->hist[2].addr | d->hist[2].is;
	const int commopt1 = d->cfg.commopt1;
	const size_t lim = end - 1; /* dispatch reads b[pos + 1] */
	uint64_t na;
	unsigned h, h1;
/* pairs of atoms (headers 0xC0-0xFF, bits 7 and 6 set) first, without an
 * indirect jump; then the next pair's handler */
#define DISPATCH()                                                 \
	do {                                                       \
		while (pos < lim && (b[pos] & b[pos + 1]) >= 0xC0) { \
			c0[b[pos]]++;                              \
			c1[b[pos + 1]]++;                          \
			pos += 2;                                  \
		}                                                  \
		if (pos >= lim)                                    \
			goto out;                                  \
		h = b[pos];                                        \
		h1 = b[pos + 1];                                   \
		goto *pairs[crow[h] + ccol[h1]];                   \
	} while (0)
/* a one-byte packet, then the packet after it through the handler below */
#define ONE_FIRST()                                          \
	do {                                                 \
		c1[h]++;                                     \
		pos += 1;                                    \
		h = h1;                                      \
	} while (0)
#define PUSH()                                               \
	do {                                                 \
		c0[h]++;                                     \
		a2 = a1;                                     \
		a1 = a0;                                     \
		a0 = na;                                     \
		DISPATCH();                                  \
	} while (0)
	DISPATCH();
one_one:
	c0[h]++;
	c1[h1]++;
	pos += 2;
	DISPATCH();
one_slow:
	c1[h]++;
	pos += 1;
	goto out;
one_cc2:
	ONE_FIRST();
cc2:
	c0[h]++;
	pos += 2;
	DISPATCH();
one_s0:
	ONE_FIRST();
	if (b[pos + 1] & 0x80)
		goto s0_3;
s0_2:
	na = (a0 & ~0x1ffull) | ((uint64_t)b[pos + 1] << 2);
	pos += 2;
	PUSH();
s0_3:
	na = (a0 & ~0x1ffffull) | ((uint64_t)(b[pos + 1] & 0x7f) << 2) | ((uint64_t)b[pos + 2] << 9);
	pos += 3;
	PUSH();
one_s1:
	ONE_FIRST();
	if (b[pos + 1] & 0x80)
		goto s1_3;
s1_2:
	na = (a0 & ~0xffull) | ((uint64_t)b[pos + 1] << 1) | 1;
	pos += 2;
	PUSH();
s1_3:
	na = (a0 & ~0xffffull) | ((uint64_t)(b[pos + 1] & 0x7f) << 1) | ((uint64_t)b[pos + 2] << 8) | 1;
	pos += 3;
	PUSH();
one_l32_0:
	ONE_FIRST();
l32_0:
	na = (a0 & 0xffffffff00000000ull) | long_low_is0(load_le32(b + pos + 1));
	pos += 5;
	PUSH();
one_l32_1:
	ONE_FIRST();
l32_1:
	na = (a0 & 0xffffffff00000000ull) | long_low_is1(load_le32(b + pos + 1));
	pos += 5;
	PUSH();
one_l64_0:
	ONE_FIRST();
l64_0:
	na = ((uint64_t)load_le32(b + pos + 5) << 32) | long_low_is0(load_le32(b + pos + 1));
	pos += 9;
	PUSH();
one_l64_1:
	ONE_FIRST();
l64_1:
	na = ((uint64_t)load_le32(b + pos + 5) << 32) | long_low_is1(load_le32(b + pos + 1));
	pos += 9;
	PUSH();
one_match:
	ONE_FIRST();
match:
	na = (h & 3) == 0 ? a0 : (h & 3) == 1 ? a1 : a2;
	pos += 1;
	PUSH();
one_cc1:
	ONE_FIRST();
cc1: {
	/* a too-long field is left to parse_one, which reports it */
	uint64_t commit, cc;
	size_t n = 1, r;
	if (!commopt1) {
		r = fast_cont(b + pos + 1, CONT_MAX, &commit);
		if (!r)
			goto out;
		n += r;
	}
	if (!(h & 1)) {
		r = fast_cont(b + pos + n, 3, &cc);
		if (!r)
			goto out;
		n += r;
	}
	c0[h]++;
	pos += n;
	DISPATCH();
}
/* COMMOPT = 1: the cycle count field alone, at most 3 bytes */
one_cc1c:
	ONE_FIRST();
	if (b[pos + 1] & 0x80)
		goto cc1c_3;
cc1c_2:
	c0[h]++;
	pos += 2;
	DISPATCH();
cc1c_3:
	if (!(b[pos + 2] & 0x80)) {
		c0[h]++;
		pos += 3;
		DISPATCH();
	}
	if (b[pos + 3] & 0x80)
		goto out; /* too long: parse_one reports it */
	c0[h]++;
	pos += 4;
	DISPATCH();
slow:
out:
#undef DISPATCH
#undef ONE_FIRST
#undef PUSH
	d->hist[0].addr = a0 & ~1ull;
	d->hist[1].addr = a1 & ~1ull;
	d->hist[2].addr = a2 & ~1ull;
	d->hist[0].is = a0 & 1;
	d->hist[1].is = a1 & 1;
	d->hist[2].is = a2 & 1;
	return pos;
}
