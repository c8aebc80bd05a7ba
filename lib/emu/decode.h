/* Decoded instructions for the emulator's trace writer: what each
 * instruction writes, its disassembly, cached per PC. Private to lib/emu. */
#ifndef TRAWL_EMU_DECODE_H
#define TRAWL_EMU_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "emu/memop.h"
#include "trawl/status.h"

/* Register codes used in write sets. */
#define EMU_REG_SP 31
#define EMU_REG_CPSR 32
#define EMU_REG_FPCR 33
#define EMU_REG_FPSR 34
#define EMU_REG_TPIDR 35
#define EMU_REG_V0 64            /* V0..V31 = 64..95 */
#define EMU_REG_COUNT 96
#define EMU_REG_NONE 0xff

#define EMU_INSN_MAX_WRITES 8
#define EMU_TAIL_MIN 80

enum emu_insn_kind {
	EMU_INSN_PLAIN = 0,
	EMU_INSN_COND_BRANCH,    /* B.cond/CBZ/CBNZ/TBZ/TBNZ: IS when not taken */
	EMU_INSN_UNDEFINED,      /* Capstone could not decode it */
};

/* emu_insn.hook_bits */
#define EMU_HOOK_PLAIN_LINE 1u   /* plain_writes and not fp: its lines need no tests */
#define EMU_HOOK_MODELLED 2u     /* its memory accesses are computed (not EMU_MEM_UNKNOWN) */

struct emu_insn {
	uint64_t pc;
	uint32_t enc;
	uint8_t kind;
	uint8_t nwrites;
	uint8_t simd_mem;        /* vector load/store: merge its accesses */
	uint8_t no_reads;        /* store-exclusive: QEMU's compare-and-swap
	                            reads memory, the architecture does not */
	uint8_t fp;              /* FP/SIMD data processing: may set FPSR's
	                            cumulative flags (reported when they change) */
	uint8_t gpr_mem;         /* a plain general-purpose load or store (not
	                            exclusive, no load into XZR): the writer
	                            takes its values from the registers */
	uint8_t plain_writes;    /* 1: every register it writes is X0-X30 or SP;
	                            2: those, then the flags (CPSR) last; else 0:
	                            the cases the writer takes without tests */
	uint8_t dc_zva;          /* DC ZVA (its stores are not hooked) */
	uint8_t hook_bits;       /* EMU_HOOK_*: what the code hook's shortcut tests */
	uint8_t writes[EMU_INSN_MAX_WRITES];
	uint16_t tail_len;
	uint64_t fail_pc;        /* a conditional branch's pc + 4 (not taken: an IS
	                            line), else 1, which no next PC is */
	struct emu_memop mem;    /* its memory accesses, from the encoding */
	/* The IT line after "IT (<index>)": " <pc> <enc> O EL0t_n : <disasm>\n",
	 * stored in at least EMU_TAIL_MIN bytes (a multiple of 16) */
	const char *tail;
	uint8_t nx;              /* writes[0..nx): X0-X30 or SP (with plain_writes) */
	/* successors seen so far (the emulator's lookup shortcut): the
	 * instruction at pc + 4 and the last other one that followed;
	 * &emu_insn_none (pc 1, which no instruction has) until then */
	struct emu_insn *next_seq;
	struct emu_insn *next_jump;
};

struct emu_decoder;

extern struct emu_insn emu_insn_none;

enum trawl_status emu_decoder_create(struct emu_decoder **out, struct trawl_error *err);
void emu_decoder_destroy(struct emu_decoder *d);

/* Decode `enc` at `pc` into `out` (tail is not filled); writes the
 * disassembly ("mnemonic operands") to text. Used by the cache and tests. */
void emu_decode(struct emu_decoder *d, uint64_t pc, uint32_t enc, struct emu_insn *out,
		char *text, size_t textsz);

/* The cached decode of the instruction at pc, or NULL when not seen yet. */
struct emu_insn *emu_decoder_find(const struct emu_decoder *d, uint64_t pc);
/* Decode and remember; NULL when out of memory. */
struct emu_insn *emu_decoder_add(struct emu_decoder *d, uint64_t pc, uint32_t enc);

/* Decode `in` again from `enc` (its code was rewritten), in place, so
 * that pointers to it stay valid. 0 when out of memory. */
int emu_decoder_refresh(struct emu_decoder *d, struct emu_insn *in, uint32_t enc);
/* Call fn on every cached instruction at a PC in [lo, hi) (lo rounded
 * down to a word). */
void emu_decoder_visit(struct emu_decoder *d, uint64_t lo, uint64_t hi,
		       void (*fn)(struct emu_insn *, void *), void *arg);

/* Tarmac name of a register code ("X3", "SP_EL0", "cpsr", "q7"...). */
const char *emu_reg_name(unsigned code);

/* Two hex digits for every byte value: byte b is at emu_hex + 2 * b. */
extern const char emu_hex[513];

#endif
