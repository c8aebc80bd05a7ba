/* Query latency from a freshly started process: open the index (already
 * in the page cache), then time registers-at-a-line and 64 bytes of
 * memory-at-a-line at random lines. Prints one latency in nanoseconds per
 * line ("regs NS" / "mem NS"), the first query of the process included.
 * Also prints the minor page faults each query took ("regsf N" / "memf N"),
 * a figure the machine's load does not change.
 * Usage: bench-index-query TRACE INDEX NQUERIES SEED ADDRFILE
 * (ADDRFILE: memory addresses the trace accessed, one hex number a line) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "trawl/index.h"

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static long minflt(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: %s TRACE INDEX N SEED ADDRFILE\n", argv[0]);
		return 2;
	}
	uint64_t n = strtoull(argv[3], NULL, 0), seed = strtoull(argv[4], NULL, 0) | 1;
	static uint64_t addrs[1 << 16];
	size_t naddr = 0;
	FILE *af = fopen(argv[5], "r");
	unsigned long long x;
	while (af && naddr < sizeof addrs / sizeof *addrs && fscanf(af, "%llx", &x) == 1)
		addrs[naddr++] = x;
	if (af)
		fclose(af);
	if (!naddr)
		addrs[naddr++] = 0;
	struct trawl_error err;
	struct trawl_trace_id id;
	struct trawl_index *ix;
	double t0 = now_ns();
	if (trawl_trace_id_get(argv[1], &id, &err) || trawl_index_open(&ix, argv[2], &id, &err)) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	printf("open %.0f\n", now_ns() - t0);
	struct trawl_index_info info;
	trawl_index_get_info(ix, &info);
	struct trawl_index_regs regs;
	trawl_index_regs_init(&regs);
	uint8_t val[64], known[8];
	for (uint64_t i = 0; i < n; i++) {
		/* floor: one event record, the least any query reads */
		struct trawl_index_event e0;
		double z = now_ns();
		trawl_index_event(ix, (seed >> 3) % info.events, &e0, &err);
		printf("base %.0f\n", now_ns() - z);
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		uint64_t line = 1 + seed % info.lines, ev;
		long f0 = minflt();
		double a = now_ns();
		struct trawl_index_event e;
		if (trawl_index_event_at_line(ix, line, &ev, &err) ||
		    trawl_index_event(ix, ev, &e, &err) ||
		    trawl_index_regs_at(ix, ev, e.cpu, &regs, &err))
			return 1;
		double b = now_ns();
		long f1 = minflt();
		uint64_t addr = (addrs[(seed >> 20) % naddr] & ~(uint64_t)31) - 16;
		if (trawl_index_event_at_line(ix, line, &ev, &err) ||
		    trawl_index_mem_at(ix, ev, addr, 64, val, known, &err))
			return 1;
		double c = now_ns();
		long f2 = minflt();
		printf("regs %.0f\nmem %.0f\nregsf %ld\nmemf %ld\n", b - a, c - b, f1 - f0, f2 - f1);
	}
	trawl_index_regs_release(&regs);
	trawl_index_close(ix);
	return 0;
}
