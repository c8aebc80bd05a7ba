/* The activity engine (sw-activity.h). Each class carries the list of roles
 * its events play (begin or end of a span, send or receive of a message,
 * a state's set event), so an event no activity names costs one load.
 * Open spans and messages live in one pool of nodes, bounded by max_open;
 * a hash table maps (activity, key) to the list of its open nodes: spans
 * push and pop at the head (innermost first), messages push at the tail
 * and take from the head (first in, first out). A second table counts the
 * spans open on each thread and cpu, which is the nesting depth. */
#include "trawl/sw-activity.h"

#include "analysis/act-map.h"
#include "core/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NIL UINT32_MAX
#define TAG_THREAD_LANE UINT32_MAX
#define TAG_CPU_LANE (UINT32_MAX - 1)
#define MAX_STATE_CPUS TRAWL_ACT_STATE_CPUS

enum { R_BEGIN, R_END, R_SET };

struct role {
	uint32_t act;
	uint8_t role;
	int8_t field;                /* index of the key/value field, -1: none */
	uint8_t set_index;           /* state: which set event */
	uint8_t also_begins;         /* end: the event begins this span too, so
	                                ending nothing is not an unmatched end
	                                (the first of a chain begin X; end X) */
	uint8_t cpu_key;             /* no field: keyed by cpu, not thread */
	uint8_t message;             /* the activity is a message (feed_lean) */
	uint8_t field_key;           /* keyed by a field's value (feed_lean) */
};

/* What the engine reads of an event; the activity's key or the state's
 * value is val when the role has a field. */
struct at {
	uint64_t time, val;
	uint32_t cpu, tid;
};

static inline struct at at_of(const struct trawl_sw_event *ev)
{
	return (struct at){ ev->time, 0, ev->cpu, ev->tid };
}

struct node {
	uint64_t begin;
	uint32_t cpu, tid, depth, next;
	uint32_t lane;               /* index into lane_open, NIL: none */
	uint32_t oprev, onext;       /* the open nodes in the order they opened */
	uint8_t flags;
};

struct cpu_state {
	uint64_t since, value;
	uint32_t tid, has;
};

struct act_info {
	const struct trawl_defs_activity *def;
	struct trawl_defs_activity *own; /* a script's activity: def points here */
	struct trawl_act_counts counts;
	struct cpu_state *cpus;      /* state: indexed by cpu */
	uint32_t ncpus;
	size_t memo;                 /* the slot of its last (activity, key) */
};

struct trawl_act {
	const struct trawl_defs *defs;
	const struct trawl_sw_class *classes;
	size_t nclasses;
	uint32_t *role_start;        /* nclasses + 1 */
	struct role *roles;
	int8_t *class_field;         /* per class: the field its roles read, -1
	                                none, -2 more than one (trawl_act_pack) */
	struct act_info *acts;
	size_t nacts;
	struct act_map map;
	size_t nempty;               /* entries of field keys kept empty (sweep_empty) */
	struct node *nodes;
	uint32_t nnodes, cap, free_list, open;
	uint32_t ohead, otail;       /* oldest and newest open node */
	/* spans open per lane (thread or cpu): (tag, lane) -> index into
	 * lane_open, which only grows, so a node keeps its lane's index and
	 * the last lane looked up is remembered (events come in runs from
	 * one stream, so mostly one thread) */
	struct act_map lanes;
	uint32_t *lane_open;
	size_t nlanes, lanes_cap;
	uint64_t memo_lane;
	uint32_t memo_tag, memo_idx;
	uint64_t max_open;
	unsigned omit;               /* TRAWL_ACT_NO_* */
	trawl_act_sink sink;
	void *ctx;
};

static enum trawl_status ref_error(const struct trawl_act *a, const struct trawl_defs_act_ref *r,
				   struct trawl_error *err, const char *act, const char *field)
{
	if (field)
		trawl_error_set(err, TRAWL_ERR_USAGE, "activity '%s': the trace's event '%s' has no field '%s'",
				act, r->name, field);
	else
		trawl_error_set(err, TRAWL_ERR_USAGE, "activity '%s': the trace has no event '%s'", act, r->name);
	trawl_error_at(err, a->defs->file, r->line, r->column, 0);
	return TRAWL_ERR_USAGE;
}

static int find_class(const struct trawl_act *a, const char *name)
{
	for (size_t i = 0; i < a->nclasses; i++)
		if (!strcasecmp(a->classes[i].name, name))
			return (int)i;
	return -1;
}

