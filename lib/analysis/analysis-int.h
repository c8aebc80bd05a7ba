/* Helpers shared inside lib/analysis (not public API). */
#ifndef TRAWL_ANALYSIS_INT_H
#define TRAWL_ANALYSIS_INT_H

#include <stdint.h>

#include "trawl/event.h"

/* Apply a register write to the low 8 bytes of a register kept as a
 * 64-bit value. *known becomes 0 when a written byte is unknown and 1 when
 * the write covers the low bytes with known values. */
void trawl_regval_apply(uint64_t *val, uint8_t *known, const struct trawl_reg_write *w,
			const uint8_t *pool);

#endif
