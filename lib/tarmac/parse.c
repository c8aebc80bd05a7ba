/* The Tarmac line grammar: one line in, effects and events out.
 *
 * Line layout (fields in brackets are optional; see docs/tarmac.md for every
 * producer's variant):
 *
 *   [time[.frac][ ]unit] [cpuN] TYPE fields...
 *
 *   TYPE        fields                                         event
 *   IT IS IF    [(idx|addr[:serial])] addr[:pa[,pa2]] enc ISET [mode] : disasm   INSN
 *   ES          (addr:enc|--------) ISET mode: [CCFAIL] disasm        INSN
 *   ES EXC, EXC [[num]] name                                   EXCEPTION
 *   E           addr [num] CoreEvent_NAME                      EXCEPTION
 *   R           name [(qual)] [<hi:lo>] value...               effect: register
 *   M.. R0n W0n [X] [(a:s)] addr[:pa] value[ value] | (ABORTED) effect: memory
 *   LD ST       addr  16 bytes as 4 words (.. ## hex)  [pa] attrs  effect: memory
 *   (indent)    continuation of LD/ST, address under the previous one
 *   anything    text                                           TEXT
 *
 * ISET is A (A32), T/T16/T32 (T32) or O (A64). Register values are written
 * most significant digit first; '-' digits mean "byte not written", 'x'
 * digits "written, value unknown". Memory values are the accessed quantity
 * as a number (converted to address order by endianness) except Cortex-M
 * "M...D" lines and LD/ST diagrams, which are pictures of memory.
 */
#include "tarmac/tarmac-int.h"
#include "tarmac/lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "trawl/reg.h"

#define E_FORMAT (-1)
#define E_NOMEM (-2)
#define MAX_NIBBLES 640   /* a 256-byte SVE Z register plus slack */

