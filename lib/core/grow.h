/* Growing an array by doubling, shared by the code that fills event
 * batches (lib/tarmac) and the CLI's index-to-events adapter: one copy of
 * the overflow-safe rule. Not public: an array helper is no part of the
 * library's API. */
#ifndef TRAWL_CORE_GROW_H
#define TRAWL_CORE_GROW_H

#include <stdint.h>
#include <stdlib.h>

/* Make *p hold at least need elements of elem bytes (*cap counts them):
 * 1, or 0 when out of memory or the size would overflow (*p untouched). */
static inline int trawl_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 1;
	size_t n = *cap ? *cap : 256;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return 0;
		n *= 2;
	}
	if (elem && n > SIZE_MAX / elem)
		return 0;
	void *q = realloc(*p, n * elem);
	if (!q)
		return 0;
	*p = q;
	*cap = n;
	return 1;
}

#endif
