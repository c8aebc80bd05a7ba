/* The Tarmac writer: one IT/IS line per instruction, then its memory
 * accesses, then the registers it wrote, all in Fast Models form:
 *
 *   13 clk IT (13) 00400aa4 a9b67bfd O EL0t_n : stp      x29, x30, [sp, #-0xa0]!
 *   13 clk MW8 0000ffffffffed80 0000000000000000
 *   13 clk MW8 0000ffffffffed88 00000000004006f0
 *   13 clk R SP_EL0 0000ffffffffed80
 *
 *   line          fields
 *   IT / IS       (index) PC encoding O(=A64) mode : disassembly
 *   MR<n> / MW<n> address value (n = 1, 2, 4, 8, 16 bytes; the value as a
 *                 little-endian number, most significant byte first; 16
 *                 bytes as two 64-bit halves, upper first)
 *   LD / ST       16-byte-aligned address, four 4-byte groups, highest first
 *   R             register name, value after the instruction
 *
 * PCs and addresses have 8 hex digits below 4 GiB, else 16. The timestamp
 * is the instruction index. With the ldst style, memory is
 * shown as 16-byte LD/ST diagram lines (highest address on the left, bytes
 * not accessed as dots). Everything is formatted by hand into one large
 * buffer: a printf per field would cost more than the emulation itself.
 */
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

static char *put_bytes_hex(char *p, const uint8_t *b, unsigned n)
{
	/* little-endian memory printed as a number: last byte first */
	if (n == 8 || n == 4) {
		uint64_t v = 0;
		memcpy(&v, b, n);   /* the host is little-endian too */
		return put_hex(p, v, (int)(2 * n));
	}
	for (unsigned i = n; i-- > 0;) {
		memcpy(p, emu_hex + 2 * b[i], 2);
		p += 2;
		if (n == 16 && i == 8)
			*p++ = ' ';
	}
	return p;
}

void emu_read_reg(struct trawl_emu *e, unsigned code, uint64_t v[2])
{
	v[0] = v[1] = 0;
	if (code <= EMU_REG_SP && e->xregs)
		v[0] = e->xregs[code];
	else if (code <= 28)
		uc_reg_read(e->uc, UC_ARM64_REG_X0 + (int)code, v);
	else if (code == 29)
		uc_reg_read(e->uc, UC_ARM64_REG_X29, v);
	else if (code == 30)
		uc_reg_read(e->uc, UC_ARM64_REG_X30, v);
	else if (code == EMU_REG_SP)
		uc_reg_read(e->uc, UC_ARM64_REG_SP, v);
	else if (code == EMU_REG_CPSR && e->flagw)
		v[0] = emu_nzcv_direct(e);
	else if (code == EMU_REG_CPSR) {
		uint32_t x = 0;
		uc_reg_read(e->uc, UC_ARM64_REG_NZCV, &x);
		v[0] = x & 0xf0000000u;
	} else if (code == EMU_REG_FPCR || code == EMU_REG_FPSR) {
		uint32_t x = 0;
		uc_reg_read(e->uc, code == EMU_REG_FPCR ? UC_ARM64_REG_FPCR : UC_ARM64_REG_FPSR, &x);
		v[0] = x;
	} else if (code == EMU_REG_TPIDR)
		uc_reg_read(e->uc, UC_ARM64_REG_TPIDR_EL0, v);
	else if (code >= EMU_REG_V0 && code < EMU_REG_V0 + 32)
		uc_reg_read(e->uc, UC_ARM64_REG_Q0 + (int)(code - EMU_REG_V0), v);
}

