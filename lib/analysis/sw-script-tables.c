/* The tables a Lua script sees as e (sw-script-tables.h). Each event's
 * values are stored from C (lua_rawset) into its class's table, but only
 * the values whose names occur in the script's text as a word (cpu, tid,
 * time, a field's name): a store costs about as much as a short filter.
 * The others are read through the table's metatable (__index, from the
 * class's last event), so a name the script builds at run time still
 * works, more slowly. A class is made eager (every value stored, the
 * metatable dropped) once that costs less than its metatable calls, and
 * before anything that would see past the metatable: rawget, rawset,
 * next, getmetatable, setmetatable, pairs (__pairs), or a store to a value
 * not stored (__newindex). A script whose text has no '[' is sealed (see
 * sealed in sw-script-tables.h): its lazy tables have no __index, as only
 * those functions and string.gsub could reach a name it does not spell (and a text
 * that could reach gsub is not sealed),
 * and a value it never writes is stored only when it changes. */
#if defined(TRAWL_HAVE_LUA)
#include "analysis/sw-script-tables.h"

#include <lauxlib.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

static const char *src_name(const struct trawl_sw_class *cls, unsigned k)
{
	static const char *const base[SRC_FIELD] = { "cpu", "tid", "time" };
	return k < SRC_FIELD ? base[k] : cls->fields[k - SRC_FIELD].name;
}

static unsigned class_nsrc(const struct trawl_sw_class *cls)
{
	return SRC_FIELD + (cls->nfields < TRAWL_SW_MAX_FIELDS ? cls->nfields : TRAWL_SW_MAX_FIELDS);
}

static int is_word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Does w occur in the text as a word (not inside a longer name)? Strings
 * and comments count too: a false yes only stores a value for nothing. */
static int names_word(const char *text, size_t len, const char *w)
{
	size_t n = strlen(w);
	if (!n || n > len)
		return 0;
	for (size_t i = 0; i + n <= len; i++) {
		if (text[i] != w[0] || memcmp(text + i, w, n))
			continue;
		if ((i == 0 || !is_word_char((unsigned char)text[i - 1])) &&
		    (i + n == len || !is_word_char((unsigned char)text[i + n])))
			return 1;
	}
	return 0;
}

/* Could the text store to a field named w? Only through a name it spells
 * (when sealed: rawset is wrapped, see raw_wrap): w followed by = (not
 * ==), by a comma (a list of targets), or by ( (function e.w() ...),
 * whatever the occurrence, a local or a table constructor's key too. */
static int writes_word(const char *text, size_t len, const char *w)
{
	size_t n = strlen(w);
	for (size_t i = 0; n && i + n <= len; i++) {
		if (text[i] != w[0] || memcmp(text + i, w, n) || (i > 0 && is_word_char((unsigned char)text[i - 1])) ||
		    (i + n < len && is_word_char((unsigned char)text[i + n])))
			continue;
		size_t j = i + n;
		for (;;) {
			while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r' ||
					   text[j] == '\f' || text[j] == '\v'))
				j++;
			if (j + 1 < len && text[j] == '-' && text[j + 1] == '-') {
				while (j < len && text[j] != '\n')
					j++; /* a line comment (a long one holds '[': not sealed) */
				continue;
			}
			break;
		}
		if (j < len && ((text[j] == '=' && (j + 1 == len || text[j + 1] != '=')) || text[j] == ',' || text[j] == '('))
			return 1;
	}
	return 0;
}

/* Source k joins t's fill: where tables_store reads it from. */
static void fill_add(struct cls_table *t, unsigned k)
{
	struct fill_src *f = &t->src[t->nfill];
	*f = (struct fill_src){ .mask = UINT64_MAX };
	switch (k) {
	case 0: f->off = offsetof(struct trawl_sw_event, cpu), f->mask = UINT32_MAX; break;
	case 1: f->off = offsetof(struct trawl_sw_event, tid), f->mask = UINT32_MAX; break;
	case 2: f->off = offsetof(struct trawl_sw_event, time), f->tmask = UINT64_MAX; break;
	default: f->off = (uint32_t)(offsetof(struct trawl_sw_event, vals) + (k - SRC_FIELD) * sizeof(uint64_t));
	}
	t->stored[k] = 1;
	t->fill[t->nfill++] = (uint8_t)k;
}

/* Which values each class stores per event: those the text names, or
 * every one when unsafe (a module could reach anything). */
