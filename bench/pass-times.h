/* Pass timing shared by the ETE speed benches (bench/ete-speed.c, and
 * bench/ocsd/ocsd-speed.c which bench-ete.sh compiles on its own), so both
 * decoders are timed the same way: process CPU time per pass over the
 * buffer, then the fastest and the median pass. */
#ifndef TRAWL_BENCH_PASS_TIMES_H
#define TRAWL_BENCH_PASS_TIMES_H

#include <stdlib.h>
#include <time.h>

struct pass_times {
	double *t;
	size_t n, cap;
};

static inline double pass_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Record one pass of sec seconds: 0, or -1 when out of memory. */
static inline int pass_add(struct pass_times *p, double sec)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 1024;
		double *t = realloc(p->t, cap * sizeof *t);
		if (!t)
			return -1;
		p->t = t;
		p->cap = cap;
	}
	p->t[p->n++] = sec;
	return 0;
}

static inline int pass_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Fastest and median pass (sorts the passes); both 0 without passes. */
static inline void pass_summary(struct pass_times *p, double *fastest, double *median)
{
	*fastest = *median = 0;
	if (!p->n)
		return;
	qsort(p->t, p->n, sizeof *p->t, pass_cmp);
	*fastest = p->t[0];
	*median = p->n % 2 ? p->t[p->n / 2] : (p->t[p->n / 2 - 1] + p->t[p->n / 2]) / 2;
}

#endif