static int fail(struct trawl_tarmac *t, const struct tl *l, const char *at, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

static int fail(struct trawl_tarmac *t, const struct tl *l, const char *at, const char *fmt, ...)
{
	va_list ap;
	if (at < l->s)
		at = l->s;
	if (at > l->e)
		at = l->e;
	t->ecol = (uint32_t)(at - l->s) + 1;
	va_start(ap, fmt);
	vsnprintf(t->emsg, sizeof t->emsg, fmt, ap);
	va_end(ap);
	return E_FORMAT;
}

static const char *trim_end(const char *s, const char *e)
{
	while (e > s && tl_is(e[-1], TL_SPACE))
		e--;
	return e;
}

static struct trawl_str mkstr(const char *s, const char *e)
{
	struct trawl_str r = { s, (uint32_t)(e - s) };
	return r;
}

/* ---- line prefix: time, unit, cpu ---- */

#define KNOWN_UNITS "clk cyc cs tic ps ns us ms s"

/* The unit a word names, and how many picoseconds one of it is: real-time
 * units (ps, ns, us, ms, s) all become TRAWL_TIME_PS, so that times written
 * in different ones compare; counting units (clk, cyc, cs, tic) keep their
 * count (*ps = 1). -1: not a unit. */
static int unit_of(const char *s, size_t n, uint64_t *ps)
{
	*ps = 1;
	switch (n) {
	case 1:
		if (s[0] == 's') { *ps = 1000000000000ull; return TRAWL_TIME_PS; }
		break;
	case 2:
		if (s[1] == 's') {
			switch (s[0]) {
			case 'p': return TRAWL_TIME_PS;
			case 'n': *ps = 1000; return TRAWL_TIME_PS;
			case 'u': *ps = 1000000; return TRAWL_TIME_PS;
			case 'm': *ps = 1000000000; return TRAWL_TIME_PS;
			case 'c': return TRAWL_TIME_CS;
			}
		}
		break;
	case 3:
		if (TL_EQ(s, n, "clk")) return TRAWL_TIME_CLK;
		if (TL_EQ(s, n, "cyc")) return TRAWL_TIME_CYC;
		if (TL_EQ(s, n, "tic")) return TRAWL_TIME_TIC;
		break;
	}
	return -1;
}

/* Record types that follow a timestamp: a word between a time and one of
 * these is meant as a unit, and one trawl does not know must not become
 * the record type (the instruction would be lost as text). */
static int is_record_word(const char *s, size_t n)
{
	static const char *const w[] = { "IT", "IS", "IF", "ES", "R", "E", "EXC", "LD", "ST" };
	for (size_t i = 0; i < sizeof w / sizeof *w; i++)
		if (n == strlen(w[i]) && !memcmp(s, w[i], n))
			return 1;
	if (n < 3)
		return 0;
	/* MR4 MW8, MNW4___D MSR4, R08 W04 */
	if (s[0] == 'M')
		return ((s[1] == 'R' || s[1] == 'W') && tl_is(s[2], TL_DIGIT)) ||
		       ((s[1] == 'N' || s[1] == 'S') && (s[2] == 'R' || s[2] == 'W'));
	return (s[0] == 'R' || s[0] == 'W') && s[1] == '0' && tl_is(s[2], TL_DIGIT);
}

/* Times of one trace are all compared with each other (index order, time
 * searches, ranges, exports), so they must all be in one unit: the first
 * timestamp's. Cycles of one clock and picoseconds have no common scale,
 * and two cycle units (or a bare number and a unit) may count different
 * clocks, so a line in another unit is an error, not a guess. */
static int check_unit(struct trawl_tarmac *t, struct tl *l, const char *at, int unit,
		      const char *word, size_t wn)
{
	if (t->mixed_units)
		return 0;
	if (wn > sizeof t->trace_unit_word)
		wn = sizeof t->trace_unit_word;
	if (!t->trace_unit_line) {
		t->trace_unit = (uint16_t)unit;
		t->trace_unit_line = t->lineno;
		memcpy(t->trace_unit_word, word, wn);
		t->trace_unit_wlen = (uint8_t)wn;
		return 0;
	}
	if (unit == t->trace_unit)
		return 0;
	int was_real = t->trace_unit == TRAWL_TIME_PS, now_real = unit == TRAWL_TIME_PS;
	return fail(t, l, at,
		    "time unit changes from %s%.*s%s (line %llu) to %s%.*s%s: %s; one trace keeps one time unit",
		    t->trace_unit_wlen ? "'" : "none", (int)t->trace_unit_wlen, t->trace_unit_word,
		    t->trace_unit_wlen ? "'" : "", (unsigned long long)t->trace_unit_line,
		    wn ? "'" : "none", (int)wn, word, wn ? "'" : "",
		    was_real != now_real ? "cycles and real time cannot be compared" :
					   "counts of different clocks cannot be compared");
}

/* Events keep an integer count of a unit: a real-time stamp (whole or
 * fractional) is turned into picoseconds, never wrapping. The quick digit
 * loop can wrap past 19 digits, so a long run is read again with overflow
 * checks. A unit written as its own word is remembered for the fast path,
 * which only recognises that spelling. */
static int parse_time(struct trawl_tarmac *t, struct tl *l, struct tarmac_line *ln)
{
	const char *start = l->p;
	uint64_t v = 0;
	while (l->p < l->e && tl_is(*l->p, TL_DIGIT))
		v = v * 10 + (unsigned)(*l->p++ - '0');
	if (l->p - start > 19) {
		/* may have wrapped: redo it carefully */
		v = 0;
		for (const char *q = start; q < l->p; q++) {
			unsigned d = (unsigned)(*q - '0');
			if (v > (UINT64_MAX - d) / 10)
				return fail(t, l, start, "timestamp too large (more than 2^64-1)");
			v = v * 10 + d;
		}
	}
	uint64_t frac = 0, fscale = 1;
	int has_frac = 0;
	if (tl_at(l, '.')) {
		l->p++;
		has_frac = 1;
		while (l->p < l->e && tl_is(*l->p, TL_DIGIT)) {
			if (fscale < 1000000000000ull) {
				frac = frac * 10 + (uint64_t)(*l->p - '0');
				fscale *= 10;
			}
			l->p++;
		}
	}
	int unit = TRAWL_TIME_NONE;
	uint64_t m = 1;
	const char *ustart = l->p;
	size_t un = tl_wordlen(l);
	int fast_ok = 0;
	if (un) {
		/* unit glued to the number ("271ns", "10.356000us") */
		unit = unit_of(l->p, un, &m);
		if (unit == -1)
			return fail(t, l, ustart, "unknown time unit '%.*s' (known: %s)",
				    (int)(un > 16 ? 16 : un), ustart, KNOWN_UNITS);
		l->p += un;
	} else if (l->p < l->e && !tl_is(*l->p, TL_SPACE)) {
		return fail(t, l, l->p, "unexpected character after timestamp");
	} else {
		tl_skipsp(l);
		ustart = l->p;
		un = tl_wordlen(l);
		int u = un ? unit_of(l->p, un, &m) : -1;
		if (u != -1) {
			unit = u;
			fast_ok = 1;
			l->p += un;
		} else if (un) {
			/* "12 fs IT ...": a word the parser would take as the
			 * record type, then the real one */
			struct tl after = *l;
			after.p += un;
			tl_skipsp(&after);
			size_t an = tl_wordlen(&after);
			int cpu = un > 3 && !memcmp(l->p, "cpu", 3) && tl_is(l->p[3], TL_DIGIT);
			if (an && !cpu && !is_record_word(l->p, un) && is_record_word(after.p, an))
				return fail(t, l, ustart, "unknown time unit '%.*s' (known: %s)",
					    (int)(un > 16 ? 16 : un), ustart, KNOWN_UNITS);
			m = 1;
		}
	}
	if (has_frac && unit != TRAWL_TIME_PS)
		return fail(t, l, start, "a fractional timestamp needs a unit of ps, ns, us, ms or s");
	if (v > UINT64_MAX / m)
		return fail(t, l, start, "timestamp too large: %.*s in picoseconds is more than 2^64-1",
			    (int)(l->p - start > 40 ? 40 : l->p - start), start);
	if (has_frac) {
		/* m and fscale are powers of ten: scale by their ratio, as
		 * frac * m (up to 10^12 x 10^12) would overflow */
		uint64_t fps = fscale >= m ? frac / (fscale / m) : frac * (m / fscale);
		if (v * m > UINT64_MAX - fps)
			return fail(t, l, start, "timestamp too large: %.*s in picoseconds is more than 2^64-1",
				    (int)(l->p - start > 40 ? 40 : l->p - start), start);
		v = v * m + fps;
	} else {
		v *= m;
	}
	int r = check_unit(t, l, unit ? ustart : start, unit, ustart, unit ? un : 0);
	if (r)
		return r;
	if (fast_ok && un >= 2 && un <= sizeof t->fast_unit) {
		memcpy(t->fast_unit, ustart, un);
		t->fast_unit_len = (uint8_t)un;
		t->fast_unit_id = (uint16_t)unit;
		t->fast_unit_ps = m;
	}
	ln->time = v;
	ln->unit = (uint16_t)unit;
	ln->has_time = 1;
	return 0;
}

/* ---- small field helpers ---- */

static unsigned dec_small(const char *s, size_t n)
{
	unsigned v = 0;
	for (size_t i = 0; i < n && i < 6; i++)
		v = v * 10 + (unsigned)(s[i] - '0');
	return v;
}


/* A hex number of at most maxd digits as a whole word at p. */
static int hex_word(struct trawl_tarmac *t, struct tl *l, unsigned maxd, uint64_t *v,
		    const char *what)
{
	size_t n = tl_hexrun(l->p, l->e, v);
	if (!n || !tl_tokend(l->p + n, l->e))
		return fail(t, l, l->p, "expected %s", what);
	if (n > maxd)
		return fail(t, l, l->p, "%s has more than %u hex digits", what, maxd);
	l->p += n;
	return 0;
}

/* hex with an optional _S/_NS security suffix (physical addresses) */
static int paddr_word(struct trawl_tarmac *t, struct tl *l, uint64_t *v)
{
	const char *s = l->p;
	size_t h = tl_hexrun(s, l->e, v);
	const char *q = s + h;
	if (q + 2 <= l->e && q[0] == '_' && q[1] == 'S')
		q += 2;
	else if (q + 3 <= l->e && q[0] == '_' && q[1] == 'N' && q[2] == 'S')
		q += 3;
	if (!h || !tl_tokend(q, l->e))
		return fail(t, l, s, "expected a physical address");
	if (h > 16)
		return fail(t, l, s, "physical address has more than 16 hex digits");
	l->p = q;
	return 0;
}

static int iset_of(const char *s, size_t n)
{
	if (n == 1) {
		if (s[0] == 'A') return TRAWL_ISET_A32;
		if (s[0] == 'T') return TRAWL_ISET_T32;
		if (s[0] == 'O') return TRAWL_ISET_A64;
	} else if (n == 3 && s[0] == 'T' && ((s[1] == '1' && s[2] == '6') || (s[1] == '3' && s[2] == '2'))) {
		return TRAWL_ISET_T32;
	}
	return 0;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* Exception level from the mode field ("EL3h_s", "el0t_ns", "svc_s"). */
uint8_t tarmac_el_of_mode(const char *s, size_t n)
{
	if (n >= 3 && lower(s[0]) == 'e' && lower(s[1]) == 'l' && s[2] >= '0' && s[2] <= '3')
		return (uint8_t)(s[2] - '0');
	if (n < 3)
		return 0xff;
	char m[3] = { (char)lower(s[0]), (char)lower(s[1]), (char)lower(s[2]) };
	if (n > 3 && s[3] != '_')
		return 0xff;
	if (!memcmp(m, "usr", 3))
		return 0;
	if (!memcmp(m, "svc", 3) || !memcmp(m, "irq", 3) || !memcmp(m, "fiq", 3) ||
	    !memcmp(m, "abt", 3) || !memcmp(m, "und", 3) || !memcmp(m, "sys", 3))
		return 1;
	if (!memcmp(m, "hyp", 3))
		return 2;
	if (!memcmp(m, "mon", 3))
		return 3;
	return 0xff;
}

/* ---- instruction lines ---- */


/* The encoding field: hex, or hyphens for a failed fetch. */
static int enc_word(struct trawl_tarmac *t, struct tl *l, struct tarmac_insn *in)
{
	uint64_t v;
	size_t n = tl_hexrun(l->p, l->e, &v);
	if (n && tl_tokend(l->p + n, l->e)) {
		if (n > 8)
			return fail(t, l, l->p, "instruction encoding has more than 8 hex digits");
		in->enc = (uint32_t)v;
		in->flags |= TRAWL_EVF_HAS_ENCODING;
	} else {
		n = tl_wordlen(l);
		size_t dashes = 0;
		while (dashes < n && l->p[dashes] == '-')
			dashes++;
		if (!n || dashes != n)
			return fail(t, l, l->p, "expected an instruction encoding");
		if (n > 8)
			return fail(t, l, l->p, "instruction encoding has more than 8 hex digits");
		in->flags |= TRAWL_EVF_FETCH_FAIL;
	}
	in->width = (uint8_t)((n + 1) / 2);
	l->p += n;
	return 0;
}

/* After the encoding: instruction set, mode, colon, CCFAIL, disassembly. */
static int insn_tail(struct trawl_tarmac *t, struct tl *l, struct tarmac_insn *in, int have_iset)
{
	tl_skipsp(l);
	if (!have_iset) {
		size_t n = tl_wordlen(l);
		int is = iset_of(l->p, n);
		if (is) {
			in->iset = (uint8_t)is;
			l->p += n;
		} else if (t->opt.implicit_thumb) {
			in->iset = TRAWL_ISET_T32;
			goto disasm; /* no state, no mode: the rest is disassembly */
		} else {
			return fail(t, l, l->p,
				    "expected the instruction set (A, T, T16, T32 or O); "
				    "M-profile traces without it need --implicit-thumb");
		}
		tl_skipsp(l);
	}
	if (tl_at(l, ':')) {
		l->p++;
	} else {
		size_t n = tl_wordlen(l);
		const char *q = l->p + n;
		while (q < l->e && tl_is(*q, TL_SPACE))
			q++;
		if (n && q < l->e && *q == ':') {
			in->mode = mkstr(l->p, l->p + n);
			in->el = tarmac_el_of_mode(l->p, n);
			l->p = q + 1;
		}
	}
	tl_skipsp(l);
	if (tl_wordlen(l) == 6 && !memcmp(l->p, "CCFAIL", 6)) {
		in->flags |= TRAWL_EVF_CCFAIL;
		l->p += 6;
		tl_skipsp(l);
	}
disasm:
	in->disasm = mkstr(l->p, trim_end(l->p, l->e));
	return 0;
}

/* The bracket after IT holds either an index or the instruction address
 * (with ":serial" from RTL simulators), and only the token after the next
 * word tells which: an ISET there means the bracket was the address. So
 * the bracket is kept unread until that is known. */
static int parse_it(struct trawl_tarmac *t, struct tl *l, struct tarmac_insn *in)
{
	const char *br = NULL;
	size_t brn = 0;
	int r;
	tl_skipsp(l);
	if (tl_at(l, '(')) {
		l->p++;
		tl_skipsp(l);
		uint64_t bv;
		br = l->p;
		brn = tl_hexrun(l->p, l->e, &bv);
		if (!brn || !tl_tokend(br + brn, l->e))
			return fail(t, l, l->p, "expected a number in brackets");
		l->p += brn;
		tl_skipsp(l);
		if (tl_at(l, ':')) {
			/* (address:serial) from RTL simulators */
			l->p++;
			tl_skipsp(l);
			uint64_t sv;
			size_t n = tl_hexrun(l->p, l->e, &sv);
			if (!n || !tl_tokend(l->p + n, l->e))
				return fail(t, l, l->p, "expected a number after ':'");
			l->p += n;
			tl_skipsp(l);
		}
		if (!tl_at(l, ')'))
			return fail(t, l, l->p, "expected ')'");
		l->p++;
		tl_skipsp(l);
	}
	uint64_t post;
	const char *postp = l->p;
	size_t postn = tl_wordlen(l);
	if ((r = hex_word(t, l, 16, &post, "an instruction address")))
		return r;
	if (tl_at(l, ':')) {
		/* virtual:physical, optionally ",second-halfword-physical" */
		l->p++;
		if ((r = paddr_word(t, l, &in->paddr)))
			return r;
		in->flags |= TRAWL_EVF_HAS_PADDR;
		if (tl_at(l, ',')) {
			uint64_t pa2;
			l->p++;
			if ((r = paddr_word(t, l, &pa2)))
				return r;
		}
	}
	tl_skipsp(l);
	size_t n = tl_wordlen(l);
	int is = iset_of(l->p, n);
	if (is) {
		/* "IT (address) encoding ISET": the bracket held the address */
		if (!br)
			return fail(t, l, l->p, "expected an instruction encoding");
		if (brn > 16)
			return fail(t, l, br, "instruction address has more than 16 hex digits");
		if (postn > 8)
			return fail(t, l, postp, "instruction encoding has more than 8 hex digits");
		in->pc = tl_hex64(br, brn);
		in->enc = (uint32_t)post;
		in->width = (uint8_t)((postn + 1) / 2);
		in->flags |= TRAWL_EVF_HAS_ENCODING;
		in->iset = (uint8_t)is;
		l->p += n;
		return insn_tail(t, l, in, 1);
	}
	in->pc = post;
	if ((r = enc_word(t, l, in)))
		return r;
	return insn_tail(t, l, in, 0);
}

static int parse_es_insn(struct trawl_tarmac *t, struct tl *l, struct tarmac_insn *in)
{
	int r;
	if (!tl_at(l, '('))
		return fail(t, l, l->p, "expected '(' before the instruction address");
	l->p++;
	tl_skipsp(l);
	if ((r = hex_word(t, l, 16, &in->pc, "an instruction address")))
		return r;
	tl_skipsp(l);
	if (!tl_at(l, ':'))
		return fail(t, l, l->p, "expected ':' between address and encoding");
	l->p++;
	tl_skipsp(l);
	if ((r = enc_word(t, l, in)))
		return r;
	tl_skipsp(l);
	if (!tl_at(l, ')'))
		return fail(t, l, l->p, "expected ')' after the encoding");
	l->p++;
	return insn_tail(t, l, in, 0);
}

/* ---- exceptions and text ---- */

static int commit_text(struct trawl_tarmac *t, const struct tarmac_line *ln, const char *type,
		       size_t tn, const char *text, const char *end)
{
	struct trawl_event *e = tarmac_begin_event(t, ln, TRAWL_EV_TEXT);
	if (!e)
		return E_NOMEM;
	e->u.text.type = mkstr(type, type + tn);
	e->u.text.text = mkstr(text, trim_end(text, end));
	return 0;
}

/* "[0x200] Synchronous ..." or "Reset": optional number, then the name. */
static int parse_exc(struct trawl_tarmac *t, struct tl *l, const struct tarmac_line *ln)
{
	uint32_t num = 0;
	tl_skipsp(l);
	if (tl_at(l, '[')) {
		l->p++;
		tl_skipsp(l);
		size_t n = tl_wordlen(l);
		const char *s = l->p;
		uint64_t v;
		if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && tl_allhex(s + 2, n - 2) && n <= 10)
			v = tl_hex64(s + 2, n - 2);
		else if (tl_alldigits(s, n) && n <= 6)
			v = dec_small(s, n);
		else
			return fail(t, l, s, "expected an exception number in brackets");
		num = (uint32_t)v;
		l->p += n;
		tl_skipsp(l);
		if (!tl_at(l, ']'))
			return fail(t, l, l->p, "expected ']'");
		l->p++;
		tl_skipsp(l);
	}
	struct trawl_event *e = tarmac_begin_event(t, ln, TRAWL_EV_EXCEPTION);
	if (!e)
		return E_NOMEM;
	e->u.exc.name = mkstr(l->p, trim_end(l->p, l->e));
	e->flags |= trawl_exception_flags(e->u.exc.name.ptr, e->u.exc.name.len);
	e->u.exc.number = num;
	return 0;
}

/* "E 10001848 00000001 CoreEvent_RESET" is an exception; "E 0 0
 * GAP_TRACE_OFF" (and the other gap names, trawl_tarmac_gap_reason) a gap,
 * as `trawl ete tarmac` writes them; other E lines (DebugEvent_*, signal
 * changes) are text. */
static int parse_e(struct trawl_tarmac *t, struct tl *l, const struct tarmac_line *ln,
		   const char *type)
{
	const char *rest;
	uint64_t hex[2] = { 0, 0 };
	unsigned nhex = 0;
	tl_skipsp(l);
	rest = l->p;
	for (;;) {
		tl_skipsp(l);
		size_t n = tl_wordlen(l);
		if (!n)
			break;
		if (n >= 10 && !memcmp(l->p, "CoreEvent_", 10)) {
			struct trawl_event *e = tarmac_begin_event(t, ln, TRAWL_EV_EXCEPTION);
			if (!e)
				return E_NOMEM;
			e->u.exc.name = mkstr(l->p, trim_end(l->p, l->e));
			e->flags |= trawl_exception_flags(e->u.exc.name.ptr, e->u.exc.name.len);
			e->u.exc.target = hex[0];
			e->u.exc.number = (uint32_t)hex[1];
			return 0;
		}
		int gap = nhex ? trawl_tarmac_gap_reason(l->p, n) : -1;
		if (gap >= 0) {
			struct trawl_event *e = tarmac_begin_event(t, ln, TRAWL_EV_GAP);
			if (!e)
				return E_NOMEM;
			e->u.gap.reason = (uint32_t)gap;
			return 0;
		}
		if (!tl_allhex(l->p, n) || n > 16)
			break;
		if (nhex < 2)
			hex[nhex] = tl_hex64(l->p, n);
		nhex++;
		l->p += n;
		if (tl_at(l, ':')) { /* virtual:physical */
			l->p++;
			l->p += tl_wordlen(l);
		}
	}
	return commit_text(t, ln, type, 1, rest, l->e);
}

static int known_text_type(const char *s, size_t n)
{
	static const char *const known[] = {
		"CADI", "P", "CACHE", "TTW", "BR", "INFO_EXCEPTION_REASON", "SIGNAL", "Tarmac",
		"EXC",
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (tl_eq(s, n, known[i], strlen(known[i])))
			return 1;
	return 0;
}

static int parse_text(struct trawl_tarmac *t, struct tl *l, const struct tarmac_line *ln,
		      const char *type, size_t tn)
{
	if (!known_text_type(type, tn)) {
		tarmac_warn_type(t, ln, type, tn);
		t->stats.unknown_lines++;
	}
	if (tl_at(l, ':')) /* "SIGNAL: ..." */
		l->p++;
	tl_skipsp(l);
	return commit_text(t, ln, type, tn, l->p, l->e);
}

/* ---- register lines ---- */

static uint32_t name_hash(const char *s, size_t n, unsigned state)
{
	uint32_t h = 2166136261u ^ state;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* Register names repeat on nearly every line, so a name is resolved once per
 * register-state (the same name means different registers in A32 and A64)
 * and kept in a small hash cache. Names the register table does not know are
 * interned as system registers instead of being rejected. */
int tarmac_reg_lookup(struct trawl_tarmac *t, const char *name, size_t n, unsigned state,
		      struct tarmac_regcache *out)
{
	struct tarmac_regcache *c = NULL;
	if (n <= sizeof c->name) {
		c = &t->regcache[name_hash(name, n, state) & (TARMAC_REGCACHE - 1)];
		if (c->valid && c->len == n && c->state == state) {
			size_t i = 0;
			while (i < n && c->name[i] == name[i])
				i++;
			if (i == n) {
				*out = *c;
				return 0;
			}
		}
	}
	struct trawl_reg_ref ref;
	struct tarmac_regcache v;
	memset(&v, 0, sizeof v);
	if (trawl_reg_parse(name, n, (enum trawl_reg_state)state, &ref)) {
		v.reg = ref.reg;
		v.offset = ref.offset;
		v.size = ref.size;
		v.zext = ref.zext;
		/* SP is printed 32- or 64-bit whatever the state; size from the value */
		v.flexible = ref.size == 0 || ref.reg == TRAWL_REG_SP;
		if (ref.reg == TRAWL_REG_SP)
			v.size = 0;
	} else {
		v.reg = trawl_reg_names_intern(&t->sysregs, name, n);
		if (!v.reg)
			return E_NOMEM;
		v.flexible = 1;
	}
	v.valid = 1;
	v.state = (uint8_t)state;
	if (c) {
		v.len = (uint8_t)n;
		memcpy(v.name, name, n);
		*c = v;
	}
	*out = v;
	return 0;
}

uint32_t tarmac_reg_width(uint32_t reg)
{
	uint32_t w = trawl_reg_width(reg);
	return w ? w : 8;
}

/* Append the nibbles of one value token; returns count or -1 on a bad char. */
static int take_token(struct tl *l, uint8_t *nib, size_t *n, size_t cap)
{
	const char *q = l->p;
	while (q < l->e && !tl_is(*q, TL_SPACE) && *q != ':') {
		uint8_t v = trawl_tl_nibble[(unsigned char)*q];
		if (v == TL_NIB_BAD)
			return -1;
		if (v != TL_NIB_SKIP) {
			if (*n >= cap)
				return -2;
			nib[(*n)++] = v;
		}
		q++;
	}
	l->p = q;
	return 0;
}

static int all_nib(const uint8_t *nib, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (nib[i] != v)
			return 0;
	return 1;
}

/* Emit the bytes of a register value (nibbles, most significant first) as
 * one write per run of written bytes. */
static int emit_reg(struct trawl_tarmac *t, uint32_t reg, unsigned base, const uint8_t *nib,
		    size_t n, unsigned zext)
{
	size_t nbytes = n / 2;
	uint8_t val[MAX_NIBBLES / 2], st[MAX_NIBBLES / 2]; /* st: 0 known 1 unknown 2 skip */
	int partial = 0;
	for (size_t i = 0; i < nbytes; i++) {
		uint8_t hi = nib[n - 2 * i - 2], lo = nib[n - 2 * i - 1];
		if (hi < 16 && lo < 16) {
			val[i] = (uint8_t)(hi << 4 | lo);
			st[i] = 0;
		} else if (hi == TL_NIB_DASH && lo == TL_NIB_DASH) {
			val[i] = 0;
			st[i] = 2;
			partial = 1;
		} else {
			val[i] = 0;
			st[i] = 1;
		}
	}
	for (size_t i = 0; i < nbytes;) {
		if (st[i] == 2) {
			i++;
			continue;
		}
		size_t j = i, unknown = 0;
		while (j < nbytes && st[j] != 2)
			unknown |= st[j++];
		if (!tarmac_reserve_regs(t, 1))
			return E_NOMEM;
		size_t run = j - i;
		uint32_t off = tarmac_pool_alloc(t, run + (unknown ? (run + 7) / 8 : 0));
		if (off == UINT32_MAX)
			return E_NOMEM;
		memcpy(t->pool + off, val + i, run);
		struct trawl_reg_write *w = &t->regs[t->nregs++];
		w->reg = reg;
		w->offset = (uint16_t)(base + i);
		w->size = (uint16_t)run;
		w->zext = (uint16_t)(partial ? 0 : zext);
		w->pad_ = 0;
		w->value = off;
		w->known = TRAWL_ALL_KNOWN;
		if (unknown) {
			uint8_t *m = t->pool + off + run;
			memset(m, 0, (run + 7) / 8);
			for (size_t k = 0; k < run; k++)
				if (st[i + k] == 0)
					m[k / 8] |= (uint8_t)(1u << (k % 8));
			w->known = off + (uint32_t)run;
		}
		i = j;
	}
	return 0;
}

unsigned tarmac_reg_state(const struct trawl_tarmac *t, uint16_t cpu)
{
	uint8_t is = t->cpu_iset[cpu];
	if (is == TRAWL_ISET_A64)
		return TRAWL_REG_STATE_A64;
	if (is == TRAWL_ISET_A32 || is == TRAWL_ISET_T32)
		return TRAWL_REG_STATE_A32;
	return TRAWL_REG_STATE_GUESS;
}

/* System operations look like register lines ("DC CIVAC ...", "TLBI ...")
 * but change no state; they stay text. */
static inline int reg_is_sysop(const char *name, size_t nn)
{
	return (nn == 2 && (!memcmp(name, "DC", 2) || !memcmp(name, "IC", 2) || !memcmp(name, "AT", 2))) ||
	       (nn == 4 && !memcmp(name, "TLBI", 4));
}

/* The banking qualifier after a name ("R1 (USR)", "SCTLR (AARCH32)") is
 * checked and skipped: the name alone chose the register. */
static int skip_reg_qualifier(struct trawl_tarmac *t, struct tl *l)
{
	if (!tl_at(l, '('))
		return 0;
	l->p++;
	tl_skipsp(l);
	size_t n = tl_wordlen(l);
	if (!n)
		return fail(t, l, l->p, "expected a register qualifier in brackets");
	l->p += n;
	tl_skipsp(l);
	if (!tl_at(l, ')'))
		return fail(t, l, l->p, "expected ')'");
	l->p++;
	tl_skipsp(l);
	return 0;
}

/* A bit range ("V0<127:64>") narrows the write to whole bytes inside the
 * named register: it moves *base, sets the digits *want and turns
 * zero-extension off (the rest of the register keeps its value). `end` is
 * the byte after the name's view (W0: 4, not X0's 8), so a range past the
 * view is refused as one past the storage is. */
static int parse_reg_range(struct trawl_tarmac *t, struct tl *l, uint32_t end, unsigned *base,
			   size_t *want, unsigned *zext)
{
	const char *at = l->p++;
	size_t a = tl_wordlen(l);
	if (!a || !tl_alldigits(l->p, a) || a > 5)
		return fail(t, l, l->p, "expected the high bit of a register range");
	unsigned hi = dec_small(l->p, a);
	l->p += a;
	if (!tl_at(l, ':'))
		return fail(t, l, l->p, "expected ':' in a register bit range");
	l->p++;
	size_t b = tl_wordlen(l);
	if (!b || !tl_alldigits(l->p, b) || b > 5)
		return fail(t, l, l->p, "expected the low bit of a register range");
	unsigned lo = dec_small(l->p, b);
	l->p += b;
	if (!tl_at(l, '>'))
		return fail(t, l, l->p, "expected '>' after a register bit range");
	l->p++;
	if (hi % 8 != 7 || lo % 8 != 0 || lo > hi)
		return fail(t, l, at, "register bit range must cover whole bytes");
	if (*base + hi / 8 >= end)
		return fail(t, l, at, "register bit range is outside the register");
	*base += lo / 8;
	*want = 2u * ((hi - lo + 1) / 8);
	*zext = 0;
	tl_skipsp(l);
	return 0;
}

/* The quick path's write: `bytes` bytes of v, all known. Inlined: it is
 * the common case of every general-grammar register line. */
static inline int emit_reg_word(struct trawl_tarmac *t, uint32_t reg, unsigned base, uint64_t v,
				size_t bytes, unsigned zext)
{
	if (!tarmac_reserve_regs(t, 1))
		return E_NOMEM;
	uint32_t off = tarmac_pool_alloc(t, bytes);
	if (off == UINT32_MAX)
		return E_NOMEM;
	store_le(t->pool + off, v, bytes);
	struct trawl_reg_write *w = &t->regs[t->nregs++];
	w->reg = reg;
	w->offset = (uint16_t)base;
	w->size = (uint16_t)bytes;
	w->zext = (uint16_t)zext;
	w->pad_ = 0;
	w->value = off;
	w->known = TRAWL_ALL_KNOWN;
	return 0;
}

/* An annotation producers write after a register value: the flags of a
 * PSR ("__C_", "NZ_V", with an optional Q: N Z C V Q each its letter, in
 * either case, or '_') or a bracketed word ("(MSP)" after r13). Returns
 * its length, 0 if the text at p is none. */
static size_t reg_annotation(const struct tl *l)
{
	const char *p = l->p;
	size_t n = tl_wordlen(l);
	if (n == 4 || n == 5) {
		static const char flag[] = "NZCVQ";
		size_t i = 0;
		while (i < n && (p[i] == '_' || (p[i] | 0x20) == (flag[i] | 0x20)))
			i++;
		if (i == n)
			return n;
	}
	if (*p == '(') {
		struct tl k = *l;
		k.p++;
		size_t w = tl_wordlen(&k);
		if (w && k.p + w < k.e && k.p[w] == ')')
			return w + 2;
	}
	return 0;
}

/* After a register or memory value only blanks (and, after a register, one
 * annotation) may follow. Anything else is text the value would silently
 * lose: another record on the same line (a lost newline, or a CR-only line
 * end), or a digit group the value has no room for. */
static int value_end(struct trawl_tarmac *t, struct tl *l, int annot, const char *what)
{
	tl_skipsp(l);
	if (tl_eol(l))
		return 0;
	size_t a = annot ? reg_annotation(l) : 0;
	if (a) {
		l->p += a;
		tl_skipsp(l);
		if (tl_eol(l))
			return 0;
	}
	return fail(t, l, l->p, "unexpected text after the %s value (two records on one line?)", what);
}

/* Digits of a register whose width comes from the value (SP, system
 * registers): one token, or two joined by ':' or followed by a second
 * word-sized (8 digit) token; annotations may follow. An odd count gains a
 * leading zero nibble. */
static int take_reg_flexible(struct trawl_tarmac *t, struct tl *l, uint8_t *nib, size_t *n,
			     const char *vstart)
{
	int r;
	if ((r = take_token(l, nib, n, MAX_NIBBLES)))
		return fail(t, l, l->p, r == -2 ? "register value too long" : "expected a register value");
	if (tl_at(l, ':')) {
		l->p++;
		if ((r = take_token(l, nib, n, MAX_NIBBLES)))
			return fail(t, l, l->p, "expected a register value after ':'");
	} else {
		struct tl k = *l;
		tl_skipsp(&k);
		size_t m = tl_wordlen(&k);
		if (m == 8 && tl_allhex(k.p, 8)) {
			*l = k;
			take_token(l, nib, n, MAX_NIBBLES);
		}
	}
	if (!*n)
		return fail(t, l, vstart, "expected a register value");
	if (*n % 2) {
		memmove(nib + 1, nib, *n);
		nib[0] = 0;
		(*n)++;
	}
	return 0;
}

/* A fixed-width value that ends before `want` digits: an abbreviation of
 * all zeros or all dashes is filled out, except on a line the input cut
 * off, where the value is just incomplete (an error, never padded:
 * padding would invent bytes). */
static int fill_reg_short(struct trawl_tarmac *t, const struct tl *l, uint8_t *nib, size_t n,
			  size_t want, const char *vstart)
{
	if (t->cut_line)
		return fail(t, l, vstart, "register value cut off by the end of the input");
	if (n && all_nib(nib, n, 0))
		memset(nib + n, 0, want - n);
	else if (n && all_nib(nib, n, TL_NIB_DASH))
		memset(nib + n, TL_NIB_DASH, want - n);
	else
		return fail(t, l, vstart, "register value too short: %zu hex digits, expected %zu", n, want);
	return 0;
}

/* Digits of a register of known width: tokens (split in words, maybe
 * joined by ':') until `want` digits; more is an error. */
static int take_reg_fixed(struct trawl_tarmac *t, struct tl *l, uint8_t *nib, size_t *n,
			  size_t want, const char *vstart)
{
	int r;
	while (*n < want) {
		tl_skipsp(l);
		if (tl_eol(l)) {
			if ((r = fill_reg_short(t, l, nib, *n, want, vstart)))
				return r;
			*n = want;
			break;
		}
		if (tl_at(l, ':'))
			l->p++;
		const char *tok = l->p;
		if ((r = take_token(l, nib, n, MAX_NIBBLES)) || l->p == tok)
			return fail(t, l, tok, "expected a register value");
	}
	if (*n > want)
		return fail(t, l, vstart, "register value has %zu hex digits, expected %zu", *n, want);
	return 0;
}

/* A register line: the name (or an alias) chooses the register and its
 * usual width, then a qualifier and a bit range may follow. A value of the
 * usual width in one token takes the quick path; everything else (a bit
 * range, values split in words, '-' and 'x' digits, abbreviated all-zero
 * values, SP or system registers whose width comes from the value) is read
 * as nibbles first. A value cut off by the end of the input is an error,
 * never padded, because padding would invent bytes. */
static int parse_reg(struct trawl_tarmac *t, struct tl *l, const struct tarmac_line *ln,
		     const char *type)
{
	int r;
	tl_skipsp(l);
	const char *name = l->p;
	size_t nn = tl_wordlen(l);
	if (!nn)
		return fail(t, l, l->p, "expected a register name");
	l->p += nn;
	if (reg_is_sysop(name, nn)) {
		tl_skipsp(l);
		return commit_text(t, ln, name, nn, l->p, l->e);
	}
	(void)type;
	struct tarmac_regcache rc;
	unsigned state = tarmac_reg_state(t, ln->cpu);
	if ((r = tarmac_reg_lookup(t, name, nn, state, &rc)))
		return r;
	tl_skipsp(l);
	if ((r = skip_reg_qualifier(t, l)))
		return r;
	uint32_t width = tarmac_reg_width(rc.reg);
	unsigned base = rc.offset;
	size_t want = rc.flexible ? 0 : 2u * rc.size;
	unsigned zext = rc.zext;
	if (tl_at(l, '<')) {
		/* the view's own end; SP's cache entry has no size (its width
		 * comes from the value), but WSP and AArch32 r13 are 32-bit */
		uint32_t end = rc.flexible ? width : rc.offset + rc.size;
		struct trawl_reg_ref ref;
		if (rc.reg == TRAWL_REG_SP && trawl_reg_parse(name, nn, (enum trawl_reg_state)state, &ref) &&
		    ref.size)
			end = ref.offset + ref.size;
		if ((r = parse_reg_range(t, l, end, &base, &want, &zext)))
			return r;
	}

	/* quick path: one token of exactly the expected hex digits (X, W, R, D ...) */
	uint64_t v;
	if (want && want <= 16 && tl_hexrun(l->p, l->e, &v) == want &&
	    (l->p + want == l->e || tl_is(l->p[want], TL_SPACE))) {
		l->p += want;
		if ((r = value_end(t, l, 1, "register")))
			return r;
		return emit_reg_word(t, rc.reg, base, v, want / 2, zext);
	}

	uint8_t nib[MAX_NIBBLES];
	size_t n = 0;
	const char *vstart = l->p;
	if (tl_eol(l))
		return fail(t, l, l->p, "expected a register value");
	r = want ? take_reg_fixed(t, l, nib, &n, want, vstart) : take_reg_flexible(t, l, nib, &n, vstart);
	if (r)
		return r;
	/* a width taken from the value: on a line the input cut off, any
	 * count of digits may be the start of a longer value (only an
	 * annotation after it shows it is whole) */
	if (!want && t->cut_line && (tl_skipsp(l), tl_eol(l)))
		return fail(t, l, vstart, "register value cut off by the end of the input: "
			    "its width comes from the value");
	if ((r = value_end(t, l, 1, "register")))
		return r;
	if (base + n / 2 > width)
		return fail(t, l, vstart, "register value is wider than the register (%zu bytes)", n / 2);
	return emit_reg(t, rc.reg, base, nib, n, zext);
}

/* ---- memory lines ---- */

int tarmac_emit_mem(struct trawl_tarmac *t, uint32_t flags, uint64_t addr, uint64_t paddr,
		    const uint8_t *bytes, const uint8_t *known, size_t size, int any_unknown)
{
	if (!tarmac_reserve_mems(t, 1))
		return E_NOMEM;
	uint32_t off = tarmac_pool_alloc(t, size + (any_unknown ? (size + 7) / 8 : 0));
	if (off == UINT32_MAX)
		return E_NOMEM;
	memcpy(t->pool + off, bytes, size);
	struct trawl_mem_access *m = &t->mems[t->nmems++];
	m->addr = addr;
	m->paddr = paddr;
	m->size = (uint32_t)size;
	m->flags = flags;
	m->value = off;
	m->known = TRAWL_ALL_KNOWN;
	if (any_unknown) {
		uint8_t *k = t->pool + off + size;
		memset(k, 0, (size + 7) / 8);
		for (size_t i = 0; i < size; i++)
			if (known[i])
				k[i / 8] |= (uint8_t)(1u << (i % 8));
		m->known = off + (uint32_t)size;
	}
	return 0;
}

/* What a memory line's type says. */
struct mem_type {
	int rw;       /* TRAWL_MEM_READ or TRAWL_MEM_WRITE, 0 if none */
	int sized;    /* a size was given */
	int memorder; /* Cortex-M "M...D": the value is a picture of memory */
	int fetch;    /* "..._I": an instruction fetch */
	unsigned size;
};

/* "MR8", "MW4_I", "MR4D", or the R0n/W0n spelling. M.. types take the
 * first R/W and the first number anywhere in the type. */
static void mem_type_read(const char *type, size_t tn, struct mem_type *mt)
{
	memset(mt, 0, sizeof *mt);
	if (type[0] != 'M') {
		mt->rw = type[0] == 'R' ? TRAWL_MEM_READ : TRAWL_MEM_WRITE;
		mt->sized = 1;
		mt->size = dec_small(type + 1, 2);
		return;
	}
	for (size_t i = 1; i < tn; i++) {
		char c = type[i];
		if (!mt->rw && (c == 'R' || c == 'W')) {
			mt->rw = c == 'R' ? TRAWL_MEM_READ : TRAWL_MEM_WRITE;
		} else if (!mt->sized && tl_is(c, TL_DIGIT)) {
			mt->sized = 1;
			while (i < tn && tl_is(type[i], TL_DIGIT) && mt->size < 1000)
				mt->size = mt->size * 10 + (unsigned)(type[i++] - '0');
			i--;
		}
	}
	mt->memorder = tn == 8 && type[7] == 'D';
	mt->fetch = tn > 2 && type[tn - 2] == '_' && type[tn - 1] == 'I';
}

/* Words between the type and the address that say nothing about the
 * access: "X" (exclusive) and Cortex-R RTL's "(instruction address:serial)". */
static int skip_mem_prefix(struct trawl_tarmac *t, struct tl *l)
{
	tl_skipsp(l);
	if (tl_wordlen(l) == 1 && *l->p == 'X') { /* exclusive */
		l->p++;
		tl_skipsp(l);
	}
	if (tl_at(l, '(')) {
		const char *q = memchr(l->p, ')', (size_t)(l->e - l->p));
		if (!q)
			return fail(t, l, l->p, "expected ')'");
		l->p = q + 1;
		tl_skipsp(l);
	}
	return 0;
}

/* The quick path: one token of exactly 2*size hex digits (size <= 8, Fast
 * Models' "00000000_0000ca68" split of 8-byte values included) ending the
 * line or followed by a space. Returns the token's length with the value
 * in *v, or 0. Inlined: it is the common case. */
static inline size_t mem_quick_value(const struct tl *l, unsigned size, int memorder, uint64_t *v)
{
	size_t want = 2u * size, got = 0, span = 0;
	if (size <= 8 && !memorder) {
		got = span = tl_hexrun(l->p, l->e, v);
		if (got == 8 && want == 16 && l->p + 17 <= l->e && l->p[8] == '_') {
			uint64_t lo;
			if (tl_hexrun(l->p + 9, l->e, &lo) == 8) {
				*v = *v << 32 | lo;
				got = 16;
				span = 17;
			}
		}
	}
	return got == want && (l->p + span == l->e || tl_is(l->p[span], TL_SPACE)) ? span : 0;
}

/* Digits of a memory value the quick path did not take: one token, or the
 * "hi lo" two-word form of 16-byte accesses; '-' is not allowed. Fewer
 * digits than the access size: on the input's last line the value was cut
 * off (a truncation, like a cut register value); on any other line the
 * line is wrong. Never padded: that would invent bytes. */
static int take_mem_digits(struct trawl_tarmac *t, struct tl *l, uint8_t *nib, size_t *n,
			   unsigned size, const char *vstart)
{
	size_t want = 2u * size;
	if (take_token(l, nib, n, 64) || !*n)
		return fail(t, l, vstart, "expected memory contents in hex");
	for (size_t i = 0; i < *n; i++)
		if (nib[i] == TL_NIB_DASH)
			return fail(t, l, vstart, "expected memory contents in hex");
	if (*n < want) {
		/* the second word is read like the first ('x' digits, '_'
		 * splits) and counted in digits, so "HI LO" takes the same
		 * values as the unsplit HILO */
		struct tl k = *l;
		tl_skipsp(&k);
		size_t m = *n;
		if (!take_token(&k, nib, &m, 64) && m > *n && m <= want &&
		    !memchr(nib + *n, TL_NIB_DASH, m - *n)) {
			*l = k;
			*n = m;
		}
	}
	if (*n < want && t->cut_line)
		return fail(t, l, vstart, "memory value cut off by the end of the input");
	if (*n < want)
		return fail(t, l, vstart, "memory value too short: %zu hex digits for a %u-byte access",
			    *n, size);
	if (*n % 2)
		return fail(t, l, vstart, "memory contents must be whole bytes");
	return 0;
}

/* The accessed bytes, in address order, of n digits: a value wider than
 * the access is a whole bus word (MR2_I 0000010a b5100000) whose accessed
 * lanes are picked out by the address. Digits are a number (converted by
 * endianness) except in a memory-order picture. */
static int mem_pick_bytes(struct trawl_tarmac *t, const struct tl *l, const uint8_t *nib, size_t n,
			  uint64_t addr, unsigned size, int memorder, const char *vstart, uint8_t *bytes,
			  uint8_t *known, int *any_unknown)
{
	size_t bus = n / 2, lane = 0;
	if (n > 2u * size) {
		if ((bus & (bus - 1)) || bus > 16)
			return fail(t, l, vstart, "memory contents longer than the access size");
		lane = (size_t)(addr % bus);
		if (lane + size > bus)
			return fail(t, l, vstart, "access crosses the bus word it is shown in");
	}
	uint8_t word[32], wknown[32];
	for (size_t k = 0; k < bus; k++) {
		/* pair index of the byte at address (word base + k) */
		size_t pair = (memorder || t->opt.big_endian) ? k : bus - 1 - k;
		uint8_t hi = nib[2 * pair], lo = nib[2 * pair + 1];
		wknown[k] = hi < 16 && lo < 16;
		word[k] = wknown[k] ? (uint8_t)(hi << 4 | lo) : 0;
	}
	*any_unknown = 0;
	for (size_t i = 0; i < size; i++) {
		bytes[i] = word[lane + i];
		known[i] = wknown[lane + i];
		*any_unknown |= !known[i];
	}
	return 0;
}

/* One function for both spellings of memory lines (M.. and R0n/W0n) so that
 * every producer's variant gets the same checks: the type, words to skip,
 * the address (and physical address), then "(ABORTED)" or the value.
 * Values are numbers converted to address order by endianness, except
 * Cortex-M "M...D" pictures of memory; a value wider than the access is a
 * bus word and the accessed lanes are picked out. A short value is an
 * error, never padded. */
static int parse_mem(struct trawl_tarmac *t, struct tl *l, const struct tarmac_line *ln,
		     const char *type, size_t tn)
{
	int r;
	struct mem_type mt;
	mem_type_read(type, tn, &mt);
	if (type[0] == 'M' && tn == 8 && (type[7] == 'I' || type[7] == 'A')) {
		/* Cortex-M4 RTL instruction/peripheral bus accesses: their
		 * byte order is not reliable, so they stay text */
		tl_skipsp(l);
		return commit_text(t, ln, type, tn, l->p, l->e);
	}
	if (type[0] == 'M' && (!mt.rw || !mt.sized)) {
		/* not shaped like an access at all ("MODE ..."): an unknown record */
		return parse_text(t, l, ln, type, tn);
	}
	unsigned size = mt.size;
	if (!mt.rw || size == 0 || size > 16)
		return fail(t, l, type, "bad memory access type '%.*s'", (int)tn, type);
	if ((r = skip_mem_prefix(t, l)))
		return r;
	if (tl_wordlen(l) == 8 && !memcmp(l->p, "TRANSFER", 8))
		return commit_text(t, ln, type, tn, l->p, l->e); /* coprocessor transfer */
	uint64_t addr, paddr = 0;
	uint32_t flags = (uint32_t)mt.rw | (mt.fetch ? TRAWL_MEM_FETCH : 0);
	const char *astart = l->p;
	if ((r = hex_word(t, l, 16, &addr, "a memory address")))
		return r;
	/* ending at 2^64 is fine; past it no command could place the bytes */
	if (addr > UINT64_MAX - (size - 1))
		return fail(t, l, astart, "memory access wraps around the address space "
			    "(%u bytes at %llx)", size, (unsigned long long)addr);
	if (tl_at(l, ':')) {
		l->p++;
		if ((r = paddr_word(t, l, &paddr)))
			return r;
		flags |= TRAWL_MEM_HAS_PADDR;
	}
	tl_skipsp(l);
	uint8_t bytes[16], known[16];
	if (tl_at(l, '(')) {
		struct tl k = *l;
		k.p++;
		if (tl_wordlen(&k) == 7 && !memcmp(k.p, "ABORTED", 7)) {
			memset(bytes, 0, sizeof bytes);
			memset(known, 0, sizeof known);
			return tarmac_emit_mem(t, flags | TRAWL_MEM_ABORTED, addr, paddr, bytes, known, size, 1);
		}
		return fail(t, l, l->p, "unexpected bracket in a memory access");
	}
	uint64_t v;
	size_t span = mem_quick_value(l, size, mt.memorder, &v);
	if (span) {
		l->p += span;
		if ((r = value_end(t, l, 0, "memory")))
			return r;
		if (t->opt.big_endian)
			store_be(bytes, v, size);
		else
			store_le(bytes, v, size);
		return tarmac_emit_mem(t, flags, addr, paddr, bytes, NULL, size, 0);
	}
	uint8_t nib[72];
	size_t n = 0;
	const char *vstart = l->p;
	int any_unknown = 0;
	if ((r = take_mem_digits(t, l, nib, &n, size, vstart)) ||
	    (r = value_end(t, l, 0, "memory")) ||
	    (r = mem_pick_bytes(t, l, nib, n, addr, size, mt.memorder, vstart, bytes, known,
				&any_unknown)))
		return r;
	return tarmac_emit_mem(t, flags, addr, paddr, bytes, known, size, any_unknown);
}

/* LD/ST: 16 bytes of memory drawn highest address first; ".." not accessed,
 * "##" accessed with unknown value. */
static int parse_ldst(struct trawl_tarmac *t, struct tl *l, int is_store)
{
	int r;
	uint64_t base, paddr = 0;
	uint8_t b[16], st[16]; /* st: 0 unused 1 known 2 unknown */
	tl_skipsp(l);
	const char *astart = l->p;
	t->ldst_col = (size_t)(l->p - l->s);
	if ((r = hex_word(t, l, 16, &base, "a load/store address")))
		return r;
	int nb = 0;
	while (nb < 16) {
		tl_skipsp(l);
		const char *w = l->p;
		size_t n = tl_wordlen(l);
		if (!n)
			return fail(t, l, l->p, "expected 16 data bytes (hex, '..' or '##')");
		if (n % 2)
			return fail(t, l, w, "data word must cover whole bytes");
		for (size_t i = 0; i < n; i += 2) {
			if (nb >= 16)
				return fail(t, l, w + i, "more than 16 data bytes");
			char c0 = w[i], c1 = w[i + 1];
			if (c0 == '.' && c1 == '.') {
				st[nb] = 0;
				b[nb] = 0;
			} else if (c0 == '#' && c1 == '#') {
				st[nb] = 2;
				b[nb] = 0;
			} else if (tl_is(c0, TL_HEX) && tl_is(c1, TL_HEX)) {
				st[nb] = 1;
				b[nb] = (uint8_t)(trawl_tl_nibble[(unsigned char)c0] << 4 |
						  trawl_tl_nibble[(unsigned char)c1]);
			} else {
				return fail(t, l, w + i, "expected a data byte (hex, '..' or '##')");
			}
			nb++;
		}
		l->p += n;
	}
	/* physical address: "S:007ff80fe0", "NS:...", or a bare hex number */
	tl_skipsp(l);
	int has_pa = 0;
	{
		struct tl k = *l;
		size_t n = tl_wordlen(&k);
		if ((n == 1 && k.p[0] == 'S') || (n == 2 && k.p[0] == 'N' && k.p[1] == 'S')) {
			k.p += n;
			if (tl_at(&k, ':')) {
				k.p++;
				n = tl_wordlen(&k);
			} else {
				n = 0;
			}
		}
		if (n && n <= 16 && tl_allhex(k.p, n)) {
			paddr = tl_hex64(k.p, n);
			has_pa = 1;
			/* the attributes after it show the address is whole; on a
			 * line the input cut off right after it, it may not be */
			k.p += n;
			tl_skipsp(&k);
			if (t->cut_line && tl_eol(&k))
				return fail(t, l, l->p, "physical address cut off by the end of the input");
		}
	}
	/* the highest byte accessed must not pass 2^64-1 (parse_mem's rule) */
	int top = 15;
	while (top >= 0 && st[15 - top] == 0)
		top--;
	if (top > 0 && base > UINT64_MAX - (uint64_t)top)
		return fail(t, l, astart, "memory access wraps around the address space "
			    "(%d bytes at %llx)", top + 1, (unsigned long long)base);
	uint32_t flags = is_store ? TRAWL_MEM_WRITE : TRAWL_MEM_READ;
	/* address order: offset a is drawn at position 15 - a */
	for (int a = 0; a < 16;) {
		if (st[15 - a] == 0) {
			a++;
			continue;
		}
		int s = a, unknown = 0;
		uint8_t bytes[16], known[16];
		while (a < 16 && st[15 - a] != 0) {
			bytes[a - s] = b[15 - a];
			known[a - s] = st[15 - a] == 1;
			unknown |= st[15 - a] == 2;
			a++;
		}
		if ((r = tarmac_emit_mem(t, flags | (has_pa ? TRAWL_MEM_HAS_PADDR : 0), base + (uint64_t)s,
				  has_pa ? paddr + (uint64_t)s : 0, bytes, known, (size_t)(a - s), unknown)))
			return r;
	}
	return 0;
}

/* ---- the line ---- */

/* Dispatch on the record type, most frequent first. Anything that is not a
 * known type, and an E line that is not ES, becomes a text event rather than
 * an error, so traces with extra record kinds still read. */
static int parse_body(struct trawl_tarmac *t, struct tl *l, struct tarmac_line *ln, int *ldst)
{
	const char *type = l->p;
	size_t tn = tl_wordlen(l);
	struct tarmac_insn in;
	int r;
	if (!tn)
		return fail(t, l, l->p, "expected a Tarmac record type");
	l->p += tn;
	char c0 = type[0];
	if (tn == 2 && (c0 == 'I' || c0 == 'E') &&
	    (type[1] == 'T' || type[1] == 'S' || type[1] == 'F')) {
		if (c0 == 'E' && type[1] != 'S')
			goto text;
		memset(&in, 0, sizeof in);
		in.el = 0xff;
		if (type[1] == 'S' && c0 == 'I')
			in.flags |= TRAWL_EVF_CCFAIL;
		if (c0 == 'E') {
			tl_skipsp(l);
			size_t n = tl_wordlen(l);
			if (n == 3 && !memcmp(l->p, "EXC", 3)) {
				l->p += 3;
				return parse_exc(t, l, ln);
			}
			if (n == 5 && !memcmp(l->p, "Reset", 5))
				return parse_exc(t, l, ln);
			r = parse_es_insn(t, l, &in);
		} else {
			r = parse_it(t, l, &in);
		}
		return r ? r : tarmac_commit_insn(t, ln, &in);
	}
	if (tn == 1 && c0 == 'R') {
		return parse_reg(t, l, ln, type);
	}
	if (c0 == 'M' || (tn == 3 && (c0 == 'R' || c0 == 'W') && tl_alldigits(type + 1, 2)))
		return parse_mem(t, l, ln, type, tn);
	if (tn == 2 && ((c0 == 'L' && type[1] == 'D') || (c0 == 'S' && type[1] == 'T'))) {
		*ldst = c0 == 'L' ? 1 : 2;
		return parse_ldst(t, l, c0 == 'S');
	}
	if (tn == 1 && c0 == 'E')
		return parse_e(t, l, ln, type);
	if (tn == 3 && !memcmp(type, "EXC", 3))
		return parse_exc(t, l, ln);
text:
	return parse_text(t, l, ln, type, tn);
}

static int is_effect_type(const char *type, size_t tn)
{
	char c0 = type[0];
	if (tn == 1 && c0 == 'R')
		return 1;
	if (c0 == 'M' || (tn == 3 && (c0 == 'R' || c0 == 'W') && tl_alldigits(type + 1, 2)))
		return 1;
	return tn == 2 && ((c0 == 'L' && type[1] == 'D') || (c0 == 'S' && type[1] == 'T'));
}

static enum trawl_status tarmac_parse_unskipped(struct trawl_tarmac *t, const char *line,
						size_t len, uint64_t offset,
						struct trawl_error *err);
static enum trawl_status reject_line(struct trawl_tarmac *t, const char *line, size_t len,
				     uint64_t offset, int cut, struct trawl_error *err);
static void cut_text_line(struct trawl_tarmac *t, const char *line, size_t len, uint64_t offset);
static int lone_cr(struct trawl_tarmac *t, const struct tl *l);

/* What may come before a line's record type: a timestamp (with its unit)
 * and a "cpuN" field. A line without a time has the previous line's; one
 * with a time but no cpu field is cpu 0. */
static int parse_line_prefix(struct trawl_tarmac *t, struct tl *l, struct tarmac_line *ln)
{
	int r;
	if (tl_is(*l->p, TL_DIGIT)) {
		if ((r = parse_time(t, l, ln)))
			return r;
		ln->cpu = 0;
		tl_skipsp(l);
	}
	if (l->p + 3 < l->e && l->p[0] == 'c' && l->p[1] == 'p' && l->p[2] == 'u' &&
	    tl_is(l->p[3], TL_DIGIT)) {
		size_t n = tl_wordlen(l);
		if (n > 8 || !tl_alldigits(l->p + 3, n - 3) || dec_small(l->p + 3, n - 3) > 65535)
			return fail(t, l, l->p, "bad cpu number");
		ln->cpu = (uint16_t)dec_small(l->p + 3, n - 3);
		l->p += n;
		tl_skipsp(l);
	}
	return 0;
}

enum trawl_status trawl_tarmac_parse_line(struct trawl_tarmac *t, const char *line,
					  size_t len, uint64_t offset,
					  struct trawl_error *err)
{
	tarmac_compact(t);
	/* the reader finds these bytes with its line ends (newline.h); a
	 * caller that hands lines over one at a time gets the same answer */
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)line[i] & ~0x0a) == 0 && line[i] != '\n')
			return tarmac_reject_nul_line(t, line, len, offset, i, err);
	if (t->skip_len && !t->cut_line && tarmac_skip_line(t, line, len, offset))
		return TRAWL_OK;
	return tarmac_parse_unskipped(t, line, len, offset, err);
}

