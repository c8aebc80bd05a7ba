/* The Lua 5.4 functions trawl calls (lib/analysis/sw-script.c), resolved
 * from liblua5.4 at the first script instead of at process start (see
 * core/lazy.h): trawl is not linked against Lua, so a command without
 * --script never loads it. Generated from lua.h's declarations; the order
 * of names[] and of the fields of lazy_fn agree. */
#if defined(TRAWL_HAVE_LUA)
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "core/lazy.h"
#include "core/lua-lazy.h"

#ifndef TRAWL_LUA_PATH
#define TRAWL_LUA_PATH NULL
#endif

static const char *const names[] = {
	"lua_touserdata",
	"lua_getallocf",
	"lua_getinfo",
	"lua_error",
	"lua_tolstring",
	"lua_pushinteger",
	"lua_pushstring",
	"lua_pushlstring",
	"lua_type",
	"lua_tointegerx",
	"luaL_openlibs",
	"luaL_requiref",
	"lua_settop",
	"lua_pushnil",
	"lua_setglobal",
	"lua_createtable",
	"lua_pushlightuserdata",
	"lua_pushcclosure",
	"lua_setfield",
	"lua_getglobal",
	"luaL_ref",
	"lua_next",
	"lua_newstate",
	"lua_sethook",
	"luaL_loadbufferx",
	"lua_pcallk",
	"lua_rawgeti",
	"lua_toboolean",
	"lua_getfield",
	"lua_rotate",
	"lua_isinteger",
	"lua_tonumberx",
	"lua_close",
	"luaopen_base",
	"luaopen_table",
	"luaopen_string",
	"luaopen_math",
	"luaopen_utf8",
	"luaopen_coroutine",
	"lua_tothread",
	"lua_pushvalue",
	"lua_callk",
	"lua_getupvalue",
	"lua_gettop",
	"lua_copy",
	"lua_checkstack",
	"lua_rawset",
	"lua_rawget",
	"lua_setmetatable",
	"lua_getmetatable",
	"lua_rawgetp",
	"lua_rawsetp",
	"lua_rawseti",
	"luaL_where",
	"luaL_tolstring",
	"lua_gethookmask",
	"lua_gethookcount",
	"lua_gc",
	NULL,
};

static struct {
	__typeof__(lua_touserdata) *lua_touserdata;
	__typeof__(lua_getallocf) *lua_getallocf;
	__typeof__(lua_getinfo) *lua_getinfo;
	__typeof__(lua_error) *lua_error;
	__typeof__(lua_tolstring) *lua_tolstring;
	__typeof__(lua_pushinteger) *lua_pushinteger;
	__typeof__(lua_pushstring) *lua_pushstring;
	__typeof__(lua_pushlstring) *lua_pushlstring;
	__typeof__(lua_type) *lua_type;
	__typeof__(lua_tointegerx) *lua_tointegerx;
	__typeof__(luaL_openlibs) *luaL_openlibs;
	__typeof__(luaL_requiref) *luaL_requiref;
	__typeof__(lua_settop) *lua_settop;
	__typeof__(lua_pushnil) *lua_pushnil;
	__typeof__(lua_setglobal) *lua_setglobal;
	__typeof__(lua_createtable) *lua_createtable;
	__typeof__(lua_pushlightuserdata) *lua_pushlightuserdata;
	__typeof__(lua_pushcclosure) *lua_pushcclosure;
	__typeof__(lua_setfield) *lua_setfield;
	__typeof__(lua_getglobal) *lua_getglobal;
	__typeof__(luaL_ref) *luaL_ref;
	__typeof__(lua_next) *lua_next;
	__typeof__(lua_newstate) *lua_newstate;
	__typeof__(lua_sethook) *lua_sethook;
	__typeof__(luaL_loadbufferx) *luaL_loadbufferx;
	__typeof__(lua_pcallk) *lua_pcallk;
	__typeof__(lua_rawgeti) *lua_rawgeti;
	__typeof__(lua_toboolean) *lua_toboolean;
	__typeof__(lua_getfield) *lua_getfield;
	__typeof__(lua_rotate) *lua_rotate;
	__typeof__(lua_isinteger) *lua_isinteger;
	__typeof__(lua_tonumberx) *lua_tonumberx;
	__typeof__(lua_close) *lua_close;
	__typeof__(luaopen_base) *luaopen_base;
	__typeof__(luaopen_table) *luaopen_table;
	__typeof__(luaopen_string) *luaopen_string;
	__typeof__(luaopen_math) *luaopen_math;
	__typeof__(luaopen_utf8) *luaopen_utf8;
	__typeof__(luaopen_coroutine) *luaopen_coroutine;
	__typeof__(lua_tothread) *lua_tothread;
	__typeof__(lua_pushvalue) *lua_pushvalue;
	__typeof__(lua_callk) *lua_callk;
	__typeof__(lua_getupvalue) *lua_getupvalue;
	__typeof__(lua_gettop) *lua_gettop;
	__typeof__(lua_copy) *lua_copy;
	__typeof__(lua_checkstack) *lua_checkstack;
	__typeof__(lua_rawset) *lua_rawset;
	__typeof__(lua_rawget) *lua_rawget;
	__typeof__(lua_setmetatable) *lua_setmetatable;
	__typeof__(lua_getmetatable) *lua_getmetatable;
	__typeof__(lua_rawgetp) *lua_rawgetp;
	__typeof__(lua_rawsetp) *lua_rawsetp;
	__typeof__(lua_rawseti) *lua_rawseti;
	__typeof__(luaL_where) *luaL_where;
	__typeof__(luaL_tolstring) *luaL_tolstring;
	__typeof__(lua_gethookmask) *lua_gethookmask;
	__typeof__(lua_gethookcount) *lua_gethookcount;
	__typeof__(lua_gc) *lua_gc;
} lazy_fn;

