/* Lua scripts over software events (sw-script.h). The event handed to a
 * script is one table per class, made once and refilled with the event's
 * fields; cpu, tid, time, name, subsys and event come from the current
 * event through the table's __index, so a filter that reads two fields
 * costs two table stores and a call.
 *
 * A runaway call is stopped by Lua's instruction-count hook, but the hook
 * costs every VM instruction about as much as a filter's whole work, so it
 * is set only on a call that has run for a while: the calls are numbered
 * (seq, odd while one runs), and a watchdog thread (core/watchdog.h) that
 * sees the same call running at two looks WATCH_MS apart sets the hook;
 * from then on the call's instructions are counted exactly and it stops at
 * the budget. A call that returns quickly never pays for the hook. */
#include "trawl/sw-script.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(TRAWL_HAVE_LUA)
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "core/lua-lazy.h"
#include "core/watchdog.h"

#define WATCH_MS 20
/* coroutines are counted all along, in steps of this (see co_make) */
#define CO_HOOK_EVERY 1000

struct trawl_script {
	lua_State *L;
	char path[256];
	const struct trawl_sw_class *classes;
	size_t nclasses;
	int *class_ref;              /* registry refs of the per-class tables, 0 not made */
	int (*key_ref)[TRAWL_SW_MAX_FIELDS]; /* per class: its field names as Lua strings */
	int keep_ref, on_event_ref;  /* LUA_NOREF when absent */
	int fields_ref;              /* the fields table */
	char (*field_names)[48];
	size_t nfields;
	const struct trawl_sw_event *cur;
	int cur_keep;
	uint64_t t0, budget;
	struct trawl_act *act;
	struct trawl_error *act_err; /* an engine error inside activity.open */
	/* the runaway guard: seq and armed are shared with the watchdog */
	_Atomic uint64_t seq;        /* odd while a call runs */
	_Atomic uint64_t armed;      /* the call the count hook was set for, 0 none */
	struct watchdog *wd;
	int arm_count;               /* the hook's first step: min(budget, INT_MAX) */
	uint64_t count_seq, used;    /* the call being counted, its instructions so far */
	int count;                   /* the hook's current step */
	uint64_t co_seq, co_used;    /* the same for coroutines */
};

static struct trawl_script *self(lua_State *L)
{
	return lua_touserdata(L, lua_upvalueindex(1));
}

static struct trawl_script *of_state(lua_State *L)
{
	void *ud;
	lua_getallocf(L, &ud);
	return ud;
}

static void hook(lua_State *L, lua_Debug *ar);

/* Main thread: turn the hook off. In this order against arm's (armed
 * first, then the hook), the two never end with armed == seq and the hook
 * off, which would leave a runaway call running. */
static void disarm(struct trawl_script *s)
{
	lua_sethook(s->L, NULL, 0, 0);
	atomic_thread_fence(memory_order_seq_cst);
	atomic_store(&s->armed, 0);
}

/* Watchdog thread: call seq has been running for at least WATCH_MS. Lua
 * allows lua_sethook to be called asynchronously: ldebug.c says it may be
 * called from a signal handler (only word and byte stores, the hook
 * pointer checked before every use), and lua.c does so on SIGINT to stop
 * a running chunk; from another thread it makes the same stores. The
 * call may have ended just now: the hook checks armed against seq. */
static void arm(void *ctx, uint64_t seq)
{
	struct trawl_script *s = ctx;
	if (atomic_load(&s->armed) == seq)
		return;
	atomic_store(&s->armed, seq);
	atomic_thread_fence(memory_order_seq_cst);
	lua_sethook(s->L, hook, LUA_MASKCOUNT, s->arm_count);
}

static void stop(lua_State *L, lua_Debug *ar, struct trawl_script *s)
{
	char msg[400];
	lua_getinfo(L, "Sl", ar);
	snprintf(msg, sizeof msg, "%s:%d: the script ran more than %llu instructions on one event: stopped "
		 "(--script-limit raises it)", s->path, ar->currentline, (unsigned long long)s->budget);
	lua_pushstring(L, msg);
	lua_error(L);
}

/* The count hook: raises a Lua error naming the script's line it stopped
 * at once the call has run its budget of counted instructions. */
