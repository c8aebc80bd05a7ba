/* Tarmac parser internals shared by batch.c (state, grouping) and parse.c
 * (the line grammar). */
#ifndef TRAWL_TARMAC_INT_H
#define TRAWL_TARMAC_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trawl/tarmac.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define TARMAC_MAX_WARNED 64
/* every core a line can name (cpu0..cpu65535, parse_line_prefix) has its
 * own state: a core past a smaller table would read d/s as A64 views */
#define TARMAC_MAX_CPUS 65536
_Static_assert(TARMAC_MAX_CPUS == UINT16_MAX + 1, "cpu_iset is indexed by a uint16_t core");
#define TARMAC_REGCACHE 512
#define TARMAC_MAX_BAD_WARNINGS 20

/* Helpers of the reader's hot loops (fast.c, flow.c): always inlined, so a
 * loop cut into functions compiles as it did when it was one. */
#if defined(__GNUC__)
#define TARMAC_INLINE static inline __attribute__((always_inline))
#else
#define TARMAC_INLINE static inline
#endif

/* One cached register-name lookup (names up to 15 characters). */
struct tarmac_regcache {
	uint8_t len;
	uint8_t state;
	char name[15];
	uint32_t reg;
	uint16_t offset, size, zext;
	uint8_t valid;
	uint8_t flexible;  /* size depends on the value's length */
};

struct trawl_tarmac {
	struct trawl_reader_options opt;
	char *file;

	/* the batch: completed events [0, nev), then the open one at nev */
	struct trawl_event *ev;
	size_t nev, ev_cap;
	int open;
	int taken;               /* batch handed out; compact before mutating */
	int open_detached;
	size_t open_pool;        /* pool offset where the open event's bytes start */
	struct trawl_reg_write *regs;
	size_t nregs, regs_cap;
	struct trawl_mem_access *mems;
	size_t nmems, mems_cap;
	uint8_t *pool;
	size_t pool_len, pool_cap;
	char *carry;
	size_t carry_cap;
	struct trawl_reg_names sysregs;

	/* state carried from line to line */
	uint64_t seq;
	uint64_t lineno;
	uint64_t time;
	uint16_t unit;
	uint16_t cpu;
	int no_fast;             /* tests: always take the general grammar */
	int cut_line;            /* this line is the input's last and has no newline */
	char fast_unit[4];       /* unit word of the last line, for the fast path */
	uint8_t fast_unit_len;
	uint16_t fast_unit_id;
	uint64_t fast_unit_ps;   /* what one of it is in fast_unit_id (ps per ns...) */
	/* the trace's one time unit (parse.c check_unit), from its first
	 * timestamped line (0: none yet); mixed_units: each line may have its
	 * own (trawl_tarmac_set_mixed_units) */
	uint64_t trace_unit_line;
	uint16_t trace_unit;
	char trace_unit_word[3];  /* as that line wrote it, for messages */
	uint8_t trace_unit_wlen;
	int mixed_units;
	/* mode word of the last fast-path instruction line and its EL */
	char fast_mode[16];
	uint8_t fast_mode_len;
	uint8_t fast_mode_el;
	/* partial parsing: "<time> <unit> " of the instruction line that opened
	 * event skip_seq (fast path); effect lines starting with the same bytes
	 * belong to that event and are skipped by their first bytes */
	char skip_prefix[32];
	uint8_t skip_len;
	uint64_t skip_seq;
	int prev_ldst;           /* previous line was LD (1) or ST (2) */
	size_t ldst_col;         /* column of the address on that line */

	struct trawl_reader_stats stats;
	/* memory writes logged on instructions that cannot store (gem5 logs
	 * some loads with an MW line): kept, counted, warned once at finish */
	uint64_t odd_writes, odd_first_line;
	char *warned[TARMAC_MAX_WARNED];
	size_t nwarned;
	struct tarmac_regcache regcache[TARMAC_REGCACHE];

	/* the last error of parse.c: column (1-based) and message */
	uint32_t ecol;
	char emsg[160];

	/* instruction set of each core's last instruction (64 KiB: last, so
	 * the fields above stay close together) */
	uint8_t cpu_iset[TARMAC_MAX_CPUS];
};

/* What the line prefix said. */
struct tarmac_line {
	const char *text;
	size_t len;
	uint64_t offset;
	uint64_t lineno;
	uint64_t time;
	uint16_t unit;
	uint16_t cpu;
	int has_time;
};

/* An instruction line's fields before it becomes an event. */
struct tarmac_insn {
	uint64_t pc, paddr;
	uint32_t enc;
	uint8_t width, iset, el;
	uint16_t flags;
	struct trawl_str mode, disasm;
};

/* ---- shared with flow.c ---- */

/* Room for events up to nev + 1 (batch.c); 0 when out of memory. */
int tarmac_grow_events(struct trawl_tarmac *t);

