/* The flow loop: runs of Fast Models lines under partial parsing.
 *
 * The call commands ask the reader for instructions and a few registers
 * only (partial parsing without memory). In a Fast Models trace nearly
 * every line is then either an instruction line of one shape
 *
 *   <time> <unit> IT (<index>) <8 hex PC> <8 hex encoding> O <mode> : <text>
 *
 * (IS for a failed condition; A or T for the A32/T32 sets; the mode word of
 * the instruction line before), or an effect line of that instruction that
 * partial parsing skips by its first bytes (tarmac_skip_line). This loop
 * takes such lines one after another, with the line cursor and the parser
 * state at hand and no call per line, and stops at the first other line:
 * the caller hands that line to the line parser (parse.c, fast.c), which
 * also sets what this loop relies on (the time unit, the mode word, the
 * skip prefix).
 *
 * Every line taken here gives exactly the event fast.c gives: this is a
 * narrower copy of its instruction-line shape, without the cases it hands
 * on (other widths, a new mode word, CCFAIL, short lines). The tests read
 * traces with and without this loop and compare every event, and the
 * Tarmac fuzzer compares it with the general grammar.
 */
#include "tarmac/tarmac-int.h"
#include "tarmac/lex.h"
#include "tarmac/newline.h"

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Shorter lines are left to the line parser: every fixed-size read below
 * stays inside this many bytes, or is checked against the line's end. */
#define FLOW_MIN_LINE 48

/* The fixed part after the time: " <unit> I?" and " (" (T or S at ?). */
struct flow_shape {
	uint64_t word, mask;    /* the first 8 bytes, the T/S byte masked out */
	size_t ts;              /* where T or S is */
	size_t len;             /* " <unit> I? (" */
};

/* The "<time> <unit> " prefix of the open instruction's line, which its
 * effect lines repeat: two words and their masks (prefixes of up to 16
 * bytes; longer ones leave the effect lines to the line parser). */
struct flow_prefix {
	uint64_t w0, w1, m0, m1;
	size_t len;
};

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__

static inline void prefix_set(struct flow_prefix *f, const char *line, size_t len)
{
	memcpy(&f->w0, line, 8);
	memcpy(&f->w1, line + 8, 8);
	f->m0 = len >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * len)) - 1;
	f->m1 = len >= 16 ? ~(uint64_t)0 : len <= 8 ? 0 : ((uint64_t)1 << (8 * (len - 8))) - 1;
	f->w0 &= f->m0;
	f->w1 &= f->m1;
	f->len = len;
}

/* Does a line of at least 16 bytes start with the prefix? */
static inline int prefix_eq(const struct flow_prefix *f, const char *line)
{
	uint64_t a, b;
	memcpy(&a, line, 8);
	memcpy(&b, line + 8, 8);
	return (((a & f->m0) ^ f->w0) | ((b & f->m1) ^ f->w1)) == 0;
}

/* How many of the 8 bytes of w, from the first, are in the class whose
 * mask `ok` gives (high bit per byte). */
static inline unsigned lead_count(uint64_t ok)
{
	uint64_t bad = ~ok & TL_HIGH;
	return bad ? (unsigned)__builtin_ctzll(bad) / 8 : 8;
}

static inline uint64_t dec_mask(uint64_t w)
{
	uint64_t h = w | TL_HIGH;
	return (h - 0x30 * TL_ONES) & ~(h - 0x3a * TL_ONES) & ~w & TL_HIGH;
}

/* Value of the first k (1-7) decimal digits of w: padded in front with '0'. */
static inline uint64_t dec_first(uint64_t w, unsigned k)
{
	return tl_swar_dec8((w << (8 * (8 - k))) | (0x3030303030303030ull >> (8 * k)));
}

static int flow_shape_init(const struct trawl_tarmac *t, struct flow_shape *s)
{
	size_t ul = t->fast_unit_len;
	if (ul != 2 && ul != 3)
		return 0;
	unsigned char b[8];
	b[0] = ' ';
	memcpy(b + 1, t->fast_unit, ul);
	b[ul + 1] = ' ';
	b[ul + 2] = 'I';
	b[ul + 3] = 0;
	b[ul + 4] = ' ';
	if (ul == 2)
		b[7] = '(';
	memcpy(&s->word, b, 8);
	s->ts = ul + 3;
	s->mask = ~((uint64_t)0xff << (8 * s->ts));
	s->len = ul + 6;
	return 1;
}

