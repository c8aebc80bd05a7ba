/* Lua scripts over software events (sw-script.h). The event handed to a
 * script is one table per class, into which each event's values are
 * stored from C: only the values the script's text names, the others
 * through the table's metatable (sw-script-tables.c).
 *
 * The calls are made a batch at a time: one lua_pcall of a C function
 * (run_batch) that stores each event's values and calls the script's
 * function for it with lua_call, so the protected call's setjmp is paid
 * once per batch, not per event.
 *
 * A runaway call is stopped by Lua's instruction-count hook, but the hook
 * costs every VM instruction about as much as a filter's whole work, so it
 * is set only on a call that has run for a while: the calls are numbered
 * (seq, odd while one runs), and a watchdog thread (core/watchdog.h) that
 * sees the same call running at two looks WATCH_MS apart sends the calling
 * thread a signal, whose handler sets the hook there (see arm); from then
 * on the call's instructions are counted exactly and it stops at the
 * budget. A call that returns quickly never pays for the hook. */
#include "trawl/sw-script.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(TRAWL_HAVE_LUA)
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "analysis/sw-script-tables.h"
#include "core/lua-lazy.h"
#include "core/watchdog.h"

#define WATCH_MS 20
/* The signal the watchdog sends: ignored by default, so one that arrives
 * after the last script closed and the old action is back does nothing. */
#define ARM_SIGNAL SIGURG
/* The main thread's stack between calls: keep and on_event (or nil). */
#define SLOT_KEEP 1
#define SLOT_ON_EVENT 2
/* coroutines are counted all along, in steps of this (see co_make) */
#define CO_HOOK_EVERY 1000

/* What run_batch works on. */
struct run {
	const struct trawl_sw_event *evs;
	size_t n, at;                /* at: the event being called */
	uint8_t *keep;               /* in: call keep for it; out: the verdict */
};

struct trawl_script {
	lua_State *L;
	char path[256];
	struct script_tables tab;    /* the tables e is (sw-script-tables.h) */
	struct run run;
	int has_keep, has_on_event;
	int fields_ref;              /* the fields table, LUA_NOREF when absent */
	char (*field_names)[48];
	size_t nfields;
	const struct trawl_sw_event *cur;
	int cur_keep;
	uint64_t budget;
	struct trawl_act *act;
	struct trawl_error *act_err; /* an engine error inside activity.open */
	/* the runaway guard: seq and armed are shared with the watchdog */
	_Atomic uint64_t seq;        /* odd while a call runs */
	_Atomic uint64_t armed;      /* the call the count hook was set for, 0 none */
	struct watchdog *wd;
	_Atomic unsigned long caller; /* the thread running the calls (a pthread_t) */
	int has_signal;              /* holds the signal handler (signal_take) */
	int arm_count;               /* the hook's first step: min(budget, INT_MAX) */
	uint64_t count_seq, used;    /* the call being counted, its instructions so far */
	int count;                   /* the hook's current step */
	uint64_t co_seq, co_used;    /* the same for coroutines */
	trawl_script_print_fn print; /* print(), or NULL: none */
	void *print_ctx;
	/* the memory bound (alloc): bytes held, the bound, the refusal line */
	size_t mem, mem_max, mem_refuse;
	int mem_over;                /* past mem_max: the hook collects and looks */
	int mem_step;                /* memory_hook's count is set: 1, or 2 over the guard's */
	int mem_refused;             /* an allocation was refused */
	/* A stop (runaway, memory) is final: the script could catch the
	 * error (pcall, coroutine.resume) and go on, so from then on every
	 * hook raises it again and every call returns it (stop_set). */
	int stopped;
	char stop_msg[400];
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
static void memory_hook(struct trawl_script *s);
static void stop_set(struct trawl_script *s, const char *msg);
static void memory_check(lua_State *L, lua_Debug *ar, struct trawl_script *s);

/* Main thread: turn the hook off. In this order against arm's (armed
 * first, then the hook), the two never end with armed == seq and the hook
 * off, which would leave a runaway call running. */
static void disarm(struct trawl_script *s)
{
	lua_sethook(s->L, NULL, 0, 0);
	atomic_thread_fence(memory_order_seq_cst);
	atomic_store(&s->armed, 0);
}

_Static_assert(sizeof(pthread_t) == sizeof(unsigned long), "pthread_t is stored as an unsigned long");

/* The script the current thread is calling into, for the signal handler. */
static _Thread_local struct trawl_script *running;

/* The calling thread, on ARM_SIGNAL: set the count hook if the call the
 * watchdog saw is still the one running. Lua allows lua_sethook in a
 * signal handler (ldebug.c says so of it, and lua.c calls it on SIGINT to
 * stop a running chunk). It is not done from
 * the watchdog thread itself: lua_sethook also marks every frame of the
 * running call (settraps), and those frames belong to this thread. */
static void on_arm_signal(int sig)
{
	(void)sig;
	int saved = errno;
	struct trawl_script *s = running;
	if (s && atomic_load(&s->armed) == atomic_load(&s->seq))
		lua_sethook(s->L, hook, LUA_MASKCOUNT, s->arm_count);
	errno = saved;
}

/* The handler is installed while any script is open, and the old action
 * put back after the last one closes. */
static pthread_mutex_t signal_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned signal_users;
static struct sigaction signal_old;

static int signal_take(void)
{
	int ok = 1;
	pthread_mutex_lock(&signal_lock);
	if (!signal_users) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_arm_signal;
		sa.sa_flags = SA_RESTART;
		sigfillset(&sa.sa_mask);
		ok = sigaction(ARM_SIGNAL, &sa, &signal_old) == 0;
	}
	if (ok)
		signal_users++;
	pthread_mutex_unlock(&signal_lock);
	return ok;
}

