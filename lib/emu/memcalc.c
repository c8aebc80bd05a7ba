/* Memory accesses without Unicorn's memory hooks: any memory hook makes
 * QEMU send every guest load and store through its slow path, which cost
 * more than the whole trace writer. Instead the access an instruction makes
 * is computed from its decode (memop.c) and the registers: the address
 * before it runs, the values after (a load's from its destination
 * register, a store's from its source register read before, FP/SIMD data
 * from the registers or guest memory after the instruction). The list is what the hooks
 * reported, in their order and sizes, so the trace is the same text:
 *   - a general-purpose load or store: one access per register (a pair:
 *     Rt at the address, then Rt2 after it);
 *   - FP/SIMD (LDR/STR/LDP/STP of B-Q registers, LD1-LD4, ST1-ST4,
 *     single structures, LDnR): one contiguous range; the writer joins a
 *     vector instruction's neighbouring accesses into pieces of up to 16
 *     bytes, so 8-byte pieces give the same lines as QEMU's elements; the
 *     bytes of LDR/STR/LDP/STP are those of its registers, the others'
 *     are read from guest memory;
 *   - a store-exclusive: its store only when the status register says it
 *     happened (QEMU's compare-and-swap reads too; that read was never
 *     shown).
 */
#include <string.h>

#include "emu/emu-int.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)

/* out of line: its buffer would give every caller a stack frame, and
 * e->xregs is almost always there */
__attribute__((noinline)) static uint64_t xreg_read(struct trawl_emu *e, unsigned r)
{
	uint64_t v[2];
	emu_read_reg(e, r, v);
	return v[0];
}

static inline uint64_t xreg(struct trawl_emu *e, unsigned r)
{
	return e->xregs ? e->xregs[r] : xreg_read(e, r);
}

static inline uint64_t mask_of(unsigned size)
{
	return size >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
}

/* A register offset's part of the address: Rm's value x extended and
 * shifted as the instruction says. */
static inline uint64_t index_of(const struct emu_memop *m, uint64_t x)
{
	switch (m->ext) {
	case 2: x = (uint32_t)x; break;                    /* UXTW */
	case 6: x = (uint64_t)(int64_t)(int32_t)x; break;  /* SXTW */
	default: break;                                    /* LSL, SXTX */
	}
	return x << m->shift;
}

/* Every form, with or without e->xregs; apart from the common case
 * (emu_mem_before), which then needs no stack frame. */
__attribute__((noinline)) static void mem_before_any(struct trawl_emu *e, const struct emu_insn *in)
{
	const struct emu_memop *m = &in->mem;
	uint64_t addr;
	switch (m->mode) {
	case EMU_ADDR_IMM: addr = xreg(e, m->base) + (uint64_t)(int64_t)m->imm; break;
	case EMU_ADDR_POST: addr = xreg(e, m->base); break;
	case EMU_ADDR_LIT: addr = in->pc + (uint64_t)(int64_t)m->imm; break;
	default:
		addr = xreg(e, m->base) +
		       index_of(m, m->rm == EMU_MEM_XZR ? 0 : xreg(e, m->rm));
		break;
	}
	struct emu_access *a = &e->mem[e->nmem];
	if (m->cls == EMU_MEM_GPR) {
		uint64_t mask = mask_of(m->size);
		a[0] = (struct emu_access){ addr, 0, m->size, m->store };
		if (m->store)
			a[0].value = m->rt == EMU_MEM_XZR ? 0 : xreg(e, m->rt) & mask;
		if (m->nregs == 2) {
			a[1] = (struct emu_access){ addr + m->size, 0, m->size, m->store };
			if (m->store)
				a[1].value = m->rt2 == EMU_MEM_XZR ? 0 : xreg(e, m->rt2) & mask;
		}
		e->nmem += m->nregs;
		if (!m->store || m->status)
			e->mem_after = in;
	} else {
		/* 8-byte pieces (the last one shorter), values read after */
		unsigned n = 0;
		for (unsigned off = 0; off < m->size; off += 8, n++)
			a[n] = (struct emu_access){ addr + off, 0,
						    m->size - off >= 8 ? 8 : m->size - off, m->store };
		e->nmem += n;
		e->mem_after = in;
	}
	e->mem_addr = addr;
	if (m->store)
		emu_code_written(e, addr, m->cls == EMU_MEM_GPR ? (uint64_t)m->size * m->nregs : m->size);
}

