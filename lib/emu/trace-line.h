/* The writer's per-instruction path (see trace.c for the line formats),
 * inline so that the code hook, which runs it for every instruction, pays
 * no second call with its register saves and reloads of the emulator's
 * fields; the rarer cases (SIMD joins, the kernel's writes, other
 * registers) stay out of line in trace.c. Included by trace.c and emu.c
 * only. */
#ifndef TRAWL_EMU_TRACE_LINE_H
#define TRAWL_EMU_TRACE_LINE_H

#include <string.h>

#include "emu/emu-int.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>

/* Hex digits of the bytes of b (most significant first, as bswap left
 * them), two per byte, in the low 2n bytes: a nibble per byte, then '0'
 * plus 0x27 more where the nibble is over 9, 16 digits at once (SSE2 is
 * part of x86-64); the scalar version took ~40 instructions per value,
 * the largest share of the writer's work. */
static inline __m128i hex_vec(__m128i b)
{
	const __m128i m = _mm_set1_epi8(0x0f);
	__m128i nib = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(b, 4), m), _mm_and_si128(b, m));
	__m128i over9 = _mm_and_si128(_mm_cmpgt_epi8(nib, _mm_set1_epi8(9)), _mm_set1_epi8(0x27));
	return _mm_add_epi8(nib, _mm_add_epi8(over9, _mm_set1_epi8('0')));
}

/* Eight lower-case hex digits of the low 32 bits of v, as the bytes of a
 * word in memory order. */
static inline uint64_t hex8(uint64_t v)
{
	__m128i b = _mm_cvtsi32_si128((int)__builtin_bswap32((uint32_t)v));
	return (uint64_t)_mm_cvtsi128_si64(hex_vec(b));
}

/* 8 or 16 digits (every caller) */
static inline char *put_hex(char *p, uint64_t v, int digits)
{
	if (digits == 16) {
		__m128i b = _mm_cvtsi64_si128((long long)__builtin_bswap64(v));
		_mm_storeu_si128((__m128i *)(void *)p, hex_vec(b));
		return p + 16;
	}
	uint64_t lo = hex8(v);
	memcpy(p, &lo, 8);
	return p + 8;
}
#else
/* Eight lower-case hex digits of the low 32 bits of v, most significant
 * first, computed in one 64-bit register (a nibble per byte, then '0'-'9'
 * or 'a'-'f' by adding 0x30, plus 0x27 where the nibble is over 9)
 * instead of eight table loads. */
static inline uint64_t hex8(uint64_t v)
{
	uint64_t x = v & 0xffffffffu;
	x = ((x & 0xffff0000u) << 16) | (x & 0xffffu);
	x = ((x & UINT64_C(0x0000ff000000ff00)) << 8) | (x & UINT64_C(0x000000ff000000ff));
	x = ((x & UINT64_C(0x00f000f000f000f0)) << 4) | (x & UINT64_C(0x000f000f000f000f));
	/* byte k now holds nibble k (lowest first); digits > 9 get 0x27 more */
	uint64_t over9 = ((x + UINT64_C(0x0606060606060606)) >> 4) & UINT64_C(0x0101010101010101);
	x += UINT64_C(0x3030303030303030) + over9 * 0x27;
	return __builtin_bswap64(x);
}

/* 8 or 16 digits (every caller) */
static inline char *put_hex(char *p, uint64_t v, int digits)
{
	uint64_t lo = hex8(v);
	if (digits == 16) {
		uint64_t hi = hex8(v >> 32);
		memcpy(p, &hi, 8);
		memcpy(p + 8, &lo, 8);
		return p + 16;
	}
	memcpy(p, &lo, 8);
	return p + 8;
}
#endif

/* "R NAME " for every register code, padded for a fixed 16-byte copy; the
 * length in the last byte, which the value written after the name always
 * covers (the longest head, "R TPIDR_EL0 ", is 12 bytes). 16 bytes an
 * entry, so that finding one is a shift. Filled by emu_trace_header. */
