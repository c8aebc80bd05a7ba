/* CRC-32 (the zlib / IEEE 802.3 one: reflected polynomial 0xEDB88320,
 * initial and final value 0xFFFFFFFF), which checks every chunk of the
 * stream protocol. The listener uses zlib's crc32(); the recorder must not
 * depend on zlib, so this is the same function done by slicing-by-8 over
 * tables built once. tests/unit/test-rec-crc.c compares the two. */
#include "rec-int.h"

#include <pthread.h>

static uint32_t tab[8][256];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void tab_build(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			tab[t][i] = tab[0][tab[t - 1][i] & 0xff] ^ (tab[t - 1][i] >> 8);
}

uint32_t rec_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;
	pthread_once(&tab_once, tab_build);
	crc = ~crc;
	while (len >= 8) {
		/* bytes assembled explicitly: no alignment or byte-order assumption */
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		crc = tab[7][lo & 0xff] ^ tab[6][(lo >> 8) & 0xff] ^ tab[5][(lo >> 16) & 0xff] ^ tab[4][lo >> 24] ^
		      tab[3][p[4]] ^ tab[2][p[5]] ^ tab[1][p[6]] ^ tab[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