static void signal_give(void)
{
	pthread_mutex_lock(&signal_lock);
	if (signal_users && !--signal_users)
		sigaction(ARM_SIGNAL, &signal_old, NULL);
	pthread_mutex_unlock(&signal_lock);
}

/* Watchdog thread: call seq has been running for at least WATCH_MS. The
 * call may end before the signal lands: the handler and the hook check
 * armed against seq. */
static void arm(void *ctx, uint64_t seq)
{
	struct trawl_script *s = ctx;
	if (atomic_load(&s->armed) == seq)
		return;
	atomic_store(&s->armed, seq);
	atomic_thread_fence(memory_order_seq_cst);
	pthread_kill((pthread_t)atomic_load(&s->caller), ARM_SIGNAL);
}

/* The main thread's hook changes with the watchdog's signal held off, so
 * its handler's lua_sethook cannot fall between a read of the hook and
 * the write that follows, and be undone. */
static void arm_signal_hold(sigset_t *old)
{
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, ARM_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &block, old);
}

static void arm_signal_release(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Make the script's stop final (see stopped): the main thread's hook at
 * every instruction from now on. */
static void stop_set(struct trawl_script *s, const char *msg)
{
	if (!s->stopped)
		snprintf(s->stop_msg, sizeof s->stop_msg, "%s", msg);
	s->stopped = 1;
	sigset_t old;
	arm_signal_hold(&old);
	lua_sethook(s->L, hook, LUA_MASKCOUNT, 1);
	arm_signal_release(&old);
}

/* Raise the stop (in a hook or a C function the script called). */
static void stop_raise(lua_State *L, struct trawl_script *s)
{
	if (L != s->L) /* a coroutine that catches it runs no instruction more either */
		lua_sethook(L, hook, LUA_MASKCOUNT, 1);
	lua_pushstring(L, s->stop_msg);
	lua_error(L);
}

static void stop(lua_State *L, lua_Debug *ar, struct trawl_script *s)
{
	char msg[400];
	lua_getinfo(L, "Sl", ar);
	snprintf(msg, sizeof msg, "%s:%d: the script ran more than %llu instructions %s: stopped "
		 "(--script-limit raises it)", s->path, ar->currentline, (unsigned long long)s->budget,
		 s->cur ? "on one event" : "at its top level");
	stop_set(s, msg);
	stop_raise(L, s);
}

/* Past the memory bound (alloc): the count hook at the next instruction,
 * so the look (memory_check) names the line that allocated. A guard
 * signal that comes after takes over (the look is then at its next
 * count). */
static void memory_hook(struct trawl_script *s)
{
	if (s->mem_step && lua_gethookmask(s->L) == LUA_MASKCOUNT && lua_gethookcount(s->L) == 1)
		return; /* set already (a call's start may have turned it off since) */
	sigset_t old;
	arm_signal_hold(&old);
	if (!s->mem_step)
		s->mem_step = lua_gethookmask(s->L) & LUA_MASKCOUNT ? 2 : 1;
	lua_sethook(s->L, hook, LUA_MASKCOUNT, 1);
	arm_signal_release(&old);
}

/* After that count: the guard's hook as it was (its step restarted, so
 * the call may run up to one step more before it is stopped), or none. */
static void memory_unhook(struct trawl_script *s, int step)
{
	sigset_t old;
	arm_signal_hold(&old);
	uint64_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	if (step == 2)
		lua_sethook(s->L, hook, LUA_MASKCOUNT, s->count_seq == seq ? s->count : s->arm_count);
	else
		lua_sethook(s->L, NULL, 0, 0);
	arm_signal_release(&old);
}

/* In the hook, past the memory bound: collect; still past it, stop the
 * call at the line it is at. */
static void memory_check(lua_State *L, lua_Debug *ar, struct trawl_script *s)
{
	s->mem_over = 0;
	lua_gc(L, LUA_GCCOLLECT);
	if (s->mem <= s->mem_max)
		return;
	char msg[400];
	lua_getinfo(L, "Sl", ar);
	snprintf(msg, sizeof msg, "%s:%d: the script holds more than %llu MiB of memory: stopped "
		 "(--script-memory raises it)", s->path, ar->currentline, (unsigned long long)(s->mem_max >> 20));
	stop_set(s, msg);
	stop_raise(L, s);
}

/* After a call returned (a C function's allocation, a tail call into C,
 * keep that is a C function: no Lua instruction of the script ran after
 * the bound was passed, so the hook did not look): the same look, with
 * no line to name. 1 if the script is stopped. */
static int memory_after_call(struct trawl_script *s)
{
	if (s->mem_over) {
		s->mem_over = 0;
		lua_gc(s->L, LUA_GCCOLLECT);
		if (s->mem > s->mem_max) {
			char msg[400];
			snprintf(msg, sizeof msg, "%s: the script holds more than %llu MiB of memory: stopped "
				 "(--script-memory raises it)", s->path, (unsigned long long)(s->mem_max >> 20));
			stop_set(s, msg);
		}
	}
	return s->stopped;
}

/* The count hook: raises a Lua error naming the script's line it stopped
 * at once the call has run its budget of counted instructions; and the
 * memory bound's look (memory_hook sets a count of 1 for it). */
static void hook(lua_State *L, lua_Debug *ar)
{
	struct trawl_script *s = of_state(L);
	if (s->stopped)
		stop_raise(L, s);
	if (L == s->L && s->mem_step && lua_gethookcount(L) == 1) {
		/* memory_hook's count */
		int step = s->mem_step;
		s->mem_step = 0;
		if (s->mem_over)
			memory_check(L, ar, s); /* returns when under the bound */
		memory_unhook(s, step);
		return;
	}
	if (s->mem_over)
		memory_check(L, ar, s);
	uint64_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	if (L != s->L) {
		/* a coroutine (co_make) */
		if (s->co_seq != seq) {
			s->co_seq = seq;
			s->co_used = 0;
		}
		s->co_used += CO_HOOK_EVERY;
		if (s->co_used >= s->budget)
			stop(L, ar, s); /* does not return */
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
	if (s->used >= s->budget) {
		stop(L, ar, s); /* does not return */
		return;
	}
	uint64_t left = s->budget - s->used;
	s->count = left < INT_MAX ? (int)left : INT_MAX;
	lua_sethook(L, hook, LUA_MASKCOUNT, s->count);
}

/* The allocator carries the script, so the hook can find it, and keeps
 * the memory bound: growing past mem_max sets the line hook, whose look
 * (memory_check) collects first, as garbage counts until then; growing
 * past mem_refuse fails, and Lua collects and tries once more before it
 * raises "not enough memory". */
static void *alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct trawl_script *s = ud;
	size_t old = ptr ? osize : 0;
	if (!nsize) {
		free(ptr);
		s->mem -= old;
		return NULL;
	}
	size_t after = s->mem - old + nsize;
	if (nsize > old && after > s->mem_max) {
		if (after > s->mem_refuse || after < s->mem) {
			s->mem_refused = 1;
			if (s->L) {
				char msg[400];
				snprintf(msg, sizeof msg, "%s: the script needs more than %llu MiB of memory: stopped "
					 "(--script-memory raises it)", s->path, (unsigned long long)(s->mem_max >> 20));
				stop_set(s, msg);
			}
			return NULL;
		}
		s->mem_over = 1;
		if (s->L)
			memory_hook(s);
	}
	void *p = realloc(ptr, nsize);
	if (p)
		s->mem = after;
	return p;
}

static const char *type_name(int t)
{
	return t == LUA_TNIL ? "nil" : t == LUA_TBOOLEAN ? "boolean" : t == LUA_TNUMBER ? "number" :
	       t == LUA_TSTRING ? "string" : t == LUA_TTABLE ? "table" : t == LUA_TFUNCTION ? "function" :
	       t == LUA_TTHREAD ? "thread" : "userdata";
}

/* An error of the caller's, at its line (lua_error alone gives none). */
static int act_error(lua_State *L, const char *what)
{
	char msg[400];
	luaL_where(L, 1);
	snprintf(msg, sizeof msg, "%s%s", lua_tostring(L, -1), what);
	lua_pushstring(L, msg);
	return lua_error(L);
}

/* activity.open(name [, key]) and activity.close(name [, key]); the key
 * defaults to the event's thread. A key must be an integer (or a string
 * Lua reads as one): any other value would be taken as 0, one key for all. */
static int act_call(lua_State *L, int open)
{
	struct trawl_script *s = self(L);
	const char *name = lua_tostring(L, 1);
	if (!name || !s->cur || !s->act)
		return act_error(L, !name ? "activity name expected (a string)" : "activity.open/close only work in on_event");
	int isint = 1;
	uint64_t key = lua_isnoneornil(L, 2) ? s->cur->tid : (uint64_t)lua_tointegerx(L, 2, &isint);
	if (!isint) {
		int t = lua_type(L, 2);
		char what[80];
		if (t == LUA_TNUMBER) /* a fraction, or past 64 bits */
			snprintf(what, sizeof what, "activity key must be an integer, not %.40s", lua_tostring(L, 2));
		else
			snprintf(what, sizeof what, "activity key must be an integer, not a %s", type_name(t));
		return act_error(L, what);
	}
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

/* print(...): to the caller's function, never to standard output, where
 * it would land inside a listing or a CSV. */
static int script_print(lua_State *L)
{
	struct trawl_script *s = self(L);
	int n = lua_gettop(L);
	char buf[1024];
	size_t o = 0;
	for (int i = 1; i <= n; i++) {
		size_t len;
		const char *v = luaL_tolstring(L, i, &len);
		if (i > 1 && o < sizeof buf)
			buf[o++] = '\t';
		size_t room = sizeof buf - o;
		if (len > room)
			len = room; /* a long print is cut: it is a diagnostic */
		memcpy(buf + o, v, len);
		o += len;
		lua_pop(L, 1);
	}
	s->print(s->print_ctx, buf, o);
	return 0;
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
}

/* Push the global function name (nil if it is not set); 1 if it is a
 * function, -1 (err set) if it is something else: a script that sets it
 * means it, and ignoring it would filter nothing without a word. */
static int global_fn(struct trawl_script *s, const char *name, struct trawl_error *err)
{
	int t = lua_getglobal(s->L, name);
	if (t == LUA_TFUNCTION)
		return 1;
	lua_pop(s->L, 1);
	lua_pushnil(s->L);
	if (t == LUA_TNIL)
		return 0;
	trawl_error_set(err, TRAWL_ERR_FORMAT, "%s: '%s' is a %s, not a function", s->path, name, type_name(t));
	return -1;
}

/* A computed field named like an event's own would be printed beside it
 * (num=1 num=99): the first class with it, and whether there are more. */
static const struct trawl_sw_class *field_owner(const struct trawl_script *s, const char *name, int *more)
{
	const struct trawl_sw_class *first = NULL;
	*more = 0;
	for (size_t c = 0; c < s->tab.nclasses; c++)
		for (unsigned f = 0; f < s->tab.classes[c].nfields; f++)
			if (!strcmp(s->tab.classes[c].fields[f].name, name)) {
				*more |= first != NULL;
				first = first ? first : &s->tab.classes[c];
				break;
			}
	return first;
}

/* fields = { name = function(e) ... end, ... }: the names, in the order
 * next() gives them (sorted afterwards, so output does not depend on it). */
static enum trawl_status read_fields(struct trawl_script *s, struct trawl_error *err)
{
	lua_State *L = s->L;
	s->fields_ref = LUA_NOREF;
	int t = lua_getglobal(L, "fields");
	if (t != LUA_TTABLE) {
		lua_pop(L, 1);
		if (t == LUA_TNIL)
			return TRAWL_OK;
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "%s: 'fields' is a %s, not a table of functions", s->path,
				       type_name(t));
	}
	/* what cannot be a computed field is an error, not left out */
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		int more, kt = lua_type(L, -2);
		const char *k = kt == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
		const struct trawl_sw_class *owner = k ? field_owner(s, k, &more) : NULL;
		if (!k)
			return trawl_error_set(err, TRAWL_ERR_FORMAT, "%s: fields: a key that is not a name (a %s)",
					       s->path, type_name(kt));
		if (lua_type(L, -1) != LUA_TFUNCTION)
			return trawl_error_set(err, TRAWL_ERR_FORMAT, "%s: fields.%.60s is a %s, not a function", s->path,
					       k, type_name(lua_type(L, -1)));
		if (strlen(k) >= 48)
			return trawl_error_set(err, TRAWL_ERR_FORMAT,
					       "%s: fields.%.60s: the name is longer than 47 characters", s->path, k);
		if (s->nfields >= 64)
			return trawl_error_set(err, TRAWL_ERR_FORMAT, "%s: fields: more than 64 of them", s->path);
		if (owner)
			return trawl_error_set(err, TRAWL_ERR_FORMAT, "%s: fields.%s: event%s %s%s ha%s a field of that name",
					       s->path, k, more ? "s" : "", owner->name, more ? " and others" : "",
					       more ? "ve" : "s");
		void *n = realloc(s->field_names, (s->nfields + 1) * sizeof *s->field_names);
		if (!n)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		s->field_names = n;
		strcpy(s->field_names[s->nfields++], k);
		lua_pop(L, 1);
	}
	qsort(s->field_names, s->nfields, sizeof *s->field_names, (int (*)(const void *, const void *))strcmp);
	s->fields_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	return TRAWL_OK;
}