void emu_write_reg(struct trawl_emu *e, unsigned code, const uint64_t v[2])
{
	if (code <= 28)
		uc_reg_write(e->uc, UC_ARM64_REG_X0 + (int)code, v);
	else if (code == 29)
		uc_reg_write(e->uc, UC_ARM64_REG_X29, v);
	else if (code == 30)
		uc_reg_write(e->uc, UC_ARM64_REG_X30, v);
	else if (code == EMU_REG_SP)
		uc_reg_write(e->uc, UC_ARM64_REG_SP, v);
	else if (code == EMU_REG_CPSR) {
		uint32_t x = (uint32_t)v[0] & 0xf0000000u;
		uc_reg_write(e->uc, UC_ARM64_REG_NZCV, &x);
	} else if (code == EMU_REG_FPCR || code == EMU_REG_FPSR) {
		uint32_t x = (uint32_t)v[0];
		uc_reg_write(e->uc, code == EMU_REG_FPCR ? UC_ARM64_REG_FPCR : UC_ARM64_REG_FPSR, &x);
	} else if (code == EMU_REG_TPIDR)
		uc_reg_write(e->uc, UC_ARM64_REG_TPIDR_EL0, v);
	else if (code >= EMU_REG_V0 && code < EMU_REG_V0 + 32)
		uc_reg_write(e->uc, UC_ARM64_REG_Q0 + (int)(code - EMU_REG_V0), v);
}

void emu_snapshot(struct trawl_emu *e)
{
	for (unsigned c = 0; c < EMU_REG_COUNT; c++)
		emu_read_reg(e, c, e->snap[c]);
}

/* "R NAME " for every register code, padded for a fixed 16-byte copy; the
 * length in the last byte, which the value written after the name always
 * covers (the longest head, "R TPIDR_EL0 ", is 12 bytes). 16 bytes an
 * entry, so that finding one is a shift. */
static struct {
	char text[15];
	uint8_t len;
} reg_head[EMU_REG_COUNT];

static void init_reg_heads(void)
{
	if (reg_head[0].len)
		return;
	for (unsigned c = 0; c < EMU_REG_COUNT; c++) {
		const char *n = emu_reg_name(c);
		size_t l = strlen(n);
		memcpy(reg_head[c].text, "R ", 2);
		memcpy(reg_head[c].text + 2, n, l);
		reg_head[c].text[2 + l] = ' ';
		reg_head[c].len = (uint8_t)(3 + l);
	}
}

/* "R NAME value" for one register, after the line prefix. */
static char *put_reg(struct trawl_emu *e, char *p, unsigned code)
{
	uint64_t v[2];
	emu_read_reg(e, code, v);
	memcpy(p, &reg_head[code], 16);
	p += reg_head[code].len;
	if (code == EMU_REG_FPSR)
		e->fpsr = v[0];
	if (code >= EMU_REG_V0) {
		p = put_hex(p, v[1], 16);
		p = put_hex(p, v[0], 16);
	} else if (code == EMU_REG_CPSR || code == EMU_REG_FPCR || code == EMU_REG_FPSR) {
		p = put_hex(p, v[0], 8);
	} else {
		p = put_hex(p, v[0], 16);
	}
	*p++ = '\n';
	return p;
}

void emu_trace_header(struct trawl_emu *e)
{
	init_reg_heads();
	char *p = e->buf + e->len;
	for (unsigned code = 0; code < EMU_REG_COUNT; code++) {
		if (code > EMU_REG_TPIDR && code < EMU_REG_V0)
			continue;
		memcpy(p, "0 clk ", 6);
		p = put_reg(e, p + 6, code);
	}
	e->len = (size_t)(p - e->buf);
}

/* One memory line in FM form: "MR8 <addr> <value>". */
static char *put_mem_fm(char *p, const char *prefix, size_t plen, int write, uint64_t addr,
			const uint8_t *b, unsigned size)
{
	memcpy(p, prefix, 32);
	p += plen;
	*p++ = 'M';
	*p++ = write ? 'W' : 'R';
	if (size >= 10)
		*p++ = (char)('0' + size / 10);
	*p++ = (char)('0' + size % 10);
	*p++ = ' ';
	p = put_hex(p, addr, addr >> 32 ? 16 : 8);
	*p++ = ' ';
	p = put_bytes_hex(p, b, size);
	*p++ = '\n';
	return p;
}

/* LD/ST diagram lines: one per 16-byte line the access touches; four
 * groups of four bytes, highest address first, untouched bytes as "..". */
