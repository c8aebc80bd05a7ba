/* Lua loaded at the first script (lua-lazy.c). */
#ifndef TRAWL_CORE_LUA_LAZY_H
#define TRAWL_CORE_LUA_LAZY_H

#include "trawl/status.h"

/* Load liblua5.4 (once); TRAWL_ERR_UNSUPPORTED naming why when it cannot. */
enum trawl_status lua_lazy_load(struct trawl_error *err);

#if defined(TRAWL_HAVE_LUA)
#include <lua.h>

/* The functions a per-event loop calls, straight into the library (the
 * lua_* names trawl calls go through a wrapper each: a call and a jump). Valid once
 * lua_lazy_load has succeeded. */
struct lua_lazy_hot {
	void (*pushvalue)(lua_State *L, int idx);
	void (*pushinteger)(lua_State *L, lua_Integer n);
	void (*rawset)(lua_State *L, int idx);
	void (*callk)(lua_State *L, int nargs, int nresults, lua_KContext ctx, lua_KFunction k);
	int (*toboolean)(lua_State *L, int idx);
	void (*settop)(lua_State *L, int idx);
};
const struct lua_lazy_hot *lua_lazy_hot(void);
#endif

#endif
