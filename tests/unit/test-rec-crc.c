/* The recorder's own CRC-32 (rec/src/crc32.c, no zlib there) against
 * zlib's crc32(), which the listener uses: the published check value, and
 * agreement on every length 0-1100 at every start alignment 0-7 with
 * chained calls, over pseudo-random bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <zlib.h>

#include "trawl/sw-stream.h"

uint32_t rec_crc32(uint32_t crc, const void *data, size_t len); /* rec/src/rec-int.h */

static void test_check_value(void **state)
{
	(void)state;
	/* CRC-32/ISO-HDLC of "123456789" */
	assert_int_equal(rec_crc32(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(trawl_sp_crc32("123456789", 9), 0xCBF43926u);
	assert_int_equal(rec_crc32(0, "", 0), 0);
}

static void test_agrees_with_zlib(void **state)
{
	(void)state;
	static uint8_t buf[1200];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof buf; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t align = 0; align < 8; align++)
		for (size_t len = 0; len <= 1100; len++) {
			uint32_t z = (uint32_t)crc32(0, buf + align, (uInt)len);
			uint32_t r = rec_crc32(0, buf + align, len);
			if (r != z)
				fail_msg("align %zu len %zu: %08x != zlib %08x", align, len, r, z);
			/* chaining: two calls give the one-call value */
			size_t half = len / 3;
			uint32_t c = rec_crc32(rec_crc32(0, buf + align, half), buf + align + half, len - half);
			if (c != z)
				fail_msg("chained align %zu len %zu", align, len);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_value),
		cmocka_unit_test(test_agrees_with_zlib),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
