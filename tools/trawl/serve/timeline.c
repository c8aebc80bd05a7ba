/* The call timeline of an instruction trace (see timeline.h).
 *
 * Activations at one depth on one core never overlap (they are siblings or
 * cousins in one tree), so sorted by first line they are sorted by last
 * line too. A view of lines [from, to) in `cols` columns maps line L to
 * column (L - from) * cols / (to - from). At each depth the activations are
 * grouped left to right: one whose first column is at most the last column
 * of the group before joins it (the group then ends where it ends), else it
 * starts a new group. A group of one is drawn as that function, a bigger
 * one as "N calls". Each group is found with two binary searches, so a view
 * costs O(depths * cols * log n) however many activations it covers. */
#include "serve/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

static void drop_calls(struct serve_timeline *t);

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static int rehash(struct serve_timeline *t, uint32_t cap)
{
	uint32_t *h = calloc(cap, sizeof *h);
	if (!h)
		return -1;
	for (uint32_t i = 0; i < t->nnames; i++) {
		uint32_t k = hash_str(t->names[i]) & (cap - 1);
		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = i + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hash_cap = cap;
	return 0;
}

/* The index of name in the table, added when new; UINT32_MAX on no memory. */
static uint32_t intern(struct serve_timeline *t, const char *name)
{
	if ((t->nnames + 1) * 2 > t->hash_cap && rehash(t, t->hash_cap ? t->hash_cap * 2 : 1024))
		return UINT32_MAX;
	uint32_t k = hash_str(name) & (t->hash_cap - 1);
	for (; t->hash[k]; k = (k + 1) & (t->hash_cap - 1))
		if (!strcmp(t->names[t->hash[k] - 1], name))
			return t->hash[k] - 1;
	char *copy = strdup(name);
	size_t cap = t->names_cap;
	if (!copy || !trawl_grow((void **)&t->names, &cap, t->nnames + 1, sizeof *t->names)) {
		free(copy);
		return UINT32_MAX;
	}
	t->names_cap = (uint32_t)cap;
	t->names[t->nnames] = copy;
	t->hash[k] = ++t->nnames;
	return t->nnames - 1;
}

struct build {
	struct serve_timeline *t;
	const struct trawl_calls *c;
	struct tl_core *core;
	int nomem;
};

static int add_act(void *ctx, uint32_t id, const struct trawl_call *n, unsigned depth)
{
	struct build *b = ctx;
	struct tl_core *k = b->core;
	char name[256];
	(void)id;
	if (n->flags & TRAWL_FRAMEF_DEAD)
		return 0;
	if (depth >= k->nlevels) {
		size_t cap = k->levels_cap;
		if (!trawl_grow((void **)&k->levels, &cap, depth + 1, sizeof *k->levels))
			return b->nomem = -1;
		memset(k->levels + k->nlevels, 0, (depth + 1 - k->nlevels) * sizeof *k->levels);
		k->levels_cap = (unsigned)cap;
		k->nlevels = depth + 1;
	}
	struct tl_level *l = &k->levels[depth];
	uint32_t nm = intern(b->t, trawl_calls_name(b->c, n, name, sizeof name));
	if (nm == UINT32_MAX || !trawl_grow((void **)&l->a, &l->cap, l->n + 1, sizeof *l->a))
		return b->nomem = -1;
	l->a[l->n++] = (struct tl_act){ n->first_line, n->last_line, nm, n->kind };
	b->t->activations++;
	if (n->kind == TRAWL_FRAME_EXCEPTION) {
		if (!trawl_grow((void **)&k->marks, &k->marks_cap, k->nmarks + 1, sizeof *k->marks))
			return b->nomem = -1;
		k->marks[k->nmarks++] = n->first_line;
	}
	return 0;
}

int serve_timeline_build(struct serve_timeline *t, const struct trawl_calls *c)
{
	unsigned ncpu = trawl_calls_cpus(c);
	memset(t, 0, sizeof *t);
	t->cores = calloc(ncpu ? ncpu : 1, sizeof *t->cores);
	if (!t->cores)
		return -1;
	for (unsigned cpu = 0; cpu < ncpu; cpu++) {
		if (trawl_calls_first_root(c, cpu) == TRAWL_CALL_NONE)
			continue;
		struct build b = { t, c, &t->cores[t->ncores++], 0 };
		b.core->cpu = cpu;
		if (trawl_calls_walk(c, cpu, add_act, NULL, &b) || b.nomem)
			return -1;
	}
	return 0;
}

void serve_timeline_release(struct serve_timeline *t)
{
	for (unsigned i = 0; i < t->ncores; i++) {
		for (unsigned d = 0; d < t->cores[i].nlevels; d++)
			free(t->cores[i].levels[d].a);
		free(t->cores[i].levels);
		free(t->cores[i].marks);
	}
	drop_calls(t);
	for (uint32_t i = 0; i < t->nnames; i++)
		free(t->names[i]);
	free(t->names);
	free(t->hash);
	free(t->cores);
	memset(t, 0, sizeof *t);
}

struct view {
	uint64_t from, to, cols, span;
};

static uint64_t col_of(const struct view *v, uint64_t line)
{
	if (line < v->from)
		return 0;
	if (line >= v->to)
		return v->cols - 1;
	return (uint64_t)((unsigned __int128)(line - v->from) * v->cols / v->span);
}

/* The first line whose column is c (c <= cols). */
static uint64_t col_start(const struct view *v, uint64_t c)
{
	unsigned __int128 x = (unsigned __int128)c * v->span + v->cols - 1;
	return v->from + (uint64_t)(x / v->cols);
}

/* First i with a[i].last >= line. */
static size_t first_ending(const struct tl_level *l, uint64_t line)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (l->a[m].last < line)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* Last i >= i0 with a[i].first < line (a[i0] is known to qualify). */
static size_t last_starting(const struct tl_level *l, size_t i0, uint64_t line)
{
	size_t lo = i0, hi = l->n;
	while (hi - lo > 1) {
		size_t m = lo + (hi - lo) / 2;
		if (l->a[m].first < line)
			lo = m;
		else
			hi = m;
	}
	return lo;
}

/* The groups of one depth; returns the items written. */
static uint64_t write_level(const struct serve_timeline *t, const struct tl_core *k, unsigned d,
			    const struct view *v, uint64_t budget, struct trawl_json *j)
{
	const struct tl_level *l = &k->levels[d];
	uint64_t items = 0;
	for (size_t i = first_ending(l, v->from); i < l->n && l->a[i].first < v->to; items++) {
		if (items == budget)
			return items + 1;   /* tells the caller there was more */
		uint64_t c0 = col_of(v, l->a[i].first), c1 = col_of(v, l->a[i].last);
		size_t g = i;
		for (;;) {
			uint64_t end = c1 + 1 >= v->cols ? v->to : col_start(v, c1 + 1);
			size_t k2 = last_starting(l, g, end);
			if (k2 == g)
				break;
			g = k2;
			uint64_t c = col_of(v, l->a[g].last);
			c1 = c > c1 ? c : c1;
		}
		trawl_json_array_begin(j);
		trawl_json_u64(j, k->cpu);
		trawl_json_u64(j, d);
		trawl_json_u64(j, c0);
		trawl_json_u64(j, c1);
		trawl_json_u64(j, g - i + 1);
		if (g == i)
			trawl_json_cstring(j, t->names[l->a[i].name]);
		else
			trawl_json_null(j);
		trawl_json_u64(j, l->a[i].first);
		trawl_json_u64(j, l->a[g].last);
		trawl_json_array_end(j);
		i = g + 1;
	}
	return items;
}

static size_t lower_bound(const uint64_t *m, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Marks (sorted lines m[0, n)), one per column: [cpu, column, count, first line]. */
static void write_marks(unsigned cpu, const uint64_t *m, size_t n, const struct view *v,
			struct trawl_json *j)
{
	size_t i = lower_bound(m, n, v->from);
	while (i < n && m[i] < v->to) {
		uint64_t c = col_of(v, m[i]);
		size_t e = lower_bound(m, n, col_start(v, c + 1));
		trawl_json_array_begin(j);
		trawl_json_u64(j, cpu);
		trawl_json_u64(j, c);
		trawl_json_u64(j, e - i);
		trawl_json_u64(j, m[i]);
		trawl_json_array_end(j);
		i = e;
	}
}

static int name_matches(const char *have, const char *want);

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void drop_calls(struct serve_timeline *t)
{
	for (unsigned i = 0; t->calls && i < t->ncores; i++)
		free(t->calls[i]);
	free(t->calls);
	free(t->ncalls);
	free(t->calls_name);
	t->calls = NULL;
	t->ncalls = NULL;
	t->calls_name = NULL;
}

/* The first lines of name's activations, per core: one pass over every
 * activation, kept for the next request (a view pans and zooms with the
 * same marks). */
int serve_timeline_mark(struct serve_timeline *t, const char *name)
{
	if (t->calls_name && !strcmp(t->calls_name, name))
		return 0;
	drop_calls(t);
	t->calls = calloc(t->ncores ? t->ncores : 1, sizeof *t->calls);
	t->ncalls = calloc(t->ncores ? t->ncores : 1, sizeof *t->ncalls);
	t->calls_name = strdup(name);
	if (!t->calls || !t->ncalls || !t->calls_name)
		goto nomem;
	for (unsigned i = 0; i < t->ncores; i++) {
		size_t cap = 0;
		for (unsigned d = 0; d < t->cores[i].nlevels; d++) {
			const struct tl_level *l = &t->cores[i].levels[d];
			for (size_t k = 0; k < l->n; k++) {
				if (!name_matches(t->names[l->a[k].name], name))
					continue;
				if (!trawl_grow((void **)&t->calls[i], &cap, t->ncalls[i] + 1,
						sizeof **t->calls))
					goto nomem;
				t->calls[i][t->ncalls[i]++] = l->a[k].first;
			}
		}
		if (t->ncalls[i])
			qsort(t->calls[i], t->ncalls[i], sizeof **t->calls, cmp_u64);
	}
	return 0;
nomem:
	drop_calls(t);
	return -1;
}

/* Depth by depth over every core, so that a budget cut leaves out the
 * deepest levels, the thinnest on the screen. */
void serve_timeline_write(const struct serve_timeline *t, uint64_t from, uint64_t to,
			  uint64_t cols, uint64_t max, int calls, struct trawl_json *j)
{
	struct view v = { from, to, cols ? cols : 1, to > from ? to - from : 1 };
	unsigned depth = 0;
	int truncated = 0;
	uint64_t used = 0;
	trawl_json_key(j, "cores");
	trawl_json_array_begin(j);
	for (unsigned i = 0; i < t->ncores; i++) {
		trawl_json_object_begin(j);
		trawl_json_key(j, "cpu");
		trawl_json_u64(j, t->cores[i].cpu);
		trawl_json_key(j, "depth");
		trawl_json_u64(j, t->cores[i].nlevels);
		trawl_json_object_end(j);
		depth = t->cores[i].nlevels > depth ? t->cores[i].nlevels : depth;
	}
	trawl_json_array_end(j);
	trawl_json_key(j, "items");
	trawl_json_array_begin(j);
	for (unsigned d = 0; d < depth && !truncated && to > from; d++)
		for (unsigned i = 0; i < t->ncores && !truncated; i++) {
			if (d >= t->cores[i].nlevels)
				continue;
			uint64_t n = write_level(t, &t->cores[i], d, &v, max - used, j);
			if (used + n > max)
				truncated = 1;
			used += n;
		}
	trawl_json_array_end(j);
	trawl_json_key(j, "marks");
	trawl_json_array_begin(j);
	for (unsigned i = 0; i < t->ncores && to > from; i++)
		write_marks(t->cores[i].cpu, t->cores[i].marks, t->cores[i].nmarks, &v, j);
	trawl_json_array_end(j);
	if (calls && t->calls) {
		trawl_json_key(j, "calls");
		trawl_json_array_begin(j);
		for (unsigned i = 0; i < t->ncores && to > from; i++)
			write_marks(t->cores[i].cpu, t->calls[i], t->ncalls[i], &v, j);
		trawl_json_array_end(j);
	}
	trawl_json_key(j, "truncated");
	trawl_json_bool(j, truncated);
}

static int name_matches(const char *have, const char *want)
{
	size_t n = strlen(want);
	return !strncmp(have, want, n) && (!have[n] || !strncmp(have + n, "+0x", 3));
}

uint64_t serve_timeline_find(const struct serve_timeline *t, const char *name, uint64_t after)
{
	uint64_t best = 0;
	for (unsigned i = 0; i < t->ncores; i++)
		for (unsigned d = 0; d < t->cores[i].nlevels; d++) {
			const struct tl_level *l = &t->cores[i].levels[d];
			for (size_t k = first_ending(l, after); k < l->n; k++) {
				if (best && l->a[k].first >= best)
					break;
				if (l->a[k].first >= after &&
				    name_matches(t->names[l->a[k].name], name)) {
					best = l->a[k].first;
					break;
				}
			}
		}
	return best;
}
