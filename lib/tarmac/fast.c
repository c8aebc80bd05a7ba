/* The fast path of the Tarmac parser.
 *
 * Fast Models lines ("123 clk IT (45) 00008000 940011de O EL3h_s : ...",
 * "123 clk R X8 0000000000010000", "123 clk MR8 a:pa 00000000_0000ca68") are
 * nearly all of a big trace. This recognises exactly those shapes in one
 * straight pass; anything unexpected returns 0 before touching any state
 * and the general grammar (parse.c) takes the line. Both must produce the
 * same events: tests/unit/test-tarmac.c and the conformance test run both.
 */
#include "tarmac/tarmac-int.h"
#include "tarmac/lex.h"

#include <string.h>


TARMAC_INLINE const char *fast_hex(const char *p, const char *e, size_t *n, uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* the usual tokens are exactly 8 or 16 digits: check those whole */
	if (e - p >= 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		uint64_t ok = tl_swar_hexmask(w);
		if (ok != TL_HIGH) {
			/* fewer than 8 digits ("(45)"): the mask says how many */
			unsigned k = (unsigned)__builtin_ctzll(~ok & TL_HIGH) / 8;
			*n = k;
			*v = k ? tl_swar_hex8((w << (8 * (8 - k))) | (0x3030303030303030ull >> (8 * k))) : 0;
			return p + k;
		}
		if (p + 8 == e || trawl_tl_nibble[(unsigned char)p[8]] > 15) {
			*n = 8;
			*v = tl_swar_hex8(w);
			return p + 8;
		}
		if (e - p >= 16) {
			uint64_t w2;
			memcpy(&w2, p + 8, 8);
			if (tl_swar_hexmask(w2) == TL_HIGH &&
			    (p + 16 == e || trawl_tl_nibble[(unsigned char)p[16]] > 15)) {
				*n = 16;
				*v = (uint64_t)tl_swar_hex8(w) << 32 | tl_swar_hex8(w2);
				return p + 16;
			}
		}
	}
#endif
	*n = tl_hexrun(p, e, v);
	return p + *n;
}

/* The mode word and " :" after the instruction set: the previous
 * instruction line's mode is tried first (the usual case: no scan, and its
 * EL is known). Returns the text after ':' with *mep the mode's end and
 * *elp its EL, or NULL when the line is not of this shape. */
TARMAC_INLINE const char *fast_mode(struct trawl_tarmac *t, const char *mode, const char *e,
				    const char **mep, uint8_t *elp)
{
	const char *me = mode + t->fast_mode_len, *q;
	if (t->fast_mode_len && e - me >= 2 && me[0] == ' ' && me[1] == ':' &&
	    tarmac_same_mode(t, mode, e)) {
		*elp = t->fast_mode_el;
		*mep = me;
		return me + 2;
	}
	me = mode;
	while (me < e && tl_is(*me, TL_WORD))
		me++;
	q = me;
	while (q < e && *q == ' ')
		q++;
	if (me == mode || q >= e || *q != ':')
		return NULL;
	q++;
	uint8_t el = tarmac_el_of_mode(mode, (size_t)(me - mode));
	if ((size_t)(me - mode) <= sizeof t->fast_mode) {
		t->fast_mode_len = (uint8_t)(me - mode);
		memcpy(t->fast_mode, mode, t->fast_mode_len);
		t->fast_mode_el = el;
	}
	*elp = el;
	*mep = me;
	return q;
}

/* "IT (45) 00008000 940011de O EL3h_s : TEXT" (IS: condition failed), p at
 * "IT": the instruction event, and the skip prefix a filtered read uses. */
