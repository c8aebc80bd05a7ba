/* Disassembling one instruction to the text a Tarmac line shows, for every
 * writer of Tarmac (the emulator, ETE to Tarmac): one set-up of the
 * disassembler (Capstone, loaded at first use) and one text style. */
#ifndef TRAWL_DISASM_H
#define TRAWL_DISASM_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/event.h"
#include "trawl/status.h"

struct trawl_disasm;

/* Load the disassembler library now, to report why it cannot be. */
enum trawl_status trawl_disasm_load(struct trawl_error *err);

/* A disassembler for A64, A32 and T32. */
enum trawl_status trawl_disasm_create(struct trawl_disasm **out, struct trawl_error *err);
void trawl_disasm_destroy(struct trawl_disasm *d);

/* The text of the instruction enc (bytes long: 2 or 4) at pc, in Fast
 * Models style (mnemonic padded to 8 columns, a space, the operands).
 * Returns 1, or 0 when it does not decode; buf then holds "<undefined>".
 * A 32-bit T32 encoding has its first halfword in the high 16 bits. */
int trawl_disasm_text(struct trawl_disasm *d, enum trawl_iset iset, uint64_t pc, uint32_t enc,
		      unsigned bytes, char *buf, size_t size);

/* The Fast Models style from a mnemonic and its operands ("" for none). */
void trawl_disasm_join(char *buf, size_t size, const char *mnemonic, const char *ops);

#endif
