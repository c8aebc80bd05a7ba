/* The reversible record transform of compact index blocks (zblock.h). */
#include "index/zblock.h"

#include <string.h>

#include "index/format.h"

/* Column deltas, then byte planes: plane b holds byte b of every record. */
void zb_forward(const uint8_t *in, size_t n, uint32_t rec, uint8_t *out)
{
	if (!rec) {
		memcpy(out, in, n);
		return;
	}
	size_t nr = n / rec;
	for (uint32_t c = 0; c < rec; c += 8) {
		uint64_t prev = 0;
		for (size_t i = 0; i < nr; i++) {
			uint64_t v = ld64(in + i * rec + c);
			uint64_t d = v - prev;
			prev = v;
			for (unsigned k = 0; k < 8; k++)
				out[(size_t)(c + k) * nr + i] = (uint8_t)(d >> (8 * k));
		}
	}
}

void zb_inverse(const uint8_t *in, size_t n, uint32_t rec, uint8_t *out)
{
	if (!rec) {
		memcpy(out, in, n);
		return;
	}
	size_t nr = n / rec;
	for (uint32_t c = 0; c < rec; c += 8) {
		uint64_t prev = 0;
		for (size_t i = 0; i < nr; i++) {
			uint64_t d = 0;
			for (unsigned k = 0; k < 8; k++)
				d |= (uint64_t)in[(size_t)(c + k) * nr + i] << (8 * k);
			prev += d;
			st64(out + i * rec + c, prev);
		}
	}
}
