/* The tables a Lua script sees as e (sw-script.c's part): one per event
 * class, each event's values stored from C, only those the script's text
 * names; the rest through the table's metatable (see sw-script-tables.c).
 * Internal to lib/analysis. tables_push, tables_push_unknown and
 * tables_make_eager raise Lua errors: they run inside a protected call. */
#ifndef TRAWL_ANALYSIS_SW_SCRIPT_TABLES_H
#define TRAWL_ANALYSIS_SW_SCRIPT_TABLES_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/lua-lazy.h"
#include "trawl/status.h"
#include "trawl/sw-event.h"

/* A value of e: cpu, tid, time, then the class's fields in order. */
#define SRC_FIELD 3
#define NSRC (SRC_FIELD + TRAWL_SW_MAX_FIELDS)
/* A lazy class is looked at every this many of its events: made eager
 * when MISS_COST times its metatable calls exceed the values it does not
 * store (a call, miss or not, costs about three stores: callgrind counted
 * some 280 instructions an __index call, 90 to 110 a store). */
#define ADAPT_EVERY 1024
#define MISS_COST 3
/* The results a batch leaves on the stack before popping them */
#define PENDING 32

struct script_tables;

/* How tables_store reads one value of fill from an event, with no branch
 * on which it is: 8 bytes at off, masked (cpu and tid are 4), less the
 * time origin where tmask is all ones (time). */
struct fill_src {
	uint32_t off;
	uint8_t steady;              /* the script never writes it */
	uint8_t held;                /* steady, and the table holds have */
	uint64_t mask, tmask;
	int64_t have;
};

/* One event class's table. */
struct cls_table {
	struct script_tables *s;     /* for its metamethods, whose upvalue it is */
	size_t c;
	int made;                    /* the table is in the tables' table */
	int lazy;                    /* has the metatable: what fill lacks is read from last */
	int adapt;                   /* lazy with an __index: weighed for eager (ADAPT_EVERY) */
	unsigned nsrc, nfill;        /* values of the class; those stored per event */
	uint8_t fill[NSRC];          /* the sources stored */
	uint8_t stored[NSRC];        /* 1 if in fill */
	uint8_t unstored[NSRC];      /* the others, nsrc - nfill of them */
	struct fill_src src[NSRC];   /* per entry of fill: how tables_store reads it */
	uint64_t epoch;              /* of the held flags */
	int key;                     /* tables[key + j] is the name of fill[j] */
	const char *names[NSRC];     /* lazy: the names, interned (kept in the tables' table) */
	const struct trawl_sw_event *last; /* lazy: its last event: in the batch, or lastev */
	struct trawl_sw_event lastev;
	uint64_t nev, ncalls;        /* lazy: events and metatable calls since the last look */
	uint64_t gen;                /* the batch whose frame holds the table ... */
	int slot;                    /* ... here, followed by the names of fill */
	int mslot, mvalid;           /* the same on the main stack (tables_one) */
};

struct script_tables {
	lua_State *L;
	const struct lua_lazy_hot *api; /* for the per-event calls */
	const struct trawl_sw_class *classes;
	size_t nclasses;
	struct cls_table *ct;        /* per class */
	int nkeys;                   /* entries in the tables' table */
	int tables_ref;              /* the tables' table: [c + 1] class c's, then names */
	int next_ref;                /* Lua's own next, for __pairs */
	uint64_t gen;                /* batches run (cls_table's gen) */
	uint64_t t0;                 /* time 0 of e.time */
	size_t *touched, ntouched;   /* the lazy classes whose last is in the batch */
	/* The script's text has no '[' (nor gsub, pairs, next): a name it
	 * does not spell can reach e only through functions that are wrapped
	 * (rawget, getmetatable...), which make the class eager first, so a
	 * lazy class's table needs no __index. */
	int sealed;
	uint64_t epoch;              /* bumped by each rawset: held goes stale */
};

/* Which values each class stores (classes, nclasses, ct set): those the
 * text names as a word, or every one when unsafe. */
void tables_plan(struct script_tables *s, const char *text, size_t len, int unsafe);
/* Make the tables' table (once classes and nclasses are set) and wrap rawget, rawset, next, getmetatable and
 * setmetatable (they see past a metatable). */
enum trawl_status tables_wrap_raw(struct script_tables *s, struct trawl_error *err);
/* Class c stores every value from now on (its table at index e of L, the
 * thread running: a metamethod may be called in a coroutine). */
void tables_make_eager(struct script_tables *s, lua_State *L, size_t c, int e);
/* Push class c's table, then the names it stores, on the running C
 * function's frame, whose argument 2 is the tables' table. */
void tables_push(struct script_tables *s, size_t c);
/* A class the trace's info lacks: a table of its own, every value. */
void tables_push_unknown(struct script_tables *s, const struct trawl_sw_event *ev);
/* After a batch: the lazy classes' last events copied out of it. */
void tables_keep_last(struct script_tables *s);
/* Outside a batch: ev's class's table on the main stack with ev's values
 * stored, its index; 0 for a class the trace's info lacks, -1 when the
 * stack cannot grow. */
int tables_one(struct script_tables *s, const struct trawl_sw_event *ev);
/* Raise "out of Lua stack". */
void tables_no_stack(lua_State *L);

/* Value k of ev (the SRC_ numbering). */
static inline int64_t tables_value(const struct script_tables *s, const struct trawl_sw_event *ev, unsigned k)
{
	switch (k) {
	case 0: return ev->cpu;
	case 1: return ev->tid;
	case 2: return (int64_t)(ev->time - s->t0);
	default: return (int64_t)ev->vals[k - SRC_FIELD];
	}
}

/* ev's values into its class's table at e, the names of fill above it;
 * a steady value only when it differs from the one the table holds. */
static inline void tables_store(struct script_tables *s, struct cls_table *t, int e, const struct trawl_sw_event *ev)
{
	lua_State *L = s->L;
	if (t->epoch != s->epoch) {
		for (unsigned j = 0; j < t->nfill; j++)
			t->src[j].held = 0;
		t->epoch = s->epoch;
	}
	for (unsigned j = 0; j < t->nfill; j++) {
		struct fill_src *f = &t->src[j];
		uint64_t raw;
		memcpy(&raw, (const char *)ev + f->off, sizeof raw);
		int64_t v = (int64_t)((raw & f->mask) - (s->t0 & f->tmask));
		if (f->held && f->have == v)
			continue;
		s->api->pushvalue(L, e + 1 + (int)j);
		s->api->pushinteger(L, v);
		s->api->rawset(L, e);
		f->held = f->steady;
		f->have = v;
	}
}

#endif