void tables_plan(struct script_tables *s, const char *text, size_t len, int unsafe)
{
	for (size_t c = 0; c < s->nclasses; c++) {
		struct cls_table *t = &s->ct[c];
		t->nsrc = class_nsrc(&s->classes[c]);
		for (unsigned k = 0; k < t->nsrc; k++)
			if (unsafe || names_word(text, len, src_name(&s->classes[c], k)))
				fill_add(t, k);
		for (unsigned k = 0, u = 0; k < t->nsrc; k++)
			if (!t->stored[k])
				t->unstored[u++] = (uint8_t)k;
		t->lazy = t->nfill < t->nsrc;
		t->s = s;
		t->c = c;
	}
	/* string.gsub with e as its replacement looks names up that the text
	 * need not spell; it is not wrapped (a wrapper's caller is C: its
	 * errors would lose the script's line), so a text that could reach it
	 * (gsub, or pairs or next over the string table) is not sealed */
	s->sealed = !unsafe && !memchr(text, '[', len) && !names_word(text, len, "gsub") &&
		    !names_word(text, len, "pairs") && !names_word(text, len, "next");
	/* a stored value the script never writes is stored only when it
	 * changes (tables_store): most are the same event after event (cpu,
	 * tid of a thread's run of events) */
	for (size_t c = 0; s->sealed && c < s->nclasses; c++) {
		struct cls_table *t = &s->ct[c];
		for (unsigned j = 0; j < t->nfill; j++)
			t->src[j].steady = !writes_word(text, len, src_name(&s->classes[c], t->fill[j]));
	}
	/* sealed, a lazy table has no __index: no calls to weigh */
	for (size_t c = 0; c < s->nclasses; c++)
		s->ct[c].adapt = s->ct[c].lazy && !s->sealed;
}

/* Push the names of t's fill into the tables' table (at index tables). */
static void add_keys(struct script_tables *s, lua_State *L, const struct trawl_sw_class *cls, struct cls_table *t,
		     int tables)
{
	t->key = s->nkeys + 1;
	for (unsigned j = 0; j < t->nfill; j++) {
		lua_pushstring(L, src_name(cls, t->fill[j]));
		lua_rawseti(L, tables, ++s->nkeys);
	}
}

/* name, subsys and event: stored once in the table on top. */
static void set_names(lua_State *L, const struct trawl_sw_class *cls)
{
	const char *colon = strchr(cls->name, ':');
	lua_pushstring(L, cls->name);
	lua_setfield(L, -2, "name");
	lua_pushlstring(L, cls->name, colon ? (size_t)(colon - cls->name) : strlen(cls->name));
	lua_setfield(L, -2, "subsys");
	lua_pushstring(L, colon ? colon + 1 : "");
	lua_setfield(L, -2, "event");
}

static int lazy_index(lua_State *L);
static int lazy_newindex(lua_State *L);
static int lazy_pairs(lua_State *L);

/* Class c's table at its first event, into the tables' table. A lazy
 * class's metatable carries the class number under the key s (a light
 * userdata), which is how the raw functions' wrappers know it. Sealed, it
 * has no __index: a miss (e.len of an event without len) is then Lua's
 * own nil, not a C call of some 280 instructions. */
static void make_table(struct script_tables *s, size_t c, int tables)
{
	lua_State *L = s->L;
	struct cls_table *t = &s->ct[c];
	lua_createtable(L, 0, (int)t->nsrc + 3);
	set_names(L, &s->classes[c]);
	if (t->lazy) {
		static const struct { const char *name; lua_CFunction fn; } mm[] = {
			{ "__index", lazy_index }, { "__newindex", lazy_newindex }, { "__pairs", lazy_pairs },
		};
		lua_createtable(L, 0, 4);
		for (size_t i = s->sealed ? 1 : 0; i < sizeof mm / sizeof mm[0]; i++) {
			lua_pushlightuserdata(L, t);
			lua_pushcclosure(L, mm[i].fn, 1);
			lua_setfield(L, -2, mm[i].name);
		}
		lua_pushinteger(L, (lua_Integer)c);
		lua_rawsetp(L, -2, s);
		lua_setmetatable(L, -2);
		for (unsigned k = 0; k < t->nsrc; k++) {
			t->names[k] = lua_pushstring(L, src_name(&s->classes[c], k));
			lua_rawseti(L, tables, ++s->nkeys);
		}
	}
	lua_rawseti(L, tables, (lua_Integer)c + 1);
	add_keys(s, s->L, &s->classes[c], t, tables);
	t->made = 1;
}

