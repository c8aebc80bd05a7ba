/* One disassembler set-up for every Tarmac writer (see trawl/disasm.h). */
#include "trawl/disasm.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(TRAWL_HAVE_CAPSTONE)
#include <capstone/capstone.h>
#endif

struct trawl_disasm {
#if defined(TRAWL_HAVE_CAPSTONE)
	csh a64, a32, t32;
#endif
	int ok;
};

void trawl_disasm_join(char *buf, size_t size, const char *mnemonic, const char *ops)
{
	if (ops && *ops)
		snprintf(buf, size, "%-8s %s", mnemonic, ops);
	else
		snprintf(buf, size, "%s", mnemonic);
}

enum trawl_status trawl_disasm_create(struct trawl_disasm **out, struct trawl_error *err)
{
	*out = NULL;
#if defined(TRAWL_HAVE_CAPSTONE)
	enum trawl_status st = trawl_disasm_load(err);
	if (st)
		return st;
	struct trawl_disasm *d = calloc(1, sizeof *d);
	if (!d)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &d->a64) != CS_ERR_OK ||
	    cs_open(CS_ARCH_ARM, CS_MODE_ARM, &d->a32) != CS_ERR_OK ||
	    cs_open(CS_ARCH_ARM, CS_MODE_THUMB, &d->t32) != CS_ERR_OK) {
		trawl_disasm_destroy(d);
		return trawl_error_set(err, TRAWL_ERR_INTERNAL, "cannot start Capstone");
	}
	d->ok = 1;
	*out = d;
	return TRAWL_OK;
#else
	return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED, "built without Capstone");
#endif
}

void trawl_disasm_destroy(struct trawl_disasm *d)
{
	if (!d)
		return;
#if defined(TRAWL_HAVE_CAPSTONE)
	if (d->a64)
		cs_close(&d->a64);
	if (d->a32)
		cs_close(&d->a32);
	if (d->t32)
		cs_close(&d->t32);
#endif
	free(d);
}

int trawl_disasm_text(struct trawl_disasm *d, enum trawl_iset iset, uint64_t pc, uint32_t enc,
		      unsigned bytes, char *buf, size_t size)
{
#if defined(TRAWL_HAVE_CAPSTONE)
	if (d && d->ok && (bytes == 2 || bytes == 4)) {
		/* memory order: a 32-bit T32 instruction is two halfwords, the
		 * first (high 16 bits of enc) at the lower address */
		uint32_t v = iset == TRAWL_ISET_T32 && bytes == 4 ? (enc >> 16) | (enc << 16) : enc;
		uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
		csh h = iset == TRAWL_ISET_A64 ? d->a64 : iset == TRAWL_ISET_T32 ? d->t32 : d->a32;
		cs_insn *ins = NULL;
		size_t n = cs_disasm(h, b, bytes, pc, 1, &ins);
		if (n) {
			trawl_disasm_join(buf, size, ins[0].mnemonic, ins[0].op_str);
			cs_free(ins, n);
			return 1;
		}
	}
#else
	(void)d; (void)iset; (void)pc; (void)enc; (void)bytes;
#endif
	snprintf(buf, size, "<undefined>");
	return 0;
}