static char *put_mem_ldst(char *p, const char *prefix, size_t plen, int write, uint64_t addr,
			  const uint8_t *b, unsigned size)
{
	uint64_t end = addr + size;
	for (uint64_t base = addr & ~(uint64_t)15; base < end; base += 16) {
		memcpy(p, prefix, 32);
		p += plen;
		memcpy(p, write ? "ST " : "LD ", 3);
		p = put_hex(p + 3, base, 16);
		for (int byte = 15; byte >= 0; byte--) {
			if ((byte & 3) == 3)
				*p++ = ' ';
			uint64_t a = base + (uint64_t)byte;
			if (a >= addr && a < end)
				memcpy(p, emu_hex + 2 * b[a - addr], 2);
			else
				memcpy(p, "..", 2);
			p += 2;
		}
		*p++ = '\n';
	}
	return p;
}

static char *put_access(struct trawl_emu *e, char *p, const char *prefix, size_t plen,
			int write, uint64_t addr, const uint8_t *b, unsigned size)
{
	if (e->opt.style == TRAWL_EMU_STYLE_LDST)
		return put_mem_ldst(p, prefix, plen, write, addr, b, size);
	/* keep access sizes to the powers of two Tarmac readers expect */
	while (size > 0) {
		unsigned n = size >= 16 ? 16 : size >= 8 ? 8 : size >= 4 ? 4 : size >= 2 ? 2 : 1;
		p = put_mem_fm(p, prefix, plen, write, addr, b, n);
		addr += n;
		b += n;
		size -= n;
	}
	return p;
}

/* The bytes of one recorded access: from the hook's value when it fits in
 * 64 bits, otherwise read back from guest memory (after the instruction,
 * which for a store is the value stored). */
static unsigned access_bytes(struct trawl_emu *e, const struct emu_access *a, uint8_t *b)
{
	unsigned size = a->size > 64 ? 64 : a->size;
	if (size <= 8) {
		for (unsigned i = 0; i < size; i++)
			b[i] = (uint8_t)(a->value >> (8 * i));
	} else if (uc_mem_read(e->uc, a->addr, b, size) != UC_ERR_OK) {
		memset(b, 0, size);
	}
	return size;
}

/* The common case, a 1-, 2-, 4- or 8-byte access in FM form, formatted
 * straight from the hook's value: no byte array (whose bytewise stores
 * and wider reloads stall the store buffer) and only fixed-size copies. */
