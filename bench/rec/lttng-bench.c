/* ns per LTTng-UST tracepoint hit (best of 5 runs of n events). */
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "lttng-tp.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	double best = 1e9;
	for (int r = 0; r < 5; r++) {
		double t0 = now();
		for (long i = 0; i < n; i++)
			tracepoint(trawlbench, ev, 2, (int)i);
		double ns = (now() - t0) * 1e9 / (double)n;
		best = ns < best ? ns : best;
	}
	printf("lttng_ns %.2f\n", best);
	return 0;
}
