/* Can an instruction write memory? Decoded from the encoding's class (Arm
 * ARM, top-level encoding tables of A64, A32 and T32) so that the reader
 * can notice memory writes a producer logs on loads (gem5 writes an MW
 * line for some loads with a value that is not memory). The answer errs
 * towards "may store": only instructions that certainly cannot write
 * memory (data processing, branches, loads, load-literal, ...) return 0.
 * Exception-generating instructions (SVC, HLT, BKPT) may store: semihosting
 * calls fill memory on the program's behalf. */
#include "tarmac-int.h"

/* A64 Loads and Stores group (op0 bit 27 = 1, bit 25 = 0). */
static int a64_ldst_stores(uint32_t e)
{
	unsigned b2928 = (e >> 28) & 3, v = (e >> 26) & 1, l = (e >> 22) & 1;
	if (b2928 == 0) {
		if (v) /* Advanced SIMD load/store multiple or single structures */
			return !l;
		/* compare and swap: CAS (bits 23, 21), CASP (bit 21, size bit 31
		 * clear); LDXP/STXP have bit 21 and bit 31 set */
		if (((e >> 21) & 1) && (((e >> 23) & 1) || !(e >> 31)))
			return 1;
		return !l; /* exclusives, load-acquire/store-release */
	}
	if (b2928 == 1) /* literal loads (bit 24 = 0); else LDAPR/STLUR, MOPS, MTE */
		return (e >> 24) & 1;
	if (b2928 == 2) /* load/store pair, every addressing form */
		return !l;
	/* load/store register, every addressing form */
	if (!((e >> 24) & 1) && ((e >> 21) & 1) && ((e >> 10) & 3) == 0)
		return 1; /* atomic memory operations (LDADD, SWP, ...) */
	if (v) /* SIMD&FP: opc<0> is L (STR q has opc 10) */
		return !l;
	return ((e >> 22) & 3) == 0; /* opc 00: STR*, else loads and PRFM */
}

static int a64_may_store(uint32_t e)
{
	if (((e >> 25) & 5) == 4) /* x1x0: loads and stores */
		return a64_ldst_stores(e);
	if (((e >> 25) & 0xF) == 2) /* SVE: has stores (ST1*, STR z) */
		return 1;
	if (((e >> 25) & 0xF) == 0 && (e >> 31)) /* SME: stores of ZA */
		return 1;
	if ((e >> 24) == 0xD4) /* exception generation: SVC, HLT (semihosting) */
		return 1;
	if ((e >> 22) == 0x354) /* system: DC ZVA and other SYS operations */
		return 1;
	return 0;
}

static int a32_may_store(uint32_t e)
{
	unsigned op = (e >> 25) & 7, l = (e >> 20) & 1;
	if ((e >> 28) == 0xF) { /* unconditional: SRS, Advanced SIMD stores ... */
		if (((e >> 24) & 0xF) == 4 && !l) /* SIMD element/structure: L is bit 21 */
			return !((e >> 21) & 1);
		return op != 1 && op != 5; /* not SIMD data processing nor BLX */
	}
	switch (op) {
	case 0:
		if (((e >> 4) & 9) != 9) /* bits 7 and 4 */
			return 0;
		if ((e >> 5) & 3) /* extra load/store: STRH, STRD; LDRD has L 0 */
			return l ? 0 : ((e >> 5) & 3) != 2;
		if (((e >> 24) & 1) == 0) /* multiply */
			return 0;
		return ((e >> 23) & 1) ? !l : 1; /* LDREX/STREX family; SWP */
	case 2:
	case 4:
		return !l; /* load/store word/byte immediate; LDM/STM */
	case 3:
		return ((e >> 4) & 1) ? 0 : !l; /* register offset; bit 4: media */
	case 6:
		return !l; /* coprocessor / FP load and store (VSTR, VPUSH) */
	case 7:
		return ((e >> 24) & 1) != 0; /* SVC (semihosting) */
	default:
		return 0;
	}
}

static int t16_may_store(uint32_t h)
{
	switch (h >> 12) {
	case 0x5:
		return ((h >> 9) & 7) < 3; /* STR, STRH, STRB (register) */
	case 0x6:
	case 0x7:
	case 0x8:
	case 0x9:
	case 0xC:
		return !((h >> 11) & 1); /* immediate, SP-relative, STM */
	case 0xB:
		if (((h >> 9) & 3) == 2) /* PUSH / POP */
			return !((h >> 11) & 1);
		return (h & 0xFF00u) == 0xBE00u; /* BKPT (semihosting) */
	case 0xD:
		return (h & 0xFF00u) == 0xDF00u; /* SVC */
	default:
		return 0;
	}
}

static int t32_may_store(uint32_t e)
{
	uint32_t h1 = e >> 16;
	unsigned l = (h1 >> 4) & 1;
	if ((h1 & 0xFE00u) == 0xE800u) /* LDM/STM, SRS/RFE, dual, exclusive */
		return !l;
	if ((h1 & 0xFF10u) == 0xF900u) /* Advanced SIMD element/structure: L bit 21 */
		return !((h1 >> 5) & 1);
	if ((h1 & 0xFE00u) == 0xF800u) /* load/store single */
		return !l;
	if ((h1 & 0xEE00u) == 0xEC00u) /* coprocessor / FP load and store */
		return !l;
	return 0;
}

int tarmac_insn_may_store(uint32_t encoding, uint8_t iset, uint8_t width)
{
	switch (iset) {
	case TRAWL_ISET_A64:
		return a64_may_store(encoding);
	case TRAWL_ISET_A32:
		return a32_may_store(encoding);
	case TRAWL_ISET_T32:
		if (width == 2 || (width != 4 && encoding <= 0xFFFFu))
			return t16_may_store(encoding & 0xFFFFu);
		return t32_may_store(encoding);
	default:
		return 1; /* unknown: no claim */
	}
}