/* The reader has tried tarmac_skip_line already: only a batch handed out
 * since (the skip check refuses while one is) makes it worth a retry. */
enum trawl_status tarmac_parse_line_noskip(struct trawl_tarmac *t, const char *line, size_t len,
					   uint64_t offset, struct trawl_error *err)
{
	if (t->taken) {
		tarmac_compact(t);
		if (t->skip_len && !t->cut_line && tarmac_skip_line(t, line, len, offset))
			return TRAWL_OK;
	}
	/* the fast path first, with only what it needs set up (the line has no
	 * trailing blank to trim); it changes nothing when it declines, and the
	 * full entry below then takes the line from the start */
	if (len && t->fast_unit_len && !t->prev_ldst && !t->no_fast && !t->cut_line &&
	    line[len - 1] != '\r' && line[len - 1] != ' ' && line[len - 1] != '\t') {
		struct tarmac_line ln = { line, len, offset, t->lineno + 1, t->time, t->unit, t->cpu, 0 };
		if (tarmac_fast_line(t, line, line + len, &ln) > 0) {
			t->lineno++;
			t->stats.lines++;
			t->time = ln.time;
			t->unit = ln.unit;
			t->cpu = ln.cpu;
			return TRAWL_OK;
		}
	}
	return tarmac_parse_unskipped(t, line, len, offset, err);
}