static int find_field(const struct trawl_sw_class *c, const char *f)
{
	for (unsigned i = 0; i < c->nfields; i++)
		if (!strcmp(c->fields[i].name, f))
			return (int)i;
	return -1;
}

/* Resolve one event an activity names into a role of its class (counted
 * in pass 0, written in pass 1). */
static enum trawl_status add_role(struct trawl_act *a, uint32_t act, const struct trawl_defs_act_ref *r,
				  int role, unsigned set_index, int pass, uint32_t *fill, struct trawl_error *err)
{
	const struct trawl_defs_activity *d = &a->defs->activities[act];
	int c = find_class(a, r->name);
	if (c < 0)
		return ref_error(a, r, err, d->name, NULL);
	int f = -1;
	if (d->field[0] && (f = find_field(&a->classes[c], d->field)) < 0)
		return ref_error(a, r, err, d->name, d->field);
	if (pass == 0) {
		a->role_start[c + 1]++;
		return TRAWL_OK;
	}
	a->roles[fill[c]++] = (struct role){ act, (uint8_t)role, (int8_t)f, (uint8_t)set_index, 0,
					     d->key == TRAWL_DEFS_KEY_CPU, d->kind == TRAWL_DEFS_MESSAGE,
					     d->key == TRAWL_DEFS_KEY_FIELD };
	return TRAWL_OK;
}

static enum trawl_status build_roles(struct trawl_act *a, struct trawl_error *err)
{
	uint32_t *fill = NULL;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < a->nacts; i++) {
			const struct trawl_defs_activity *d = &a->defs->activities[i];
			int br = d->kind == TRAWL_DEFS_STATE ? R_SET : R_BEGIN;
			/* ends first: an event that both ends and begins a span
			 * closes the previous one and opens the next */
			for (unsigned j = 0; j < d->nend; j++) {
				enum trawl_status st = add_role(a, i, &d->end[j], R_END, j, pass, fill, err);
				if (st) {
					free(fill);
					return st;
				}
			}
			for (unsigned j = 0; j < d->nbegin; j++) {
				enum trawl_status st = add_role(a, i, &d->begin[j], br, j, pass, fill, err);
				if (st) {
					free(fill);
					return st;
				}
			}
		}
		if (pass == 0) {
			for (size_t c = 0; c < a->nclasses; c++)
				a->role_start[c + 1] += a->role_start[c];
			a->roles = malloc((a->role_start[a->nclasses] + 1) * sizeof *a->roles);
			fill = malloc((a->nclasses + 1) * sizeof *fill);
			if (!a->roles || !fill) {
				free(fill);
				return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
			}
			memcpy(fill, a->role_start, (a->nclasses + 1) * sizeof *fill);
		}
	}
	free(fill);
	/* roles of one class are together: ends that also begin */
	for (size_t c = 0; c < a->nclasses; c++)
		for (uint32_t k = a->role_start[c]; k < a->role_start[c + 1]; k++)
			for (uint32_t j = a->role_start[c]; j < a->role_start[c + 1]; j++)
				if (a->roles[k].role == R_END && a->roles[j].role == R_BEGIN &&
				    a->roles[j].act == a->roles[k].act)
					a->roles[k].also_begins = 1;
	if (!(a->class_field = malloc(a->nclasses + 1)))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	for (size_t c = 0; c < a->nclasses; c++) {
		int f = -1;
		for (uint32_t k = a->role_start[c]; k < a->role_start[c + 1]; k++)
			if (a->roles[k].field >= 0)
				f = f == -1 || f == a->roles[k].field ? a->roles[k].field : -2;
		a->class_field[c] = (int8_t)f;
	}
	return TRAWL_OK;
}

enum trawl_status trawl_act_create(struct trawl_act **out, const struct trawl_defs *defs,
				   const struct trawl_sw_class *classes, size_t nclasses, uint64_t max_open,
				   trawl_act_sink sink, void *ctx, struct trawl_error *err)
{
	*out = NULL;
	struct trawl_act *a = calloc(1, sizeof *a);
	if (!a)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	a->defs = defs;
	a->classes = classes;
	a->nclasses = nclasses;
	a->nacts = defs ? defs->nactivities : 0;
	a->max_open = max_open ? max_open : TRAWL_ACT_DEFAULT_MAX_OPEN;
	if (a->max_open > UINT32_MAX - 1)
		a->max_open = UINT32_MAX - 1;
	a->sink = sink;
	a->ctx = ctx;
	a->free_list = NIL;
	a->ohead = a->otail = NIL;
	a->memo_tag = 0; /* no lane has tag 0 */
	a->role_start = calloc(nclasses + 1, sizeof *a->role_start);
	a->acts = calloc(a->nacts + 1, sizeof *a->acts);
	if (!a->role_start || !a->acts) {
		trawl_act_destroy(a);
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < a->nacts; i++)
		a->acts[i].def = &defs->activities[i];
	enum trawl_status st = build_roles(a, err);
	if (st) {
		trawl_act_destroy(a);
		return st;
	}
	*out = a;
	return TRAWL_OK;
}

