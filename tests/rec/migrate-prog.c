/* Moves itself between processors (sched_setaffinity) while it records,
 * for tests/cli/rec-migrate.sh: phase P runs on the P-th allowed cpu in
 * turn and emits 100 fast events with arg P and 10 typed ones whose first
 * field is P, then prints "phase P cpu C". All phases fit in one
 * sub-buffer, so before the recorder noted migrations every event carried
 * the cpu of the first phase.
 *   migrate-prog DIR PHASES [stop|abandon]
 * abandon: _exit without stopping the recorder (the events stay in the
 * buffer files, for the crash-recovery reader). */
#include <sched.h>
#include <sys/rseq.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trawl/rec.h"

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	if (__rseq_size == 0) { /* no rseq area: the recorder cannot see migrations */
		printf("rseq not registered\n");
		return 77;
	}
	cpu_set_t all;
	int cpus[CPU_SETSIZE], n = 0;
	if (sched_getaffinity(0, sizeof all, &all) != 0)
		return 77;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all))
			cpus[n++] = c;
	if (n < 2) {
		printf("only one cpu\n");
		return 77;
	}
	struct trawl_rec_config cfg;
	trawl_rec_config_init(&cfg);
	cfg.out_dir = argv[1];
	cfg.flush_ms = 0;
	if (trawl_rec_start(&cfg) != 0)
		return 1;
	int phases = atoi(argv[2]);
	for (int p = 0; p < phases; p++) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(cpus[p % n], &one);
		if (sched_setaffinity(0, sizeof one, &one) != 0 || sched_getcpu() != cpus[p % n])
			return 77;
		for (int i = 0; i < 100; i++) {
			TRAWL_REC(1, 0, p);
			if (i % 10 == 0) {
				uint64_t f[2] = { (uint64_t)p, (uint64_t)i };
				trawl_rec_emit_fields(1, 1, f, 2);
			}
		}
		printf("phase %d cpu %d\n", p, cpus[p % n]);
	}
	fflush(stdout);
	if (argc > 3 && !strcmp(argv[3], "abandon"))
		_exit(0);
	return trawl_rec_stop() ? 1 : 0;
}
