/* Unaligned loads of host-order integers from a byte buffer: the recorder's
 * rings and CTF streams (written by this machine's byte order, which CTF
 * metadata and perf.data's magic let a reader check) and perf.data records.
 * The index's file format, fixed little-endian, has its own (format.h). */
#ifndef TRAWL_CORE_BYTES_H
#define TRAWL_CORE_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint64_t bytes_rd64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t bytes_rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

#endif
