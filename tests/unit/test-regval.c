/* trawl_regval_apply (lib/analysis/regval.c): register writes applied to a
 * register kept as a 64-bit value, as the call detector and the VCD writer
 * keep SP, LR, X0-X30 and PSR. Every expected value is worked out by hand
 * from the write's bytes (least significant first), offset, size, known
 * mask and zero-extension. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "analysis/analysis-int.h"

static uint8_t pool[256];

/* A write of `size` bytes at `offset`; bytes are vals[0..size) least
 * significant first; mask NULL = all known, else one bit per byte. */
static struct trawl_reg_write wr(uint16_t offset, uint16_t size, uint16_t zext,
				 const uint8_t *vals, const uint8_t *mask)
{
	struct trawl_reg_write w = { 0, offset, size, zext, 0, 0, TRAWL_ALL_KNOWN };
	memcpy(pool, vals, size);
	if (mask) {
		memcpy(pool + 128, mask, (size + 7u) / 8u);
		w.known = 128;
	}
	return w;
}

static const uint8_t b8[16] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
				0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01 };

static void whole_x(void **state)
{
	(void)state;
	uint64_t v = 0;
	uint8_t k = 0;
	struct trawl_reg_write w = wr(0, 8, 0, b8, NULL);
	trawl_regval_apply(&v, &k, &w, pool);
	assert_int_equal(k, 1);
	assert_true(v == 0x8877665544332211ull);
}

static void w_write_zero_extends(void **state)
{
	(void)state;
	/* W3 = 0x44332211 with zext 8: the top half of X3 becomes 0 */
	uint64_t v = UINT64_MAX;
	uint8_t k = 1;
	struct trawl_reg_write w = wr(0, 4, 8, b8, NULL);
	trawl_regval_apply(&v, &k, &w, pool);
	assert_int_equal(k, 1);
	assert_true(v == 0x0000000044332211ull);
}

static void a32_write_keeps_top(void **state)
{
	(void)state;
	/* r0 (size 4, no zext) keeps bytes 4-7 of the storage register */
	uint64_t v = 0xa1a2a3a4a5a6a7a8ull;
	uint8_t k = 1;
	struct trawl_reg_write w = wr(0, 4, 0, b8, NULL);
	trawl_regval_apply(&v, &k, &w, pool);
	assert_int_equal(k, 1);
	assert_true(v == 0xa1a2a3a444332211ull);
}

static void high_half(void **state)
{
	(void)state;
	/* bytes 4-7 only (a bit-ranged X<63:32>): low half kept, and knownness
	 * is not claimed by a write that leaves byte 0 out */
	uint64_t v = 0x00000000deadbeefull;
	uint8_t k = 0;
	struct trawl_reg_write w = wr(4, 4, 0, b8, NULL);
	trawl_regval_apply(&v, &k, &w, pool);
	assert_int_equal(k, 0);
	assert_true(v == 0x44332211deadbeefull);
	k = 1;
	trawl_regval_apply(&v, &k, &w, pool);
	assert_int_equal(k, 1); /* stays known */
}

static void clipped_at_8(void **state)
{
	(void)state;
	/* offset 6, size 4: only bytes 6 and 7 fit */
	uint64_t v = 0;
	uint8_t k = 1;
	struct trawl_reg_write w = wr(6, 4, 0, b8, NULL);
	trawl_regval_apply(&v, &k, &w, pool);
	assert_true(v == 0x2211000000000000ull);
	/* offset 8 and beyond: nothing of the low 64 bits */
	v = 5;
	w = wr(8, 8, 0, b8, NULL);
	trawl_regval_apply(&v, &k, &w, pool);
	assert_true(v == 5);
	assert_int_equal(k, 1);
}

static void wide_write(void **state)
{
	(void)state;
	/* a 16-byte write at offset 0 gives its low 8 bytes */
	uint64_t v = 0;
	uint8_t k = 0;
	struct trawl_reg_write w = wr(0, 16, 0, b8, NULL);
	trawl_regval_apply(&v, &k, &w, pool);
	assert_int_equal(k, 1);
	assert_true(v == 0x8877665544332211ull);
	/* partly known beyond byte 8 only: the low 64 bits are still known */
	const uint8_t mask[2] = { 0xff, 0x00 };
	v = 0;
	k = 0;
	w = wr(0, 16, 0, b8, mask);
	trawl_regval_apply(&v, &k, &w, pool);
	assert_int_equal(k, 1);
	assert_true(v == 0x8877665544332211ull);
}

static void unknown_byte(void **state)
{
	(void)state;
	/* byte 2 unknown: the value is unknown and left as it was */
	const uint8_t mask[1] = { 0xfb };
	uint64_t v = 0x1234;
	uint8_t k = 1;
	struct trawl_reg_write w = wr(0, 8, 0, b8, mask);
	trawl_regval_apply(&v, &k, &w, pool);
	assert_int_equal(k, 0);
	assert_true(v == 0x1234);
}

static void short_write_zext(void **state)
{
	(void)state;
	/* a 2-byte write with zext 4 (an H view into a 32-bit register):
	 * bytes 2-3 cleared, 4-7 kept */
	uint64_t v = 0xffffffffffffffffull;
	uint8_t k = 1;
	struct trawl_reg_write w = wr(0, 2, 4, b8, NULL);
	trawl_regval_apply(&v, &k, &w, pool);
	assert_true(v == 0xffffffff00002211ull);
	/* zext beyond 8 is clipped to the 64 bits kept */
	v = UINT64_MAX;
	w = wr(0, 1, 16, b8, NULL);
	trawl_regval_apply(&v, &k, &w, pool);
	assert_true(v == 0x11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_x),           cmocka_unit_test(w_write_zero_extends),
		cmocka_unit_test(a32_write_keeps_top), cmocka_unit_test(high_half),
		cmocka_unit_test(clipped_at_8),      cmocka_unit_test(wide_write),
		cmocka_unit_test(unknown_byte),      cmocka_unit_test(short_write_zext),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
