/* Branch classification from instruction encodings (A64, A32, T32).
 *
 * Only what call detection needs: does this instruction link (a call), is it
 * one of the usual ways of returning, does it return from an exception, and
 * for direct branches where it goes. Encodings are from the Arm
 * Architecture Reference Manual's decode tables:
 *
 *  A64  BL        1001 01ii ... (imm26)        B      0001 01ii ...
 *       B.cond    0101 0100 ... 0 cond         CBZ/CBNZ x011 010x, TBZ/TBNZ x011 011x
 *       uncond. branch (register): 1101 011 opc(4) 11111 op3(6) Rn op4
 *         opc 0000 BR, 0001 BLR, 0010 RET, 0100 ERET, 1000 BRAA/B, 1001 BLRAA/B
 *       SVC/HVC/SMC 1101 0100 000 imm16 000 01/10/11
 *  A32  (cond != 1111) B 1010, BL 1011, BX 0001 0010 1111 1111 1111 0001 Rm,
 *       BLX(reg) .. 0011 Rm, LDM with bit 15 in the list, LDR with Rt = pc,
 *       data processing with Rd = pc (MOV pc,lr; SUBS pc,lr,#4), SVC 1111;
 *       cond = 1111: BLX(imm) 101H, RFE 100P U0W1.
 *  T32  16-bit: BX/BLX 0100 0111 L Rm 000, POP 1011 110P, B<c> 1101, B 11100,
 *       CB{N}Z 1011 x0x1, MOV/ADD pc 0100 01x0 1 Rm 111, SVC 1101 1111;
 *       32-bit (hw1:hw2): BL 11110 .. 11x1, BLX 11110 .. 11x0, B.W 10x1/10x0,
 *       LDM/POP.W with bit 15, LDR pc, TBB/TBH, SUBS pc,lr (incl. ERET).
 */
#include "trawl/calls.h"

#include "analysis-int.h"

static int64_t sext(uint64_t v, unsigned bits)
{
	uint64_t m = 1ull << (bits - 1);
	v &= (1ull << bits) - 1;
	return (int64_t)((v ^ m) - m);
}

static enum trawl_branch_kind set(struct trawl_branch *o, enum trawl_branch_kind k,
				  int indirect, unsigned reg, uint64_t target)
{
	o->kind = (uint8_t)k;
	o->indirect = (uint8_t)indirect;
	o->reg = (uint8_t)reg;
	o->conditional = 0;
	o->target = target;
	return k;
}

static enum trawl_branch_kind set_cond(struct trawl_branch *o, enum trawl_branch_kind k, int c)
{
	o->conditional = (uint8_t)c;
	return k;
}

static enum trawl_branch_kind decode_a64(uint32_t e, uint64_t pc, struct trawl_branch *o)
{
	/* every branch, exception and system encoding has op0 (bits 28:26)
	 * = 101: most instructions leave here */
	if (trawl_branch_a64_plain(e))
		return set(o, TRAWL_BR_NONE, 0, 0xff, 0);
	if ((e & 0x7C000000u) == 0x14000000u) { /* B / BL */
		uint64_t t = pc + (uint64_t)(sext(e & 0x03FFFFFFu, 26) * 4);
		return set(o, (e & 0x80000000u) ? TRAWL_BR_CALL : TRAWL_BR_BRANCH, 0, 0xff, t);
	}
	if ((e & 0xFF000010u) == 0x54000000u) /* B.cond */
		return set_cond(o, set(o, TRAWL_BR_BRANCH, 0, 0xff, pc + (uint64_t)(sext(e >> 5, 19) * 4)),
			    ((e & 0xF) & 0xE) != 0xE);
	if ((e & 0x7E000000u) == 0x34000000u) /* CBZ/CBNZ */
		return set_cond(o, set(o, TRAWL_BR_BRANCH, 0, 0xff, pc + (uint64_t)(sext(e >> 5, 19) * 4)), 1);
	if ((e & 0x7E000000u) == 0x36000000u) /* TBZ/TBNZ */
		return set_cond(o, set(o, TRAWL_BR_BRANCH, 0, 0xff, pc + (uint64_t)(sext(e >> 5, 14) * 4)), 1);
	if ((e >> 25) == 0x6Bu && ((e >> 16) & 0x1F) == 0x1F) {
		unsigned opc = (e >> 21) & 0xF, rn = (e >> 5) & 0x1F;
		switch (opc) {
		case 0x0: case 0x8: return set(o, TRAWL_BR_BRANCH, 1, rn, 0);
		case 0x1: case 0x9: return set(o, TRAWL_BR_CALL, 1, rn, 0);
		case 0x2: return set(o, TRAWL_BR_RETURN, 1, rn == 31 ? 30 : rn, 0); /* RET, RETAA */
		case 0x4: return set(o, TRAWL_BR_EXC_RETURN, 1, 0xff, 0);          /* ERET, ERETAA */
		default: break;
		}
	}
	if ((e & 0xFFE00000u) == 0xD4000000u && (e & 3) != 0) /* SVC/HVC/SMC */
		return set(o, TRAWL_BR_EXC_CALL, 0, 0xff, 0);
	return set(o, TRAWL_BR_NONE, 0, 0xff, 0);
}