/* Every line either succeeds whole or is rolled back: its effects are dropped
 * so a bad line never leaves half a value in the event it would have joined.
 * A line cut off by the end of the input is dropped and marks its event
 * truncated; other bad lines are errors, or counted warnings when lenient. */
static enum trawl_status tarmac_parse_unskipped(struct trawl_tarmac *t, const char *line,
						size_t len, uint64_t offset,
						struct trawl_error *err)
{
	t->lineno++;
	t->stats.lines++;
	struct tl l = { line, line, line + len };
	while (l.e > l.s && (l.e[-1] == '\r' || l.e[-1] == ' ' || l.e[-1] == '\t'))
		l.e--;
	tl_skipsp(&l);
	if (tl_eol(&l)) {
		t->prev_ldst = 0;
		return TRAWL_OK;
	}
	/* a CR-only file is one line: it is the first line, or (no newline
	 * at all) the last; only those are looked at, not every line */
	if (__builtin_expect(t->lineno == 1 || t->cut_line, 0) && lone_cr(t, &l)) {
		t->prev_ldst = 0;
		return reject_line(t, line, len, offset, 0, err);
	}
	struct tarmac_line ln = { line, len, offset, t->lineno, t->time, t->unit, t->cpu, 0 };
	size_t r0 = t->nregs, m0 = t->nmems, p0 = t->pool_len;
	size_t ev0 = t->nev;
	int ldst = 0, r = 0, effect = 0;
	size_t col = (size_t)(l.p - l.s);