/* The slot of (act, key) when the activity's last one still holds it (a
 * span mostly ends on the key it began with; an entry moves only when the
 * table grows or another is deleted, and then the test fails, as a pair
 * is in one slot at most), else a probe. */
static inline struct act_slot *slot_memo(struct trawl_act *a, struct act_info *ai, uint32_t tag, uint64_t key)
{
	struct act_slot *s = a->map.slots ? &a->map.slots[ai->memo & a->map.mask] : NULL;
	return s && s->tag == tag && s->key == key ? s : NULL;
}

static inline struct act_slot *slot_get(struct trawl_act *a, struct act_info *ai, uint32_t tag, uint64_t key)
{
	struct act_slot *s = slot_memo(a, ai, tag, key);
	if (!s && (s = act_map_get(&a->map, tag, key)))
		ai->memo = (size_t)(s - a->map.slots);
	return s;
}

static inline struct act_slot *slot_put(struct trawl_act *a, struct act_info *ai, uint32_t tag, uint64_t key)
{
	struct act_slot *s = slot_memo(a, ai, tag, key);
	if (!s && (s = act_map_put(&a->map, tag, key)))
		ai->memo = (size_t)(s - a->map.slots);
	return s;
}

static inline uint32_t node_alloc(struct trawl_act *a)
{
	if (a->free_list != NIL) {
		uint32_t i = a->free_list;
		a->free_list = a->nodes[i].next;
		return i;
	}
	if (a->nnodes == a->cap) {
		uint64_t ncap = a->cap ? (uint64_t)a->cap * 2 : 1024;
		if (ncap > a->max_open)
			ncap = a->max_open;
		struct node *n = realloc(a->nodes, ncap * sizeof *n);
		if (!n)
			return NIL;
		a->nodes = n;
		a->cap = (uint32_t)ncap;
	}
	return a->nnodes++;
}

static void node_free(struct trawl_act *a, uint32_t i)
{
	a->nodes[i].next = a->free_list;
	a->free_list = i;
	a->open--;
}

/* The index of a lane's count of open spans (made at 0), NIL when out of
 * memory. There are only as many lanes as threads and cpus: kept for the
 * whole trace. */
static inline uint32_t lane_of(struct trawl_act *a, int cpu_lane, uint64_t lane)
{
	uint32_t tag = cpu_lane ? TAG_CPU_LANE : TAG_THREAD_LANE;
	if (a->memo_tag == tag && a->memo_lane == lane)
		return a->memo_idx;
	struct act_slot *s = act_map_put(&a->lanes, tag, lane);
	if (!s)
		return NIL;
	if (!s->a) { /* new: values are index + 1 */
		if (a->nlanes >= UINT32_MAX - 1 ||
		    !trawl_grow((void **)&a->lane_open, &a->lanes_cap, a->nlanes + 1, sizeof *a->lane_open))
			return NIL;
		a->lane_open[a->nlanes] = 0;
		s->a = (uint32_t)++a->nlanes;
	}
	a->memo_tag = tag;
	a->memo_lane = lane;
	a->memo_idx = s->a - 1;
	return a->memo_idx;
}

static inline uint64_t key_of(const struct role *r, const struct at *e)
{
	if (r->field >= 0)
		return e->val;
	return r->cpu_key ? e->cpu : e->tid;
}

/* Events come in time order, so the list of open nodes in the order they
 * opened has the earliest begin at its head (trawl_act_oldest_open). */
static void open_link(struct trawl_act *a, uint32_t i)
{
	a->nodes[i].oprev = a->otail;
	a->nodes[i].onext = NIL;
	if (a->otail != NIL)
		a->nodes[a->otail].onext = i;
	else
		a->ohead = i;
	a->otail = i;
}

