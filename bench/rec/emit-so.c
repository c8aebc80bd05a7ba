/* The benchmark loops compiled into a shared library (built by
 * bench/bench-rec.sh): thread-local access from a .so is where tracers
 * usually pay for __tls_get_addr. */
#include "bench-rec-core.h"

double so_baseline(uint64_t n) { return bench_baseline(n); }
double so_enabled(uint64_t n) { return bench_enabled(n); }