TARMAC_INLINE int fast_insn(struct trawl_tarmac *t, const char *line, const char *p, const char *e,
			    struct tarmac_line *ln)
{
	uint64_t v, w;
	size_t n, m;
	struct tarmac_insn in;
	const char *q = fast_hex(p + 4, e, &n, &v);
	if (!n || q + 2 > e || q[0] != ')' || q[1] != ' ')
		return 0;
	q += 2;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w1, w2;
	/* the usual "<8 digits> <8 digits> ": both words checked at once */
	if (e - q >= 20 && q[8] == ' ' && q[17] == ' ' &&
	    (memcpy(&w1, q, 8), memcpy(&w2, q + 9, 8),
	     (tl_swar_hexmask(w1) & tl_swar_hexmask(w2)) == TL_HIGH)) {
		v = tl_swar_hex8(w1);
		w = tl_swar_hex8(w2);
		m = 8;
		q += 17;
	} else
#endif
	{
		q = fast_hex(q, e, &n, &v);
		if (!n || n > 16 || q >= e || *q != ' ')
			return 0;
		q = fast_hex(q + 1, e, &m, &w);
	}
	if ((m != 8 && m != 4) || q + 3 > e || *q != ' ' || q[2] != ' ')
		return 0;
	int is = q[1] == 'O' ? TRAWL_ISET_A64 : q[1] == 'A' ? TRAWL_ISET_A32 :
		 q[1] == 'T' ? TRAWL_ISET_T32 : 0;
	if (!is)
		return 0;
	const char *mode = q + 3, *me;
	uint8_t el;
	if (!(q = fast_mode(t, mode, e, &me, &el)))
		return 0;
	while (q < e && tl_is(*q, TL_SPACE))
		q++;
	if (e - q >= 6 && q[0] == 'C' && !memcmp(q, "CCFAIL", 6))
		return 0;
	/* every field set (a memset here costs a rep stos per line) */
	in.pc = v;
	in.paddr = 0;
	in.enc = (uint32_t)w;
	in.width = (uint8_t)(m / 2);
	in.iset = (uint8_t)is;
	in.flags = TRAWL_EVF_HAS_ENCODING | (p[1] == 'S' ? TRAWL_EVF_CCFAIL : 0);
	in.mode.ptr = mode;
	in.mode.len = (uint32_t)(me - mode);
	in.el = el;
	in.disasm.ptr = q;
	in.disasm.len = (uint32_t)(e - q);
	if (tarmac_commit_insn(t, ln, &in))
		return -1;
	t->skip_len = 0;
	if ((t->opt.want & TRAWL_WANT_FILTER) && (size_t)(p - line) <= sizeof t->skip_prefix) {
		t->skip_len = (uint8_t)(p - line);
		/* a fixed-size copy when the line has the bytes: no memcpy call */
		if (t->skip_len <= 16 && e - line >= 16)
			memcpy(t->skip_prefix, line, 16);
		else
			memcpy(t->skip_prefix, line, t->skip_len);
		t->skip_seq = t->ev[t->nev].seq;
	}
	return 1;
}

/* "R X8 0000000000010000", p at "R": one register write of the usual
 * width (or of the value's width for cpsr and SP), joined to its event;
 * a register the reader does not want is not read at all. */
TARMAC_INLINE int fast_reg(struct trawl_tarmac *t, const char *p, const char *e,
			   struct tarmac_line *ln)
{
	uint64_t v;
	size_t n;
	const char *name = p + 2, *ne = name;
	while (ne < e && tl_is(*ne, TL_WORD))
		ne++;
	if (ne == name || ne - name > 15 || ne >= e || *ne != ' ')
		return 0;
	const char *val = ne + 1;
	struct tarmac_regcache rc;
	if (tarmac_reg_lookup(t, name, (size_t)(ne - name), tarmac_reg_state(t, 0), &rc))
		return -1;
	size_t want = rc.flexible ? 0 : 2u * rc.size;
	/* v holds at most 16 digits: longer values take the general path */
	if (fast_hex(val, e, &n, &v) != e || (want ? n != want || want > 16 : (n != 8 && n != 16)))
		return 0;
	if (!want) {
		/* cpsr, SP: the value's width is the write's */
		if (rc.offset + n / 2 > tarmac_reg_width(rc.reg))
			return 0;
		want = n;
	}
	/* partial parsing: a register not wanted is checked but not stored.
	 * Only a line with the instruction's own time prefix goes unread
	 * (tarmac_skip_line); this one may be at another time, where the
	 * general grammar would judge it */
	if (!tarmac_want_reg(t, rc.reg))
		return tarmac_attach_effects(t, ln, t->nregs, t->nmems, t->pool_len) ? 1 : -1;
	size_t r0 = t->nregs, m0 = t->nmems, p0 = t->pool_len;
	if (!tarmac_reserve_regs(t, 1))
		return -1;
	uint32_t off = tarmac_pool_alloc(t, want / 2);
	if (off == UINT32_MAX)
		return -1;
	store_le(t->pool + off, v, want / 2);
	struct trawl_reg_write *wr = &t->regs[t->nregs++];
	wr->reg = rc.reg;
	wr->offset = rc.offset;
	wr->size = (uint16_t)(want / 2);
	wr->zext = rc.zext;
	wr->pad_ = 0;
	wr->value = off;
	wr->known = TRAWL_ALL_KNOWN;
	return tarmac_attach_effects(t, ln, r0, m0, p0) ? 1 : -1;
}