static void hook(lua_State *L, lua_Debug *ar)
{
	struct trawl_script *s = of_state(L);
	uint64_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	if (L != s->L) {
		/* a coroutine (co_make) */
		if (s->co_seq != seq) {
			s->co_seq = seq;
			s->co_used = 0;
		}
		s->co_used += CO_HOOK_EVERY;
		if (s->co_used >= s->budget)
			stop(L, ar, s);
		return;
	}
	if (atomic_load(&s->armed) != seq) {
		/* set for a call that ended before the hook was in place */
		disarm(s);
		return;
	}
	if (s->count_seq != seq) {
		s->count_seq = seq;
		s->used = 0;
		s->count = s->arm_count;
	}
	s->used += (uint64_t)s->count;
	if (s->used >= s->budget)
		stop(L, ar, s);
	uint64_t left = s->budget - s->used;
	s->count = left < INT_MAX ? (int)left : INT_MAX;
	lua_sethook(L, hook, LUA_MASKCOUNT, s->count);
}

/* The allocator carries the script, so the hook can find it. */
static void *alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	(void)ud;
	(void)osize;
	if (!nsize) {
		free(ptr);
		return NULL;
	}
	return realloc(ptr, nsize);
}

/* Names are told apart by length and first letter before one memcmp:
 * this runs for every read of cpu, tid or time. */
static int e_index(lua_State *L)
{
	struct trawl_script *s = self(L);
	const struct trawl_sw_event *ev = s->cur;
	size_t n;
	const char *k = lua_tolstring(L, 2, &n);
	if (!ev || !k)
		return 0;
	const char *name = ev->cls->name, *colon;
	switch (n << 8 | (unsigned char)k[0]) {
	case 3 << 8 | 'c':
		if (memcmp(k, "cpu", 3))
			return 0;
		lua_pushinteger(L, ev->cpu);
		return 1;
	case 3 << 8 | 't':
		if (memcmp(k, "tid", 3))
			return 0;
		lua_pushinteger(L, ev->tid);
		return 1;
	case 4 << 8 | 't':
		if (memcmp(k, "time", 4))
			return 0;
		lua_pushinteger(L, (lua_Integer)(ev->time - s->t0));
		return 1;
	case 4 << 8 | 'n':
		if (memcmp(k, "name", 4))
			return 0;
		lua_pushstring(L, name);
		return 1;
	case 6 << 8 | 's':
		if (memcmp(k, "subsys", 6))
			return 0;
		colon = strchr(name, ':');
		lua_pushlstring(L, name, colon ? (size_t)(colon - name) : strlen(name));
		return 1;
	case 5 << 8 | 'e':
		if (memcmp(k, "event", 5))
			return 0;
		colon = strchr(name, ':');
		lua_pushstring(L, colon ? colon + 1 : "");
		return 1;
	}
	return 0;
}

/* activity.open(name [, key]) and activity.close(name [, key]); the key
 * defaults to the event's thread. */
static int act_call(lua_State *L, int open)
{
	struct trawl_script *s = self(L);
	const char *name = lua_tostring(L, 1);
	if (!name || !s->cur || !s->act) {
		lua_pushstring(L, !name ? "activity name expected (a string)" : "activity.open/close only work in on_event");
		return lua_error(L);
	}
	uint64_t key = lua_isnoneornil(L, 2) ? s->cur->tid : (uint64_t)lua_tointeger(L, 2);
	uint32_t act;
	if (trawl_act_add_span(s->act, name, &act, s->act_err)) {
		lua_pushstring(L, s->act_err->message);
		return lua_error(L);
	}
	if (open)
		trawl_act_open(s->act, act, key, s->cur, s->cur_keep);
	else
		trawl_act_close(s->act, act, key, s->cur);
	return 0;
}

static int act_open(lua_State *L)
{
	return act_call(L, 1);
}

static int act_close(lua_State *L)
{
	return act_call(L, 0);
}

static void open_libs(lua_State *L, int unsafe)
{
	if (unsafe) {
		luaL_openlibs(L);
		return;
	}
	static const luaL_Reg libs[] = {
		{ LUA_GNAME, luaopen_base }, { LUA_TABLIBNAME, luaopen_table }, { LUA_STRLIBNAME, luaopen_string },
		{ LUA_MATHLIBNAME, luaopen_math }, { LUA_UTF8LIBNAME, luaopen_utf8 }, { LUA_COLIBNAME, luaopen_coroutine },
	};
	for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
		luaL_requiref(L, libs[i].name, libs[i].func, 1);
		lua_pop(L, 1);
	}
	/* what reads files or compiles code from them */
	static const char *const gone[] = { "dofile", "loadfile", "load", "require" };
	for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
		lua_pushnil(L);
		lua_setglobal(L, gone[i]);
	}
}

