/* The Unicorn functions the emulator calls, resolved from libunicorn at the
 * first call instead of at process start (see core/lazy.h): trawl is not
 * linked against libunicorn, so these definitions are the ones the
 * emulator's calls bind to, with the prototypes of <unicorn/unicorn.h>. */
#if defined(TRAWL_HAVE_UNICORN)
#include <dlfcn.h>
#include <stdarg.h>
#include <unicorn/unicorn.h>

#include "core/lazy.h"
#include "emu/emu-int.h"

#ifndef TRAWL_UNICORN_PATH
#define TRAWL_UNICORN_PATH NULL
#endif

/* The order of names[] and of the fields of fn must agree. */
static const char *const names[] = {
	"uc_open", "uc_close", "uc_strerror", "uc_reg_write", "uc_reg_read", "uc_mem_write",
	"uc_mem_read", "uc_emu_start", "uc_emu_stop", "uc_hook_add", "uc_mem_map", "uc_mem_unmap",
	"uc_mem_protect", "uc_mem_regions", "uc_free", "uc_ctl", "uc_version", NULL,
};

static struct {
	__typeof__(uc_open) *open;
	__typeof__(uc_close) *close;
	__typeof__(uc_strerror) *strerror;
	__typeof__(uc_reg_write) *reg_write;
	__typeof__(uc_reg_read) *reg_read;
	__typeof__(uc_mem_write) *mem_write;
	__typeof__(uc_mem_read) *mem_read;
	__typeof__(uc_emu_start) *emu_start;
	__typeof__(uc_emu_stop) *emu_stop;
	__typeof__(uc_hook_add) *hook_add;
	__typeof__(uc_mem_map) *mem_map;
	__typeof__(uc_mem_unmap) *mem_unmap;
	__typeof__(uc_mem_protect) *mem_protect;
	__typeof__(uc_mem_regions) *mem_regions;
	__typeof__(uc_free) *free;
	__typeof__(uc_ctl) *ctl;
	__typeof__(uc_version) *version;
} fn;

static struct lazy_lib unicorn = {
	.label = "Unicorn (the emulator's CPU)",
	.path = TRAWL_UNICORN_PATH,
	.soname = "libunicorn.so.2",
	.names = names,
	.slots = (void **)&fn,
};

enum trawl_status emu_unicorn_load(struct trawl_error *err)
{
	return lazy_lib_load(&unicorn, err);
}

/* uc_open is the first call on every path: it loads the library, and
 * every later call can rely on the pointers. */
uc_err uc_open(uc_arch arch, uc_mode mode, uc_engine **uc)
{
	if (lazy_lib_load(&unicorn, NULL) != TRAWL_OK)
		return UC_ERR_HANDLE;
	return fn.open(arch, mode, uc);
}

const char *uc_strerror(uc_err code)
{
	if (lazy_lib_load(&unicorn, NULL) != TRAWL_OK)
		return "Unicorn could not be loaded";
	return fn.strerror(code);
}

uc_err uc_close(uc_engine *uc)
{
	emu_unicorn_regions_change(1);
	uc_err ue = fn.close(uc);
	emu_unicorn_regions_change(0);
	return ue;
}
uc_err uc_reg_write(uc_engine *uc, int regid, const void *value) { return fn.reg_write(uc, regid, value); }
uc_err uc_reg_read(uc_engine *uc, int regid, void *value) { return fn.reg_read(uc, regid, value); }
uc_err uc_mem_write(uc_engine *uc, uint64_t address, const void *bytes, size_t size)
{
	return fn.mem_write(uc, address, bytes, size);
}
uc_err uc_mem_read(uc_engine *uc, uint64_t address, void *bytes, size_t size)
{
	return fn.mem_read(uc, address, bytes, size);
}
uc_err uc_emu_start(uc_engine *uc, uint64_t begin, uint64_t until, uint64_t timeout, size_t count)
{
	return fn.emu_start(uc, begin, until, timeout, count);
}
uc_err uc_emu_stop(uc_engine *uc) { return fn.emu_stop(uc); }
/* the calls that change the regions: see unicorn-store.c */
uc_err uc_mem_map(uc_engine *uc, uint64_t address, size_t size, uint32_t perms)
{
	emu_unicorn_regions_change(1);
	uc_err ue = fn.mem_map(uc, address, size, perms);
	emu_unicorn_regions_change(0);
	return ue;
}
uc_err uc_mem_unmap(uc_engine *uc, uint64_t address, size_t size)
{
	emu_unicorn_regions_change(1);
	uc_err ue = fn.mem_unmap(uc, address, size);
	emu_unicorn_regions_change(0);
	return ue;
}
uc_err uc_mem_protect(uc_engine *uc, uint64_t address, size_t size, uint32_t perms)
{
	emu_unicorn_regions_change(1);
	uc_err ue = fn.mem_protect(uc, address, size, perms);
	emu_unicorn_regions_change(0);
	return ue;
}
uc_err uc_mem_regions(uc_engine *uc, uc_mem_region **regions, uint32_t *count)
{
	return fn.mem_regions(uc, regions, count);
}
uc_err uc_free(void *mem) { return fn.free(mem); }
unsigned int uc_version(unsigned int *major, unsigned int *minor) { return fn.version(major, minor); }

void *emu_unicorn_symbol(const char *name)
{
	if (lazy_lib_load(&unicorn, NULL) != TRAWL_OK)
		return NULL;
	return dlsym(unicorn.handle, name);
}

uc_err emu_uc_drop_tb(uc_engine *uc, uint64_t lo, uint64_t hi)
{
	return fn.ctl(uc, UC_CTL_WRITE(UC_CTL_TB_REMOVE_CACHE, 2), lo, hi);
}

/* Only UC_HOOK_INSN and UC_HOOK_TCG_OPCODE take arguments after `end`
 * (an instruction id; an opcode and flags); the emulator uses neither,
 * so they are refused rather than forwarded wrongly. */
uc_err uc_hook_add(uc_engine *uc, uc_hook *hh, int type, void *callback, void *user_data,
		   uint64_t begin, uint64_t end, ...)
{
	if (type & (UC_HOOK_INSN | UC_HOOK_TCG_OPCODE))
		return UC_ERR_ARG;
	return fn.hook_add(uc, hh, type, callback, user_data, begin, end);
}
#endif
