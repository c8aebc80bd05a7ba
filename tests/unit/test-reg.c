/* Register catalogue: aliases map onto storage registers as the
 * architecture defines (hand-checked against the Arm ARM's register views). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "trawl/reg.h"

static struct trawl_reg_ref parse(const char *name, enum trawl_reg_state st)
{
	struct trawl_reg_ref r;
	memset(&r, 0xee, sizeof r);
	assert_true(trawl_reg_parse(name, strlen(name), st, &r));
	return r;
}

#define CHECK(name, st, R, OFF, SIZE, ZEXT)                                  \
	do {                                                                    \
		struct trawl_reg_ref r_ = parse(name, st);                      \
		assert_int_equal(r_.reg, R);                                    \
		assert_int_equal(r_.offset, OFF);                               \
		assert_int_equal(r_.size, SIZE);                                \
		assert_int_equal(r_.zext, ZEXT);                                \
	} while (0)

static void core_aliases(void **state)
{
	CHECK("x3", TRAWL_REG_STATE_GUESS, 3, 0, 8, 0);
	CHECK("W3", TRAWL_REG_STATE_GUESS, 3, 0, 4, 8);
	CHECK("X30", TRAWL_REG_STATE_A64, 30, 0, 8, 0);
	CHECK("E15", TRAWL_REG_STATE_A64, 15, 0, 8, 0);
	CHECK("r0", TRAWL_REG_STATE_A32, 0, 0, 4, 0);
	CHECK("r14_svc", TRAWL_REG_STATE_A32, 14, 0, 4, 0);
	CHECK("r13_main_s", TRAWL_REG_STATE_A32, TRAWL_REG_SP, 0, 4, 0);
	CHECK("r15", TRAWL_REG_STATE_A32, TRAWL_REG_PC, 0, 4, 0);
	CHECK("SP_EL3", TRAWL_REG_STATE_A64, TRAWL_REG_SP, 0, 0, 0);
	CHECK("MSP_S", TRAWL_REG_STATE_A32, TRAWL_REG_SP, 0, 4, 0);
	CHECK("cpsr", TRAWL_REG_STATE_GUESS, TRAWL_REG_PSR, 0, 0, 0);
	CHECK("XPSR", TRAWL_REG_STATE_GUESS, TRAWL_REG_PSR, 0, 0, 0);
}

static void fp_aliases(void **state)
{
	/* AArch64: every scalar view is the bottom of V<n>, writes clear the rest */
	CHECK("s5", TRAWL_REG_STATE_A64, TRAWL_REG_V0 + 5, 0, 4, 16);
	CHECK("d8", TRAWL_REG_STATE_A64, TRAWL_REG_V0 + 8, 0, 8, 16);
	CHECK("q0", TRAWL_REG_STATE_A64, TRAWL_REG_V0, 0, 16, 0);
	CHECK("V31", TRAWL_REG_STATE_A64, TRAWL_REG_V0 + 31, 0, 16, 0);
	CHECK("Z3", TRAWL_REG_STATE_A64, TRAWL_REG_V0 + 3, 0, 0, 0);
	CHECK("P15", TRAWL_REG_STATE_A64, TRAWL_REG_P0 + 15, 0, 0, 0);
	/* AArch32: s<2n+1> is the top half of d<n>, d<2n+1> the top of q<n> */
	CHECK("s1", TRAWL_REG_STATE_A32, TRAWL_REG_V0, 4, 4, 0);
	CHECK("s7", TRAWL_REG_STATE_A32, TRAWL_REG_V0 + 1, 12, 4, 0);
	CHECK("d1", TRAWL_REG_STATE_A32, TRAWL_REG_V0, 8, 8, 0);
	CHECK("d31", TRAWL_REG_STATE_A32, TRAWL_REG_V0 + 15, 8, 8, 0);
}

