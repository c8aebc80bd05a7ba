/* Query latency in a warm process, for any index kind: open the index,
 * run a few queries to warm it, then time NQUERIES queries of each kind at
 * random events: registers, 64 bytes of memory, the last and next write
 * of a register (x0-x30) and of 8 bytes of memory, and the next and
 * previous visit of the event's PC. Prints "KIND median_ns p99_ns max_ns
 * cpu_median_ns cpu_p99_ns" per query kind (wall clock, then the thread's
 * CPU time, which leaves out the time the process waited for a core).
 * Usage: bench-index-warm INDEX NQUERIES SEED ADDRFILE */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "trawl/index.h"

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU time of this thread: what a query costs without the time the
 * shared machine's scheduler took it off the processor */
static double cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

enum { Q_REGS, Q_MEM, Q_LWREG, Q_NWREG, Q_LWMEM, Q_NWMEM, Q_PC, NQ };
static const char *const names[NQ] = { "regs", "mem64", "last-write-reg", "next-write-reg",
				       "last-write-mem8", "next-write-mem8", "pc-visit" };

static void one(struct trawl_index *ix, int q, uint64_t ev, uint64_t addr, uint64_t *s,
		struct trawl_index_regs *regs)
{
	struct trawl_error err;
	uint8_t val[64], known[8];
	uint64_t out;
	struct trawl_index_event e;
	switch (q) {
	case Q_REGS:
		trawl_index_regs_at(ix, ev, 0, regs, &err);
		break;
	case Q_MEM:
		trawl_index_mem_at(ix, ev, addr, 64, val, known, &err);
		break;
	case Q_LWREG:
	case Q_NWREG:
		(q == Q_LWREG ? trawl_index_last_write_reg : trawl_index_next_write_reg)(
			ix, ev, 0, (uint32_t)(rnd(s) % 31), 0, 8, &out, &err);
		break;
	case Q_LWMEM:
	case Q_NWMEM:
		(q == Q_LWMEM ? trawl_index_last_write_mem : trawl_index_next_write_mem)(
			ix, ev, addr, 8, &out, &err);
		break;
	default:
		if (trawl_index_event(ix, ev, &e, &err) == TRAWL_OK) {
			trawl_index_pc_step(ix, e.pc, ev, 1, &out, &err);
			trawl_index_pc_step(ix, e.pc, ev, -1, &out, &err);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: %s INDEX NQUERIES SEED ADDRFILE\n", argv[0]);
		return 2;
	}
	size_t n = strtoull(argv[2], NULL, 0);
	uint64_t seed = strtoull(argv[3], NULL, 0) | 1;
	static uint64_t addrs[1 << 16];
	size_t naddr = 0;
	FILE *af = fopen(argv[4], "r");
	unsigned long long x;
	while (af && naddr < sizeof addrs / sizeof *addrs && fscanf(af, "%llx", &x) == 1)
		addrs[naddr++] = x & ~63ull;
	if (af)
		fclose(af);
	if (!naddr)
		addrs[naddr++] = 0;
	struct trawl_error err;
	struct trawl_index *ix;
	if (trawl_index_open(&ix, argv[1], NULL, &err)) {
		fprintf(stderr, "%s\n", err.message);
		return 1;
	}
	uint64_t nev = trawl_index_event_count(ix);
	struct trawl_index_regs regs;
	trawl_index_regs_init(&regs);
	double *t = malloc(n * sizeof *t), *c = malloc(n * sizeof *c);
	if (!t || !c || !nev)
		return 1;
	for (int q = 0; q < NQ; q++) {
		for (size_t i = 0; i < 20; i++) /* warm up: open's pages, first blocks */
			one(ix, q, rnd(&seed) % nev, addrs[rnd(&seed) % naddr], &seed, &regs);
		for (size_t i = 0; i < n; i++) {
			uint64_t ev = rnd(&seed) % nev, addr = addrs[rnd(&seed) % naddr];
			double t0 = now_ns(), c0 = cpu_ns();
			one(ix, q, ev, addr, &seed, &regs);
			c[i] = cpu_ns() - c0;
			t[i] = now_ns() - t0;
		}
		qsort(t, n, sizeof *t, cmp);
		qsort(c, n, sizeof *c, cmp);
		printf("%s %.0f %.0f %.0f %.0f %.0f\n", names[q], t[n / 2], t[(size_t)(n * 0.99)],
		       t[n - 1], c[n / 2], c[(size_t)(n * 0.99)]);
	}
	if (trawl_index_damage(ix, &err))
		fprintf(stderr, "damaged: %s\n", err.message);
	free(t);
	free(c);
	trawl_index_regs_release(&regs);
	trawl_index_close(ix);
	return 0;
}