struct emu_reg_head {
	char text[15];
	uint8_t len;
};
extern struct emu_reg_head emu_reg_head[EMU_REG_COUNT];
/* NZCV's hex digit by the sign bits (low four) and zero tests (high
 * four) of QEMU's flag words CF VF NF ZF (put_nzcv). Filled with
 * emu_reg_head. */
extern uint8_t emu_nzcv_digit[256];

char *emu_trace_reg(struct trawl_emu *e, char *p, unsigned code);
char *emu_trace_memory(struct trawl_emu *e, char *p, const char *prefix, size_t plen);
char *emu_trace_vec_memory(struct trawl_emu *e, char *p, const char *prefix, size_t plen);
char *emu_trace_sysw(struct trawl_emu *e, char *p, const char *prefix, size_t plen);

/* The common case, a 1-, 2-, 4- or 8-byte access in FM form, formatted
 * straight from the hook's value: no byte array (whose bytewise stores
 * and wider reloads stall the store buffer) and only fixed-size copies. */
static inline __attribute__((always_inline)) char *
put_mem_value(char *p, const char *prefix, size_t plen, int write, uint64_t addr, uint64_t value,
	      unsigned size)
{
	memcpy(p, prefix, 32);
	p += plen;
	/* "MW8 " as one word (a little-endian host, as everywhere here), not
	 * four byte stores */
	uint32_t head = (uint32_t)'M' | (uint32_t)(write ? 'W' : 'R') << 8 |
			(uint32_t)('0' + size) << 16 | (uint32_t)' ' << 24;
	memcpy(p, &head, 4);
	p = put_hex(p + 4, addr, addr >> 32 ? 16 : 8);
	*p++ = ' ';
	if (size == 8) {
		p = put_hex(p, value, 16);
	} else {
		/* the last 2*size of the eight digits, moved to the front */
		uint64_t h = hex8(value) >> (8 * (8 - 2 * size));
		memcpy(p, &h, 8);
		p += 2 * size;
	}
	*p++ = '\n';
	return p;
}


/* CPSR's eight digits: NZCV is the first, the rest are always 0; the
 * nibble from QEMU's flag words (emu_nzcv_direct) without the shifts
 * into place and the SIMD hex of seven zeros. Only when e->flagw. */
static inline char *put_nzcv(char *p, const struct trawl_emu *e)
{
	unsigned nib;
#if defined(__SSE2__) && defined(__x86_64__)
	if (e->flag4) {
		/* QEMU's order, CF VF NF ZF: N and V are sign bits, Z and C
		 * zero tests, all four words at once (emu_nzcv_digit) */
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)e->flag4);
		unsigned sign = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(v));
		unsigned zero = (unsigned)_mm_movemask_ps(
			_mm_castsi128_ps(_mm_cmpeq_epi32(v, _mm_setzero_si128())));
		uint64_t w = UINT64_C(0x3030303030303000) | emu_nzcv_digit[sign | zero << 4];
		memcpy(p, &w, 8);
		return p + 8;
	}
#endif
	const uint32_t *f = e->flagw;
	nib = (f[e->flagk[0]] >> 31) << 3 | (unsigned)(f[e->flagk[1]] == 0) << 2 |
	      (unsigned)(f[e->flagk[2]] != 0) << 1 | f[e->flagk[3]] >> 31;
	/* the digit, then "0000000", as the bytes of a word in memory order */
	uint64_t w = UINT64_C(0x3030303030303000) | (uint8_t)emu_hex[2 * nib + 1];
	memcpy(p, &w, 8);
	return p + 8;
}

/* Copies of at most 32 bytes done as one fixed-size copy: the buffer
 * always has room beyond the end (flush_ptr leaves a large margin) and every
 * source is at least 32 bytes long, so no length-dependent call is made. */