static inline void open_unlink(struct trawl_act *a, uint32_t i)
{
	const struct node *n = &a->nodes[i];
	if (n->oprev != NIL)
		a->nodes[n->oprev].onext = n->onext;
	else
		a->ohead = n->onext;
	if (n->onext != NIL)
		a->nodes[n->onext].oprev = n->oprev;
	else
		a->otail = n->oprev;
}

/* A field's keys are without bound (a lock's address, a request's id),
 * but a trace mostly comes back to the same ones: an entry that empties
 * stays, so the next span on its key finds it (in the memo) instead of
 * deleting and inserting again. When the table would grow and at least
 * half its entries are such empty ones, it is made again without them, so
 * it stays within a few times the open activities, as when each went at
 * once. Out of memory: the table stays as it was (and grows on the put). */
static void sweep_empty(struct trawl_act *a)
{
	struct act_map m = { 0 };
	for (size_t i = 0; i <= a->map.mask; i++) {
		const struct act_slot *o = &a->map.slots[i];
		if (!o->tag || (!o->a && a->acts[o->tag - 1].def->key == TRAWL_DEFS_KEY_FIELD))
			continue;
		struct act_slot *n = act_map_put(&m, o->tag, o->key);
		if (!n) {
			act_map_free(&m);
			return;
		}
		n->a = o->a;
		n->b = o->b;
	}
	act_map_free(&a->map);
	a->map = m;
	a->nempty = 0;
}

/* Node i into its (activity, key) entry s: a message at the tail (first
 * in, first out), a span at the head (innermost first). Values are
 * index + 1, 0 for none. */
static inline void slot_link(struct trawl_act *a, struct act_slot *s, uint32_t i, int message)
{
	if (!message) {
		a->nodes[i].next = s->a ? s->a - 1 : NIL;
		s->a = i + 1;
		return;
	}
	a->nodes[i].next = NIL;
	if (s->a == 0)
		s->a = i + 1;
	else
		a->nodes[s->b - 1].next = i;
	s->b = i + 1;
}

__attribute__((always_inline)) static inline void open_node(struct trawl_act *a, uint32_t act, uint64_t key,
							    const struct at *ev, int keep)
{
	struct act_info *ai = &a->acts[act];
	const struct trawl_defs_activity *d = ai->def;
	if (a->nempty && 2 * (a->map.n + 1) > a->map.mask + 1 && 2 * a->nempty >= a->map.n)
		sweep_empty(a);
	size_t had = a->map.n;
	uint32_t i = a->open < a->max_open ? node_alloc(a) : NIL;
	struct act_slot *s = i != NIL ? slot_put(a, ai, act + 1, key) : NULL;
	if (s && !s->a && a->map.n == had && d->key == TRAWL_DEFS_KEY_FIELD)
		a->nempty--; /* an entry kept empty is in use again */
	if (!s) {
		if (i != NIL)
			node_free(a, (a->open++, i));
		ai->counts.overflow++;
		return;
	}
	a->open++;
	struct node *n = &a->nodes[i];
	n->begin = ev->time;
	n->cpu = ev->cpu;
	n->tid = ev->tid;
	n->flags = keep ? TRAWL_ACT_KEEP : 0;
	n->depth = 0;
	n->lane = NIL;
	n->next = NIL;
	if (!(a->omit & TRAWL_ACT_NO_OLDEST))
		open_link(a, i);
	slot_link(a, s, i, d->kind == TRAWL_DEFS_MESSAGE);
	if (d->kind == TRAWL_DEFS_MESSAGE || (a->omit & TRAWL_ACT_NO_DEPTH))
		return;
	int cpu_lane = d->key == TRAWL_DEFS_KEY_CPU;
	n->lane = lane_of(a, cpu_lane, cpu_lane ? ev->cpu : ev->tid);
	if (n->lane != NIL)
		n->depth = a->lane_open[n->lane]++;
}

static void emit(struct trawl_act *a, uint32_t act, const struct node *n, uint64_t end, uint64_t key,
		 uint32_t cpu_end, uint32_t tid_end, uint32_t flags)
{
	struct trawl_act_record rec = {
		.act = act, .depth = n->depth, .key = key, .begin = n->begin, .end = end,
		.cpu = n->cpu, .cpu_end = cpu_end, .tid = n->tid, .tid_end = tid_end,
		.flags = (n->flags & TRAWL_ACT_KEEP) | flags,
	};
	if (a->sink)
		a->sink(a->ctx, &rec);
}