static inline __attribute__((always_inline)) char *
put_mem_value(char *p, const char *prefix, size_t plen, int write, uint64_t addr, uint64_t value,
	      unsigned size)
{
	memcpy(p, prefix, 32);
	p += plen;
	p[0] = 'M';
	p[1] = write ? 'W' : 'R';
	p[2] = (char)('0' + size);
	p[3] = ' ';
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

/* out of line: its buffers would otherwise weigh on every instruction's frame */
__attribute__((noinline)) static char *put_memory(struct trawl_emu *e, char *p, const char *prefix, size_t plen)
{
	const struct emu_insn *in = e->cur;
	uint8_t chunk[64 + 16];
	uint64_t caddr = 0;
	unsigned csize = 0;
	int cwrite = 0;
	for (unsigned i = 0; i < e->nmem; i++) {
		const struct emu_access *a = &e->mem[i];
		if (in->no_reads && !a->write)
			continue;
		if (!in->simd_mem && e->opt.style != TRAWL_EMU_STYLE_LDST && a->size <= 8 &&
		    (a->size & (a->size - 1)) == 0 && a->size) {
			if (csize)
				p = put_access(e, p, prefix, plen, cwrite, caddr, chunk, csize);
			csize = 0;
			p = put_mem_value(p, prefix, plen, (int)a->write, a->addr, a->value, a->size);
			continue;
		}
		uint8_t b[64];
		unsigned size = access_bytes(e, a, b);
		/* vector loads/stores reach the emulator as element-sized pieces:
		 * join neighbours into accesses of up to 16 bytes */
		if (in->simd_mem && csize && cwrite == (int)a->write && caddr + csize == a->addr &&
		    csize + size <= 16) {
			memcpy(chunk + csize, b, size);
			csize += size;
			continue;
		}
		if (csize)
			p = put_access(e, p, prefix, plen, cwrite, caddr, chunk, csize);
		memcpy(chunk, b, size);
		caddr = a->addr;
		csize = size;
		cwrite = (int)a->write;
	}
	if (csize)
		p = put_access(e, p, prefix, plen, cwrite, caddr, chunk, csize);
	return p;
}

/* Memory the kernel wrote during an SVC (or a signal frame), shown in
 * 16-byte pieces. NULL when a flush failed. */
static char *put_sysw(struct trawl_emu *e, char *p, const char *prefix, size_t plen)
{
	for (unsigned i = 0; i < e->nsysw; i++) {
		uint64_t a = e->sysw[i].addr, end = a + e->sysw[i].len;
		while (a < end) {
			if ((size_t)(p - e->buf) + 4096 > e->cap) {
				e->len = (size_t)(p - e->buf);
				if (emu_trace_flush(e) != TRAWL_OK)
					return NULL;
				p = e->buf;
			}
			uint8_t b[16];
			unsigned n = end - a > 16 ? 16 : (unsigned)(end - a);
			if (uc_mem_read(e->uc, a, b, n) != UC_ERR_OK)
				break;
			p = put_access(e, p, prefix, plen, 1, a, b, n);
			a += n;
		}
	}
	e->nsysw = 0;
	return p;
}

/* Copies of at most 32 bytes done as one fixed-size copy: the buffer
 * always has room beyond the end (flush_at leaves a large margin) and every
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

static inline char *put_gpr_memory(struct trawl_emu *e, char *p, const struct emu_insn *in,
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

/* size bytes (below 8) of v at addr: as 4, 2, 1-byte lines */
static char *put_vec_tail(char *p, const char *prefix, size_t plen, int write, uint64_t addr,
			  uint64_t v, unsigned size)
{
	for (unsigned n = 4; n; n >>= 1) {
		if (size < n)
			continue;
		p = put_mem_value(p, prefix, plen, write, addr, v & ((UINT64_C(1) << (8 * n)) - 1), n);
		addr += n;
		v >>= 8 * n;
		size -= n;
	}
	return p;
}

__attribute__((noinline)) static char *put_vec_memory(struct trawl_emu *e, char *p, const char *prefix,
						      size_t plen)
{
	const struct emu_access *a = e->mem;
	unsigned n = e->nmem;
	int w = (int)e->cur->mem.store;
	for (unsigned k = 0; k < n; k += 2) {
		if (a[k].size < 8) {   /* the last, alone */
			p = put_vec_tail(p, prefix, plen, w, a[k].addr, a[k].value, a[k].size);
			break;
		}
		if (k + 1 < n && a[k + 1].size == 8) {
			memcpy(p, prefix, 32);
			p += plen;
			memcpy(p, w ? "MW16 " : "MR16 ", 5);
			p = put_hex(p + 5, a[k].addr, a[k].addr >> 32 ? 16 : 8);
			*p++ = ' ';
			p = put_hex(p, a[k + 1].value, 16);
			*p++ = ' ';
			p = put_hex(p, a[k].value, 16);
			*p++ = '\n';
			continue;
		}
		p = put_mem_value(p, prefix, plen, w, a[k].addr, a[k].value, 8);
		if (k + 1 < n)
			p = put_vec_tail(p, prefix, plen, w, a[k + 1].addr, a[k + 1].value, a[k + 1].size);
	}
	return p;
}

/* One instruction's lines formatted straight into the buffer with fixed-size
 * copies: flush_at leaves room for the largest instruction, so only the
 * kernel's writes during an SVC, which have no bound, check the space as they
 * go. FPSR is written only when it changed, since it is sticky and rarely does. */
void emu_trace_finish(struct trawl_emu *e, uint64_t next_pc)
{
	const struct emu_insn *in = e->cur;
	int fast = gpr_fast(e, in);
	if (fast)
		e->mem_after = NULL;   /* put_gpr_memory reads the loaded values */
	else if (e->mem_after)
		emu_mem_after(e);
	if (e->len >= e->flush_at && emu_trace_flush(e) != TRAWL_OK)
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
	size_t plen = e->ndigits + 5 + e->cpulen;

	char *p = put32(e->buf + e->len, prefix, plen);
	int failed = in->kind == EMU_INSN_COND_BRANCH && next_pc == in->pc + 4;
	memcpy(p, failed ? "IS (" : "IT (", 4);
	p = put32(p + 4, prefix, e->ndigits);
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
	p += in->tail_len;
	if (fast)
		p = put_gpr_memory(e, p, in, prefix, plen);
	else if (e->nmem)
		p = vec_fast(e, in) ? put_vec_memory(e, p, prefix, plen) : put_memory(e, p, prefix, plen);
	if (e->nsysw && !(p = put_sysw(e, p, prefix, plen)))
		return;
	/* X0-X30 and SP, most of the register lines, inline; the registers
	 * pointer in a local, since the stores through p could alias it */
	const uint64_t *x = e->xregs;
	for (unsigned i = 0, nw = in->nwrites; i < nw; i++) {
		unsigned c = in->writes[i];
		p = put32(p, prefix, plen);
		if (c <= EMU_REG_SP && x) {
			memcpy(p, &reg_head[c], 16);
			p = put_hex(p + reg_head[c].len, x[c], 16);
			*p++ = '\n';
		} else if (c == EMU_REG_CPSR && e->flagw) {
			/* the flags, the next most common, from QEMU's words */
			memcpy(p, &reg_head[c], 16);
			p = put_hex(p + reg_head[c].len, emu_nzcv_direct(e), 8);
			*p++ = '\n';
		} else {
			p = put_reg(e, p, c);
		}
	}
	if (in->fp) {
		/* the flags are sticky and rarely change: report FPSR only then */
		uint64_t v[2];
		emu_read_reg(e, EMU_REG_FPSR, v);
		if (v[0] != e->fpsr)
			p = put_reg(e, put32(p, prefix, plen), EMU_REG_FPSR);
	}
	e->len = (size_t)(p - e->buf);
	e->nmem = 0;
}

/* What changed outside an instruction (a signal frame pushed or popped):
 * the memory written, then every register that differs from e->snap,
 * except those `done` (the instruction just written) already showed (with
 * `all`: every register, a new core's first state). At
 * the time of the last instruction they are its effects; at a time with
 * no instruction (a fault's), a state event. */
void emu_trace_state(struct trawl_emu *e, const struct emu_insn *done, int all)
{
	if (e->len >= e->flush_at && emu_trace_flush(e) != TRAWL_OK)
		return;
	init_reg_heads();
	size_t plen = e->ndigits + 5 + e->cpulen;
	char *p = e->buf + e->len;
	if (e->nsysw && !(p = put_sysw(e, p, e->prefix, plen)))
		return;
	for (unsigned c = 0; c < EMU_REG_COUNT; c++) {
		if (c > EMU_REG_TPIDR && c < EMU_REG_V0)
			continue;
		uint64_t v[2];
		emu_read_reg(e, c, v);
		if (!all && memcmp(v, e->snap[c], 16) == 0)
			continue;
		unsigned k = 0;
		while (done && k < done->nwrites && done->writes[k] != c)
			k++;
		if (done && k < done->nwrites)
			continue;
		p = put_reg(e, put32(p, e->prefix, plen), c);
	}
	e->len = (size_t)(p - e->buf);
}

enum trawl_status emu_trace_flush(struct trawl_emu *e)
{
	if (e->out_status != TRAWL_OK)
		return e->out_status;
	if (e->len && e->out)
		e->out_status = trawl_outfile_take(e->out, &e->buf, e->len, e->cap, &e->out_err);
	e->res.trace_bytes += e->len;
	e->len = 0;
	if (e->out_status != TRAWL_OK) {
		e->stopped = 1;
		uc_emu_stop(e->uc);
	}
	return e->out_status;
}

#endif
