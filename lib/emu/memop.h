/* How an instruction reaches memory, decoded from its encoding, so that
 * the trace writer can compute its accesses without Unicorn's memory hooks
 * (any memory hook sends every load and store of the guest through QEMU's
 * slow path). Private to lib/emu. */
#ifndef TRAWL_EMU_MEMOP_H
#define TRAWL_EMU_MEMOP_H

#include <stdint.h>

enum emu_mem_class {
	EMU_MEM_NONE = 0,     /* no data access (PRFM, DC ZVA: see emu.c) */
	EMU_MEM_UNKNOWN,      /* a load/store this decoder does not model:
	                         the emulator takes it from memory hooks */
	EMU_MEM_GPR,          /* 1 or 2 general-purpose registers, one access each */
	EMU_MEM_VEC,          /* FP/SIMD: one contiguous range, values read
	                         after the instruction from its registers
	                         (nregs) or from guest memory */
};

enum emu_mem_addr {
	EMU_ADDR_IMM = 0,     /* base + imm (offset and pre-index forms) */
	EMU_ADDR_POST,        /* base (post-index: written back after) */
	EMU_ADDR_REG,         /* base + extend(Rm) << shift */
	EMU_ADDR_LIT,         /* pc + imm */
};

#define EMU_MEM_XZR 31        /* Rt = 31 is XZR for loads and stores */

struct emu_memop {
	uint8_t cls;          /* enum emu_mem_class */
	uint8_t mode;         /* enum emu_mem_addr */
	uint8_t base;         /* 0-30, 31 = SP */
	uint8_t rm;           /* EMU_ADDR_REG: index register (31 = XZR) */
	uint8_t ext;          /* EMU_ADDR_REG: option field (2 UXTW, 3 LSL, 6 SXTW, 7 SXTX) */
	uint8_t shift;        /* EMU_ADDR_REG: left shift of the index */
	uint8_t size;         /* GPR: bytes per register (1, 2, 4, 8); VEC: total bytes (<= 64) */
	uint8_t nregs;        /* GPR: 1 or 2; VEC: 1 or 2 when the bytes are
	                         those of Vt (then Vt2), size / nregs of each,
	                         in order (LDR, STR, LDP, STP), 0 when
	                         elements are spread over registers (LD1-LD4,
	                         ST1-ST4, single structures) */
	uint8_t rt, rt2;      /* GPR, VEC with nregs: the transfer registers */
	uint8_t store;
	uint8_t status;       /* store-exclusive: Ws + 1 (0 = not one) */
	int32_t imm;
};

/* Fill *m from the encoding (A64, "Loads and Stores" in the Arm ARM). */
void emu_memop_decode(uint32_t enc, struct emu_memop *m);

#endif