/* Most memory instructions are an integer load or store at base + offset,
 * at base (post-indexed) or at base + index register: done here with half
 * the instructions of the general path. */
void emu_mem_before(struct trawl_emu *e, const struct emu_insn *in)
{
	const struct emu_memop *m = &in->mem;
	const uint64_t *x = e->xregs;
	if (!x || m->cls != EMU_MEM_GPR || m->mode > EMU_ADDR_REG) {
		mem_before_any(e, in);
		return;
	}
	uint64_t addr = x[m->base];
	if (m->mode == EMU_ADDR_IMM)
		addr += (uint64_t)(int64_t)m->imm;
	else if (m->mode == EMU_ADDR_REG)   /* x[31] is SP, not XZR */
		addr += index_of(m, m->rm == EMU_MEM_XZR ? 0 : x[m->rm]);
	uint64_t mask = mask_of(m->size);
	struct emu_access *a = &e->mem[e->nmem];
	a[0] = (struct emu_access){ addr, 0, m->size, m->store };
	if (m->store && m->rt != EMU_MEM_XZR)
		a[0].value = x[m->rt] & mask;
	if (m->nregs == 2) {
		a[1] = (struct emu_access){ addr + m->size, 0, m->size, m->store };
		if (m->store && m->rt2 != EMU_MEM_XZR)
			a[1].value = x[m->rt2] & mask;
	}
	e->nmem += m->nregs;
	if (!m->store || m->status)
		e->mem_after = in;
	e->mem_addr = addr;
	if (m->store)
		emu_code_written(e, addr, (uint64_t)m->size * m->nregs);
}

void emu_mem_after(struct trawl_emu *e)
{
	const struct emu_memop *m = &e->mem_after->mem;
	e->mem_after = NULL;
	if (m->cls == EMU_MEM_GPR) {
		struct emu_access *a = &e->mem[e->nmem - m->nregs];
		if (m->status) {
			/* Ws = 0: the store happened */
			if ((uint32_t)xreg(e, m->status - 1u) != 0)
				e->nmem -= m->nregs;
			return;
		}
		uint64_t mask = mask_of(m->size);
		unsigned rt[2] = { m->rt, m->rt2 };
		for (unsigned k = 0; k < m->nregs; k++) {
			if (rt[k] != EMU_MEM_XZR) {
				a[k].value = xreg(e, rt[k]) & mask;
			} else {
				/* a load into XZR keeps nothing: read what it read */
				uint64_t v = 0;
				uc_mem_read(e->uc, a[k].addr, &v, a[k].size);
				a[k].value = v;
			}
		}
		return;
	}
	unsigned n = (m->size + 7u) / 8u;
	struct emu_access *a = &e->mem[e->nmem - n];
	uint8_t b[64 + 8];
	memset(b, 0, sizeof b);
	if (m->nregs) {
		/* LDR, STR, LDP, STP: the bytes are the registers' low ones,
		 * which costs a fifth of a guest memory read */
		unsigned each = m->size / m->nregs;
		uint64_t v[2];
		emu_read_reg(e, EMU_REG_V0 + m->rt, v);
		memcpy(b, v, each);
		if (m->nregs == 2) {
			emu_read_reg(e, EMU_REG_V0 + m->rt2, v);
			memcpy(b + each, v, each);
		}
	} else {
		uc_mem_read(e->uc, e->mem_addr, b, m->size);
	}
	for (unsigned k = 0; k < n; k++) {
		uint64_t v;
		memcpy(&v, b + 8 * k, 8);
		a[k].value = v & mask_of(a[k].size);
	}
}

#endif