__attribute__((always_inline)) static inline void close_node(struct trawl_act *a, uint32_t act, uint64_t key,
							     const struct at *ev, int also_begins)
{
	struct act_info *ai = &a->acts[act];
	struct act_slot *s = slot_get(a, ai, act + 1, key);
	/* !s->a: a thread's or cpu's entry, kept while empty */
	if (!s || !s->a) {
		if (!also_begins && !ai->counts.unmatched_end++)
			ai->counts.first_unmatched = ev->time;
		return;
	}
	uint32_t i = s->a - 1;
	struct node *n = &a->nodes[i];
	/* an entry that empties stays: a thread's or cpu's for good (as many
	 * as threads and cpus), a field's until sweep_empty */
	if (n->next != NIL)
		s->a = n->next + 1;
	else {
		s->a = 0;
		a->nempty += ai->def->key == TRAWL_DEFS_KEY_FIELD;
	}
	if (ai->def->kind == TRAWL_DEFS_SPAN && n->lane != NIL)
		a->lane_open[n->lane]--;
	ai->counts.closed++;
	emit(a, act, n, ev->time, key, ev->cpu, ev->tid, 0);
	if (!(a->omit & TRAWL_ACT_NO_OLDEST))
		open_unlink(a, i);
	node_free(a, i);
}

static struct cpu_state *cpu_grow(struct act_info *ai, uint32_t cpu)
{
	if (cpu >= MAX_STATE_CPUS)
		return NULL;
	uint32_t n = cpu + 1 > 2 * ai->ncpus ? cpu + 1 : 2 * ai->ncpus;
	if (n > MAX_STATE_CPUS)
		n = MAX_STATE_CPUS;
	struct cpu_state *c = realloc(ai->cpus, n * sizeof *c);
	if (!c)
		return NULL;
	memset(c + ai->ncpus, 0, (n - ai->ncpus) * sizeof *c);
	ai->cpus = c;
	ai->ncpus = n;
	return &ai->cpus[cpu];
}

/* A cpu seen before is an index; only a new one grows the table. */
static inline struct cpu_state *cpu_slot(struct act_info *ai, uint32_t cpu)
{
	return cpu < ai->ncpus ? &ai->cpus[cpu] : cpu_grow(ai, cpu);
}

static void emit_state(struct trawl_act *a, uint32_t act, const struct cpu_state *c, uint32_t cpu, uint64_t end,
		       uint32_t tid_end, uint32_t flags)
{
	struct node n = { .begin = c->since, .cpu = cpu, .tid = c->tid, .flags = (uint8_t)c->has };
	emit(a, act, &n, end, c->value, cpu, tid_end, flags);
}

__attribute__((always_inline)) static inline void set_state(struct trawl_act *a, const struct role *r,
							   const struct at *ev, int keep)
{
	struct act_info *ai = &a->acts[r->act];
	struct cpu_state *c = cpu_slot(ai, ev->cpu);
	if (!c) {
		if (ev->cpu >= MAX_STATE_CPUS) { /* not open activities: its own count */
			if (!ai->counts.cpu_beyond++)
				ai->counts.first_cpu_beyond = ev->cpu;
		} else {
			ai->counts.overflow++;
		}
		return;
	}
	uint64_t v = r->field >= 0 ? ev->val : r->set_index;
	if (c->has) {
		ai->counts.closed++;
		emit_state(a, r->act, c, ev->cpu, ev->time, ev->tid, 0);
	}
	/* has keeps the filter verdict in its KEEP bit, and 1 for "set" */
	c->has = 1 | (keep ? TRAWL_ACT_KEEP : 0);
	c->since = ev->time;
	c->value = v;
	c->tid = ev->tid;
}

/* The roles of class ci played by an event; vals NULL: e->val is the
 * class's field (a packed event). */
__attribute__((always_inline)) static inline void feed_roles(struct trawl_act *a, size_t ci, struct at *e,
							    const uint64_t *vals, int keep)
{
	for (uint32_t k = a->role_start[ci], end = a->role_start[ci + 1]; k < end; k++) {
		const struct role *r = &a->roles[k];
		if (vals && r->field >= 0)
			e->val = vals[r->field];
		if (r->role == R_SET)
			set_state(a, r, e, keep);
		else if (r->role == R_BEGIN)
			open_node(a, r->act, key_of(r, e), e, keep);
		else
			close_node(a, r->act, key_of(r, e), e, r->also_begins);
	}
}

