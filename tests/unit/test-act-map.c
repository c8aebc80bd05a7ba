/* The activity engine's hash table (lib/analysis/act-map.c) against a plain
 * array searched linearly: random puts, gets and deletes over few and many
 * distinct keys (so the table grows and deletions shift probe runs), every
 * entry's values compared after each step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "analysis/act-map.h"

struct ref {
	uint32_t tag;
	uint64_t key;
	uint32_t a;
	int live;
};

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static struct ref *ref_find(struct ref *r, size_t n, uint32_t tag, uint64_t key)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].live && r[i].tag == tag && r[i].key == key)
			return &r[i];
	return NULL;
}

static void check_all(struct act_map *m, struct ref *r, size_t n)
{
	size_t live = 0;
	for (size_t i = 0; i < n; i++) {
		if (!r[i].live)
			continue;
		live++;
		struct act_slot *s = act_map_get(m, r[i].tag, r[i].key);
		assert_non_null(s);
		assert_int_equal(s->a, r[i].a);
	}
	assert_int_equal(m->n, live);
}

static void run(unsigned keys, unsigned steps)
{
	struct act_map m = { 0 };
	struct ref *r = calloc(steps, sizeof *r);
	size_t n = 0;
	assert_non_null(r);
	for (unsigned step = 0; step < steps; step++) {
		uint32_t tag = 1 + (uint32_t)(rnd() % 3);
		uint64_t key = rnd() % keys * 0x10001; /* keys that differ in both halves */
		struct ref *x = ref_find(r, n, tag, key);
		unsigned op = (unsigned)(rnd() % 3);
		if (op == 0) { /* put: a new entry starts at 0, an old one keeps its value */
			struct act_slot *s = act_map_put(&m, tag, key);
			assert_non_null(s);
			assert_int_equal(s->a, x ? x->a : 0);
			s->a = step + 1;
			if (!x)
				x = &r[n++];
			*x = (struct ref){ tag, key, step + 1, 1 };
		} else if (op == 1) {
			struct act_slot *s = act_map_get(&m, tag, key);
			assert_true((s != NULL) == (x != NULL));
		} else if (x) {
			act_map_del(&m, act_map_get(&m, tag, key));
			x->live = 0;
		}
		if (step % 97 == 0 || keys < 50)
			check_all(&m, r, n);
	}
	check_all(&m, r, n);
	act_map_free(&m);
	free(r);
}

static void few_keys(void **state)
{
	(void)state;
	run(20, 5000);
}

static void many_keys(void **state)
{
	(void)state;
	run(3000, 20000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(few_keys),
		cmocka_unit_test(many_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
