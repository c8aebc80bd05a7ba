/* Finding line ends in a chunk, 64 bytes at a time (reader.c's line loop
 * and flow.c's run of fast-path lines share one cursor). */
#ifndef TRAWL_TARMAC_NEWLINE_H
#define TRAWL_TARMAC_NEWLINE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Newline mask of chunk bytes [base, base + 64), when valid. Lines are
 * taken in order, so the mask only keeps the newlines not yet handed out:
 * the next one is its lowest bit. NUL (and the control bytes 0x02 and 0x08)
 * are marked as line ends too: no Tarmac line holds one, and a block of
 * NULs (a crashed writer's zero-filled hole) would otherwise swallow the
 * newlines it overwrote into one line's free text. The caller checks which
 * byte ended the line. */
struct tarmac_nl {
	size_t base;
	uint64_t mask;
	int valid;
};

/* Lines are short (60 bytes in a typical trace), where a memchr call per
 * line costs as much as the parsing: newlines are found 64 bytes at a time
 * into a bit mask (bit i = byte base + i is '\n') and taken from it. */
static inline uint64_t tarmac_nl_block(const char *p)
{
#if defined(__SSE2__)
	/* b & ~0x0a is 0 for '\n' and NUL (and 0x02, 0x08): one compare per
	 * 16 bytes finds line ends and the damage the caller rejects */
	const __m128i keep = _mm_set1_epi8((char)~0x0a);
	const __m128i z = _mm_setzero_si128();
	/* ask for the text a few lines ahead: 3-8% less CPU on a 2.4 GB
	 * trace read from the page cache (measured back to back) */
	__builtin_prefetch(p + 1024);
	/* written out: GCC kept the four steps as a loop with a variable
	 * shift, a third of the line loop's time */
	const __m128i *q = (const __m128i *)(const void *)p;
	uint64_t m0 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(_mm_loadu_si128(q), keep), z));
	uint64_t m1 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(_mm_loadu_si128(q + 1), keep), z));
	uint64_t m2 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(_mm_loadu_si128(q + 2), keep), z));
	uint64_t m3 = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(_mm_loadu_si128(q + 3), keep), z));
	return m0 | m1 << 16 | m2 << 32 | m3 << 48;
#else
	uint64_t m = 0;
	for (int i = 0; i < 64; i++)
		m |= (uint64_t)(((unsigned char)p[i] & ~0x0a) == 0) << i;
	return m;
#endif
}

/* Offset of the first '\n' (or NUL, 0x02, 0x08) at or after pos in
 * data[0, len), or len.
 * The caller keeps the cursor in a local (registers) over its loop. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t tarmac_nl_next(const char *data, size_t len, size_t pos, struct tarmac_nl *c)
{
	for (;;) {
		if (c->valid) {
			if (c->mask) {
				size_t end = c->base + (size_t)__builtin_ctzll(c->mask);
				c->mask &= c->mask - 1;
				return end;
			}
			/* the line goes on past this block */
			pos = c->base + 64;
			c->valid = 0;
		}
		if (len - pos < 64) {
			for (; pos < len; pos++)
				if (((unsigned char)data[pos] & ~0x0a) == 0)
					return pos;
			return len;
		}
		c->base = pos;
		c->mask = tarmac_nl_block(data + pos);
		c->valid = 1;
	}
}

#endif