/* Clear an event before filling it in (padding included). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void tarmac_event_zero(struct trawl_event *e)
{
#if defined(__SSE2__)
	/* eight stores of one zero register: a struct copy from a zero
	 * constant loads it too, memset may become a rep stos */
	_Static_assert(sizeof *e == 128, "event size");
	const __m128i z = _mm_setzero_si128();
	__m128i *v = (__m128i *)(void *)e;
	_mm_storeu_si128(v, z);
	_mm_storeu_si128(v + 1, z);
	_mm_storeu_si128(v + 2, z);
	_mm_storeu_si128(v + 3, z);
	_mm_storeu_si128(v + 4, z);
	_mm_storeu_si128(v + 5, z);
	_mm_storeu_si128(v + 6, z);
	_mm_storeu_si128(v + 7, z);
#else
	memset(e, 0, sizeof *e);
#endif
}

/* Does the line's mode word at `mode` start with the previous fast-path
 * instruction line's (the caller checks what follows)? Up to 8 bytes in one
 * compare. */
static inline int tarmac_same_mode(const struct trawl_tarmac *t, const char *mode, const char *e)
{
	size_t n = t->fast_mode_len;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n <= 8 && e - mode >= 8) {
		uint64_t a, b;
		memcpy(&a, mode, 8);
		memcpy(&b, t->fast_mode, 8);
		uint64_t mask = n == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * n)) - 1;
		return ((a ^ b) & mask) == 0;
	}
#endif
	return !memcmp(mode, t->fast_mode, n);
}

/* Store the low n bytes of v least significant first (n <= 8). */
static inline void store_le(uint8_t *dst, uint64_t v, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(dst, &v, n);
#else
	for (size_t i = 0; i < n; i++)
		dst[i] = (uint8_t)(v >> (8 * i));
#endif
}