__attribute__((always_inline)) static inline void feed(struct trawl_act *a, const struct trawl_sw_event *ev, int keep)
{
	size_t ci = (size_t)(ev->cls - a->classes);
	if (ci >= a->nclasses)
		return;
	struct at e = at_of(ev);
	feed_roles(a, ci, &e, ev->vals, keep);
}

void trawl_act_feed(struct trawl_act *a, const struct trawl_sw_event *ev, int keep)
{
	feed(a, ev, keep);
}

void trawl_act_feed_batch(struct trawl_act *a, const struct trawl_sw_event *evs, size_t n, const uint8_t *keep)
{
	for (size_t i = 0; i < n; i++)
		feed(a, &evs[i], keep[i]);
}

int trawl_act_packable(const struct trawl_act *a)
{
	for (size_t c = 0; c < a->nclasses; c++)
		if (a->class_field[c] == -2)
			return 0;
	return 1;
}

/* The events no activity names are left out: they would cost the
 * engine's side a load each for nothing. The tables are read into locals
 * first: the stores into out could alias them, and the engine's thread
 * writes beside them in *a (its cache line would go back and forth). */
size_t trawl_act_pack(const struct trawl_act *a, const struct trawl_sw_event *evs, size_t n, const uint8_t *keep,
		      struct trawl_act_event *out)
{
	const struct trawl_sw_class *const classes = a->classes;
	const size_t nclasses = a->nclasses;
	const uint32_t *const role_start = a->role_start;
	const int8_t *const class_field = a->class_field;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct trawl_sw_event *ev = &evs[i];
		size_t ci = (size_t)(ev->cls - classes);
		if (ci >= nclasses || role_start[ci] == role_start[ci + 1])
			continue;
		int f = class_field[ci];
		/* field by field: built as one value, it went through the stack */
		struct trawl_act_event *o = &out[m++];
		o->time = ev->time;
		o->val = f >= 0 ? ev->vals[f] : 0;
		o->cpu = ev->cpu;
		o->tid = ev->tid;
		o->cls = (uint32_t)ci;
		o->keep = keep[i];
	}
	return m;
}

/* The general steps, out of line, for what feed_lean's steps leave to
 * them. */
static __attribute__((noinline)) void open_slow(struct trawl_act *a, const struct role *r, uint64_t key,
						const struct trawl_act_event *p)
{
	struct at e = { p->time, p->val, p->cpu, p->tid };
	open_node(a, r->act, key, &e, (int)p->keep);
}

static __attribute__((noinline)) void close_slow(struct trawl_act *a, const struct role *r, uint64_t key,
						 const struct trawl_act_event *p)
{
	struct at e = { p->time, p->val, p->cpu, p->tid };
	close_node(a, r->act, key, &e, r->also_begins);
}

static __attribute__((noinline)) void set_slow(struct trawl_act *a, const struct role *r,
					       const struct trawl_act_event *p)
{
	struct at e = { p->time, p->val, p->cpu, p->tid };
	set_state(a, r, &e, (int)p->keep);
}

/* open_node when it would take a free node and find its (activity, key)
 * in the memo, with no sweep due and neither depth nor the open list
 * kept: the same changes, with nothing else tested. */
static inline void lean_open(struct trawl_act *a, const struct role *r, uint64_t key, const struct trawl_act_event *p)
{
	struct act_info *ai = &a->acts[r->act];
	uint32_t i = a->free_list;
	struct act_slot *s = a->map.slots ? &a->map.slots[ai->memo & a->map.mask] : NULL;
	if (__builtin_expect(!s || s->tag != r->act + 1 || s->key != key || i == NIL || a->open >= a->max_open ||
			     (a->nempty && 2 * (a->map.n + 1) > a->map.mask + 1), 0)) {
		open_slow(a, r, key, p);
		return;
	}
	struct node *n = &a->nodes[i];
	a->free_list = n->next;
	a->open++;
	a->nempty -= (s->a == 0) & r->field_key; /* an entry kept empty is in use again */
	n->begin = p->time;
	n->cpu = p->cpu;
	n->tid = p->tid;
	n->flags = p->keep ? TRAWL_ACT_KEEP : 0;
	n->depth = 0;
	n->lane = NIL;
	slot_link(a, s, i, r->message);
}