/* Masks in an order where no earlier pattern can swallow a later one: the
 * unconditional space (cond 1111), branches, then loads and data processing
 * that write PC. Only the usual return idioms (BX LR, MOV PC, LR, a load of
 * PC through SP) are returns; any other write to PC is a plain branch, so
 * call detection does not close frames on computed jumps. */
static enum trawl_branch_kind decode_a32(uint32_t e, uint64_t pc, struct trawl_branch *o)
{
	unsigned cond = e >> 28;
	if (cond == 0xF) {
		if ((e & 0x0E000000u) == 0x0A000000u) { /* BLX imm: H is bit 24 */
			uint64_t t = pc + 8 + (uint64_t)(sext(e & 0x00FFFFFFu, 24) * 4) +
				     ((e >> 23) & 2);
			return set(o, TRAWL_BR_CALL, 0, 0xff, t);
		}
		if ((e & 0x0E50FFFFu) == 0x08100A00u) /* RFE */
			return set(o, TRAWL_BR_EXC_RETURN, 1, 0xff, 0);
		return set(o, TRAWL_BR_NONE, 0, 0xff, 0);
	}
	if ((e & 0x0E000000u) == 0x0A000000u) { /* B / BL */
		uint64_t t = pc + 8 + (uint64_t)(sext(e & 0x00FFFFFFu, 24) * 4);
		return set(o, (e & 0x01000000u) ? TRAWL_BR_CALL : TRAWL_BR_BRANCH, 0, 0xff, t);
	}
	if ((e & 0x0FFFFFD0u) == 0x012FFF10u) { /* BX / BLX register */
		unsigned rm = e & 0xF;
		if (e & 0x20)
			return set(o, TRAWL_BR_CALL, 1, rm, 0);
		return set(o, rm == 14 ? TRAWL_BR_RETURN : TRAWL_BR_BRANCH, 1, rm, 0);
	}
	if ((e & 0x0FFFFFFFu) == 0x0160006Eu) /* ERET */
		return set(o, TRAWL_BR_EXC_RETURN, 1, 0xff, 0);
	if ((e & 0x0F000000u) == 0x0F000000u) /* SVC */
		return set(o, TRAWL_BR_EXC_CALL, 0, 0xff, 0);
	if ((e & 0x0E108000u) == 0x08108000u) { /* LDM with pc in the list */
		unsigned rn = (e >> 16) & 0xF;
		if (e & 0x00400000u) /* LDM ..^ with pc: copies SPSR, an exception return */
			return set(o, TRAWL_BR_EXC_RETURN, 1, 0xff, 0);
		return set(o, rn == 13 ? TRAWL_BR_RETURN : TRAWL_BR_BRANCH, 1, 0xff, 0);
	}
	if ((e & 0x0C50F000u) == 0x0410F000u) { /* LDR pc, [...] */
		unsigned rn = (e >> 16) & 0xF;
		return set(o, rn == 13 ? TRAWL_BR_RETURN : TRAWL_BR_BRANCH, 1, 0xff, 0);
	}
	if ((e & 0x0C00F000u) == 0x0000F000u) { /* data processing writing pc */
		unsigned op = (e >> 21) & 0xF;
		int s = (e >> 20) & 1, imm = (e >> 25) & 1;
		if ((op & 0xC) == 0x8)
			return set(o, TRAWL_BR_NONE, 0, 0xff, 0); /* TST..CMN: no result */
		if ((e & 0x02000090u) == 0x00000090u)
			return set(o, TRAWL_BR_NONE, 0, 0xff, 0); /* multiply, extra loads */
		if (s)
			return set(o, TRAWL_BR_EXC_RETURN, 1, 0xff, 0); /* MOVS pc,lr; SUBS pc,lr,#4 */
		if (op == 0xD && !imm && (e & 0xFF0u) == 0 && (e & 0xF) == 14)
			return set(o, TRAWL_BR_RETURN, 1, 14, 0); /* MOV pc, lr */
		return set(o, TRAWL_BR_BRANCH, 1, 0xff, 0);
	}
	return set(o, TRAWL_BR_NONE, 0, 0xff, 0);
}