	if (t->prev_ldst && col == t->ldst_col && tl_is(*l.p, TL_HEX)) {
		/* continuation of an LD/ST diagram: same type, no prefix */
		ldst = t->prev_ldst;
		effect = 1;
		r = parse_ldst(t, &l, ldst == 2);
		if (!r && !tarmac_attach_effects(t, &ln, r0, m0, p0))
			r = E_NOMEM;
		goto done;
	}
	/* a line the input cut off goes to the grammar, which judges it */
	if (col == 0 && t->fast_unit_len && !t->prev_ldst && !t->no_fast && !t->cut_line) {
		int f = tarmac_fast_line(t, l.p, l.e, &ln);
		if (f > 0)
			goto done;
		if (f < 0) {
			r = E_NOMEM;
			goto done;
		}
	}
	if ((r = parse_line_prefix(t, &l, &ln)))
		goto done;
	const char *body = l.p;
	size_t tn = tl_wordlen(&l);
	r = parse_body(t, &l, &ln, &ldst);
	/* effect lines that did not turn into text join an event */
	if (!r && tn && is_effect_type(body, tn) && t->nev == ev0) {
		effect = 1;
		if (!tarmac_attach_effects(t, &ln, r0, m0, p0))
			r = E_NOMEM;
	}
done:
	if (!r) {
		t->time = ln.time;
		t->unit = ln.unit;
		t->cpu = ln.cpu;
		t->prev_ldst = ldst;
		/* an effect's value showed it is whole (parse_reg and parse_mem
		 * refuse one that may not be); a line of free text cannot */
		if (__builtin_expect(t->cut_line, 0) && !effect)
			cut_text_line(t, line, len, offset);
		return TRAWL_OK;
	}
	/* roll the line back: drop its effects */
	t->nregs = r0;
	t->nmems = m0;
	t->pool_len = p0;
	if (r == E_NOMEM)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory parsing line %llu",
				       (unsigned long long)t->lineno);
	t->prev_ldst = 0;
	return reject_line(t, line, len, offset, t->cut_line, err);
}

