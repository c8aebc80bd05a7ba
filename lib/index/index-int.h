/* Internal view of an open index file, shared by open.c and query.c. */
#ifndef TRAWL_INDEX_INT_H
#define TRAWL_INDEX_INT_H

#include <stdint.h>

#include "index/format.h"
#include "trawl/index.h"

struct idx_sec {
	const uint8_t *p;
	uint64_t len;
	uint64_t n;             /* records (len / rec), or len for byte sections */
	uint32_t rec;
	uint64_t sum;
	const uint8_t *fence;   /* keys of every IDX_FENCE-th record, or NULL */
	uint64_t nfence;
};

struct trawl_index {
	char *path;
	int fd;                 /* kept open: point queries read with pread */
	uint8_t *map;
	size_t size;
	struct idx_sec sec[SEC_COUNT_ + 1];
	uint64_t nev, last_line, nckpt;
	uint32_t K, ncpu, time_unit;
	uint64_t build_ns, created;
	struct trawl_trace_id id;
	char **sysnames;
	uint32_t nsys;
	uint64_t first_ev[3], last_ev[3]; /* line, offset, time of the first/last event */
};

/* Position of the first record whose (first u64, second u64) is >= (a, b)
 * in a section sorted that way. */
uint64_t idx_lower_bound2(const struct idx_sec *s, uint64_t a, uint64_t b);

#endif
