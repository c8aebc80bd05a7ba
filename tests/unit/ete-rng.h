/* Deterministic generator for the ETE tests (xorshift64*), so failures
 * reproduce: set rng_state to a seed, then call rnd(). One copy per test
 * program (each includes it once). */
#ifndef TRAWL_TESTS_ETE_RNG_H
#define TRAWL_TESTS_ETE_RNG_H

#include <stdint.h>

static uint64_t rng_state;

static inline uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

#endif