/* Two runs of 8 hex digits at p and q (a PC and an encoding, or the two
 * halves of a 64-bit PC): 1 and their values when all 16 are hex digits
 * (either case), else 0. */
static inline int hex8_pair(const char *p, const char *q, uint32_t *a, uint32_t *b)
{
#if defined(__SSE2__)
	/* both words in one vector: checked and converted together */
	__m128i x = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)p),
				       _mm_loadl_epi64((const __m128i *)(const void *)q));
	__m128i dig = _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)),
				    _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
	__m128i low = _mm_or_si128(x, _mm_set1_epi8(0x20));
	__m128i alpha = _mm_and_si128(_mm_cmpgt_epi8(low, _mm_set1_epi8('a' - 1)),
				      _mm_cmplt_epi8(low, _mm_set1_epi8('f' + 1)));
	if (_mm_movemask_epi8(_mm_or_si128(dig, alpha)) != 0xffff)
		return 0;
	/* digit value: low nibble, plus 9 for letters (bit 6 set) */
	__m128i letter = _mm_and_si128(_mm_srli_epi16(x, 6), _mm_set1_epi8(1));
	__m128i nib = _mm_add_epi8(_mm_and_si128(x, _mm_set1_epi8(0x0f)),
				   _mm_add_epi8(letter, _mm_slli_epi16(letter, 3)));
	/* pairs of digits into bytes, most significant first */
	__m128i byte = _mm_or_si128(_mm_and_si128(_mm_slli_epi16(nib, 4), _mm_set1_epi16(0xf0)),
				    _mm_srli_epi16(nib, 8));
	uint64_t v = (uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(byte, byte));
	*a = __builtin_bswap32((uint32_t)v);
	*b = __builtin_bswap32((uint32_t)(v >> 32));
	return 1;
#else
	uint64_t w1, w2;
	memcpy(&w1, p, 8);
	memcpy(&w2, q, 8);
	if ((tl_swar_hexmask(w1) & tl_swar_hexmask(w2)) != TL_HIGH)
		return 0;
	*a = tl_swar_hex8(w1);
	*b = tl_swar_hex8(w2);
	return 1;
#endif
}

/* Exactly 4 hex digits at q (8 bytes readable): 1 and their value. */
static inline int hex4(const char *q, uint32_t *v)
{
	uint64_t w;
	memcpy(&w, q, 8);
	if ((tl_swar_hexmask(w) & 0x80808080u) != 0x80808080u)
		return 0;
	*v = tl_swar_hex8((w << 32) | 0x30303030u);
	return 1;
}

/* An instruction line's fields, read by flow_parse. */
struct flow_line;
static const char *pc_enc_other(const char *q, struct flow_line *f);

struct flow_line {
	uint64_t time, pc;
	uint32_t enc;
	uint8_t width, iset, ccfail;
	size_t prefix;          /* "<time> <unit> " */
	const char *mode, *disasm;
	uint32_t mode_len, disasm_len;
};

/* The PC and encoding at q in the other shapes the fast path reads: a
 * 16-digit PC, a 4-digit (16-bit Thumb) encoding. The space after the
 * encoding, or NULL. q has 28 bytes. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static const char *pc_enc_other(const char *q, struct flow_line *f)
{
	uint32_t hi = 0, lo, unused;
	const char *c;
	if (q[8] == ' ') {
		c = q + 9;
		if (!hex8_pair(q, q, &lo, &unused))
			return NULL;
	} else if (q[16] == ' ') {
		c = q + 17;
		if (!hex8_pair(q, q + 8, &hi, &lo))
			return NULL;
	} else {
		return NULL;
	}
	if (c[8] == ' ') {
		if (!hex8_pair(c, c, &f->enc, &unused))
			return NULL;
		f->width = 4;
	} else if (c[4] == ' ' && hex4(c, &f->enc)) {
		f->width = 2;
	} else {
		return NULL;
	}
	f->pc = (uint64_t)hi << 32 | lo;
	return c + 2 * f->width;
}

/* What the loop knows of the parser (copied from it, constant while it
 * runs): the line shape and the previous instruction line's mode word. */
struct flow_ctx {
	struct flow_shape s;
	const char *mode;       /* the mode word's bytes (t->fast_mode) */
	uint64_t mode_w, mode_m;/* ... as a masked word when it has 1-8 bytes */
	size_t mode_len;
	uint64_t ps, ps_max;    /* t->fast_unit_ps, and the largest time it may scale */
};

