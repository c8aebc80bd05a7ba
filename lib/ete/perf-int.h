/* Shared between the perf.data reader's files; not public. */
#ifndef TRAWL_ETE_PERF_INT_H
#define TRAWL_ETE_PERF_INT_H

#include "trawl/perf.h"

void trawl_perf__warn(struct trawl_perf_file *f, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
enum trawl_status trawl_perf__walk(struct trawl_perf_file *f, const uint8_t *base, uint64_t pos,
				   uint64_t end, uint64_t zoff, uint64_t *stop,
				   struct trawl_error *err);
/* One COMPRESSED record's zstd data: decompress (one stream for the whole
 * file) and walk the records it completes. 1 done, -1 out of memory. */
int trawl_perf__inflate(struct trawl_perf_file *f, const uint8_t *src, size_t n, uint64_t off);
void trawl_perf__inflate_end(struct trawl_perf_file *f);
/* A simpleperf feature section (bit >= 128) at [off, +size) of the file. */
enum trawl_status trawl_perf__simpleperf_feature(struct trawl_perf_file *f, unsigned bit,
						 uint64_t off, uint64_t size);

#endif