/* ... or most significant first (big-endian memory) */
static inline void store_be(uint8_t *dst, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* Partial parsing (reader.h): is a write of register id `reg` kept? */
static inline int tarmac_want_reg(const struct trawl_tarmac *t, uint32_t reg)
{
	if (!(t->opt.want & TRAWL_WANT_FILTER))
		return 1;
	return reg < 64 && (t->opt.want_regs >> reg & 1);
}

int tarmac_reserve_regs(struct trawl_tarmac *t, size_t n);
int tarmac_reserve_mems(struct trawl_tarmac *t, size_t n);
uint32_t tarmac_pool_alloc(struct trawl_tarmac *t, size_t n);
void tarmac_compact(struct trawl_tarmac *t);
struct trawl_event *tarmac_begin_event(struct trawl_tarmac *t, const struct tarmac_line *ln,
				       enum trawl_event_kind kind);
int tarmac_attach_effects(struct trawl_tarmac *t, const struct tarmac_line *ln, size_t r0,
			  size_t m0, size_t p0);
/* parse.c helpers shared with the fast path (fast.c) */
int tarmac_reg_lookup(struct trawl_tarmac *t, const char *name, size_t n, unsigned state,
		      struct tarmac_regcache *out);
unsigned tarmac_reg_state(const struct trawl_tarmac *t, uint16_t cpu);
uint32_t tarmac_reg_width(uint32_t reg);
uint8_t tarmac_el_of_mode(const char *s, size_t n);
int tarmac_commit_insn(struct trawl_tarmac *t, const struct tarmac_line *ln,
		       const struct tarmac_insn *in);
int tarmac_emit_mem(struct trawl_tarmac *t, uint32_t flags, uint64_t addr, uint64_t paddr,
		    const uint8_t *bytes, const uint8_t *known, size_t size, int any_unknown);
/* trawl_tarmac_parse_line for a caller that just tried tarmac_skip_line */
enum trawl_status tarmac_parse_line_noskip(struct trawl_tarmac *t, const char *line, size_t len,
					   uint64_t offset, struct trawl_error *err);
/* A line [line, line + len) with a NUL (or 0x02, 0x08) at column col + 1: rejected as
 * a bad line (an error, or counted and skipped when lenient) */
enum trawl_status tarmac_reject_nul_line(struct trawl_tarmac *t, const char *line, size_t len,
					 uint64_t offset, size_t col, struct trawl_error *err);
/* 1 handled, 0 not a fast-path shape (nothing changed), -1 out of memory */
int tarmac_fast_line(struct trawl_tarmac *t, const char *p, const char *e, struct tarmac_line *ln);

struct tarmac_nl;
/* reader.c: parse the lines of data[*at, len) (the range starts at byte
 * `offset` of the input; `last`: no input follows it) until the batch holds
 * `limit` completed events. On a bad line returns its error with *at on
 * it. */
enum trawl_status tarmac_parse_range(struct trawl_tarmac *t, const char *data, size_t len,
				     uint64_t offset, int last, size_t limit, size_t *at,
				     struct tarmac_nl *nl, struct trawl_error *err);
/* flow.c: take lines of data[pos, len) while they are instruction lines of
 * the common shape or effect lines partial parsing skips (batches up to
 * `limit` events). Returns where it stopped; *decline is the end of the
 * line at that position it left to the caller, or SIZE_MAX when it stopped
 * because the chunk is used up or the batch is full. */
size_t tarmac_flow_run(struct trawl_tarmac *t, const char *data, size_t len, size_t pos,
		       uint64_t offset, struct tarmac_nl *nl, size_t limit, size_t *decline);

void tarmac_warn_type(struct trawl_tarmac *t, const struct tarmac_line *ln, const char *type,
		      size_t n);

/* The effect line's text after its "<time> <unit> " prefix (n >= 5 bytes):
 * is it one partial parsing drops? Memory lines (unless wanted) and writes
 * of X registers or CPSR not wanted; no number is parsed. */
static inline int tarmac_effect_skipped(const struct trawl_tarmac *t, const char *q, size_t n)
{
	if (q[0] == 'M') {
		if ((q[1] != 'R' && q[1] != 'W') || (unsigned)(q[2] - '1') >= 8 || q[3] != ' ' ||
		    (t->opt.want & TRAWL_WANT_MEMS))
			return 0;
	} else if (q[0] == 'R' && q[1] == ' ' && q[2] == 'X') {
		unsigned x;
		if ((unsigned)(q[3] - '0') < 10 && q[4] == ' ')
			x = (unsigned)(q[3] - '0');
		else if (n >= 6 && (unsigned)(q[3] - '1') < 9 && (unsigned)(q[4] - '0') < 10 &&
			 q[5] == ' ')
			x = (unsigned)(q[3] - '0') * 10 + (unsigned)(q[4] - '0');
		else
			return 0;
		if (x > 30 || tarmac_want_reg(t, TRAWL_REG_X0 + x))
			return 0;
	} else if (q[0] == 'R' && q[1] == ' ' && (q[2] == 'c' || q[2] == 'C') && n >= 7 &&
		   (!memcmp(q + 2, "cpsr ", 5) || !memcmp(q + 2, "CPSR ", 5))) {
		/* flags written by most compares: an A64 trace has one per
		 * dozen lines */
		if (tarmac_want_reg(t, TRAWL_REG_PSR))
			return 0;
	} else {
		return 0;
	}
	return 1;
}

/* Partial parsing of Fast Models effect lines (1 = the line was skipped,
 * 0 = parse it; inline: the reader calls it on every line): a line that starts with
 * exactly the "<time> <unit> " bytes of the open instruction's line has its
 * time, unit and CPU, so the full grammar would attach it to that event.
 * The lines tarmac_effect_skipped drops only extend the event's line
 * range. */
static inline int tarmac_skip_line(struct trawl_tarmac *t, const char *p, size_t len, uint64_t offset)
{
	size_t pl = t->skip_len;
	if (len < pl + 5)
		return 0;
	/* the prefix ("12345 clk ") first, in one or two masked 8-byte
	 * compares: an instruction line fails there, at its time */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (pl <= 16 && len >= 16) {
		uint64_t a, b, c, d;
		memcpy(&a, p, 8);
		memcpy(&b, t->skip_prefix, 8);
		uint64_t m1 = pl >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * pl)) - 1;
		if ((a ^ b) & m1)
			return 0;
		if (pl > 8) {
			memcpy(&c, p + 8, 8);
			memcpy(&d, t->skip_prefix + 8, 8);
			uint64_t m2 = pl == 16 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * (pl - 8))) - 1;
			if ((c ^ d) & m2)
				return 0;
		}
	} else
#endif
	{
		size_t i = 0;
		for (; i + 8 <= pl; i += 8) {
			uint64_t a, b;
			memcpy(&a, p + i, 8);
			memcpy(&b, t->skip_prefix + i, 8);
			if (a != b)
				return 0;
		}
		for (; i < pl; i++)
			if (p[i] != t->skip_prefix[i])
				return 0;
	}
	if (t->prev_ldst || !t->open || t->taken || t->ev[t->nev].seq != t->skip_seq ||
	    !tarmac_effect_skipped(t, p + pl, len - pl))
		return 0;
	struct trawl_event *e = &t->ev[t->nev];
	t->lineno++;
	t->stats.lines++;
	e->nlines = (uint32_t)(t->lineno - e->line + 1);
	e->length = offset + len - e->offset;
	return 1;
}

/* Can the instruction write memory (store.c)? 0 only when its encoding
 * certainly cannot: loads, data processing, branches. */
int tarmac_insn_may_store(uint32_t encoding, uint8_t iset, uint8_t width);

#endif