static void not_core_registers(void **state)
{
	struct trawl_reg_ref r;
	const char *names[] = { "SCTLR", "x31", "r16", "q32", "x03", "", "TLBI" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		assert_false(trawl_reg_parse(names[i], strlen(names[i]), TRAWL_REG_STATE_GUESS, &r));
}

static void interning(void **state)
{
	struct trawl_reg_names t;
	trawl_reg_names_init(&t);
	uint32_t a = trawl_reg_names_intern(&t, "SCTLR_EL1", 9);
	uint32_t b = trawl_reg_names_intern(&t, "sctlr_el1", 9);
	assert_int_equal(a, TRAWL_REG_SYS_BASE);
	assert_int_equal(a, b);
	char name[32];
	for (int i = 0; i < 500; i++) {
		int n = snprintf(name, sizeof name, "SYS%d", i);
		assert_int_equal(trawl_reg_names_intern(&t, name, (size_t)n), TRAWL_REG_SYS_BASE + 1 + i);
	}
	assert_int_equal(trawl_reg_names_find(&t, "sys77", 5), TRAWL_REG_SYS_BASE + 78);
	assert_int_equal(trawl_reg_names_find(&t, "nope", 4), 0);
	assert_string_equal(trawl_reg_names_get(&t, a), "SCTLR_EL1");
	assert_string_equal(trawl_reg_names_get(&t, TRAWL_REG_V0 + 2), "v2");
	trawl_reg_names_release(&t);
}

/* known[] from a string of '1'/'0', least significant byte first. */
static uint32_t shown(uint32_t reg, const char *bits, int a32)
{
	uint8_t k[TRAWL_REG_V_BYTES] = { 0 };
	uint32_t w = (uint32_t)strlen(bits);
	for (uint32_t i = 0; i < w; i++)
		k[i] = bits[i] == '1';
	return trawl_reg_shown_width(reg, k, w, a32);
}

static void shown_width(void **state)
{
	(void)state;
	uint32_t tpidr = TRAWL_REG_SYS_BASE + 3;
	/* A64 "R cpsr 20000000": bytes 0-3 of the 8 stored -> 4 bytes */
	assert_int_equal(shown(TRAWL_REG_PSR, "11110000", 0), 4);
	assert_int_equal(shown(TRAWL_REG_FPCR, "11110000", 0), 4);
	/* 64-bit system register in 16 bytes of storage -> 8 */
	assert_int_equal(shown(tpidr, "1111111100000000", 0), 8);
	/* a hole below the top known byte stays inside the width (??) */
	assert_int_equal(shown(TRAWL_REG_PSR, "11010000", 0), 4);
	assert_int_equal(shown(tpidr, "1111101100000000", 0), 8);
	assert_int_equal(shown(TRAWL_REG_PSR, "10000001", 0), 8);
	/* 5 known bytes round up to the next power of two */
	assert_int_equal(shown(tpidr, "1111100000000000", 0), 8);
	/* one low byte: at least 32 bits */
	assert_int_equal(shown(TRAWL_REG_PSR, "10000000", 0), 4);
	/* a single high byte (NZCV lives in byte 3) */
	assert_int_equal(shown(TRAWL_REG_PSR, "00010000", 0), 4);
	/* everything known: the full storage width */
	assert_int_equal(shown(TRAWL_REG_PSR, "11111111", 0), 8);
	assert_int_equal(shown(tpidr, "1111111111111111", 0), 16);
	/* nothing known: 0, the register is left out */
	assert_int_equal(shown(TRAWL_REG_PSR, "00000000", 0), 0);
	assert_int_equal(shown(tpidr, "0000000000000000", 0), 0);
	assert_int_equal(shown(TRAWL_REG_X0 + 5, "00000000", 0), 0);
	/* A64 core registers are 64-bit: an unknown upper half is real */
	assert_int_equal(shown(TRAWL_REG_X0 + 5, "11110000", 0), 8);
	assert_int_equal(shown(TRAWL_REG_PC, "11111111", 0), 8);
	/* AArch32: r-registers are 32 bits, bytes above never count */
	assert_int_equal(shown(TRAWL_REG_X0 + 5, "11110000", 1), 4);
	assert_int_equal(shown(TRAWL_REG_X0 + 5, "00001111", 1), 0);
	/* fpsr is 32 bits whatever its storage */
	assert_int_equal(shown(TRAWL_REG_FPSR, "11111111", 0), 4);
	/* vectors in 128-bit granules, predicates in 16-bit ones */
	char v[TRAWL_REG_V_BYTES + 1];
	memset(v, '0', TRAWL_REG_V_BYTES);
	v[TRAWL_REG_V_BYTES] = 0;
	memset(v, '1', 8);
	assert_int_equal(shown(TRAWL_REG_V0, v, 0), 16);
	v[20] = '1';
	assert_int_equal(shown(TRAWL_REG_V0, v, 0), 32);
	assert_int_equal(shown(TRAWL_REG_P0, "11100000000000000000000000000000", 0), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(core_aliases),
		cmocka_unit_test(fp_aliases),
		cmocka_unit_test(not_core_registers),
		cmocka_unit_test(interning),
		cmocka_unit_test(shown_width),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
