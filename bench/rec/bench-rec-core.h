/* Timing loops shared by bench/bench-rec.c (recorder linked statically)
 * and bench/rec/emit-so.c (the same loops inside a shared library). */
#ifndef BENCH_REC_CORE_H
#define BENCH_REC_CORE_H

#include <stdint.h>
#include <time.h>

#include "trawl/rec.h"

static inline double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The floor: read the cycle counter and store 16 bytes, per event. */
static uint64_t bench_ring[1 << 16] __attribute__((aligned(64)));

static inline double bench_baseline(uint64_t n)
{
	double t0 = bench_now();
	for (uint64_t i = 0; i < n; i++) {
		uint64_t *p = &bench_ring[(i * 2) & ((1 << 16) - 1)];
		p[0] = trawl_rec_ticks();
		p[1] = (1ull << 48) | (2ull << 32) | (uint32_t)i;
	}
	return (bench_now() - t0) * 1e9 / (double)n;
}

static inline double bench_enabled(uint64_t n)
{
	double t0 = bench_now();
	for (uint64_t i = 0; i < n; i++)
		TRAWL_REC(1, 2, i);
	return (bench_now() - t0) * 1e9 / (double)n;
}

/* Disabled subsystem; the barrier keeps the compiler from hoisting the
 * switch load out of the loop, as surrounding code would. */
static inline double bench_disabled(uint64_t n)
{
	double t0 = bench_now();
	for (uint64_t i = 0; i < n; i++) {
		TRAWL_REC(3, 2, i);
		__asm__ __volatile__("" ::: "memory");
	}
	return (bench_now() - t0) * 1e9 / (double)n;
}

/* What noticing a migration adds to the fast path: reading the cpu from
 * the thread's rseq area and comparing it with the last one (0 where the
 * recorder does not track migrations). */
static inline double bench_cpu_check(uint64_t n)
{
#if TRAWL_REC_TRACKS_CPU
	uint64_t moved = 0;
	double t0 = bench_now();
	for (uint64_t i = 0; i < n; i++) {
		moved += trawl_rec_cpu() != trawl_rec_tls_.cpu;
		__asm__ __volatile__("" ::: "memory");
	}
	return (bench_now() - t0) * 1e9 / (double)n + (double)(moved & 0);
#else
	(void)n;
	return 0;
#endif
}

static inline double bench_empty(uint64_t n)
{
	double t0 = bench_now();
	for (uint64_t i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
	return (bench_now() - t0) * 1e9 / (double)n;
}

#endif