static struct lazy_lib lua = {
	.label = "Lua (the scripting language)",
	.path = TRAWL_LUA_PATH,
	.soname = "liblua5.4.so.0",
	.names = names,
	.slots = (void **)&lazy_fn,
};

static struct lua_lazy_hot hot;

enum trawl_status lua_lazy_load(struct trawl_error *err)
{
	enum trawl_status st = lazy_lib_load(&lua, err);
	if (st == TRAWL_OK && !hot.pushvalue)
		hot = (struct lua_lazy_hot){ lazy_fn.lua_pushvalue, lazy_fn.lua_pushinteger, lazy_fn.lua_rawset,
					     lazy_fn.lua_callk, lazy_fn.lua_toboolean, lazy_fn.lua_settop };
	return st;
}

const struct lua_lazy_hot *lua_lazy_hot(void)
{
	return &hot;
}

void * lua_touserdata(lua_State *L, int idx)
{
	return lazy_fn.lua_touserdata(L, idx);
}

lua_Alloc lua_getallocf(lua_State *L, void **ud)
{
	return lazy_fn.lua_getallocf(L, ud);
}

int lua_getinfo(lua_State *L, const char *what, lua_Debug *ar)
{
	return lazy_fn.lua_getinfo(L, what, ar);
}

int lua_error(lua_State *L)
{
	return lazy_fn.lua_error(L);
}

const char * lua_tolstring(lua_State *L, int idx, size_t *len)
{
	return lazy_fn.lua_tolstring(L, idx, len);
}

void lua_pushinteger(lua_State *L, lua_Integer n)
{
	lazy_fn.lua_pushinteger(L, n);
}

const char * lua_pushstring(lua_State *L, const char *s)
{
	return lazy_fn.lua_pushstring(L, s);
}

const char * lua_pushlstring(lua_State *L, const char *s, size_t len)
{
	return lazy_fn.lua_pushlstring(L, s, len);
}

int lua_type(lua_State *L, int idx)
{
	return lazy_fn.lua_type(L, idx);
}

lua_Integer lua_tointegerx(lua_State *L, int idx, int *isnum)
{
	return lazy_fn.lua_tointegerx(L, idx, isnum);
}

void luaL_openlibs(lua_State *L)
{
	lazy_fn.luaL_openlibs(L);
}

void luaL_requiref(lua_State *L, const char *modname, lua_CFunction openf, int glb)
{
	lazy_fn.luaL_requiref(L, modname, openf, glb);
}

void lua_settop(lua_State *L, int idx)
{
	lazy_fn.lua_settop(L, idx);
}

void lua_pushnil(lua_State *L)
{
	lazy_fn.lua_pushnil(L);
}

void lua_setglobal(lua_State *L, const char *name)
{
	lazy_fn.lua_setglobal(L, name);
}

void lua_createtable(lua_State *L, int narr, int nrec)
{
	lazy_fn.lua_createtable(L, narr, nrec);
}

void lua_pushlightuserdata(lua_State *L, void *p)
{
	lazy_fn.lua_pushlightuserdata(L, p);
}

void lua_pushcclosure(lua_State *L, lua_CFunction fn, int n)
{
	lazy_fn.lua_pushcclosure(L, fn, n);
}

void lua_setfield(lua_State *L, int idx, const char *k)
{
	lazy_fn.lua_setfield(L, idx, k);
}

int lua_getglobal(lua_State *L, const char *name)
{
	return lazy_fn.lua_getglobal(L, name);
}

int luaL_ref(lua_State *L, int t)
{
	return lazy_fn.luaL_ref(L, t);
}

int lua_next(lua_State *L, int idx)
{
	return lazy_fn.lua_next(L, idx);
}