/* The input's last line has no newline and began an event of its own (an
 * instruction, exception, gap or text line): it parsed, but its free text
 * (disassembly, an exception's or a text line's words) may have been cut
 * anywhere, and no producer ends a trace without a newline. The event is
 * kept and marked truncated, and the cut is counted (exit 1). A last
 * effect line needs no such note: the grammar accepts it on a cut line
 * only when its value's digits show it is whole. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static void cut_text_line(struct trawl_tarmac *t, const char *line, size_t len, uint64_t offset)
{
	struct trawl_event *e = NULL;
	if (t->open && t->ev[t->nev].line == t->lineno)
		e = &t->ev[t->nev]; /* an instruction, still open */
	else if (t->nev && t->ev[t->nev - 1].line == t->lineno)
		e = &t->ev[t->nev - 1]; /* an exception, gap or text: complete */
	if (!e)
		return;
	e->flags |= TRAWL_EVF_TRUNCATED;
	t->stats.cut_lines++;
	if (!t->opt.warn)
		return;
	struct trawl_error w;
	trawl_error_set(&w, TRAWL_ERR_FORMAT,
			"the trace ends inside this line (no newline): its text may be cut off; the event is kept, "
			"marked truncated");
	trawl_error_at(&w, t->file, t->lineno, (uint32_t)len + 1, offset + len);
	trawl_error_excerpt(&w, line, len);
	t->opt.warn(t->opt.warn_ctx, &w);
}