static enum trawl_branch_kind decode_t16(uint32_t e, uint64_t pc, struct trawl_branch *o)
{
	e &= 0xFFFF;
	if ((e & 0xFF07u) == 0x4700u) { /* BX / BLX register */
		unsigned rm = (e >> 3) & 0xF;
		if (e & 0x80)
			return set(o, TRAWL_BR_CALL, 1, rm, 0);
		return set(o, rm == 14 ? TRAWL_BR_RETURN : TRAWL_BR_BRANCH, 1, rm, 0);
	}
	if ((e & 0xFF00u) == 0xBD00u) /* POP {..., pc} */
		return set(o, TRAWL_BR_RETURN, 1, 0xff, 0);
	if ((e & 0xFF00u) == 0xDF00u) /* SVC */
		return set(o, TRAWL_BR_EXC_CALL, 0, 0xff, 0);
	if ((e & 0xF000u) == 0xD000u && (e & 0x0E00u) != 0x0E00u) /* B<c> */
		return set_cond(o, set(o, TRAWL_BR_BRANCH, 0, 0xff, pc + 4 + (uint64_t)(sext(e & 0xFF, 8) * 2)), 1);
	if ((e & 0xF800u) == 0xE000u) /* B */
		return set(o, TRAWL_BR_BRANCH, 0, 0xff, pc + 4 + (uint64_t)(sext(e & 0x7FF, 11) * 2));
	if ((e & 0xF500u) == 0xB100u) { /* CB{N}Z */
		uint64_t off = (((e >> 9) & 1) << 6) | (((e >> 3) & 0x1F) << 1);
		return set_cond(o, set(o, TRAWL_BR_BRANCH, 0, 0xff, pc + 4 + off), 1);
	}
	if ((e & 0xFD87u) == 0x4487u) { /* MOV pc, Rm / ADD pc, Rm */
		unsigned rm = (e >> 3) & 0xF;
		if ((e & 0x0200u) && rm == 14)
			return set(o, TRAWL_BR_RETURN, 1, 14, 0);
		return set(o, TRAWL_BR_BRANCH, 1, rm, 0);
	}
	return set(o, TRAWL_BR_NONE, 0, 0xff, 0);
}

/* The BL/BLX/B.W group shares one immediate layout, so its offset is decoded
 * once and the kind picked from h2; BLX aligns its target because it
 * switches to A32. B<c>.W with cond 111x is not a branch but the misc control
 * space, where only SUBS PC, LR (ERET) matters here. As in A32, only a load
 * of PC through SP counts as a return. */