/* One instruction line of the common shape, as tarmac_fast_line reads it:
 * 1 and its fields, or 0 (not this shape). It only reads and writes f, so a
 * 0 costs nothing to undo; lines shorter than FLOW_MIN_LINE are refused
 * first, which is what makes the fixed-size word reads safe. */
TARMAC_INLINE int flow_parse(const struct flow_ctx *x, const char *line, const char *e,
			     struct flow_line *f)
{
	/* (lines ending in a blank, which the line parser trims, and in any
	 * other control character are left to it) */
	if (e - line < FLOW_MIN_LINE || (unsigned char)e[-1] <= ' ')
		return 0;
	/* the time: up to 15 digits */
	static const uint32_t pow10[8] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000 };
	uint64_t w;
	memcpy(&w, line, 8);
	unsigned k = lead_count(dec_mask(w));
	if (k == 0)
		return 0;
	if (k < 8) {
		f->time = dec_first(w, k);
	} else {
		uint64_t w2;
		memcpy(&w2, line + 8, 8);
		unsigned k2 = lead_count(dec_mask(w2));
		if (k2 == 8)
			return 0;
		f->time = (uint64_t)tl_swar_dec8(w) * pow10[k2] + (k2 ? dec_first(w2, k2) : 0);
		k += k2;
	}
	const char *p = line + k;
	memcpy(&w, p, 8);
	char ts = p[x->s.ts];
	if (((w ^ x->s.word) & x->s.mask) || (ts != 'T' && ts != 'S') ||
	    (x->s.len == 9 && p[8] != '('))
		return 0;
	f->ccfail = ts == 'S';
	f->prefix = k + x->s.len - 4;
	/* "(<index>) ": 1-15 hex digits, not decoded (nothing reads it) */
	const char *q = p + x->s.len;
	memcpy(&w, q, 8);
	unsigned n = lead_count(tl_swar_hexmask(w));
	if (n == 8) {
		memcpy(&w, q + 8, 8);
		n += lead_count(tl_swar_hexmask(w));
		if (n == 16)
			return 0;
	}
	if (n == 0 || q[n] != ')' || q[n + 1] != ' ')
		return 0;
	q += n + 2;
	/* "<PC> <encoding> O ": the usual "<8 hex> <8 hex>" checked and
	 * converted at once; other widths aside */
	if (e - q < 28)
		return 0;
	if (q[8] == ' ' && q[17] == ' ') {
		uint32_t pc;
		if (!hex8_pair(q, q + 9, &pc, &f->enc))
			return 0;
		f->pc = pc;
		f->width = 4;
		q += 17;
	} else if (!(q = pc_enc_other(q, f))) {
		return 0;
	}
	if (q[2] != ' ')
		return 0;
	f->iset = q[1] == 'O' ? TRAWL_ISET_A64 : q[1] == 'A' ? TRAWL_ISET_A32 :
		  q[1] == 'T' ? TRAWL_ISET_T32 : 0;
	if (!f->iset)
		return 0;
	/* the mode word of the instruction line before, then " :" (compared
	 * as tarmac_same_mode does) */
	const char *mode = q + 3, *me = mode + x->mode_len;
	if (!x->mode_len || e - me < 2 || me[0] != ' ' || me[1] != ':')
		return 0;
	if (x->mode_len <= 8 && e - mode >= 8) {
		memcpy(&w, mode, 8);
		if ((w & x->mode_m) != x->mode_w)
			return 0;
	} else if (memcmp(mode, x->mode, x->mode_len)) {
		return 0;
	}
	const char *d = me + 2;
	d += d < e && *d == ' '; /* the usual one space */
	while (d < e && tl_is(*d, TL_SPACE))
		d++;
	if (e - d >= 6 && d[0] == 'C' && !memcmp(d, "CCFAIL", 6))
		return 0;
	f->mode = mode;
	f->mode_len = (uint32_t)x->mode_len;
	f->disasm = d;
	f->disasm_len = (uint32_t)(e - d);
	/* ns, us, ms: kept in ps; the line parser reports a time too large */
	if (x->ps != 1) {
		if (f->time > x->ps_max)
			return 0;
		f->time *= x->ps;
	}
	return 1;
}

