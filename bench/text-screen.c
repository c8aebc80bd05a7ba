/* A screen of text (50 lines) at random events of a trace, read through
 * trawl_text as every view reads it, in one warm process: the text is
 * opened first (a compressed trace's seek file built if it is missing,
 * timed apart), then each screen starts at an event the index gives.
 * Prints median and p99 per screen in microseconds (wall, and the
 * thread's CPU time, which a busy shared machine disturbs less), the text and seek
 * file sizes, and a checksum of what was read (equal for the plain and
 * compressed copies of one trace when the seed is the same).
 * usage: bench-text-screen TRACE [SCREENS [SEED]] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trawl/index.h"
#include "trawl/text.h"

static double clock_us(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double now_us(void)
{
	return clock_us(CLOCK_MONOTONIC);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* 50 lines from off; folds their bytes into *sum. */
static int screen(struct trawl_text *t, uint64_t off, uint64_t *sum)
{
	struct trawl_error err;
	for (int i = 0; i < 50; i++) {
		const char *p;
		size_t n;
		if (trawl_text_line(t, off, 1 << 16, &p, &n, &err)) {
			fprintf(stderr, "%s\n", err.message);
			return -1;
		}
		for (size_t k = 0; k < n; k++)
			*sum = *sum * 31 + (unsigned char)p[k];
		off += n + 1;
		if (n < 1 << 16 && off < trawl_text_size(t) && p[n] == '\r')
			off++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench-text-screen TRACE [SCREENS [SEED]]\n");
		return 2;
	}
	int screens = argc > 2 ? atoi(argv[2]) : 300;
	uint64_t x = argc > 3 ? strtoull(argv[3], NULL, 10) : 42;
	struct trawl_error err;
	struct trawl_index *ix;
	if (trawl_index_open_trace(&ix, argv[1], NULL, NULL, NULL, &err)) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	double t0 = now_us();
	struct trawl_text *t;
	if (trawl_text_open(&t, argv[1], NULL, &err)) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	double open_us = now_us() - t0;
	uint64_t nev = trawl_index_event_count(ix), sum = 0;
	double *us = malloc(sizeof *us * (size_t)screens);
	double *cpu = malloc(sizeof *cpu * (size_t)screens);
	for (int i = 0; i < screens; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		struct trawl_index_event e;
		if (trawl_index_event(ix, x % nev, &e, &err))
			return 1;
		double a = now_us(), c = clock_us(CLOCK_THREAD_CPUTIME_ID);
		if (screen(t, e.offset, &sum))
			return 1;
		us[i] = now_us() - a;
		cpu[i] = clock_us(CLOCK_THREAD_CPUTIME_ID) - c;
	}
	qsort(us, (size_t)screens, sizeof *us, cmp_double);
	qsort(cpu, (size_t)screens, sizeof *cpu, cmp_double);
	printf("screens %d median_us %.1f p99_us %.1f max_us %.1f cpu_median_us %.1f "
	       "cpu_p99_us %.1f open_ms %.1f text_bytes %" PRIu64 " seek_bytes %" PRIu64
	       " sum %016" PRIx64 "\n",
	       screens, us[screens / 2], us[screens * 99 / 100], us[screens - 1],
	       cpu[screens / 2], cpu[screens * 99 / 100], open_us / 1e3,
	       trawl_text_size(t), trawl_text_seek_size(t), sum);
	trawl_text_close(t);
	trawl_index_close(ix);
	free(us);
	free(cpu);
	return 0;
}