static enum trawl_branch_kind decode_t32(uint32_t e, uint64_t pc, struct trawl_branch *o)
{
	uint32_t h1 = e >> 16, h2 = e & 0xFFFF;
	if ((h1 & 0xF800u) == 0xF000u && (h2 & 0x8000u)) {
		uint32_t s = (h1 >> 10) & 1, j1 = (h2 >> 13) & 1, j2 = (h2 >> 11) & 1;
		uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
		uint64_t imm25 = ((uint64_t)s << 24) | ((uint64_t)i1 << 23) | ((uint64_t)i2 << 22) |
				 ((uint64_t)(h1 & 0x3FF) << 12) | ((uint64_t)(h2 & 0x7FF) << 1);
		int64_t off = sext(imm25, 25);
		switch (h2 & 0xD000u) {
		case 0xD000u: /* BL */
			return set(o, TRAWL_BR_CALL, 0, 0xff, pc + 4 + (uint64_t)off);
		case 0xC000u: /* BLX imm: target word aligned, switches to A32 */
			return set(o, TRAWL_BR_CALL, 0, 0xff, ((pc + 4) & ~3ull) + (uint64_t)off);
		case 0x9000u: /* B.W */
			return set(o, TRAWL_BR_BRANCH, 0, 0xff, pc + 4 + (uint64_t)off);
		case 0x8000u: { /* B<c>.W, unless cond is 111x (misc control) */
			unsigned cond = (h1 >> 6) & 0xF;
			if ((cond & 0xE) == 0xE) {
				if (h1 == 0xF3DEu && (h2 & 0xFF00u) == 0x8F00u) /* SUBS pc,lr / ERET */
					return set(o, TRAWL_BR_EXC_RETURN, 1, 0xff, 0);
				break;
			}
			uint64_t imm21 = ((uint64_t)s << 20) | ((uint64_t)j2 << 19) |
					 ((uint64_t)j1 << 18) | ((uint64_t)(h1 & 0x3F) << 12) |
					 ((uint64_t)(h2 & 0x7FF) << 1);
			return set_cond(o, set(o, TRAWL_BR_BRANCH, 0, 0xff, pc + 4 + (uint64_t)sext(imm21, 21)), 1);
		}
		default:
			break;
		}
		return set(o, TRAWL_BR_NONE, 0, 0xff, 0);
	}
	/* LDMIA/LDMDB (POP.W) with pc in the list */
	if ((h1 & 0xFFD0u) == 0xE890u || (h1 & 0xFFD0u) == 0xE910u) {
		if (h2 & 0x8000u) {
			unsigned rn = h1 & 0xF;
			return set(o, rn == 13 ? TRAWL_BR_RETURN : TRAWL_BR_BRANCH, 1, 0xff, 0);
		}
		return set(o, TRAWL_BR_NONE, 0, 0xff, 0);
	}
	if ((h1 & 0xFFD0u) == 0xE810u || (h1 & 0xFFD0u) == 0xE990u) /* RFEDB / RFEIA */
		return set(o, TRAWL_BR_EXC_RETURN, 1, 0xff, 0);
	/* TBB/TBH */
	if ((h1 & 0xFFF0u) == 0xE8D0u && (h2 & 0xFFE0u) == 0xF000u)
		return set(o, TRAWL_BR_BRANCH, 1, 0xff, 0);
	/* LDR pc, [...] (immediate, register and literal forms) */
	if ((h1 & 0xFF70u) == 0xF850u && (h2 >> 12) == 0xF) {
		unsigned rn = h1 & 0xF;
		return set(o, rn == 13 ? TRAWL_BR_RETURN : TRAWL_BR_BRANCH, 1, 0xff, 0);
	}
	return set(o, TRAWL_BR_NONE, 0, 0xff, 0);
}

enum trawl_branch_kind trawl_branch_decode(uint32_t encoding, unsigned width,
					   enum trawl_iset iset, uint64_t pc,
					   struct trawl_branch *out)
{
	switch (iset) {
	case TRAWL_ISET_A64:
		return decode_a64(encoding, pc, out);
	case TRAWL_ISET_A32:
		decode_a32(encoding, pc, out);
		if (out->kind != TRAWL_BR_NONE && (encoding >> 28) < 0xE)
			out->conditional = 1;
		return (enum trawl_branch_kind)out->kind;
	case TRAWL_ISET_T32:
		if (width == 2)
			return decode_t16(encoding, pc, out);
		if (width == 4)
			return decode_t32(encoding, pc, out);
		/* width unknown: Thumb 32-bit encodings start with 0b111 and
		 * a non-zero op field */
		if (encoding > 0xFFFFu)
			return decode_t32(encoding, pc, out);
		return decode_t16(encoding, pc, out);
	default:
		return set(out, TRAWL_BR_NONE, 0, 0xff, 0);
	}
}

const char *trawl_branch_kind_name(enum trawl_branch_kind k)
{
	switch (k) {
	case TRAWL_BR_NONE: return "none";
	case TRAWL_BR_BRANCH: return "branch";
	case TRAWL_BR_CALL: return "call";
	case TRAWL_BR_RETURN: return "return";
	case TRAWL_BR_EXC_RETURN: return "exception return";
	case TRAWL_BR_EXC_CALL: return "exception call";
	}
	return "?";
}
