/* Views computed from a finished call tree: the depth-first walker, the
 * per-function profile, and the calling-context tree behind flame graphs. */
#include "trawl/calls.h"

#include <stdlib.h>
#include <string.h>

/* ---- walking --------------------------------------------------------- */

struct walk_slot {
	uint32_t id, child;
};

/* An explicit stack instead of recursion: a call tree of a long trace can be
 * deeper than the C stack (runaway recursion in the traced program), and the
 * walk must still finish. Either callback can stop the walk by returning
 * non-zero, and that value is returned. */
int trawl_calls_walk(const struct trawl_calls *c, unsigned cpu, trawl_calls_visit_fn enter,
		     trawl_calls_visit_fn leave, void *ctx)
{
	size_t count;
	const struct trawl_call *nodes = trawl_calls_nodes(c, &count);
	struct walk_slot *stack = NULL;
	size_t cap = 0;
	int rc = 0;
	for (uint32_t r = trawl_calls_first_root(c, cpu); r != TRAWL_CALL_NONE; r = nodes[r].next) {
		size_t sp = 0;
		uint32_t id = r;
		for (;;) {
			if (id != TRAWL_CALL_NONE) {
				if (enter && (rc = enter(ctx, id, &nodes[id], (unsigned)sp)))
					goto out;
				if (sp == cap) {
					size_t ncap = cap ? cap * 2 : 64;
					struct walk_slot *p = realloc(stack, ncap * sizeof *p);
					if (!p) {
						rc = -1;
						goto out;
					}
					stack = p;
					cap = ncap;
				}
				stack[sp].id = id;
				stack[sp].child = nodes[id].first_child;
				sp++;
			}
			if (!sp)
				break;
			struct walk_slot *top = &stack[sp - 1];
			if (top->child != TRAWL_CALL_NONE) {
				id = top->child;
				top->child = nodes[id].next;
				continue;
			}
			sp--;
			if (leave && (rc = leave(ctx, top->id, &nodes[top->id], (unsigned)sp)))
				goto out;
			if (!sp)
				break;
			id = TRAWL_CALL_NONE;
		}
	}
out:
	free(stack);
	return rc;
}

/* ---- string pools and a small hash ------------------------------------ */