/* A bad line, already rolled back: dropped as cut off when the input ends
 * inside it, else an error (a counted warning when lenient). Out of line:
 * it is the cold end of every line's parse. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static enum trawl_status reject_line(struct trawl_tarmac *t, const char *line, size_t len,
				     uint64_t offset, int cut, struct trawl_error *err)
{
	if (cut) {
		/* the input ends inside this line (a trace cut off while being
		 * written): what it would have said is unknown, so it is dropped
		 * and the event it belonged to is marked truncated */
		if (t->open)
			t->ev[t->nev].flags |= TRAWL_EVF_TRUNCATED;
		t->stats.cut_lines++;
		if (t->opt.warn) {
			struct trawl_error w;
			trawl_error_set(&w, TRAWL_ERR_FORMAT,
					"the trace ends inside this line (no newline): line dropped (%s)",
					t->emsg);
			trawl_error_at(&w, t->file, t->lineno, t->ecol, offset + t->ecol - 1);
			trawl_error_excerpt(&w, line, len);
			t->opt.warn(t->opt.warn_ctx, &w);
		}
		return TRAWL_OK;
	}
	t->stats.bad_lines++;
	struct trawl_error tmp, *e = err;
	if (t->opt.lenient)
		e = &tmp;
	trawl_error_clear(e);
	trawl_error_set(e, TRAWL_ERR_FORMAT, "%s", t->emsg);
	trawl_error_at(e, t->file, t->lineno, t->ecol, offset + t->ecol - 1);
	trawl_error_excerpt(e, line, len);
	if (!t->opt.lenient)
		return TRAWL_ERR_FORMAT;
	if (t->opt.warn && t->stats.bad_lines <= TARMAC_MAX_BAD_WARNINGS)
		t->opt.warn(t->opt.warn_ctx, e);
	return TRAWL_OK;
}

