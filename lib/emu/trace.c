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

#include "emu/trace-line.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)


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

struct emu_reg_head emu_reg_head[EMU_REG_COUNT];
uint8_t emu_nzcv_digit[256];

static void init_reg_heads(void)
{
	if (emu_reg_head[0].len)
		return;
	for (unsigned i = 0; i < 256; i++) {
		unsigned sign = i & 15, zero = i >> 4;
		/* CF VF NF ZF: V and N in the sign bits of words 1 and 2, C
		 * set when word 0 is not 0, Z when word 3 is 0 */
		unsigned nib = (sign >> 2 & 1) << 3 | (zero >> 3 & 1) << 2 | (~zero & 1) << 1 |
			       (sign >> 1 & 1);
		emu_nzcv_digit[i] = (uint8_t)emu_hex[2 * nib + 1];
	}
	for (unsigned c = 0; c < EMU_REG_COUNT; c++) {
		const char *n = emu_reg_name(c);
		size_t l = strlen(n);
		memcpy(emu_reg_head[c].text, "R ", 2);
		memcpy(emu_reg_head[c].text + 2, n, l);
		emu_reg_head[c].text[2 + l] = ' ';
		emu_reg_head[c].len = (uint8_t)(3 + l);
	}
}

/* "R NAME value" for one register, after the line prefix. */
char *emu_trace_reg(struct trawl_emu *e, char *p, unsigned code)
{
	uint64_t v[2];
	emu_read_reg(e, code, v);
	memcpy(p, &emu_reg_head[code], 16);
	p += emu_reg_head[code].len;
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

/* put_nzcv's reading of QEMU's four flag words at once, checked against
 * Unicorn's for all 16 values before it is used (as regs-direct.c checks
 * the word-by-word one): else the word-by-word reading serves. */
static void check_flag4(struct trawl_emu *e)
{
	uint32_t save = 0;
	uc_reg_read(e->uc, UC_ARM64_REG_NZCV, &save);
	for (uint32_t v = 0; e->flag4 && v < 16; v++) {
		uint32_t want = v << 28;
		char digits[8];
		uc_reg_write(e->uc, UC_ARM64_REG_NZCV, &want);
		put_nzcv(digits, e);
		if (digits[0] != emu_hex[2 * v + 1] || memcmp(digits + 1, "0000000", 7) != 0)
			e->flag4 = NULL;
	}
	uc_reg_write(e->uc, UC_ARM64_REG_NZCV, &save);
}

void emu_trace_header(struct trawl_emu *e)
{
	init_reg_heads();
	if (e->flag4)
		check_flag4(e);
	char *p = e->wp;
	for (unsigned code = 0; code < EMU_REG_COUNT; code++) {
		if (code > EMU_REG_TPIDR && code < EMU_REG_V0)
			continue;
		memcpy(p, "0 clk ", 6);
		p = emu_trace_reg(e, p + 6, code);
	}
	e->wp = p;
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

/* out of line: its buffers would otherwise weigh on every instruction's frame */
char *emu_trace_memory(struct trawl_emu *e, char *p, const char *prefix, size_t plen)
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
char *emu_trace_sysw(struct trawl_emu *e, char *p, const char *prefix, size_t plen)
{
	for (unsigned i = 0; i < e->nsysw; i++) {
		uint64_t a = e->sysw[i].addr, end = a + e->sysw[i].len;
		while (a < end) {
			if ((size_t)(p - e->buf) + 4096 > e->cap) {
				e->wp = p;
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

char *emu_trace_vec_memory(struct trawl_emu *e, char *p, const char *prefix, size_t plen)
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


/* What changed outside an instruction (a signal frame pushed or popped):
 * the memory written, then every register that differs from e->snap,
 * except those `done` (the instruction just written) already showed (with
 * `all`: every register, a new core's first state). At
 * the time of the last instruction they are its effects; at a time with
 * no instruction (a fault's), a state event. */
void emu_trace_state(struct trawl_emu *e, const struct emu_insn *done, int all)
{
	if (e->wp >= e->flush_ptr && emu_trace_flush(e) != TRAWL_OK)
		return;
	init_reg_heads();
	size_t plen = e->plen;
	char *p = e->wp;
	if (e->nsysw && !(p = emu_trace_sysw(e, p, e->prefix, plen)))
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
		p = emu_trace_reg(e, put32(p, e->prefix, plen), c);
	}
	e->wp = p;
}

void emu_trace_buffer_reset(struct trawl_emu *e)
{
	e->wp = e->buf;
	/* the margin holds the largest instruction (EMU_MAX_MEM accesses as
	 * LD/ST lines, about 82 KiB) */
	e->flush_ptr = e->buf + e->cap - (128u << 10);
}

enum trawl_status emu_trace_flush(struct trawl_emu *e)
{
	if (e->out_status != TRAWL_OK)
		return e->out_status;
	size_t len = (size_t)(e->wp - e->buf);
	if (len && e->out)
		e->out_status = trawl_outfile_take(e->out, &e->buf, len, e->cap, &e->out_err);
	e->res.trace_bytes += len;
	emu_trace_buffer_reset(e);   /* the buffer may be another one now (the compressor's) */
	if (e->out_status != TRAWL_OK) {
		e->stopped = 1;
		uc_emu_stop(e->uc);
	}
	return e->out_status;
}

void emu_trace_finish(struct trawl_emu *e, uint64_t next_pc)
{
	emu_trace_line(e, next_pc);
}

#endif