/* Class c becomes eager: the values it did not store are stored from its
 * last event into its table (at index e) and from now on with the rest,
 * and the metatable goes. Its frame slots in the running batch are stale:
 * gen makes run_batch push them again. */
void tables_make_eager(struct script_tables *s, lua_State *L, size_t c, int e)
{
	struct cls_table *t = &s->ct[c];
	if (!t->lazy)
		return;
	e = e < 0 ? lua_gettop(L) + 1 + e : e;
	for (unsigned k = 0; k < t->nsrc; k++) {
		if (t->stored[k])
			continue;
		lua_pushstring(L, src_name(&s->classes[c], k));
		lua_pushinteger(L, tables_value(s, t->last, k));
		lua_rawset(L, e);
		fill_add(t, k);
	}
	lua_pushnil(L);
	lua_setmetatable(L, e);
	lua_rawgeti(L, LUA_REGISTRYINDEX, s->tables_ref);
	add_keys(s, L, &s->classes[c], t, lua_gettop(L));
	lua_pop(L, 1);
	t->lazy = t->adapt = 0;
	t->gen = 0;
	t->mvalid = 0;
}

/* The value of a lazy class the name at idx stands for, if it is one the
 * class does not store: its source, or -1. */
static int lazy_source(const struct cls_table *t, lua_State *L, int idx)
{
	if (lua_type(L, idx) != LUA_TSTRING)
		return -1;
	size_t len;
	const char *k = lua_tolstring(L, idx, &len);
	/* Lua keeps one copy of each short string: the same name is the
	 * same pointer, so a miss (the common call) compares no bytes. From
	 * the last, as a field named like cpu, tid or time is stored after
	 * them and wins. */
	for (unsigned i = t->nsrc - t->nfill; i-- > 0;) {
		const char *n = t->names[t->unstored[i]];
		if (k == n || (len > 40 && !strcmp(k, n)))
			return t->unstored[i];
	}
	return -1;
}

/* __index(e, name): a value not stored, from the class's last event (e is
 * that class's table); nil for any other name, as a plain table says. */
static int lazy_index(lua_State *L)
{
	struct cls_table *t = lua_touserdata(L, lua_upvalueindex(1));
	t->ncalls++;
	int k = lazy_source(t, L, 2);
	if (k < 0)
		return 0;
	lua_pushinteger(L, tables_value(t->s, t->last, (unsigned)k));
	return 1;
}

/* __newindex(e, name, v): a store to a value not stored would stay in
 * the table past the next event, so the class goes eager first. */
static int lazy_newindex(lua_State *L)
{
	struct cls_table *t = lua_touserdata(L, lua_upvalueindex(1));
	lua_settop(L, 3);
	if (lazy_source(t, L, 2) >= 0)
		tables_make_eager(t->s, L, t->c, 1);
	lua_rawset(L, 1);
	return 0;
}

/* __pairs(e): every value, so the class goes eager; then as pairs is. */
static int lazy_pairs(lua_State *L)
{
	struct cls_table *t = lua_touserdata(L, lua_upvalueindex(1));
	tables_make_eager(t->s, L, t->c, 1);
	lua_rawgeti(L, LUA_REGISTRYINDEX, t->s->next_ref);
	lua_pushvalue(L, 1);
	lua_pushnil(L);
	return 3;
}

/* rawget, rawset, next, getmetatable and setmetatable see past a
 * metatable: given a lazy class's table, they make the class eager, then
 * are Lua's own (upvalue 2). */
static int raw_wrap(lua_State *L)
{
	struct script_tables *s = lua_touserdata(L, lua_upvalueindex(1));
	int arg = (int)lua_tointegerx(L, lua_upvalueindex(3), NULL);
	if (arg < 0) {
		/* rawset: what tables_store kept of the tables may be stale */
		s->epoch++;
		arg = 1;
	}
	if (lua_type(L, arg) == LUA_TTABLE && lua_getmetatable(L, arg)) {
		if (lua_rawgetp(L, -1, s) == LUA_TNUMBER)
			tables_make_eager(s, L, (size_t)lua_tointeger(L, -1), arg);
		lua_pop(L, 2);
	}
	lua_pushvalue(L, lua_upvalueindex(2));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
	return lua_gettop(L);
}

