/* The register catalogue: canonical storage registers and their aliases.
 *
 * Every register a trace names is mapped onto a canonical *storage register*
 * plus a byte range, so that aliases stay consistent: w3 is bytes 0-3 of x3,
 * AArch32 r3 is bytes 0-3 of x3, A64 s0/d0/q0/v0 and SVE z0 are the low
 * bytes of storage register V0 (256 bytes wide, the largest SVE vector),
 * AArch32 s1 is bytes 4-7 of V0 and d1 bytes 8-15 of V0, as the
 * architecture defines. Registers the catalogue does not know (system
 * registers) are interned by name with ids from TRAWL_REG_SYS_BASE up.
 */
#ifndef TRAWL_REG_H
#define TRAWL_REG_H

#include <stddef.h>
#include <stdint.h>

enum trawl_reg_id {
	TRAWL_REG_X0 = 0,       /* X0..X30 = 0..30 */
	TRAWL_REG_SP = 31,      /* current stack pointer (SP_ELn, MSP/PSP, r13 fold here) */
	TRAWL_REG_PC = 32,
	TRAWL_REG_PSR = 33,     /* CPSR / xPSR / NZCV, 8 bytes (Fast Models may print >32 bits) */
	TRAWL_REG_FPSR = 34,
	TRAWL_REG_FPCR = 35,
	TRAWL_REG_FPSCR = 36,
	TRAWL_REG_V0 = 40,      /* V0..V31 = 40..71, 256 bytes each (Q/D/S/H/B/Z views) */
	TRAWL_REG_P0 = 72,      /* P0..P31 = 72..103, 32 bytes each (SVE predicates) */
	TRAWL_REG_FFR = 104,
	TRAWL_REG_CORE_COUNT = 105,
	TRAWL_REG_SYS_BASE = 1024,
};

#define TRAWL_REG_V_BYTES 256u
#define TRAWL_REG_P_BYTES 32u
#define TRAWL_REG_SYS_BYTES 16u  /* room for 128-bit system registers */

/* A named view of a storage register: which bytes a name refers to, and how
 * a write through that name affects the rest of the register. */
struct trawl_reg_ref {
	uint32_t reg;           /* canonical storage register */
	uint16_t offset;        /* first byte */
	uint16_t size;          /* bytes named (0 = "as many as the value has", e.g. Z, P) */
	uint16_t zext;          /* writes zero bytes up to here (0 = no zero-extension) */
};

/* The architectural state a register name is read in. AArch32 changes what
 * s/d names mean and makes r-registers 32-bit. */
enum trawl_reg_state {
	TRAWL_REG_STATE_GUESS = 0,  /* decide from the name (r0 -> AArch32, x0 -> AArch64) */
	TRAWL_REG_STATE_A64,
	TRAWL_REG_STATE_A32,
};

/* Map a register name (case-insensitive, e.g. "x3", "W3", "r14_svc",
 * "SP_EL3", "q0", "V0", "z31", "p7", "cpsr") to its storage view.
 * Returns 1 on success, 0 when the name is not a core/FP/SVE register (the
 * caller then treats it as a system register). */
int trawl_reg_parse(const char *name, size_t len, enum trawl_reg_state state,
		    struct trawl_reg_ref *out);

/* Name and width in bytes of a canonical storage register (core ids only). */
const char *trawl_reg_name(uint32_t reg);
uint32_t trawl_reg_width(uint32_t reg);

/* The name of a core storage register as an instruction in that state
 * calls it, the one naming every command shows: in AArch32 (a32 != 0) the
 * low halves of x0-x12 are r0-r12 and that of x14 is lr (sp and pc are
 * their own registers); otherwise trawl_reg_name. NULL for ids that are
 * not core registers. */
const char *trawl_reg_state_name(uint32_t reg, int a32);

/* How many bytes of a register to display, least significant first, given
 * its storage width and which bytes are known (known[i] != 0). Returns 0
 * when no shown byte is known. Bytes below the returned width that are
 * unknown are real gaps and should be shown as such (??); bytes above it
 * were never written. a32: the core is in AArch32 state (r-registers are 32
 * bits). The one rule trawl regs and the browser share. */
uint32_t trawl_reg_shown_width(uint32_t reg, const uint8_t *known, uint32_t width, int a32);

/* Interned system-register names: id = TRAWL_REG_SYS_BASE + index. */
struct trawl_reg_names {
	size_t count;
	char **names;
	/* private: open-addressing hash of indexes */
	uint32_t *slots;
	size_t nslots;
};

void trawl_reg_names_init(struct trawl_reg_names *t);
void trawl_reg_names_release(struct trawl_reg_names *t);
/* Find or add a name (case kept as first seen, compared case-insensitively).
 * Returns the register id, or 0 with no change on allocation failure
 * (0 is X0, never a system register id, so it is unambiguous). */
uint32_t trawl_reg_names_intern(struct trawl_reg_names *t, const char *name, size_t len);
/* Look up without adding; returns 0 when absent. */
uint32_t trawl_reg_names_find(const struct trawl_reg_names *t, const char *name, size_t len);
/* Name for any register id (core or interned); "?" when unknown. */
const char *trawl_reg_names_get(const struct trawl_reg_names *t, uint32_t reg);

#endif
