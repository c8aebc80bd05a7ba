/* Register values kept as 64-bit integers (see analysis-int.h). */
#include "analysis-int.h"

static uint64_t get_bytes(const uint8_t *pool, uint32_t off, unsigned n)
{
	const uint8_t *p = pool + off;
	if (n == 8) /* the usual X register or SP: one load once compiled */
		return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
		       (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
		       (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
	uint64_t v = 0;
	for (unsigned i = 0; i < n && i < 8; i++)
		v |= (uint64_t)pool[off + i] << (8 * i);
	return v;
}

void trawl_regval_apply(uint64_t *val, uint8_t *known, const struct trawl_reg_write *w,
			const uint8_t *pool)
{
	if (w->offset == 0 && w->size >= 8 && w->known == TRAWL_ALL_KNOWN) {
		/* the whole 64 bits, all known: what the general case below
		 * comes to (no masking, nothing left to zero-extend) */
		*val = get_bytes(pool, w->value, 8);
		*known = 1;
		return;
	}
	if (w->offset >= 8)
		return;
	unsigned n = w->size;
	if (n + w->offset > 8)
		n = 8 - w->offset;
	if (w->known != TRAWL_ALL_KNOWN) {
		for (unsigned i = 0; i < n; i++)
			if (!trawl_known_bit(pool, w->known, i)) {
				*known = 0;
				return;
			}
	}
	uint64_t bits = get_bytes(pool, w->value, n);
	uint64_t mask = n >= 8 ? UINT64_MAX : ((1ull << (8 * n)) - 1);
	mask <<= 8 * w->offset;
	bits <<= 8 * w->offset;
	*val = (*val & ~mask) | (bits & mask);
	unsigned lo = w->offset + n, hi = w->zext > 8 ? 8 : w->zext;
	if (hi > lo) { /* zero-extension, e.g. a W write clearing the top of X */
		uint64_t zm = hi >= 8 ? UINT64_MAX : ((1ull << (8 * hi)) - 1);
		zm &= ~((1ull << (8 * lo)) - 1);
		*val &= ~zm;
	}
	if (w->offset == 0)
		*known = 1;
}

