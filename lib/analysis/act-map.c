/* See act-map.h. Half full at most, so probes stay short. */
#include "analysis/act-map.h"

#include <stdlib.h>

static size_t home(const struct act_map *m, uint32_t tag, uint64_t key)
{
	uint64_t h = (key ^ (uint64_t)tag << 40) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ h >> 29) & m->mask;
}

struct act_slot *act_map_get(struct act_map *m, uint32_t tag, uint64_t key)
{
	if (!m->slots)
		return NULL;
	for (size_t i = home(m, tag, key);; i = (i + 1) & m->mask) {
		struct act_slot *s = &m->slots[i];
		if (!s->tag)
			return NULL;
		if (s->tag == tag && s->key == key)
			return s;
	}
}

static int grow(struct act_map *m)
{
	size_t cap = m->slots ? (m->mask + 1) * 2 : 64;
	struct act_slot *ns = calloc(cap, sizeof *ns), *old = m->slots;
	if (!ns)
		return -1;
	size_t ocap = old ? m->mask + 1 : 0;
	m->slots = ns;
	m->mask = cap - 1;
	for (size_t i = 0; i < ocap; i++) {
		if (!old[i].tag)
			continue;
		size_t j = home(m, old[i].tag, old[i].key);
		while (ns[j].tag)
			j = (j + 1) & m->mask;
		ns[j] = old[i];
	}
	free(old);
	return 0;
}

/* One probe finds the entry or the empty slot it would go to; only a
 * table that must grow probes again (a field-keyed span puts a new key at
 * every begin, so put is as hot as get). */
struct act_slot *act_map_put(struct act_map *m, uint32_t tag, uint64_t key)
{
	struct act_slot *s = NULL;
	if (m->slots) {
		for (size_t i = home(m, tag, key);; i = (i + 1) & m->mask) {
			s = &m->slots[i];
			if (!s->tag)
				break;
			if (s->tag == tag && s->key == key)
				return s;
		}
	}
	if (!m->slots || 2 * (m->n + 1) > m->mask + 1) {
		if (grow(m))
			return NULL;
		size_t i = home(m, tag, key);
		while (m->slots[i].tag)
			i = (i + 1) & m->mask;
		s = &m->slots[i];
	}
	s->tag = tag;
	s->key = key;
	s->a = s->b = 0;
	m->n++;
	return s;
}

/* Backward shift: move later entries of the probe run into the hole when
 * their home slot allows it, so lookups never need tombstones. */
void act_map_del(struct act_map *m, struct act_slot *s)
{
	size_t i = (size_t)(s - m->slots), j = i;
	for (;;) {
		j = (j + 1) & m->mask;
		if (!m->slots[j].tag)
			break;
		size_t k = home(m, m->slots[j].tag, m->slots[j].key);
		/* can slot j move to i? only when its home is not in (i, j] */
		int between = i <= j ? (k > i && k <= j) : (k > i || k <= j);
		if (!between) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].tag = 0;
	m->n--;
}

void act_map_free(struct act_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->mask = m->n = 0;
}
