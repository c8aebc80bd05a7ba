/* Memory accesses from the encoding (Arm ARM, "Loads and Stores"), for
 * the trace writer's hook-free path: which class an instruction is, its
 * base register, offset or index, size and number of registers. Anything
 * in the load/store encoding space not modelled here (atomics, CAS,
 * exclusive pairs, MTE, pointer authentication, constrained-unpredictable
 * writeback forms) is EMU_MEM_UNKNOWN, and the emulator takes it from
 * Unicorn's memory hooks instead: never a guess. */
#include "emu/memop.h"

#include <string.h>

static int32_t sext(uint32_t v, unsigned bits)
{
	uint32_t m = UINT32_C(1) << (bits - 1);
	return (int32_t)((v ^ m) - m);
}

static unsigned log2u(unsigned v)
{
	unsigned l = 0;
	while (v > 1) {
		v >>= 1;
		l++;
	}
	return l;
}

static void unknown(struct emu_memop *m)
{
	memset(m, 0, sizeof *m);
	m->cls = EMU_MEM_UNKNOWN;
}

/* LDR/STR of one register: unsigned offset, unscaled, pre/post-index,
 * unprivileged, register offset (ext = 1 marks "register offset"), literal */
static void one_reg(uint32_t enc, struct emu_memop *m, int form)
{
	unsigned size = enc >> 30, v = (enc >> 26) & 1, opc = (enc >> 22) & 3;
	unsigned rt = enc & 31, rn = (enc >> 5) & 31, bytes;
	int store;
	if (!v) {
		if (size == 3 && opc == 2) {
			/* PRFM / PRFUM: no access; the indexed forms are unallocated */
			if (form == 'p' || form == 'w' || form == 'u')
				unknown(m);
			return;
		}
		if (opc == 3 && size >= 2)
			return unknown(m);
		if (size == 2 && opc == 3)
			return unknown(m);
		bytes = 1u << size;
		store = opc == 0;
	} else {
		if (opc & 2) {
			if (size != 0)
				return unknown(m);
			bytes = 16;
		} else {
			bytes = 1u << size;
		}
		store = !(opc & 1);
		if (form == 'u')
			return unknown(m);   /* no unprivileged FP/SIMD form */
	}
	m->store = (uint8_t)store;
	m->base = (uint8_t)rn;
	m->rt = (uint8_t)rt;
	switch (form) {
	case 'i': m->mode = EMU_ADDR_IMM; m->imm = (int32_t)(((enc >> 10) & 0xfff) << log2u(bytes)); break;
	case 's': case 'u': case 'w':
		m->mode = EMU_ADDR_IMM;
		m->imm = sext((enc >> 12) & 0x1ff, 9);
		break;
	case 'p': m->mode = EMU_ADDR_POST; break;
	case 'r': {
		unsigned option = (enc >> 13) & 7;
		if (!(option & 2))
			return unknown(m);
		m->mode = EMU_ADDR_REG;
		m->rm = (uint8_t)((enc >> 16) & 31);
		m->ext = (uint8_t)option;
		m->shift = (uint8_t)(((enc >> 12) & 1) ? log2u(bytes) : 0);
		break;
	}
	}
	/* writeback into the transfer register: constrained unpredictable */
	if (!v && (form == 'p' || form == 'w') && rn == rt && rn != 31)
		return unknown(m);
	m->size = (uint8_t)bytes;
	m->nregs = 1;
	m->cls = v ? EMU_MEM_VEC : EMU_MEM_GPR;
}

static void literal(uint32_t enc, struct emu_memop *m)
{
	unsigned opc = enc >> 30, v = (enc >> 26) & 1;
	m->mode = EMU_ADDR_LIT;
	m->imm = sext((enc >> 5) & 0x7ffff, 19) * 4;
	m->rt = (uint8_t)(enc & 31);
	if (!v) {
		if (opc == 3)
			return;   /* PRFM (literal): no access */
		m->cls = EMU_MEM_GPR;
		m->nregs = 1;
		m->size = opc == 1 ? 8 : 4;
		return;
	}
	if (opc == 3)
		return unknown(m);
	m->cls = EMU_MEM_VEC;
	m->nregs = 1;
	m->size = (uint8_t)(4u << opc);
}

static void pair(uint32_t enc, struct emu_memop *m)
{
	unsigned opc = enc >> 30, v = (enc >> 26) & 1, l = (enc >> 22) & 1, idx = (enc >> 23) & 3;
	unsigned rt = enc & 31, rn = (enc >> 5) & 31, rt2 = (enc >> 10) & 31, bytes;
	if (opc == 3)
		return unknown(m);
	if (!v) {
		if (opc == 1 && (!l || idx == 0))
			return unknown(m);   /* STGP (MTE); no LDNPSW */
		bytes = opc == 2 ? 8 : 4;
		if (l && rt == rt2)
			return unknown(m);
		if ((idx == 1 || idx == 3) && rn != 31 && (rn == rt || rn == rt2))
			return unknown(m);
	} else {
		bytes = 4u << opc;
	}
	m->store = (uint8_t)!l;
	m->base = (uint8_t)rn;
	m->rt = (uint8_t)rt;
	m->rt2 = (uint8_t)rt2;
	m->mode = idx == 1 ? EMU_ADDR_POST : EMU_ADDR_IMM;
	m->imm = sext((enc >> 15) & 0x7f, 7) * (int32_t)bytes;
	if (v) {
		m->cls = EMU_MEM_VEC;
		m->size = (uint8_t)(2 * bytes);
		/* a load of one register twice (constrained unpredictable):
		 * its bytes are read from memory, not from the register */
		m->nregs = l && rt == rt2 ? 0 : 2;
	} else {
		m->cls = EMU_MEM_GPR;
		m->size = (uint8_t)bytes;
		m->nregs = 2;
	}
}