enum trawl_status tables_wrap_raw(struct script_tables *s, struct trawl_error *err)
{
	lua_State *L = s->L;
	static const char *const names[] = { "rawget", "rawset", "next", "getmetatable", "setmetatable" };
	if (lua_getglobal(L, "next") != LUA_TFUNCTION) {
		lua_pop(L, 1);
		return trawl_error_set(err, TRAWL_ERR_UNSUPPORTED, "Lua's next is missing");
	}
	s->next_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	if (s->nclasses > INT_MAX / 2)
		return trawl_error_set(err, TRAWL_ERR_LIMIT, "%zu event classes: too many for a script", s->nclasses);
	lua_createtable(L, (int)s->nclasses, 0);
	s->tables_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	s->nkeys = (int)s->nclasses; /* the names go after the tables */
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		lua_pushlightuserdata(L, s);
		lua_getglobal(L, names[i]);
		lua_pushinteger(L, strcmp(names[i], "rawset") ? 1 : -1);
		lua_pushcclosure(L, raw_wrap, 3);
		lua_setglobal(L, names[i]);
	}
	return TRAWL_OK;
}

/* A class the trace's info lacks: a table of its own for this event,
 * every value stored. */
void tables_push_unknown(struct script_tables *s, const struct trawl_sw_event *ev)
{
	lua_State *L = s->L;
	unsigned n = class_nsrc(ev->cls);
	lua_createtable(L, 0, (int)n + 3);
	set_names(L, ev->cls);
	for (unsigned k = 0; k < n; k++) {
		lua_pushinteger(L, tables_value(s, ev, k));
		lua_setfield(L, -2, src_name(ev->cls, k));
	}
}

void tables_no_stack(lua_State *L)
{
	lua_pushstring(L, "out of Lua stack");
	lua_error(L);
}

/* Put class c's table and the names of its fill on the batch's frame. */
void tables_push(struct script_tables *s, size_t c)
{
	lua_State *L = s->L;
	struct cls_table *t = &s->ct[c];
	if (!lua_checkstack(L, (int)t->nfill + 8 + PENDING))
		tables_no_stack(L);
	if (!t->made)
		make_table(s, c, 2);
	lua_rawgeti(L, 2, (lua_Integer)c + 1);
	t->slot = lua_gettop(L);
	for (unsigned j = 0; j < t->nfill; j++)
		lua_rawgeti(L, 2, t->key + (lua_Integer)j);
	t->gen = s->gen;
	if (t->lazy)
		s->touched[s->ntouched++] = c;
}

/* After a batch: the lazy classes' last events move out of it. */
void tables_keep_last(struct script_tables *s)
{
	for (size_t i = 0; i < s->ntouched; i++) {
		struct cls_table *t = &s->ct[s->touched[i]];
		if (t->last && t->last != &t->lastev) {
			t->lastev = *t->last;
			t->last = &t->lastev;
		}
	}
	s->ntouched = 0;
}

/* One event outside a batch (on_event, a computed field), where a
 * protected C call per event would cost more than it saves: class c's
 * table and the names it stores stay on the main stack above
 * SLOT_ON_EVENT (pushed at its first such event, and again after
 * make_eager), and ev's values are stored there. Its index, 0 for a class
 * the trace's info lacks; -1 when the stack cannot grow. */
int tables_one(struct script_tables *s, const struct trawl_sw_event *ev)
{
	lua_State *L = s->L;
	size_t c = (size_t)(ev->cls - s->classes);
	if (!lua_checkstack(L, NSRC + 8))
		return -1;
	if (c >= s->nclasses)
		return 0;
	struct cls_table *t = &s->ct[c];
	if (!t->mvalid) {
		if (!t->made) {
			lua_rawgeti(L, LUA_REGISTRYINDEX, s->tables_ref);
			make_table(s, c, lua_gettop(L));
			lua_pop(L, 1);
		}
		lua_rawgeti(L, LUA_REGISTRYINDEX, s->tables_ref);
		int tables = lua_gettop(L);
		lua_rawgeti(L, tables, (lua_Integer)c + 1);
		lua_replace(L, tables);
		t->mslot = tables;
		for (unsigned j = 0; j < t->nfill; j++) {
			lua_rawgeti(L, LUA_REGISTRYINDEX, s->tables_ref);
			lua_rawgeti(L, -1, t->key + (lua_Integer)j);
			lua_remove(L, -2);
		}
		t->mvalid = 1;
	}
	tables_store(s, t, t->mslot, ev);
	if (t->lazy) {
		t->lastev = *ev;
		t->last = &t->lastev;
	}
	return t->mslot;
}

#endif