static enum trawl_status lua_fail(struct trawl_script *s, const struct trawl_sw_event *ev, struct trawl_error *err)
{
	const char *msg = lua_tostring(s->L, -1);
	char what[400];
	if (s->mem_refused && msg && !strcmp(msg, "not enough memory")) {
		/* Lua's memory error has no line: the script and the bound */
		snprintf(what, sizeof what, "%s: the script needs more than %llu MiB of memory: stopped "
			 "(--script-memory raises it)", s->path, (unsigned long long)(s->mem_max >> 20));
		msg = what;
	} else if (!msg) {
		/* error({}), error(nil): no message and no line, so at least
		 * the script and the kind of value (as lua.c says) */
		snprintf(what, sizeof what, "%s: the script raised an error whose value is a %s, not a message",
			 s->path, type_name(lua_type(s->L, -1)));
		msg = what;
	}
	if (ev) {
		/* a long message is cut, not the event it names */
		char shown[700];
		size_t n = strlen(msg);
		if (n >= sizeof shown)
			snprintf(shown, sizeof shown, "%.*s... (%zu bytes)", (int)sizeof shown - 32, msg, n);
		else
			memcpy(shown, msg, n + 1);
		trawl_error_set(err, TRAWL_ERR_FORMAT, "%s (while processing %s at %llu ns, cpu %u, thread %u)",
				shown, ev->cls->name, (unsigned long long)ev->time, ev->cpu, ev->tid);
	}
	else
		trawl_error_set(err, TRAWL_ERR_FORMAT, "%s", msg);
	lua_pop(s->L, 1);
	return TRAWL_ERR_FORMAT;
}

