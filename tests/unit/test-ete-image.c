/* The ETE program image (lib/ete/image.c) against a byte-by-byte model:
 * where regions overlap the first one added keeps its bytes (as OpenCSD,
 * whose memory map refuses an overlapping accessor), a read gives the
 * bytes of every region touching from its address on, additions whose
 * overlapping bytes differ are counted as conflicts, and fill completes
 * only the bytes a query did not know.
 *
 * - by hand: a later region over the middle of an earlier one, and one
 *   over its start from below, with other bytes;
 * - random regions in a small space, some repeating earlier bytes (no
 *   conflict), read and filled at random places, checked byte by byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "trawl/ete.h"

#include "ete-rng.h"

static void test_hand(void **state)
{
	(void)state;
	struct trawl_ete_image *img;
	uint8_t a[16], b[8], c[8], out[32];
	char what[320];
	memset(a, 0xaa, sizeof a);
	memset(b, 0xbb, sizeof b);
	memset(c, 0xcc, sizeof c);
	assert_int_equal(trawl_ete_image_create(&img, NULL), TRAWL_OK);
	assert_int_equal(trawl_ete_image_add(img, 0x1000, a, sizeof a, "a", NULL), TRAWL_OK);
	/* over 0x1004-0x100b, inside a: a's bytes stay */
	assert_int_equal(trawl_ete_image_add(img, 0x1004, b, sizeof b, "b", NULL), TRAWL_OK);
	assert_int_equal(trawl_ete_image_conflicts(img, what, sizeof what), 1);
	assert_non_null(strstr(what, "'b' (0x1004-0x100b) holds other bytes than 'a'"));
	assert_int_equal(trawl_ete_image_read(img, 0x1004, out, 4), 4);
	assert_memory_equal(out, a, 4);
	/* from below over a's start: 0xffc-0xfff are c's, 0x1000 on a's */
	assert_int_equal(trawl_ete_image_add(img, 0xffc, c, sizeof c, "c", NULL), TRAWL_OK);
	assert_int_equal(trawl_ete_image_conflicts(img, NULL, 0), 2);
	assert_int_equal(trawl_ete_image_read(img, 0xffc, out, sizeof out), 20);
	assert_memory_equal(out, c, 4);
	assert_memory_equal(out + 4, a, 16);
	/* the same bytes again: no conflict */
	assert_int_equal(trawl_ete_image_add(img, 0x1008, a, 8, "a again", NULL), TRAWL_OK);
	assert_int_equal(trawl_ete_image_conflicts(img, NULL, 0), 2);
	/* fill: known bytes are left alone, unknown ones inside the image set */
	uint8_t val[28], known[4] = { 0x0f, 0, 0, 0 };
	memset(val, 0x11, sizeof val);
	assert_int_equal(trawl_ete_image_fill(img, 0xff8, sizeof val, val, known), 20);
	assert_int_equal(val[0], 0x11);         /* known before */
	assert_int_equal(val[4], 0xcc);         /* 0xffc */
	assert_int_equal(val[8], 0xaa);         /* 0x1000 */
	assert_int_equal(known[0], 0xff);
	assert_int_equal(known[1], 0xff);
	assert_int_equal(known[2], 0xff);
	assert_int_equal(known[3], 0x00);       /* 0x1010 on: no image */
	assert_int_equal(val[24], 0x11);
	trawl_ete_image_destroy(img);
}

#define SPACE 512

static void test_random(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 200; seed++) {
		rng_state = seed * 0x9e3779b97f4a7c15ull;
		struct trawl_ete_image *img;
		uint8_t mem[SPACE], have[SPACE], data[SPACE];
		unsigned conflicts = 0;
		memset(have, 0, sizeof have);
		assert_int_equal(trawl_ete_image_create(&img, NULL), TRAWL_OK);
		unsigned nreg = 1 + (unsigned)(rnd() % 12);
		for (unsigned k = 0; k < nreg; k++) {
			size_t at = (size_t)(rnd() % SPACE), len = 1 + (size_t)(rnd() % 64);
			if (at + len > SPACE)
				len = SPACE - at;
			int copy = rnd() % 3 == 0; /* repeat what is there: no conflict */
			int differs = 0;
			for (size_t i = 0; i < len; i++) {
				data[i] = copy && have[at + i] ? mem[at + i] : (uint8_t)rnd();
				if (have[at + i] && mem[at + i] != data[i])
					differs = 1;
			}
			for (size_t i = 0; i < len; i++)
				if (!have[at + i])
					mem[at + i] = data[i], have[at + i] = 1;
			conflicts += (unsigned)differs;
			assert_int_equal(trawl_ete_image_add(img, 0x4000 + at, data, len, "r", NULL),
					 TRAWL_OK);
			assert_int_equal(trawl_ete_image_conflicts(img, NULL, 0), conflicts);
		}
		for (unsigned q = 0; q < 64; q++) {
			size_t at = (size_t)(rnd() % SPACE), n = 1 + (size_t)(rnd() % 96);
			uint8_t out[96];
			size_t run = 0;
			while (at + run < SPACE && run < n && have[at + run])
				run++;
			assert_int_equal(trawl_ete_image_read(img, 0x4000 + at, out, n), run);
			assert_memory_equal(out, mem + at, run);
			/* fill from a random "known" mask */
			uint8_t val[96], known[12];
			size_t filled = 0;
			for (size_t i = 0; i < sizeof known; i++)
				known[i] = (uint8_t)rnd();
			for (size_t i = 0; i < n; i++)
				val[i] = (uint8_t)i;
			uint8_t k0[12];
			memcpy(k0, known, sizeof k0);
			size_t got = trawl_ete_image_fill(img, 0x4000 + at, n, val, known);
			for (size_t i = 0; i < n; i++) {
				int was = k0[i / 8] >> (i % 8) & 1, is = known[i / 8] >> (i % 8) & 1;
				int in = at + i < SPACE && have[at + i];
				if (was) {
					assert_int_equal(val[i], (uint8_t)i);
					assert_true(is);
				} else if (in) {
					assert_int_equal(val[i], mem[at + i]);
					assert_true(is);
					filled++;
				} else {
					assert_false(is);
				}
			}
			assert_int_equal(got, filled);
		}
		trawl_ete_image_destroy(img);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand),
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