/* A coroutine is a lua_State of its own, which the watchdog does not
 * know: coroutine.create and coroutine.wrap (the library's own, the
 * upvalue) are wrapped to set the count hook on each new coroutine for
 * good, the old way in steps of CO_HOOK_EVERY, so only scripts that use
 * coroutines pay for it there. wrap's result is a C closure whose first
 * upvalue is its coroutine. */
static int co_make(lua_State *L)
{
	lua_settop(L, 1);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, 1, 1);
	lua_State *co = lua_tothread(L, -1);
	if (!co && lua_getupvalue(L, -1, 1)) {
		co = lua_tothread(L, -1);
		lua_pop(L, 1);
	}
	if (co)
		lua_sethook(co, hook, LUA_MASKCOUNT, CO_HOOK_EVERY);
	return 1;
}

static void watch_coroutines(lua_State *L)
{
	if (lua_getglobal(L, LUA_COLIBNAME) == LUA_TTABLE) {
		static const char *const makers[] = { "create", "wrap" };
		for (size_t i = 0; i < 2; i++) {
			lua_getfield(L, -1, makers[i]);
			lua_pushcclosure(L, co_make, 1);
			lua_setfield(L, -2, makers[i]);
		}
	}
	lua_pop(L, 1);
}

static void set_api(struct trawl_script *s)
{
	lua_State *L = s->L;
	lua_createtable(L, 0, 2);
	lua_pushlightuserdata(L, s);
	lua_pushcclosure(L, act_open, 1);
	lua_setfield(L, -2, "open");
	lua_pushlightuserdata(L, s);
	lua_pushcclosure(L, act_close, 1);
	lua_setfield(L, -2, "close");
	lua_setglobal(L, "activity");
	/* the metatable of every event table */
	lua_createtable(L, 0, 1);
	lua_pushlightuserdata(L, s);
	lua_pushcclosure(L, e_index, 1);
	lua_setfield(L, -2, "__index");
	lua_setfield(L, LUA_REGISTRYINDEX, "trawl.event");
}

static int global_fn(lua_State *L, const char *name)
{
	lua_getglobal(L, name);
	if (lua_type(L, -1) == LUA_TFUNCTION)
		return luaL_ref(L, LUA_REGISTRYINDEX);
	lua_pop(L, 1);
	return LUA_NOREF;
}

/* fields = { name = function(e) ... end, ... }: the names, in the order
 * next() gives them (sorted afterwards, so output does not depend on it). */
static enum trawl_status read_fields(struct trawl_script *s, struct trawl_error *err)
{
	lua_State *L = s->L;
	lua_getglobal(L, "fields");
	if (lua_type(L, -1) != LUA_TTABLE) {
		lua_pop(L, 1);
		s->fields_ref = LUA_NOREF;
		return TRAWL_OK;
	}
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
		if (k && lua_type(L, -1) == LUA_TFUNCTION && strlen(k) < 48 && s->nfields < 64) {
			void *n = realloc(s->field_names, (s->nfields + 1) * sizeof *s->field_names);
			if (!n)
				return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
			s->field_names = n;
			strcpy(s->field_names[s->nfields++], k);
		}
		lua_pop(L, 1);
	}
	qsort(s->field_names, s->nfields, sizeof *s->field_names, (int (*)(const void *, const void *))strcmp);
	s->fields_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	return TRAWL_OK;
}

static enum trawl_status lua_fail(struct trawl_script *s, const struct trawl_sw_event *ev, struct trawl_error *err)
{
	const char *msg = lua_tostring(s->L, -1);
	if (ev)
		trawl_error_set(err, TRAWL_ERR_FORMAT, "%s (while processing %s at %llu ns, cpu %u, thread %u)",
				msg ? msg : "error", ev->cls->name, (unsigned long long)ev->time, ev->cpu, ev->tid);
	else
		trawl_error_set(err, TRAWL_ERR_FORMAT, "%s", msg ? msg : "error");
	lua_pop(s->L, 1);
	return TRAWL_ERR_FORMAT;
}

/* Every call into the script goes through here: seq is odd while it runs,
 * and a hook left from the call before is turned off. */
static int call(struct trawl_script *s, int nargs, int nres)
{
	if (atomic_load_explicit(&s->armed, memory_order_relaxed))
		disarm(s);
	uint64_t n = atomic_load_explicit(&s->seq, memory_order_relaxed) + 1;
	atomic_store_explicit(&s->seq, n, memory_order_relaxed);
	int r = lua_pcall(s->L, nargs, nres, 0);
	atomic_store_explicit(&s->seq, n + 1, memory_order_relaxed);
	return r;
}

