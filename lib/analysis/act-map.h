/* The engine's one hash table (activity.c): (tag, key) -> two u32 values,
 * open addressing with linear probing and backward-shift deletion, so a
 * trace with many distinct keys that all close keeps the table small.
 * Private to lib/analysis. */
#ifndef TRAWL_ANALYSIS_ACT_MAP_H
#define TRAWL_ANALYSIS_ACT_MAP_H

#include <stddef.h>
#include <stdint.h>

struct act_slot {
	uint64_t key;
	uint32_t tag;                /* 0: empty */
	uint32_t a, b;
};

struct act_map {
	struct act_slot *slots;
	size_t mask, n;              /* capacity - 1 (0 before the first insert) */
};

/* The slot holding (tag, key), or NULL. */
struct act_slot *act_map_get(struct act_map *m, uint32_t tag, uint64_t key);
/* The slot holding (tag, key), made with a = b = 0 when absent; NULL when
 * out of memory. The pointer is valid until the next put or del. */
struct act_slot *act_map_put(struct act_map *m, uint32_t tag, uint64_t key);
void act_map_del(struct act_map *m, struct act_slot *s);
void act_map_free(struct act_map *m);

#endif