/* The start and end of each call into the script: seq is odd while it
 * runs, and a hook left from the call before is turned off. */
static inline uint64_t call_begin(struct trawl_script *s)
{
	if (atomic_load_explicit(&s->armed, memory_order_relaxed))
		disarm(s);
	uint64_t n = atomic_load_explicit(&s->seq, memory_order_relaxed) + 1;
	atomic_store_explicit(&s->seq, n, memory_order_release);
	return n;
}

static inline void call_end(struct trawl_script *s, uint64_t n)
{
	atomic_store_explicit(&s->seq, n + 1, memory_order_relaxed);
}

/* A protected call from this thread, which the watchdog signals. A call
 * stopped by an error inside run_batch leaves seq odd: made even here. */
static int pcall(struct trawl_script *s, int nargs, int nres)
{
	unsigned long me = (unsigned long)pthread_self();
	if (atomic_load_explicit(&s->caller, memory_order_relaxed) != me)
		atomic_store(&s->caller, me);
	running = s;
	int r = lua_pcall(s->L, nargs, nres, 0);
	uint64_t n = atomic_load_explicit(&s->seq, memory_order_relaxed);
	if (n & 1)
		atomic_store_explicit(&s->seq, n + 1, memory_order_relaxed);
	if (r == LUA_OK && (s->mem_over || s->stopped) && memory_after_call(s)) {
		/* caught inside, or never looked at: the stop stands */
		lua_pop(s->L, nres);
		lua_pushstring(s->L, s->stop_msg);
		r = LUA_ERRRUN;
	}
	return r;
}