static int pool_add(char **pool, size_t *len, size_t *cap, const char *s, uint32_t *off)
{
	size_t n = strlen(s) + 1;
	if (*len + n > *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		while (ncap < *len + n)
			ncap *= 2;
		char *p = realloc(*pool, ncap);
		if (!p)
			return 0;
		*pool = p;
		*cap = ncap;
	}
	if (*len + n > UINT32_MAX)
		return 0;
	memcpy(*pool + *len, s, n);
	*off = (uint32_t)*len;
	*len += n;
	return 1;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* ---- profile --------------------------------------------------------- */

struct prof_build {
	struct trawl_profile *p;
	const struct trawl_calls *c;
	size_t cap;
	uint32_t *offs;          /* name offset per entry (names pool) */
	uint32_t *slots;         /* hash: entry index + 1 */
	size_t nslots;
	uint64_t *active;        /* activations open on the current path, per entry */
	uint32_t *path;          /* entry index per depth */
	size_t path_cap;
	uint64_t *child_time;    /* per depth: sum of callee durations */
	int nomem;
};

static int prof_grow_hash(struct prof_build *b)
{
	size_t n = b->nslots ? b->nslots * 2 : 256;
	uint32_t *s = calloc(n, sizeof *s);
	if (!s)
		return 0;
	for (size_t i = 0; i < b->p->count; i++) {
		uint64_t h = hash_str(b->p->names + b->offs[i]) & (n - 1);
		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = (uint32_t)i + 1;
	}
	free(b->slots);
	b->slots = s;
	b->nslots = n;
	return 1;
}

static long prof_entry(struct prof_build *b, const char *name, uint64_t addr)
{
	if ((b->p->count + 1) * 2 > b->nslots && !prof_grow_hash(b))
		return -1;
	uint64_t h = hash_str(name) & (b->nslots - 1);
	while (b->slots[h]) {
		uint32_t i = b->slots[h] - 1;
		if (strcmp(b->p->names + b->offs[i], name) == 0)
			return i;
		h = (h + 1) & (b->nslots - 1);
	}
	if (b->p->count == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 64;
		struct trawl_profile_entry *e = realloc(b->p->entries, ncap * sizeof *e);
		if (!e)
			return -1;
		b->p->entries = e;
		uint32_t *o = realloc(b->offs, ncap * sizeof *o);
		if (!o)
			return -1;
		b->offs = o;
		uint64_t *a = realloc(b->active, ncap * sizeof *a);
		if (!a)
			return -1;
		b->active = a;
		b->cap = ncap;
	}
	size_t i = b->p->count;
	if (!pool_add(&b->p->names, &b->p->names_len, &b->p->names_cap, name, &b->offs[i]))
		return -1;
	memset(&b->p->entries[i], 0, sizeof b->p->entries[i]);
	b->p->entries[i].addr = addr;
	b->active[i] = 0;
	b->p->count++;
	b->slots[h] = (uint32_t)i + 1;
	return (long)i;
}

static int prof_enter(void *ctx, uint32_t id, const struct trawl_call *n, unsigned depth)
{
	struct prof_build *b = ctx;
	char name[256];
	trawl_calls_name(b->c, n, name, sizeof name);
	long e = prof_entry(b, name, n->entry_pc);
	if (e < 0 || depth + 1 > (1u << 30))
		return b->nomem = 1;
	if (depth >= b->path_cap) {
		size_t ncap = b->path_cap ? b->path_cap * 2 : 64;
		uint32_t *p = realloc(b->path, ncap * sizeof *p);
		if (!p)
			return b->nomem = 1;
		b->path = p;
		uint64_t *t = realloc(b->child_time, ncap * sizeof *t);
		if (!t)
			return b->nomem = 1;
		b->child_time = t;
		b->path_cap = ncap;
	}
	b->path[depth] = (uint32_t)e;
	b->child_time[depth] = 0;
	struct trawl_profile_entry *pe = &b->p->entries[e];
	pe->calls++;
	pe->self_insns += n->self;
	uint64_t dur = trawl_call_duration(n);
	if (b->active[e] == 0) {
		pe->incl_insns += n->insns;
		pe->incl_time += dur;
	}
	b->active[e]++;
	if (b->active[e] > pe->max_depth)
		pe->max_depth = b->active[e];
	if (depth == 0)
		b->p->total_insns += n->insns;
	(void)id;
	return 0;
}

static int prof_leave(void *ctx, uint32_t id, const struct trawl_call *n, unsigned depth)
{
	struct prof_build *b = ctx;
	uint32_t e = b->path[depth];
	uint64_t dur = trawl_call_duration(n);
	uint64_t kids = b->child_time[depth];
	b->p->entries[e].self_time += dur > kids ? dur - kids : 0;
	if (depth > 0)
		b->child_time[depth - 1] += dur;
	b->active[e]--;
	(void)id;
	return 0;
}

enum trawl_status trawl_profile_build(struct trawl_profile *p, const struct trawl_calls *c,
				      struct trawl_error *err)
{
	memset(p, 0, sizeof *p);
	struct prof_build b = { .p = p, .c = c };
	enum trawl_status st = TRAWL_OK;
	for (unsigned cpu = 0; cpu < trawl_calls_cpus(c); cpu++)
		if (trawl_calls_walk(c, cpu, prof_enter, prof_leave, &b) || b.nomem) {
			st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory building the profile");
			break;
		}
	for (size_t i = 0; i < p->count && st == TRAWL_OK; i++)
		p->entries[i].name = p->names + b.offs[i];
	free(b.offs);
	free(b.slots);
	free(b.active);
	free(b.path);
	free(b.child_time);
	if (st)
		trawl_profile_release(p);
	return st;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b ? 1 : 0;
}

static enum trawl_profile_sort sort_key;

static int cmp_entry(const void *pa, const void *pb)
{
	const struct trawl_profile_entry *a = pa, *b = pb;
	int r = 0;
	switch (sort_key) {
	case TRAWL_PROFILE_BY_INCL: r = cmp_u64_desc(a->incl_insns, b->incl_insns); break;
	case TRAWL_PROFILE_BY_SELF: r = cmp_u64_desc(a->self_insns, b->self_insns); break;
	case TRAWL_PROFILE_BY_CALLS: r = cmp_u64_desc(a->calls, b->calls); break;
	case TRAWL_PROFILE_BY_ADDR: r = -cmp_u64_desc(a->addr, b->addr); break;
	case TRAWL_PROFILE_BY_NAME: break;
	}
	return r ? r : strcmp(a->name, b->name);
}

void trawl_profile_sort(struct trawl_profile *p, enum trawl_profile_sort by)
{
	sort_key = by;
	if (p->count)
		qsort(p->entries, p->count, sizeof *p->entries, cmp_entry);
}

void trawl_profile_release(struct trawl_profile *p)
{
	free(p->entries);
	free(p->names);
	memset(p, 0, sizeof *p);
}

/* ---- calling-context tree -------------------------------------------- */

struct cct_build {
	struct trawl_cct *t;
	const struct trawl_calls *c;
	uint32_t *path;          /* CCT node per depth */
	size_t path_cap;
	uint32_t base;           /* CCT node the current CPU's roots hang under */
	int nomem;
};

static long cct_child(struct trawl_cct *t, uint32_t parent, const char *name)
{
	for (uint32_t k = t->nodes[parent].first_child; k != TRAWL_CALL_NONE; k = t->nodes[k].next)
		if (strcmp(t->names + t->nodes[k].name, name) == 0)
			return k;
	if (t->count == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		struct trawl_cct_node *p = realloc(t->nodes, ncap * sizeof *p);
		if (!p)
			return -1;
		t->nodes = p;
		t->cap = ncap;
	}
	if (t->count >= UINT32_MAX - 1)
		return -1;
	uint32_t id = (uint32_t)t->count;
	struct trawl_cct_node *n = &t->nodes[id];
	memset(n, 0, sizeof *n);
	if (!pool_add(&t->names, &t->names_len, &t->names_cap, name, &n->name))
		return -1;
	t->count++;
	n->parent = parent;
	n->first_child = TRAWL_CALL_NONE;
	/* prepend: order is restored when writing (sorted by name) */
	n->next = t->nodes[parent].first_child;
	t->nodes[parent].first_child = id;
	return id;
}

static int cct_enter(void *ctx, uint32_t id, const struct trawl_call *n, unsigned depth)
{
	struct cct_build *b = ctx;
	char name[256];
	if (depth >= b->path_cap) {
		size_t ncap = b->path_cap ? b->path_cap * 2 : 64;
		uint32_t *p = realloc(b->path, ncap * sizeof *p);
		if (!p)
			return b->nomem = 1;
		b->path = p;
		b->path_cap = ncap;
	}
	uint32_t parent = depth ? b->path[depth - 1] : b->base;
	long k = cct_child(b->t, parent, trawl_calls_name(b->c, n, name, sizeof name));
	if (k < 0)
		return b->nomem = 1;
	b->path[depth] = (uint32_t)k;
	b->t->nodes[k].self += n->self;
	(void)id;
	return 0;
}

static const struct trawl_cct *sort_cct;

static int cmp_cct(const void *pa, const void *pb)
{
	const struct trawl_cct_node *a = &sort_cct->nodes[*(const uint32_t *)pa];
	const struct trawl_cct_node *b = &sort_cct->nodes[*(const uint32_t *)pb];
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	return strcmp(sort_cct->names + a->name, sort_cct->names + b->name);
}

/* Order every node's children by name, so output does not depend on the
 * order calls happened in. */
static int cct_sort_children(struct trawl_cct *t)
{
	if (t->count < 2)
		return 1;
	uint32_t *ids = malloc((t->count - 1) * sizeof *ids);
	if (!ids)
		return 0;
	for (size_t i = 1; i < t->count; i++)
		ids[i - 1] = (uint32_t)i;
	sort_cct = t;
	qsort(ids, t->count - 1, sizeof *ids, cmp_cct);
	for (size_t i = 0; i < t->count; i++)
		t->nodes[i].first_child = TRAWL_CALL_NONE;
	for (size_t i = t->count - 1; i-- > 0;) { /* backwards: prepend keeps order */
		struct trawl_cct_node *n = &t->nodes[ids[i]];
		n->next = t->nodes[n->parent].first_child;
		t->nodes[n->parent].first_child = ids[i];
	}
	free(ids);
	return 1;
}

/* Merges every activation with the same call path into one node, per CPU
 * under a "cpuN" node only when there is more than one CPU. Children are
 * sorted by name so the flame graph does not depend on call order. Totals
 * are summed in one backward pass, which works because a node is always
 * created after its parent. */
enum trawl_status trawl_cct_build(struct trawl_cct *t, const struct trawl_calls *c,
				  struct trawl_error *err)
{
	memset(t, 0, sizeof *t);
	struct cct_build b = { .t = t, .c = c };
	enum trawl_status st = TRAWL_OK;
	t->cap = 256;
	t->nodes = calloc(t->cap, sizeof *t->nodes);
	if (!t->nodes || !pool_add(&t->names, &t->names_len, &t->names_cap, "all", &t->nodes[0].name)) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		goto out;
	}
	t->count = 1;
	t->nodes[0].parent = t->nodes[0].first_child = t->nodes[0].next = TRAWL_CALL_NONE;
	unsigned ncpu = trawl_calls_cpus(c), used = 0;
	for (unsigned cpu = 0; cpu < ncpu; cpu++)
		used += trawl_calls_first_root(c, cpu) != TRAWL_CALL_NONE;
	for (unsigned cpu = 0; cpu < ncpu; cpu++) {
		if (trawl_calls_first_root(c, cpu) == TRAWL_CALL_NONE)
			continue;
		b.base = 0;
		if (used > 1) {
			char name[32];
			snprintf(name, sizeof name, "cpu%u", cpu);
			long k = cct_child(t, 0, name);
			if (k < 0) {
				b.nomem = 1;
				break;
			}
			b.base = (uint32_t)k;
		}
		/* the walk's own stack can fail to grow too (-1) */
		if (trawl_calls_walk(c, cpu, cct_enter, NULL, &b) < 0)
			b.nomem = 1;
		if (b.nomem)
			break;
	}
	if (b.nomem) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory building the flame graph");
		goto out;
	}
	if (!cct_sort_children(t)) {
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory building the flame graph");
		goto out;
	}
	/* children always come after their parent: sum totals bottom-up */
	for (size_t i = 0; i < t->count; i++)
		t->nodes[i].total = t->nodes[i].self;
	for (size_t i = t->count; i-- > 1;)
		t->nodes[t->nodes[i].parent].total += t->nodes[i].total;
out:
	free(b.path);
	if (st)
		trawl_cct_release(t);
	return st;
}

void trawl_cct_release(struct trawl_cct *t)
{
	free(t->nodes);
	free(t->names);
	memset(t, 0, sizeof *t);
}
