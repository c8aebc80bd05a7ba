/* Executed ranges and taken branches (see trawl/ranges.h). Two hash
 * tables keyed by address pairs; per core, the range being executed. */
#include "trawl/ranges.h"
#include "trawl/image.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

/* An open-addressed table of (a, b) -> (count, extra); count 0 marks an
 * empty slot, since a stored pair was counted at least once. */
struct pair_slot {
	uint64_t a, b, count, extra;
};

struct pair_table {
	struct pair_slot *slots;
	size_t cap, used;
};

struct core_state {
	int open;
	uint64_t begin, last, width;
};

struct trawl_ranges {
	struct pair_table ranges;   /* (begin, last) -> count, bytes */
	struct pair_table branches; /* (from, to) -> count */
	struct core_state *cores;
	size_t ncores;
	uint64_t insns;
	struct trawl_range_count *range_list;
	struct trawl_branch_count *branch_list;
};

static inline uint64_t pair_hash(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full;
	x ^= x >> 31;
	x *= 0xff51afd7ed558ccdull;
	return x ^ (x >> 29);
}

static int table_grow(struct pair_table *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 1024;
	struct pair_slot *n = calloc(ncap, sizeof *n);
	if (!n)
		return 0;
	for (size_t i = 0; i < t->cap; i++) {
		struct pair_slot *s = &t->slots[i];
		if (!s->count)
			continue;
		size_t j = pair_hash(s->a, s->b) & (ncap - 1);
		while (n[j].count)
			j = (j + 1) & (ncap - 1);
		n[j] = *s;
	}
	free(t->slots);
	t->slots = n;
	t->cap = ncap;
	return 1;
}

/* Add n to the count of (a, b); extra is kept from the first time. */
static int table_add(struct pair_table *t, uint64_t a, uint64_t b, uint64_t n, uint64_t extra)
{
	if ((t->used + 1) * 2 > t->cap && !table_grow(t))
		return 0;
	size_t j = pair_hash(a, b) & (t->cap - 1);
	for (;;) {
		struct pair_slot *s = &t->slots[j];
		if (!s->count) {
			*s = (struct pair_slot){ a, b, n, extra };
			t->used++;
			return 1;
		}
		if (s->a == a && s->b == b) {
			s->count += n;
			return 1;
		}
		j = (j + 1) & (t->cap - 1);
	}
}

enum trawl_status trawl_ranges_create(struct trawl_ranges **out, struct trawl_error *err)
{
	*out = calloc(1, sizeof **out);
	return *out ? TRAWL_OK : trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
}

void trawl_ranges_destroy(struct trawl_ranges *r)
{
	if (!r)
		return;
	free(r->ranges.slots);
	free(r->branches.slots);
	free(r->cores);
	free(r->range_list);
	free(r->branch_list);
	free(r);
}

static int close_range(struct trawl_ranges *r, struct core_state *c)
{
	if (!c->open)
		return 1;
	c->open = 0;
	return table_add(&r->ranges, c->begin, c->last, 1, c->last + c->width - c->begin);
}

static struct core_state *core_of(struct trawl_ranges *r, uint16_t cpu)
{
	if (cpu >= r->ncores) {
		size_t cap = r->ncores;
		if (!trawl_grow((void **)&r->cores, &cap, (size_t)cpu + 1, sizeof *r->cores))
			return NULL;
		memset(r->cores + r->ncores, 0, (cap - r->ncores) * sizeof *r->cores);
		r->ncores = cap;
	}
	return &r->cores[cpu];
}

static inline uint64_t insn_width(const struct trawl_event_insn *in)
{
	if (in->width)
		return in->width;
	return in->iset == TRAWL_ISET_T32 ? 2 : 4;
}

/* The next instruction either continues the core's range or ends it with
 * a taken branch to itself. */
static int count_insn(struct trawl_ranges *r, struct core_state *c, const struct trawl_event *e)
{
	uint64_t pc = e->u.insn.pc, w = insn_width(&e->u.insn);
	if (e->flags & TRAWL_EVF_FETCH_FAIL)
		return close_range(r, c);
	r->insns++;
	if (c->open && pc == c->last + c->width) {
		c->last = pc;
		c->width = w;
		return 1;
	}
	if (c->open && (!close_range(r, c) || !table_add(&r->branches, c->last, pc, 1, 0)))
		return 0;
	*c = (struct core_state){ 1, pc, pc, w };
	return 1;
}

enum trawl_status trawl_ranges_add(struct trawl_ranges *r, const struct trawl_event_batch *b,
				   struct trawl_error *err)
{
	for (size_t i = 0; i < b->count; i++) {
		const struct trawl_event *e = &b->events[i];
		if (e->kind != TRAWL_EV_INSN && e->kind != TRAWL_EV_EXCEPTION && e->kind != TRAWL_EV_GAP)
			continue;
		struct core_state *c = core_of(r, e->cpu);
		if (!c)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		int ok = e->kind == TRAWL_EV_INSN ? count_insn(r, c, e) : close_range(r, c);
		if (!ok)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory counting ranges");
	}
	return TRAWL_OK;
}

enum trawl_status trawl_ranges_end_trace(struct trawl_ranges *r, struct trawl_error *err)
{
	for (size_t i = 0; i < r->ncores; i++)
		if (!close_range(r, &r->cores[i]))
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory counting ranges");
	return TRAWL_OK;
}

static int cmp_pair(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return a[1] < b[1] ? -1 : a[1] > b[1];
}

const struct trawl_range_count *trawl_ranges_list(struct trawl_ranges *r, size_t *count)
{
	free(r->range_list);
	r->range_list = malloc((r->ranges.used ? r->ranges.used : 1) * sizeof *r->range_list);
	*count = 0;
	if (!r->range_list)
		return NULL;
	for (size_t i = 0; i < r->ranges.cap; i++) {
		const struct pair_slot *s = &r->ranges.slots[i];
		if (s->count)
			r->range_list[(*count)++] = (struct trawl_range_count){ s->a, s->b, s->extra,
										s->count };
	}
	qsort(r->range_list, *count, sizeof *r->range_list, cmp_pair);
	return r->range_list;
}

const struct trawl_branch_count *trawl_ranges_branches(struct trawl_ranges *r, size_t *count)
{
	free(r->branch_list);
	r->branch_list = malloc((r->branches.used ? r->branches.used : 1) * sizeof *r->branch_list);
	*count = 0;
	if (!r->branch_list)
		return NULL;
	for (size_t i = 0; i < r->branches.cap; i++) {
		const struct pair_slot *s = &r->branches.slots[i];
		if (s->count)
			r->branch_list[(*count)++] = (struct trawl_branch_count){ s->a, s->b, s->count };
	}
	qsort(r->branch_list, *count, sizeof *r->branch_list, cmp_pair);
	return r->branch_list;
}

uint64_t trawl_ranges_insns(const struct trawl_ranges *r)
{
	return r->insns;
}

uint64_t trawl_ranges_outside(const struct trawl_range_count *rg, size_t n,
			      const struct trawl_image *img)
{
	uint64_t k = 0;
	for (size_t i = 0; img && rg && i < n; i++)
		k += !trawl_image_module_at(img, rg[i].begin);
	return k;
}