/* The script's top level: one call. */
static int call(struct trawl_script *s, int nargs, int nres)
{
	uint64_t n = call_begin(s);
	int r = pcall(s, nargs, nres);
	call_end(s, n);
	return r;
}

/* run_batch(keep, tables): keep(e) for the events of s->run, in order.
 * Each class's table and the names it stores are pushed on this frame at
 * its first event of the batch, so an event costs its stores and one
 * lua_call; results are popped PENDING at a time. */
static int run_batch(lua_State *L)
{
	struct trawl_script *s = of_state(L);
	struct script_tables *tb = &s->tab;
	struct run *r = &s->run;
	const struct lua_lazy_hot *api = tb->api;
	if (!lua_checkstack(L, PENDING + 8))
		tables_no_stack(L);
	int top = lua_gettop(L), pending = 0;
	tb->gen++;
	for (size_t i = 0; i < r->n; i++) {
		if (!r->keep[i])
			continue;
		const struct trawl_sw_event *ev = &r->evs[i];
		size_t c = (size_t)(ev->cls - tb->classes);
		int e;
		r->at = i;
		s->cur = ev;
		if (c >= tb->nclasses) {
			if (!lua_checkstack(L, 8))
				tables_no_stack(L);
			tables_push_unknown(tb, ev);
			e = lua_gettop(L);
		} else {
			struct cls_table *t = &tb->ct[c];
			if (t->gen != tb->gen) {
				tables_push(tb, c);
				top = lua_gettop(L);
			}
			if (t->adapt && ++t->nev >= ADAPT_EVERY) {
				if (MISS_COST * t->ncalls > (uint64_t)(t->nsrc - t->nfill) * t->nev) {
					tables_make_eager(tb, L, c, t->slot);
					tables_push(tb, c);
					top = lua_gettop(L);
				}
				t->nev = t->ncalls = 0;
			}
			e = t->slot;
			tables_store(tb, t, e, ev);
			t->last = ev;
		}
		api->pushvalue(L, 1);
		api->pushvalue(L, e);
		uint64_t n = call_begin(s);
		api->callk(L, 1, 1, 0, NULL);
		call_end(s, n);
		if ((s->mem_over | s->stopped) && memory_after_call(s))
			stop_raise(L, s); /* this event's: see memory_after_call */
		r->keep[i] = (uint8_t)api->toboolean(L, -1);
		if (c >= tb->nclasses || ++pending == PENDING) {
			api->settop(L, top);
			pending = 0;
		}
	}
	return 0;
}

