/* Helpers shared inside lib/analysis (not public API). */
#ifndef TRAWL_ANALYSIS_INT_H
#define TRAWL_ANALYSIS_INT_H

#include <stdint.h>
#include <stdio.h>

#include "trawl/event.h"
#include "trawl/status.h"

/* TRAWL_ERR_IO when writing f failed (flushed first), else TRAWL_OK. */
enum trawl_status analysis_io_status(FILE *f, struct trawl_error *err);

/* Apply a register write to the low 8 bytes of a register kept as a
 * 64-bit value. *known becomes 0 when a written byte is unknown and 1 when
 * the write covers the low bytes with known values. */
void trawl_regval_apply(uint64_t *val, uint8_t *known, const struct trawl_reg_write *w,
			const uint8_t *pool);

/* A64 encodings outside op0 (bits 28:26) = 101 hold no branch, exception
 * or system instruction: trawl_branch_decode classifies them as
 * TRAWL_BR_NONE at once. Shared so the call detector's pre-check and the
 * decoder cannot disagree. */
static inline int trawl_branch_a64_plain(uint32_t encoding)
{
	return ((encoding >> 26) & 7) != 5;
}

#endif