lua_State * lua_newstate(lua_Alloc f, void *ud)
{
	return lazy_fn.lua_newstate(f, ud);
}

void lua_sethook(lua_State *L, lua_Hook func, int mask, int count)
{
	lazy_fn.lua_sethook(L, func, mask, count);
}

int luaL_loadbufferx(lua_State *L, const char *buff, size_t sz, const char *name, const char *mode)
{
	return lazy_fn.luaL_loadbufferx(L, buff, sz, name, mode);
}

int lua_pcallk(lua_State *L, int nargs, int nresults, int errfunc, lua_KContext ctx, lua_KFunction k)
{
	return lazy_fn.lua_pcallk(L, nargs, nresults, errfunc, ctx, k);
}


int lua_rawgeti(lua_State *L, int idx, lua_Integer n)
{
	return lazy_fn.lua_rawgeti(L, idx, n);
}

int lua_toboolean(lua_State *L, int idx)
{
	return lazy_fn.lua_toboolean(L, idx);
}

int lua_getfield(lua_State *L, int idx, const char *k)
{
	return lazy_fn.lua_getfield(L, idx, k);
}

void lua_rotate(lua_State *L, int idx, int n)
{
	lazy_fn.lua_rotate(L, idx, n);
}

int lua_isinteger(lua_State *L, int idx)
{
	return lazy_fn.lua_isinteger(L, idx);
}

lua_Number lua_tonumberx(lua_State *L, int idx, int *isnum)
{
	return lazy_fn.lua_tonumberx(L, idx, isnum);
}

void lua_close(lua_State *L)
{
	lazy_fn.lua_close(L);
}

int luaopen_base(lua_State *L)
{
	return lazy_fn.luaopen_base(L);
}

int luaopen_table(lua_State *L)
{
	return lazy_fn.luaopen_table(L);
}

int luaopen_string(lua_State *L)
{
	return lazy_fn.luaopen_string(L);
}

int luaopen_math(lua_State *L)
{
	return lazy_fn.luaopen_math(L);
}

int luaopen_utf8(lua_State *L)
{
	return lazy_fn.luaopen_utf8(L);
}

int luaopen_coroutine(lua_State *L)
{
	return lazy_fn.luaopen_coroutine(L);
}


lua_State * lua_tothread(lua_State *L, int idx)
{
	return lazy_fn.lua_tothread(L, idx);
}

void lua_pushvalue(lua_State *L, int idx)
{
	lazy_fn.lua_pushvalue(L, idx);
}

void lua_callk(lua_State *L, int nargs, int nresults, lua_KContext ctx, lua_KFunction k)
{
	lazy_fn.lua_callk(L, nargs, nresults, ctx, k);
}

const char * lua_getupvalue(lua_State *L, int funcindex, int n)
{
	return lazy_fn.lua_getupvalue(L, funcindex, n);
}

int lua_gettop(lua_State *L)
{
	return lazy_fn.lua_gettop(L);
}

void lua_copy(lua_State *L, int fromidx, int toidx)
{
	lazy_fn.lua_copy(L, fromidx, toidx);
}

int lua_checkstack(lua_State *L, int n)
{
	return lazy_fn.lua_checkstack(L, n);
}

void lua_rawset(lua_State *L, int idx)
{
	lazy_fn.lua_rawset(L, idx);
}

int lua_rawget(lua_State *L, int idx)
{
	return lazy_fn.lua_rawget(L, idx);
}

int lua_setmetatable(lua_State *L, int objindex)
{
	return lazy_fn.lua_setmetatable(L, objindex);
}

int lua_getmetatable(lua_State *L, int objindex)
{
	return lazy_fn.lua_getmetatable(L, objindex);
}

int lua_rawgetp(lua_State *L, int idx, const void *p)
{
	return lazy_fn.lua_rawgetp(L, idx, p);
}

void lua_rawsetp(lua_State *L, int idx, const void *p)
{
	lazy_fn.lua_rawsetp(L, idx, p);
}

void lua_rawseti(lua_State *L, int idx, lua_Integer n)
{
	lazy_fn.lua_rawseti(L, idx, n);
}

void luaL_where(lua_State *L, int lvl)
{
	lazy_fn.luaL_where(L, lvl);
}

const char *luaL_tolstring(lua_State *L, int idx, size_t *len)
{
	return lazy_fn.luaL_tolstring(L, idx, len);
}

int lua_gethookmask(lua_State *L)
{
	return lazy_fn.lua_gethookmask(L);
}

int lua_gethookcount(lua_State *L)
{
	return lazy_fn.lua_gethookcount(L);
}

/* Only the options that take no further argument (LUA_GCCOLLECT,
 * LUA_GCCOUNT, ...) are passed on: trawl calls no other. */
int lua_gc(lua_State *L, int what, ...)
{
	return lazy_fn.lua_gc(L, what);
}

#endif
