/* Lua loaded at the first script (lua-lazy.c). */
#ifndef TRAWL_CORE_LUA_LAZY_H
#define TRAWL_CORE_LUA_LAZY_H

#include "trawl/status.h"

/* Load liblua5.4 (once); TRAWL_ERR_UNSUPPORTED naming why when it cannot. */
enum trawl_status lua_lazy_load(struct trawl_error *err);

#endif