/* keep, on top of the stack, over r's events (run_batch): LUA_OK, or an
 * error message pushed. */
static int run(struct trawl_script *s, const struct run *r)
{
	lua_State *L = s->L;
	s->run = *r;
	lua_pushcclosure(L, run_batch, 0);
	lua_insert(L, -2);
	lua_rawgeti(L, LUA_REGISTRYINDEX, s->tab.tables_ref);
	int rc = pcall(s, 2, 0);
	tables_keep_last(&s->tab);
	return rc;
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
	if (!s || !(s->tab.ct = calloc(nclasses + 1, sizeof *s->tab.ct)) ||
	    !(s->tab.touched = calloc(2 * nclasses + 1, sizeof *s->tab.touched))) {
		if (s)
			free(s->tab.ct);
		free(s);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	snprintf(s->path, sizeof s->path, "%s", path);
	s->tab.classes = classes;
	s->tab.nclasses = nclasses;
	s->tab.api = lua_lazy_hot();
	s->budget = opt && opt->max_instructions ? opt->max_instructions : TRAWL_SCRIPT_DEFAULT_INSTRUCTIONS;
	uint64_t mem = opt && opt->max_memory ? opt->max_memory : TRAWL_SCRIPT_DEFAULT_MEMORY;
	s->mem_max = mem > SIZE_MAX / 3 ? SIZE_MAX : (size_t)mem;
	s->mem_refuse = s->mem_max == SIZE_MAX ? SIZE_MAX : s->mem_max + s->mem_max / 2;
	s->fields_ref = s->tab.tables_ref = s->tab.next_ref = LUA_NOREF;
	if (!(s->L = s->tab.L = lua_newstate(alloc, s))) {
		trawl_script_close(s);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	s->arm_count = s->budget < INT_MAX ? (int)s->budget : INT_MAX;
	atomic_store(&s->caller, (unsigned long)pthread_self());
	if (!signal_take()) {
		trawl_script_close(s);
		return trawl_error_set(err, TRAWL_ERR_IO, "cannot install the script watchdog's signal handler: %s",
				       strerror(errno));
	}
	s->has_signal = 1;
	if ((st = watchdog_start(&s->wd, &s->seq, WATCH_MS, arm, s, err))) {
		trawl_script_close(s);
		return st;
	}
	int unsafe = opt && opt->unsafe;
	open_libs(s->L, unsafe);
	s->print = opt ? opt->print : NULL;
	s->print_ctx = opt ? opt->print_ctx : NULL;
	if (s->print) {
		lua_pushlightuserdata(s->L, s);
		lua_pushcclosure(s->L, script_print, 1);
	} else {
		lua_pushnil(s->L);
	}
	lua_setglobal(s->L, "print");
	watch_coroutines(s->L);
	if ((st = tables_wrap_raw(&s->tab, err))) {
		trawl_script_close(s);
		return st;
	}
	set_api(s);
	tables_plan(&s->tab, text, len, unsafe);
	char chunk[260];
	snprintf(chunk, sizeof chunk, "@%s", path);
	if (luaL_loadbufferx(s->L, text, len, chunk, "t") != LUA_OK || call(s, 0, 0) != LUA_OK) {
		st = lua_fail(s, NULL, err);
		trawl_script_close(s);
		return st;
	}
	/* the stack from here on: see SLOT_KEEP */
	lua_settop(s->L, 0);
	s->has_keep = global_fn(s, "keep", err);
	s->has_on_event = s->has_keep < 0 ? 0 : global_fn(s, "on_event", err);
	if (s->has_keep < 0 || s->has_on_event < 0 || (st = read_fields(s, err))) {
		st = st ? st : TRAWL_ERR_FORMAT;
		trawl_script_close(s);
		return st;
	}
	*out = s;
	return TRAWL_OK;
}

int trawl_script_has_keep(const struct trawl_script *s)
{
	return s->has_keep;
}

int trawl_script_has_on_event(const struct trawl_script *s)
{
	return s->has_on_event;
}

void trawl_script_set_activities(struct trawl_script *s, struct trawl_act *act)
{
	s->act = act;
}

void trawl_script_set_origin(struct trawl_script *s, uint64_t t0)
{
	s->tab.t0 = t0;
}

int trawl_script_keep_batch(struct trawl_script *s, const struct trawl_sw_event *evs, size_t n, uint8_t *keep,
			    size_t *failed, struct trawl_error *err)
{
	if (!s->has_keep || !n)
		return 0;
	lua_pushvalue(s->L, SLOT_KEEP);
	if (run(s, &(struct run){ .evs = evs, .n = n, .keep = keep }) != LUA_OK) {
		*failed = s->run.at;
		lua_fail(s, &evs[s->run.at], err);
		return -1;
	}
	return 0;
}

/* Call the function on top of the stack with ev's table: LUA_OK with nres
 * results, or an error message pushed. */
static int call_one(struct trawl_script *s, const struct trawl_sw_event *ev, int e, int nres)
{
	lua_State *L = s->L;
	if (e > 0)
		lua_pushvalue(L, e);
	else
		tables_push_unknown(&s->tab, ev);
	return call(s, 1, nres);
}

int trawl_script_keep(struct trawl_script *s, const struct trawl_sw_event *ev, struct trawl_error *err)
{
	if (!s->has_keep)
		return 1;
	s->cur = ev;
	int e = tables_one(&s->tab, ev);
	if (e < 0) {
		trawl_error_set(err, TRAWL_ERR_NOMEM, "out of Lua stack");
		return -1;
	}
	lua_pushvalue(s->L, SLOT_KEEP);
	if (call_one(s, ev, e, 1) != LUA_OK) {
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
	if (!s->has_on_event)
		return TRAWL_OK;
	s->cur_keep = keep;
	s->act_err = err;
	s->cur = ev;
	int e = tables_one(&s->tab, ev);
	if (e < 0)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of Lua stack");
	lua_pushvalue(s->L, SLOT_ON_EVENT);
	if (call_one(s, ev, e, 0) != LUA_OK)
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

/* A string as NAME=VALUE can show it on one line: as it is when made of
 * letters, digits and ._:+-/, else in double quotes with C's escapes
 * (an empty one too, so that it is not taken for nil). */
static void quote(char *buf, size_t size, const char *v, size_t len)
{
	int plain = len > 0;
	for (size_t k = 0; k < len && plain; k++) {
		unsigned char ch = (unsigned char)v[k];
		plain = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			strchr("._:+-/", ch) != NULL;
	}
	if (plain) {
		snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), v);
		return;
	}
	size_t o = 0;
	buf[o++] = '"';
	for (size_t k = 0; k < len && o + 6 < size; k++) {
		unsigned char ch = (unsigned char)v[k];
		const char *esc = ch == '"' ? "\\\"" : ch == '\\' ? "\\\\" : ch == '\n' ? "\\n" : ch == '\t' ? "\\t" :
				  ch == '\r' ? "\\r" : NULL;
		if (esc)
			o += (size_t)snprintf(buf + o, size - o, "%s", esc);
		else if (ch < 0x20 || ch == 0x7f)
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", ch);
		else
			buf[o++] = (char)ch;
	}
	buf[o++] = '"';
	buf[o] = 0;
}

enum trawl_status trawl_script_field(struct trawl_script *s, size_t i, const struct trawl_sw_event *ev, char *buf,
				     size_t size, struct trawl_error *err)
{
	lua_State *L = s->L;
	buf[0] = 0;
	s->cur = ev;
	int e = tables_one(&s->tab, ev);
	if (e < 0)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of Lua stack");
	lua_rawgeti(L, LUA_REGISTRYINDEX, s->fields_ref);
	lua_getfield(L, -1, s->field_names[i]);
	lua_remove(L, -2);
	if (call_one(s, ev, e, 1) != LUA_OK) {
		lua_fail(s, ev, err);
		return TRAWL_ERR_FORMAT;
	}
	int t = lua_type(L, -1);
	if (t == LUA_TBOOLEAN)
		snprintf(buf, size, "%s", lua_toboolean(L, -1) ? "true" : "false");
	else if (t == LUA_TNUMBER && lua_isinteger(L, -1))
		snprintf(buf, size, "%lld", (long long)lua_tointeger(L, -1));
	else if (t == LUA_TNUMBER)
		snprintf(buf, size, "%.17g", (double)lua_tonumber(L, -1));
	else if (t == LUA_TSTRING) {
		size_t len;
		const char *v = lua_tolstring(L, -1, &len);
		quote(buf, size, v, len);
	} else if (t != LUA_TNIL) {
		char what[400];
		snprintf(what, sizeof what, "%.256s: fields.%s returned a %s, not a number, string or boolean", s->path,
			 s->field_names[i], type_name(t));
		lua_pop(L, 1);
		lua_pushstring(L, what);
		lua_fail(s, ev, err);
		return TRAWL_ERR_FORMAT;
	}
	lua_pop(L, 1);
	return TRAWL_OK;
}

void trawl_script_close(struct trawl_script *s)
{
	if (!s)
		return;
	watchdog_stop(s->wd);
	if (s->has_signal)
		signal_give();
	if (running == s)
		running = NULL;
	if (s->L)
		lua_close(s->L);
	free(s->tab.ct);
	free(s->tab.touched);
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
int trawl_script_keep_batch(struct trawl_script *s, const struct trawl_sw_event *evs, size_t n, uint8_t *keep,
			    size_t *failed, struct trawl_error *err)
{
	(void)s, (void)evs, (void)n, (void)keep, (void)failed, (void)err;
	return 0;
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