/* No producer writes a NUL (or 0x02, 0x08), and the grammar would take one
 * inside free text (disassembly, an unknown record) as text: the reader
 * finds them while looking for line ends and hands the whole line here. */
enum trawl_status tarmac_reject_nul_line(struct trawl_tarmac *t, const char *line, size_t len,
					 uint64_t offset, size_t col, struct trawl_error *err)
{
	tarmac_compact(t);
	t->lineno++;
	t->stats.lines++;
	t->prev_ldst = 0;
	t->ecol = (uint32_t)col + 1;
	if (line[col] == '\0')
		snprintf(t->emsg, sizeof t->emsg,
			 "a NUL byte in the line (the file is damaged: zero-filled by a crash?)");
	else
		snprintf(t->emsg, sizeof t->emsg, "a control byte (0x%02x) in the line: the file is damaged",
			 (unsigned char)line[col]);
	return reject_line(t, line, len, offset, t->cut_line, err);
}

/* A carriage return inside a line (a CRLF line end's CR is trimmed with the
 * trailing blanks before this): the input ends its lines with CR alone,
 * which is no line end here, so every record would run into one line. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int lone_cr(struct trawl_tarmac *t, const struct tl *l)
{
	const char *cr = memchr(l->p, '\r', (size_t)(l->e - l->p));
	if (!cr)
		return 0;
	fail(t, l, cr, "a carriage return inside the line: lines ending in CR alone are not "
	     "read (LF and CRLF are); convert them with tr '\\r' '\\n'");
	return 1;
}

void trawl_tarmac_set_fast_path(struct trawl_tarmac *t, int on)
{
	t->no_fast = !on;
}

void trawl_tarmac_set_mixed_units(struct trawl_tarmac *t, int on)
{
	t->mixed_units = on;
}