static inline char *put32(char *p, const char *src, size_t n)
{
	memcpy(p, src, 32);
	return p + n;
}

/* Most memory instructions: a general-purpose load or store, one or two
 * registers, whose addresses and stored values memcalc.c recorded before
 * it ran; a load's values are its destination registers now. Formatted
 * here in one pass, without emu_mem_after and put_memory's general loop
 * (joins, byte arrays, the LD/ST style), which cost twice as much. 0 when
 * the instruction is not such a one (the decoder's gpr_mem) or its
 * accesses did not come from memcalc.c. */
static inline int gpr_fast(const struct trawl_emu *e, const struct emu_insn *in)
{
	return e->nmem && in->gpr_mem && e->mem_fast && e->nmem == in->mem.nregs;
}

static inline __attribute__((always_inline)) char *put_gpr_memory(struct trawl_emu *e, char *p, const struct emu_insn *in,
				   const char *prefix, size_t plen)
{
	const struct emu_memop *m = &in->mem;
	const struct emu_access *a = e->mem;
	uint64_t mask = m->size >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * m->size)) - 1;
	uint64_t v0 = m->store ? a[0].value : e->xregs[m->rt] & mask;
	p = put_mem_value(p, prefix, plen, m->store, a[0].addr, v0, m->size);
	if (m->nregs == 2) {
		uint64_t v1 = m->store ? a[1].value : e->xregs[m->rt2] & mask;
		p = put_mem_value(p, prefix, plen, m->store, a[1].addr, v1, m->size);
	}
	return p;
}

/* An FP/SIMD load or store whose range memcalc.c split into 8-byte pieces
 * (the last shorter) with their values: the lines put_memory would make
 * by joining neighbours into up to 16 bytes and splitting what is left
 * into powers of two, made without its byte arrays. 0 when not such a
 * one. */
static inline int vec_fast(const struct trawl_emu *e, const struct emu_insn *in)
{
	return e->mem_fast && in->simd_mem && in->mem.cls == EMU_MEM_VEC &&
	       e->nmem == (in->mem.size + 7u) / 8u;
}


/* The IT line of `in`, which ran, or IS when it `failed` (a conditional
 * branch not taken: the next PC is in->fail_pc). */
static inline __attribute__((always_inline)) char *
put_insn_line(char *p, const struct emu_insn *in, int failed, const char *prefix, size_t plen,
	      unsigned ndigits)
{
	p = put32(p, prefix, plen);
	memcpy(p, failed ? "IS (" : "IT (", 4);
	p = put32(p + 4, prefix, ndigits);
	*p++ = ')';
	/* most tails fit the first 80 bytes: five fixed copies, written out
	 * (-O2 does not unroll), no loop to mispredict */
	const char *t = in->tail;
	memcpy(p, t, 16);
	memcpy(p + 16, t + 16, 16);
	memcpy(p + 32, t + 32, 16);
	memcpy(p + 48, t + 48, 16);
	memcpy(p + 64, t + 64, 16);
	for (unsigned i = EMU_TAIL_MIN; i < in->tail_len; i += 16)
		memcpy(p + i, t + i, 16);
	return p + in->tail_len;
}

/* The register lines of an instruction whose writes are all X0-X30 or SP
 * (plain_writes 1), or those then the flags (2, only with e->flagw); x is
 * e->xregs, in a local, since the stores through p could alias it. */