/* close_node when the memo holds (activity, key) with a node open. */
static inline void lean_close(struct trawl_act *a, const struct role *r, uint64_t key, const struct trawl_act_event *p)
{
	struct act_info *ai = &a->acts[r->act];
	struct act_slot *s = a->map.slots ? &a->map.slots[ai->memo & a->map.mask] : NULL;
	if (__builtin_expect(!s || s->tag != r->act + 1 || s->key != key || !s->a, 0)) {
		close_slow(a, r, key, p);
		return;
	}
	uint32_t i = s->a - 1;
	struct node *n = &a->nodes[i];
	struct trawl_act_record rec = {
		.act = r->act, .depth = n->depth, .key = key, .begin = n->begin, .end = p->time,
		.cpu = n->cpu, .cpu_end = p->cpu, .tid = n->tid, .tid_end = p->tid,
		.flags = n->flags & TRAWL_ACT_KEEP,
	};
	if (n->next != NIL)
		s->a = n->next + 1;
	else {
		s->a = 0;
		a->nempty += r->field_key;
	}
	n->next = a->free_list;
	a->free_list = i;
	a->open--;
	ai->counts.closed++;
	if (a->sink)
		a->sink(a->ctx, &rec);
}

/* set_state on a cpu seen before. */
static inline void lean_set(struct trawl_act *a, const struct role *r, const struct trawl_act_event *p)
{
	struct act_info *ai = &a->acts[r->act];
	if (__builtin_expect(p->cpu >= ai->ncpus, 0)) {
		set_slow(a, r, p);
		return;
	}
	struct cpu_state *c = &ai->cpus[p->cpu];
	struct trawl_act_record rec = {
		.act = r->act, .key = c->value, .begin = c->since, .end = p->time, .cpu = p->cpu,
		.cpu_end = p->cpu, .tid = c->tid, .tid_end = p->tid, .flags = c->has & TRAWL_ACT_KEEP,
	};
	uint32_t had = c->has;
	c->has = 1 | (p->keep ? TRAWL_ACT_KEEP : 0);
	c->since = p->time;
	c->value = r->field >= 0 ? p->val : r->set_index;
	c->tid = p->tid;
	if (had) {
		ai->counts.closed++;
		if (a->sink)
			a->sink(a->ctx, &rec);
	}
}

/* The summary's case, depth and the open list omitted: the common steps
 * written for it (the general ones, with their tests of what is kept and
 * their record built in steps, took a third more of the engine's time,
 * its thread being the bound of a two-thread summary). */
static void feed_lean(struct trawl_act *a, const struct trawl_act_event *evs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct trawl_act_event *p = &evs[i];
		/* the reading thread wrote these on its core: asked for ahead,
		 * the summary took about 4% less CPU time */
		__builtin_prefetch(p + 32);
		const struct role *r = a->roles + a->role_start[p->cls];
		const struct role *end = a->roles + a->role_start[p->cls + 1];
		for (; r < end; r++) {
			if (r->role == R_SET) {
				lean_set(a, r, p);
				continue;
			}
			uint64_t key = r->field >= 0 ? p->val : r->cpu_key ? p->cpu : p->tid;
			if (r->role == R_BEGIN)
				lean_open(a, r, key, p);
			else
				lean_close(a, r, key, p);
		}
	}
}