/* "MR8 a:pa 00000000_0000ca68", p at "M": one access of 1, 2, 4 or 8 bytes
 * joined to its event; checked but not stored when memory is not wanted. */
TARMAC_INLINE int fast_mem(struct trawl_tarmac *t, const char *p, const char *e,
			   struct tarmac_line *ln)
{
	uint64_t v, w;
	size_t n, m;
	unsigned size = (unsigned)(p[2] - '0');
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return 0;
	uint64_t addr, pa = 0;
	uint32_t flags = p[1] == 'R' ? TRAWL_MEM_READ : TRAWL_MEM_WRITE;
	const char *q = fast_hex(p + 4, e, &n, &addr);
	/* an access past 2^64-1 is the general grammar's error */
	if (!n || n > 16 || q >= e || addr > UINT64_MAX - (size - 1))
		return 0;
	if (*q == ':') {
		q = fast_hex(q + 1, e, &n, &pa);
		if (!n || n > 16 || q >= e)
			return 0;
		flags |= TRAWL_MEM_HAS_PADDR;
	}
	if (*q != ' ')
		return 0;
	q = fast_hex(q + 1, e, &n, &v);
	if (size == 8 && n == 8 && q < e && *q == '_') {
		q = fast_hex(q + 1, e, &m, &w);
		if (m != 8)
			return 0;
		v = v << 32 | w;
		n = 16;
	}
	if (q != e || n != 2 * size)
		return 0;
	/* only lines with the instruction's own time prefix are skipped
	 * unread (tarmac_skip_line): this one was read whole, like the
	 * general grammar reads it */
	if ((t->opt.want & (TRAWL_WANT_FILTER | TRAWL_WANT_MEMS)) == TRAWL_WANT_FILTER)
		return tarmac_attach_effects(t, ln, t->nregs, t->nmems, t->pool_len) ? 1 : -1;
	uint8_t bytes[8];
	if (t->opt.big_endian)
		store_be(bytes, v, size);
	else
		store_le(bytes, v, size);
	size_t r0 = t->nregs, m0 = t->nmems, p0 = t->pool_len;
	if (tarmac_emit_mem(t, flags, addr, pa, bytes, NULL, size, 0))
		return -1;
	return tarmac_attach_effects(t, ln, r0, m0, p0) ? 1 : -1;
}

/* The three line shapes that make up nearly all of a Fast Models trace
 * (IT/IS, R, MR/MW): the time and unit before them are read once here, then
 * the shape's function (inlined, so the compiled loop is the one it was when
 * this was one function: callgrind counts in docs/architecture.md) takes the
 * rest. It returns 0 before changing anything the general grammar
 * depends on, so parse.c can take the same line again from the start; it
 * only returns 1 when it makes the event the grammar would make. */
int tarmac_fast_line(struct trawl_tarmac *t, const char *p, const char *e, struct tarmac_line *ln)
{
	const char *line = p;
	uint64_t time;
	size_t nd = tl_decrun(p, e, &time);
	p += nd;
	size_t ul = t->fast_unit_len;
	if (!nd || nd > 19 || !ul || e - p < (ptrdiff_t)ul + 8 || *p != ' ' ||
	    p[1] != t->fast_unit[0] || p[2] != t->fast_unit[1] ||
	    (ul == 3 && p[3] != t->fast_unit[2]) || p[1 + ul] != ' ')
		return 0;
	p += ul + 2;
	/* ns, us, ms are kept in ps; a time too large for that is the
	 * general grammar's error */
	ln->time = time;
	if (__builtin_expect(t->fast_unit_ps != 1, 0) &&
	    __builtin_mul_overflow(time, t->fast_unit_ps, &ln->time))
		return 0;
	ln->unit = t->fast_unit_id;
	ln->has_time = 1;
	ln->cpu = 0;
	if (p[0] == 'I' && (p[1] == 'T' || p[1] == 'S') && p[2] == ' ' && p[3] == '(')
		return fast_insn(t, line, p, e, ln);
	if (p[0] == 'R' && p[1] == ' ')
		return fast_reg(t, p, e, ln);
	if (p[0] == 'M' && (p[1] == 'R' || p[1] == 'W') && (unsigned)(p[2] - '1') < 8 && p[3] == ' ')
		return fast_mem(t, p, e, ln);
	return 0;
}