/* The event tarmac_commit_insn would make of the line (e zeroed first). */
TARMAC_INLINE void flow_event(struct trawl_event *e, const struct flow_line *f, uint64_t seq,
			      uint64_t lineno, uint64_t offset, size_t len, uint16_t unit,
			      uint32_t first_reg, uint32_t first_mem, uint8_t el)
{
	tarmac_event_zero(e);
	e->seq = seq;
	e->line = lineno;
	e->nlines = 1;
	e->kind = TRAWL_EV_INSN;
	e->flags = TRAWL_EVF_HAS_TIME | TRAWL_EVF_HAS_ENCODING | (f->ccfail ? TRAWL_EVF_CCFAIL : 0);
	e->offset = offset;
	e->length = len;
	e->time = f->time;
	e->time_unit = unit;
	e->cpu = 0;
	e->first_reg = first_reg;
	e->first_mem = first_mem;
	e->u.insn.pc = f->pc;
	e->u.insn.encoding = f->enc;
	e->u.insn.width = f->width;
	e->u.insn.iset = f->iset;
	e->u.insn.el = el;
	e->u.insn.mode.ptr = f->mode;
	e->u.insn.mode.len = f->mode_len;
	e->u.insn.disasm.ptr = f->disasm;
	e->u.insn.disasm.len = f->disasm_len;
}

/* The parser's counters while the loop runs, in locals. */
struct flow_state {
	struct trawl_event *ev;
	size_t nev, cap;
	int open;
	uint64_t seq, lineno, lines, events;
	const char *last;       /* the last instruction line taken, or NULL */
	uint64_t last_time;
	uint8_t last_iset;
	size_t last_prefix;
};

static void flow_load(struct flow_state *f, const struct trawl_tarmac *t)
{
	f->ev = t->ev;
	f->nev = t->nev;
	f->cap = t->ev_cap;
	f->open = t->open;
	f->seq = t->seq;
	f->lineno = t->lineno;
	f->lines = f->events = 0;
	f->last = NULL;
}

/* Write the counters back, and what tarmac_fast_line leaves after the last
 * instruction line taken. */
static void flow_store(struct flow_state *f, struct trawl_tarmac *t, uint16_t unit)
{
	t->nev = f->nev;
	t->open = f->open;
	t->seq = f->seq;
	t->lineno = f->lineno;
	t->stats.lines += f->lines;
	t->stats.events += f->events;
	f->lines = f->events = 0;
	if (f->last) {
		t->open_pool = t->pool_len;
		t->open_detached = 0;
		t->cpu_iset[0] = f->last_iset;
		t->time = f->last_time;
		t->unit = unit;
		t->cpu = 0;
		t->skip_len = (uint8_t)f->last_prefix;
		memcpy(t->skip_prefix, f->last, f->last_prefix > 16 ? f->last_prefix : 16);
		t->skip_seq = f->ev[f->nev].seq;
		f->last = NULL;
	}
}

/* The mode word of the last instruction line, as flow_parse compares it:
 * its bytes, and when it has 1-8 of them one masked word. */
TARMAC_INLINE void flow_mode_init(const struct trawl_tarmac *t, struct flow_ctx *x)
{
	x->mode = t->fast_mode;
	x->mode_len = t->fast_mode_len;
	if (x->mode_len && x->mode_len <= 8) {
		x->mode_m = x->mode_len == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * x->mode_len)) - 1;
		memcpy(&x->mode_w, t->fast_mode, 8);
		x->mode_w &= x->mode_m;
	}
}

/* A kept effect line of the armed event (a wanted register): read by the
 * fast path, as tarmac_parse_line_noskip would, with the loop's counters
 * stored before and loaded after. 0: the loop stops and the line parser
 * takes the line. */
TARMAC_INLINE int flow_kept_effect(struct trawl_tarmac *t, struct flow_state *st, const char *line,
				   size_t n, uint64_t offset, uint16_t unit)
{
	if ((unsigned char)line[n - 1] <= ' ')
		return 0;
	flow_store(st, t, unit);
	struct tarmac_line ln = { line, n, offset, t->lineno + 1, t->time, t->unit, t->cpu, 0 };
	if (tarmac_fast_line(t, line, line + n, &ln) <= 0)
		return 0;
	t->lineno++;
	t->stats.lines++;
	t->time = ln.time;
	t->unit = ln.unit;
	t->cpu = ln.cpu;
	flow_load(st, t);
	return 1;
}

