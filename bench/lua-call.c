/* The floor under a Lua filter's cost (bench-events.sh): keep(e) of the
 * script called N times from C through the same Lua 5.4 library trawl
 * loads (lib/core/lua-lazy.c), straight into the library as trawl's
 * batch loop calls it (lua_lazy_hot), on one table whose len changes at every
 * other call and whose cpu stays (as in the bench's trace, where half the
 * events carry a new len), with nothing else done: what a call into stock
 * Lua and the script's own body cost, whatever trawl does around them.
 * Prints nanoseconds per call (CPU time).
 *
 * usage: bench-lua-call SCRIPT N */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef TRAWL_HAVE_LUA
#include <lauxlib.h>
#include <lua.h>

#include "core/lua-lazy.h"

static void *alloc(void *ud, void *p, size_t osize, size_t nsize)
{
	(void)ud;
	(void)osize;
	if (!nsize) {
		free(p);
		return NULL;
	}
	return realloc(p, nsize);
}

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bench-lua-call SCRIPT N\n");
		return 2;
	}
	struct trawl_error err;
	trawl_error_clear(&err);
	if (lua_lazy_load(&err) != TRAWL_OK) {
		fprintf(stderr, "bench-lua-call: %s\n", err.message);
		return 1;
	}
	FILE *f = fopen(argv[1], "rb");
	static char text[1 << 16];
	size_t len = f ? fread(text, 1, sizeof text, f) : 0;
	if (f)
		fclose(f);
	long n = atol(argv[2]);
	lua_State *L = lua_newstate(alloc, NULL);
	if (!len || n <= 0 || !L || luaL_loadbufferx(L, text, len, argv[1], NULL) ||
	    lua_pcallk(L, 0, 0, 0, 0, NULL)) {
		fprintf(stderr, "bench-lua-call: cannot run %s\n", argv[1]);
		return 1;
	}
	lua_getglobal(L, "keep");  /* 1 */
	lua_createtable(L, 0, 4);  /* 2: e */
	lua_pushstring(L, "len");  /* 3 */
	lua_pushstring(L, "cpu");  /* 4 */
	lua_pushvalue(L, 4);
	lua_pushinteger(L, 1);
	lua_rawset(L, 2);
	const struct lua_lazy_hot *api = lua_lazy_hot();
	long kept = 0;
	double t0 = cpu_now();
	for (long i = 0; i < n; i++) {
		if (i & 1) {
			api->pushvalue(L, 3);
			api->pushinteger(L, (lua_Integer)(i & 255));
			api->rawset(L, 2);
		}
		api->pushvalue(L, 1);
		api->pushvalue(L, 2);
		api->callk(L, 1, 1, 0, NULL);
		kept += api->toboolean(L, -1);
		api->settop(L, 4);
	}
	double t = cpu_now() - t0;
	printf("%.1f\n", t / (double)n * 1e9);
	lua_close(L);
	return kept < 0;
}
#else
int main(void)
{
	fprintf(stderr, "bench-lua-call: built without Lua\n");
	return 1;
}
#endif
