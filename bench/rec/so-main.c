/* Driver for the shared-library measurement: best of 5 runs. */
#include <stdio.h>
#include <stdlib.h>

#include "trawl/rec.h"

double so_baseline(uint64_t n);
double so_enabled(uint64_t n);

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000000;
	struct trawl_rec_config c;
	trawl_rec_config_init(&c);
	c.out_dir = argc > 2 ? argv[2] : "bench-rec-so";
	c.mode = TRAWL_REC_OVERWRITE;
	c.buffer_bytes = 8u << 20;
	c.flush_ms = 0;
	if (trawl_rec_start(&c) != 0)
		return 1;
	double b = 1e9, e = 1e9;
	so_enabled(n); /* touch the buffer */
	for (int r = 0; r < 5; r++) {
		double x = so_baseline(n), y = so_enabled(n);
		b = x < b ? x : b;
		e = y < e ? y : e;
	}
	trawl_rec_stop();
	printf("so_baseline_ns %.2f\nso_enabled_ns %.2f\n", b, e);
	return 0;
}