/* The parser's counters are copied into locals for the loop and written back
 * before anything else may look at them (a kept effect line, growing the
 * event array, the end): that is what makes the loop fast, and why every exit
 * goes through flow_store. A line without a newline is always left to the
 * line parser, which knows whether the input is cut off there. */
size_t tarmac_flow_run(struct trawl_tarmac *t, const char *data, size_t len, size_t pos,
		       uint64_t offset, struct tarmac_nl *nl, size_t limit, size_t *decline)
{
	struct tarmac_nl c = *nl;
	size_t end = SIZE_MAX;
	tarmac_compact(t);
	struct flow_ctx x;
	memset(&x, 0, sizeof x);
	if (t->prev_ldst || !flow_shape_init(t, &x.s)) {
		/* nothing to take: the line parser has the next line */
		*decline = tarmac_nl_next(data, len, pos, nl);
		return pos;
	}
	flow_mode_init(t, &x);
	x.ps = t->fast_unit_ps ? t->fast_unit_ps : 1;
	x.ps_max = UINT64_MAX / x.ps;
	const uint8_t el = t->fast_mode_el;
	const uint16_t unit = t->fast_unit_id;
	struct flow_state st;
	flow_load(&st, t);

	/* armed: the open event is the one the skip prefix belongs to (as
	 * tarmac_skip_line checks), so lines starting with it are its effects */
	struct flow_prefix fp = { 0, 0, 0, 0, 0 };
	int armed = t->skip_len && t->skip_len <= 16 && st.open && st.ev[st.nev].seq == t->skip_seq;
	if (armed)
		prefix_set(&fp, t->skip_prefix, t->skip_len);
	struct flow_line f;

	while (pos < len) {
		end = tarmac_nl_next(data, len, pos, &c);
		/* no newline: the line parser decides if it is whole; a NUL: the
		 * reader rejects the line */
		if (end == len || data[end] != '\n')
			break;
		const char *line = data + pos;
		size_t n = end - pos;
		if (armed && n >= 16 && prefix_eq(&fp, line)) {
			if (n >= fp.len + 5 && tarmac_effect_skipped(t, line + fp.len, n - fp.len)) {
				struct trawl_event *e = &st.ev[st.nev];
				st.lineno++;
				st.lines++;
				e->nlines = (uint32_t)(st.lineno - e->line + 1);
				e->length = offset + end - e->offset;
				pos = end + 1;
				continue;
			}
			if (!flow_kept_effect(t, &st, line, n, offset + pos, unit))
				break;
			armed = fp.len && st.open && st.ev[st.nev].seq == t->skip_seq;
			pos = end + 1;
			continue;
		}
		if (!flow_parse(&x, line, data + end, &f))
			break;
		if (st.open) {
			st.open = 0;
			st.nev++;
			st.events++;
		}
		if (st.nev + 2 > st.cap) {
			t->nev = st.nev;
			if (!tarmac_grow_events(t))
				break; /* the line parser meets the same and reports it */
			st.ev = t->ev;
			st.cap = t->ev_cap;
		}
		flow_event(&st.ev[st.nev], &f, st.seq, st.lineno + 1, offset + pos, n, unit,
			   (uint32_t)t->nregs, (uint32_t)t->nmems, el);
		fp.len = 0;
		if (f.prefix <= 16)
			prefix_set(&fp, line, f.prefix);
		armed = fp.len != 0;
		st.open = 1;
		st.seq++;
		st.lineno++;
		st.lines++;
		st.last = line;
		st.last_time = f.time;
		st.last_iset = f.iset;
		st.last_prefix = f.prefix;
		pos = end + 1;
		if (st.nev >= limit) {
			end = SIZE_MAX;
			break;
		}
	}
	if (pos >= len)
		end = SIZE_MAX;
	flow_store(&st, t, unit);
	*nl = c;
	*decline = end;
	return pos;
}

#else

/* Big-endian hosts: every line goes to the line parser. */
size_t tarmac_flow_run(struct trawl_tarmac *t, const char *data, size_t len, size_t pos,
		       uint64_t offset, struct tarmac_nl *nl, size_t limit, size_t *decline)
{
	(void)t;
	(void)offset;
	(void)limit;
	*decline = pos < len ? tarmac_nl_next(data, len, pos, nl) : SIZE_MAX;
	return pos;
}

#endif