/* LDXR/STXR, LDAXR/STLXR, LDAR/STLR, LDLAR/STLLR (one register; the pair
 * and compare-and-swap forms are left to the hooks) */
static void exclusive(uint32_t enc, struct emu_memop *m)
{
	unsigned o2 = (enc >> 23) & 1, l = (enc >> 22) & 1, o1 = (enc >> 21) & 1;
	unsigned rs = (enc >> 16) & 31, rt = enc & 31, rn = (enc >> 5) & 31;
	if (o1)
		return unknown(m);
	m->cls = EMU_MEM_GPR;
	m->nregs = 1;
	m->size = (uint8_t)(1u << (enc >> 30));
	m->base = (uint8_t)rn;
	m->rt = (uint8_t)rt;
	m->store = (uint8_t)!l;
	m->mode = EMU_ADDR_IMM;
	if (!o2 && !l) {
		/* the status register tells whether the store happened */
		if (rs == 31 || rs == rt || (rs == rn && rn != 31))
			return unknown(m);
		m->status = (uint8_t)(rs + 1);
	}
}

static void simd_multi(uint32_t enc, struct emu_memop *m)
{
	static const uint8_t count[16] = { 4, 0, 4, 0, 3, 0, 3, 1, 2, 0, 2 };
	unsigned n = count[(enc >> 12) & 15];
	if (!n)
		return unknown(m);
	m->cls = EMU_MEM_VEC;
	m->size = (uint8_t)(n * (((enc >> 30) & 1) ? 16 : 8));
	m->store = (uint8_t)!((enc >> 22) & 1);
	m->base = (uint8_t)((enc >> 5) & 31);
	m->mode = EMU_ADDR_POST;   /* the address is the base, with or without writeback */
}

static void simd_single(uint32_t enc, struct emu_memop *m)
{
	unsigned l = (enc >> 22) & 1, r = (enc >> 21) & 1, opcode = (enc >> 13) & 7;
	unsigned s = (enc >> 12) & 1, size = (enc >> 10) & 3, esize;
	unsigned selem = ((((opcode & 1) << 1) | r)) + 1;
	switch (opcode >> 1) {
	case 0: esize = 1; break;
	case 1:
		if (size & 1)
			return unknown(m);
		esize = 2;
		break;
	case 2:
		if (size & 2)
			return unknown(m);
		if (size & 1) {
			if (s)
				return unknown(m);
			esize = 8;
		} else {
			esize = 4;
		}
		break;
	default:
		if (!l || s)
			return unknown(m);
		esize = 1u << size;   /* LD1R-LD4R: each element read once */
		break;
	}
	m->cls = EMU_MEM_VEC;
	m->size = (uint8_t)(selem * esize);
	m->store = (uint8_t)!l;
	m->base = (uint8_t)((enc >> 5) & 31);
	m->mode = EMU_ADDR_POST;
}

void emu_memop_decode(uint32_t enc, struct emu_memop *m)
{
	memset(m, 0, sizeof *m);
	if ((enc & 0x0a000000) != 0x08000000)
		return;   /* not in the load/store space (DC ZVA is done apart) */
	if ((enc & 0x3b000000) == 0x39000000)
		one_reg(enc, m, 'i');
	else if ((enc & 0x3b200c00) == 0x38000000)
		one_reg(enc, m, 's');
	else if ((enc & 0x3b200c00) == 0x38000400)
		one_reg(enc, m, 'p');
	else if ((enc & 0x3b200c00) == 0x38000800)
		one_reg(enc, m, 'u');
	else if ((enc & 0x3b200c00) == 0x38000c00)
		one_reg(enc, m, 'w');
	else if ((enc & 0x3b200c00) == 0x38200800)
		one_reg(enc, m, 'r');
	else if ((enc & 0x3b000000) == 0x18000000)
		literal(enc, m);
	else if ((enc & 0x3a000000) == 0x28000000)
		pair(enc, m);
	else if ((enc & 0x3f000000) == 0x08000000)
		exclusive(enc, m);
	else if ((enc & 0xbfbf0000) == 0x0c000000 || (enc & 0xbfa00000) == 0x0c800000)
		simd_multi(enc, m);
	else if ((enc & 0xbf9f0000) == 0x0d000000 || (enc & 0xbf800000) == 0x0d800000)
		simd_single(enc, m);
	else
		unknown(m);
}