enum trawl_status trawl_script_open(struct trawl_script **out, const char *path, const char *text, size_t len,
				    const struct trawl_sw_class *classes, size_t nclasses,
				    const struct trawl_script_options *opt, struct trawl_error *err)
{
	*out = NULL;
	enum trawl_status st = lua_lazy_load(err);
	if (st)
		return st;
	struct trawl_script *s = calloc(1, sizeof *s);
	if (!s || !(s->class_ref = calloc(nclasses + 1, sizeof *s->class_ref)) ||
	    !(s->key_ref = calloc(nclasses + 1, sizeof *s->key_ref))) {
		if (s)
			free(s->class_ref);
		free(s);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	snprintf(s->path, sizeof s->path, "%s", path);
	s->classes = classes;
	s->nclasses = nclasses;
	s->budget = opt && opt->max_instructions ? opt->max_instructions : TRAWL_SCRIPT_DEFAULT_INSTRUCTIONS;
	s->keep_ref = s->on_event_ref = s->fields_ref = LUA_NOREF;
	if (!(s->L = lua_newstate(alloc, s))) {
		trawl_script_close(s);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	s->arm_count = s->budget < INT_MAX ? (int)s->budget : INT_MAX;
	if ((st = watchdog_start(&s->wd, &s->seq, WATCH_MS, arm, s, err))) {
		trawl_script_close(s);
		return st;
	}
	open_libs(s->L, opt && opt->unsafe);
	watch_coroutines(s->L);
	set_api(s);
	char chunk[260];
	snprintf(chunk, sizeof chunk, "@%s", path);
	if (luaL_loadbufferx(s->L, text, len, chunk, "t") != LUA_OK || call(s, 0, 0) != LUA_OK) {
		st = lua_fail(s, NULL, err);
		trawl_script_close(s);
		return st;
	}
	s->keep_ref = global_fn(s->L, "keep");
	s->on_event_ref = global_fn(s->L, "on_event");
	if ((st = read_fields(s, err))) {
		trawl_script_close(s);
		return st;
	}
	*out = s;
	return TRAWL_OK;
}

int trawl_script_has_keep(const struct trawl_script *s)
{
	return s->keep_ref != LUA_NOREF;
}

int trawl_script_has_on_event(const struct trawl_script *s)
{
	return s->on_event_ref != LUA_NOREF;
}

void trawl_script_set_activities(struct trawl_script *s, struct trawl_act *act)
{
	s->act = act;
}

void trawl_script_set_origin(struct trawl_script *s, uint64_t t0)
{
	s->t0 = t0;
}

/* Push the event's table, refilled with ev's fields. */
static void push_event(struct trawl_script *s, const struct trawl_sw_event *ev)
{
	lua_State *L = s->L;
	size_t c = (size_t)(ev->cls - s->classes);
	s->cur = ev;
	if (c >= s->nclasses) {
		lua_createtable(L, 0, 0);
		luaL_setmetatable(L, "trawl.event");
		return;
	}
	if (!s->class_ref[c]) {
		lua_createtable(L, 0, (int)ev->cls->nfields);
		luaL_setmetatable(L, "trawl.event");
		s->class_ref[c] = luaL_ref(L, LUA_REGISTRYINDEX);
		for (unsigned i = 0; i < ev->cls->nfields && i < TRAWL_SW_MAX_FIELDS; i++) {
			lua_pushstring(L, ev->cls->fields[i].name);
			s->key_ref[c][i] = luaL_ref(L, LUA_REGISTRYINDEX);
		}
	}
	lua_rawgeti(L, LUA_REGISTRYINDEX, s->class_ref[c]);
	/* keys made once, stored raw: lua_setfield would intern each name
	 * again (a strcmp per field per event); the table has no __newindex */
	for (unsigned i = 0; i < ev->cls->nfields && i < TRAWL_SW_MAX_FIELDS; i++) {
		lua_rawgeti(L, LUA_REGISTRYINDEX, s->key_ref[c][i]);
		lua_pushinteger(L, (lua_Integer)ev->vals[i]);
		lua_rawset(L, -3);
	}
}

int trawl_script_keep(struct trawl_script *s, const struct trawl_sw_event *ev, struct trawl_error *err)
{
	if (s->keep_ref == LUA_NOREF)
		return 1;
	lua_rawgeti(s->L, LUA_REGISTRYINDEX, s->keep_ref);
	push_event(s, ev);
	if (call(s, 1, 1) != LUA_OK) {
		lua_fail(s, ev, err);
		return -1;
	}
	int k = lua_toboolean(s->L, -1);
	lua_pop(s->L, 1);
	return k;
}

enum trawl_status trawl_script_on_event(struct trawl_script *s, const struct trawl_sw_event *ev, int keep,
					struct trawl_error *err)
{
	if (s->on_event_ref == LUA_NOREF)
		return TRAWL_OK;
	lua_rawgeti(s->L, LUA_REGISTRYINDEX, s->on_event_ref);
	push_event(s, ev);
	s->cur_keep = keep;
	s->act_err = err;
	if (call(s, 1, 0) != LUA_OK)
		return lua_fail(s, ev, err);
	return TRAWL_OK;
}

size_t trawl_script_nfields(const struct trawl_script *s)
{
	return s->nfields;
}

const char *trawl_script_field_name(const struct trawl_script *s, size_t i)
{
	return i < s->nfields ? s->field_names[i] : NULL;
}

enum trawl_status trawl_script_field(struct trawl_script *s, size_t i, const struct trawl_sw_event *ev, char *buf,
				     size_t size, struct trawl_error *err)
{
	lua_State *L = s->L;
	buf[0] = 0;
	lua_rawgeti(L, LUA_REGISTRYINDEX, s->fields_ref);
	lua_getfield(L, -1, s->field_names[i]);
	lua_remove(L, -2);
	push_event(s, ev);
	if (call(s, 1, 1) != LUA_OK)
		return lua_fail(s, ev, err);
	int t = lua_type(L, -1);
	if (t == LUA_TBOOLEAN)
		snprintf(buf, size, "%s", lua_toboolean(L, -1) ? "true" : "false");
	else if (t == LUA_TNUMBER && lua_isinteger(L, -1))
		snprintf(buf, size, "%lld", (long long)lua_tointeger(L, -1));
	else if (t == LUA_TNUMBER)
		snprintf(buf, size, "%.17g", (double)lua_tonumber(L, -1));
	else if (t == LUA_TSTRING)
		snprintf(buf, size, "%s", lua_tostring(L, -1));
	lua_pop(L, 1);
	return TRAWL_OK;
}

void trawl_script_close(struct trawl_script *s)
{
	if (!s)
		return;
	watchdog_stop(s->wd);
	if (s->L)
		lua_close(s->L);
	free(s->class_ref);
	free(s->key_ref);
	free(s->field_names);
	free(s);
}

#else /* no Lua at build time */

struct trawl_script {
	int unused;
};

enum trawl_status trawl_script_open(struct trawl_script **out, const char *path, const char *text, size_t len,
				    const struct trawl_sw_class *classes, size_t nclasses,
				    const struct trawl_script_options *opt, struct trawl_error *err)
{
	(void)path, (void)text, (void)len, (void)classes, (void)nclasses, (void)opt;
	*out = NULL;
	return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED, "this trawl was built without Lua (liblua5.4-dev)");
}
int trawl_script_has_keep(const struct trawl_script *s) { (void)s; return 0; }
int trawl_script_has_on_event(const struct trawl_script *s) { (void)s; return 0; }
void trawl_script_set_activities(struct trawl_script *s, struct trawl_act *act) { (void)s, (void)act; }
void trawl_script_set_origin(struct trawl_script *s, uint64_t t0) { (void)s, (void)t0; }
int trawl_script_keep(struct trawl_script *s, const struct trawl_sw_event *ev, struct trawl_error *err)
{
	(void)s, (void)ev, (void)err;
	return 1;
}
enum trawl_status trawl_script_on_event(struct trawl_script *s, const struct trawl_sw_event *ev, int keep,
					struct trawl_error *err)
{
	(void)s, (void)ev, (void)keep, (void)err;
	return TRAWL_OK;
}
size_t trawl_script_nfields(const struct trawl_script *s) { (void)s; return 0; }
const char *trawl_script_field_name(const struct trawl_script *s, size_t i) { (void)s, (void)i; return NULL; }
enum trawl_status trawl_script_field(struct trawl_script *s, size_t i, const struct trawl_sw_event *ev, char *buf,
				     size_t size, struct trawl_error *err)
{
	(void)s, (void)i, (void)ev, (void)size, (void)err;
	buf[0] = 0;
	return TRAWL_OK;
}
void trawl_script_close(struct trawl_script *s) { (void)s; }

#endif