void trawl_act_feed_packed(struct trawl_act *a, const struct trawl_act_event *evs, size_t n)
{
	if (a->omit == (TRAWL_ACT_NO_DEPTH | TRAWL_ACT_NO_OLDEST)) {
		feed_lean(a, evs, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct trawl_act_event *p = &evs[i];
		struct at e = { p->time, p->val, p->cpu, p->tid };
		feed_roles(a, p->cls, &e, NULL, (int)p->keep);
	}
}

void trawl_act_finish(struct trawl_act *a, uint64_t end)
{
	for (size_t s = 0; a->map.slots && s <= a->map.mask; s++) {
		const struct act_slot *sl = &a->map.slots[s];
		if (!sl->tag || sl->tag > a->nacts)
			continue;
		for (uint32_t i = sl->a ? sl->a - 1 : NIL; i != NIL; i = a->nodes[i].next) {
			a->acts[sl->tag - 1].counts.open_at_end++;
			emit(a, sl->tag - 1, &a->nodes[i], end, sl->key, a->nodes[i].cpu, a->nodes[i].tid, TRAWL_ACT_OPEN);
		}
	}
	for (size_t k = 0; k < a->nacts; k++)
		for (uint32_t cpu = 0; cpu < a->acts[k].ncpus; cpu++) {
			struct cpu_state *c = &a->acts[k].cpus[cpu];
			if (!c->has)
				continue;
			a->acts[k].counts.open_at_end++;
			emit_state(a, (uint32_t)k, c, cpu, end, c->tid, TRAWL_ACT_OPEN);
			c->has = 0;
		}
	act_map_free(&a->map);
	a->nempty = 0;
	if (a->nlanes)
		memset(a->lane_open, 0, a->nlanes * sizeof *a->lane_open);
	a->nnodes = a->open = 0;
	a->free_list = NIL;
	a->ohead = a->otail = NIL;
}

uint64_t trawl_act_oldest_open(const struct trawl_act *a, uint64_t now)
{
	uint64_t t = now;
	if (a->ohead != NIL && a->nodes[a->ohead].begin < t)
		t = a->nodes[a->ohead].begin;
	for (size_t k = 0; k < a->nacts; k++)
		for (uint32_t cpu = 0; cpu < a->acts[k].ncpus; cpu++)
			if (a->acts[k].cpus[cpu].has && a->acts[k].cpus[cpu].since < t)
				t = a->acts[k].cpus[cpu].since;
	return t;
}

enum trawl_status trawl_act_add_span(struct trawl_act *a, const char *name, uint32_t *act, struct trawl_error *err)
{
	for (size_t i = 0; i < a->nacts; i++)
		if (!strcmp(a->acts[i].def->name, name)) {
			*act = (uint32_t)i;
			return TRAWL_OK;
		}
	if (a->nacts >= 4096)
		return trawl_error_set(err, TRAWL_ERR_LIMIT, "too many activities (at most 4096)");
	struct act_info *n = realloc(a->acts, (a->nacts + 1) * sizeof *n);
	if (!n)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	a->acts = n;
	struct act_info *ai = &a->acts[a->nacts];
	memset(ai, 0, sizeof *ai);
	if (!(ai->own = calloc(1, sizeof *ai->own)))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	snprintf(ai->own->name, sizeof ai->own->name, "%s", name);
	ai->own->kind = TRAWL_DEFS_SPAN;
	ai->own->key = TRAWL_DEFS_KEY_FIELD; /* the key the script gives */
	ai->def = ai->own;
	*act = (uint32_t)a->nacts++;
	return TRAWL_OK;
}

void trawl_act_open(struct trawl_act *a, uint32_t act, uint64_t key, const struct trawl_sw_event *ev, int keep)
{
	struct at e = at_of(ev);
	if (act < a->nacts)
		open_node(a, act, key, &e, keep);
}

void trawl_act_close(struct trawl_act *a, uint32_t act, uint64_t key, const struct trawl_sw_event *ev)
{
	struct at e = at_of(ev);
	if (act < a->nacts)
		close_node(a, act, key, &e, 0);
}

void trawl_act_omit(struct trawl_act *a, unsigned what)
{
	a->omit = what;
}

size_t trawl_act_count(const struct trawl_act *a)
{
	return a->nacts;
}

const struct trawl_defs_activity *trawl_act_def(const struct trawl_act *a, size_t act)
{
	return act < a->nacts ? a->acts[act].def : NULL;
}

const struct trawl_act_counts *trawl_act_counts(const struct trawl_act *a, size_t act)
{
	return act < a->nacts ? &a->acts[act].counts : NULL;
}

void trawl_act_state_name(const struct trawl_act *a, size_t act, uint64_t key, char *buf, size_t size)
{
	const struct trawl_defs_activity *d = a->acts[act].def;
	if (!d->field[0] && key < d->nbegin)
		snprintf(buf, size, "%s", d->begin[key].name);
	else
		snprintf(buf, size, "%llu", (unsigned long long)key);
}

int trawl_act_state_idle(const struct trawl_act *a, size_t act, uint64_t key)
{
	const struct trawl_defs_activity *d = a->acts[act].def;
	if (d->has_idle == 1)
		return key == d->idle;
	if (d->has_idle == 2)
		return key < d->nbegin && !strcasecmp(d->begin[key].name, d->idle_ref.name);
	return 0;
}

void trawl_act_destroy(struct trawl_act *a)
{
	if (!a)
		return;
	for (size_t k = 0; a->acts && k < a->nacts; k++) {
		free(a->acts[k].cpus);
		free(a->acts[k].own);
	}
	act_map_free(&a->map);
	act_map_free(&a->lanes);
	free(a->lane_open);
	free(a->nodes);
	free(a->roles);
	free(a->class_field);
	free(a->role_start);
	free(a->acts);
	free(a);
}