static inline __attribute__((always_inline)) char *
put_plain_writes(const struct trawl_emu *e, char *p, const struct emu_insn *in, const char *prefix,
		 size_t plen, const uint64_t *x)
{
	unsigned plain = in->plain_writes;
	unsigned nw = in->nx;
	/* most write one register or none: the first outside the loop */
	if (nw) {
		unsigned c = in->writes[0];
		p = put32(p, prefix, plen);
		memcpy(p, &emu_reg_head[c], 16);
		p = put_hex(p + emu_reg_head[c].len, x[c], 16);
		*p++ = '\n';
		for (unsigned i = 1; i < nw; i++) {
			c = in->writes[i];
			p = put32(p, prefix, plen);
			memcpy(p, &emu_reg_head[c], 16);
			p = put_hex(p + emu_reg_head[c].len, x[c], 16);
			*p++ = '\n';
		}
	}
	if (plain == 2) {
		p = put32(p, prefix, plen);
		memcpy(p, &emu_reg_head[EMU_REG_CPSR], 16);
		p = put_nzcv(p + emu_reg_head[EMU_REG_CPSR].len, e);
		*p++ = '\n';
	}
	return p;
}

/* One instruction's lines formatted straight into the buffer with fixed-size
 * copies: flush_ptr leaves room for the largest instruction, so only the
 * kernel's writes during an SVC, which have no bound, check the space as they
 * go. FPSR is written only when it changed, since it is sticky and rarely does. */
static inline __attribute__((always_inline)) void emu_trace_line(struct trawl_emu *e, uint64_t next_pc)
{
	const struct emu_insn *in = e->cur;
	int fast = gpr_fast(e, in);
	if (fast)
		e->mem_after = NULL;   /* put_gpr_memory reads the loaded values */
	else if (e->mem_after)
		emu_mem_after(e);
	if (e->wp >= e->flush_ptr && emu_trace_flush(e) != TRAWL_OK)
		return;
	if (e->opt.insn_fn) {
		e->opt.insn_fn(e->opt.insn_ctx, in->pc, in->enc, e->n);
		if (!e->out) { /* only the callback wanted it: no text */
			e->nmem = 0;
			e->nsysw = 0;
			return;
		}
	}
	const char *prefix = e->prefix;
	size_t plen = e->plen;

	char *p = put_insn_line(e->wp, in, next_pc == in->fail_pc, prefix, plen,
				e->ndigits);
	if (fast)
		p = put_gpr_memory(e, p, in, prefix, plen);
	else if (e->nmem)
		p = vec_fast(e, in) ? emu_trace_vec_memory(e, p, prefix, plen)
					: emu_trace_memory(e, p, prefix, plen);
	if (e->nsysw && !(p = emu_trace_sysw(e, p, prefix, plen)))
		return;
	/* X0-X30 and SP, most of the register lines, inline */
	const uint64_t *x = e->xregs;
	unsigned plain = x ? in->plain_writes : 0;
	if (plain == 1 || (plain == 2 && e->flagw)) {
		p = put_plain_writes(e, p, in, prefix, plen, x);
	} else {
		for (unsigned i = 0, nw = in->nwrites; i < nw; i++) {
			unsigned c = in->writes[i];
			p = put32(p, prefix, plen);
			if (c <= EMU_REG_SP && x) {
				memcpy(p, &emu_reg_head[c], 16);
				p = put_hex(p + emu_reg_head[c].len, x[c], 16);
				*p++ = '\n';
			} else if (c == EMU_REG_CPSR && e->flagw) {
				/* the flags, the next most common, from QEMU's words */
				memcpy(p, &emu_reg_head[c], 16);
				p = put_hex(p + emu_reg_head[c].len, emu_nzcv_direct(e), 8);
				*p++ = '\n';
			} else {
				p = emu_trace_reg(e, p, c);
			}
		}
	}
	if (in->fp) {
		/* the flags are sticky and rarely change: report FPSR only then */
		uint64_t v[2];
		emu_read_reg(e, EMU_REG_FPSR, v);
		if (v[0] != e->fpsr)
			p = emu_trace_reg(e, put32(p, prefix, plen), EMU_REG_FPSR);
	}
	e->wp = p;
	e->nmem = 0;
}

#endif /* TRAWL_HAVE_UNICORN && TRAWL_HAVE_CAPSTONE */

#endif
