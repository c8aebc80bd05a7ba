/* The Capstone functions trawl calls, resolved from libcapstone at the first
 * call instead of at process start (see core/lazy.h): trawl is not linked
 * against libcapstone, so these definitions are the ones the emulator's
 * decoder and the disassembler (disasm.c) bind to. */
#if defined(TRAWL_HAVE_CAPSTONE)
#include <capstone/capstone.h>

#include "core/lazy.h"
#include "trawl/disasm.h"

#ifndef TRAWL_CAPSTONE_PATH
#define TRAWL_CAPSTONE_PATH NULL
#endif

/* The order of names[] and of the fields of fn must agree. */
static const char *const names[] = {
	"cs_open", "cs_close", "cs_option", "cs_disasm", "cs_free", "cs_malloc", "cs_disasm_iter",
	"cs_reg_name", NULL,
};

static struct {
	__typeof__(cs_open) *open;
	__typeof__(cs_close) *close;
	__typeof__(cs_option) *option;
	__typeof__(cs_disasm) *disasm;
	__typeof__(cs_free) *free;
	__typeof__(cs_malloc) *malloc;
	__typeof__(cs_disasm_iter) *disasm_iter;
	__typeof__(cs_reg_name) *reg_name;
} fn;

static struct lazy_lib capstone = {
	.label = "Capstone (the disassembler)",
	.path = TRAWL_CAPSTONE_PATH,
	.soname = "libcapstone.so.4",
	.names = names,
	.slots = (void **)&fn,
};

enum trawl_status trawl_disasm_load(struct trawl_error *err)
{
	return lazy_lib_load(&capstone, err);
}

/* cs_open comes before any other call on a handle: it loads the library. */
cs_err CAPSTONE_API cs_open(cs_arch arch, cs_mode mode, csh *handle)
{
	if (lazy_lib_load(&capstone, NULL) != TRAWL_OK)
		return CS_ERR_MEM;
	return fn.open(arch, mode, handle);
}

cs_err CAPSTONE_API cs_close(csh *handle)
{
	return capstone.state > 0 ? fn.close(handle) : CS_ERR_HANDLE;
}

cs_err CAPSTONE_API cs_option(csh handle, cs_opt_type type, size_t value)
{
	return fn.option(handle, type, value);
}

size_t CAPSTONE_API cs_disasm(csh handle, const uint8_t *code, size_t code_size, uint64_t address,
			      size_t count, cs_insn **insn)
{
	return fn.disasm(handle, code, code_size, address, count, insn);
}

void CAPSTONE_API cs_free(cs_insn *insn, size_t count)
{
	fn.free(insn, count);
}

cs_insn *CAPSTONE_API cs_malloc(csh handle)
{
	return fn.malloc(handle);
}

bool CAPSTONE_API cs_disasm_iter(csh handle, const uint8_t **code, size_t *size, uint64_t *address,
				 cs_insn *insn)
{
	return fn.disasm_iter(handle, code, size, address, insn);
}

const char *CAPSTONE_API cs_reg_name(csh handle, unsigned int reg_id)
{
	return fn.reg_name(handle, reg_id);
}
#endif
