/* trawl_u64_parse: the one number syntax, against hand-written values; a
 * leading space or sign is refused (strtoull skips the space and takes
 * " -1" as 2^64 - 1, which the old per-caller checks let through); a
 * leading 0 is decimal (octal made "--limit 010" 8). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "trawl/number.h"

static void numbers(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		int ok;
		uint64_t v;
	} cases[] = {
		{ "0", 1, 0 }, { "10", 1, 10 }, { "0x10", 1, 16 }, { "0X1f", 1, 31 }, { "010", 1, 10 },
		{ "18446744073709551615", 1, UINT64_MAX }, { "0xffffffffffffffff", 1, UINT64_MAX },
		{ "18446744073709551616", 0, 0 }, { "", 0, 0 }, { "-1", 0, 0 }, { " -1", 0, 0 },
		{ " 5", 0, 0 }, { "+5", 0, 0 }, { "5 ", 0, 0 }, { "1x", 0, 0 }, { "0x", 0, 0 },
		{ "09", 1, 9 }, { "0x0x1", 0, 0 }, { "0x-1", 0, 0 }, { "0x 1", 0, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t v = 12345;
		int ok = trawl_u64_parse(cases[i].s, &v);
		if (ok != cases[i].ok || (ok && v != cases[i].v))
			fail_msg("'%s': got ok=%d v=%llu", cases[i].s, ok, (unsigned long long)v);
	}
	uint64_t v;
	assert_int_equal(trawl_u64_parse(NULL, &v), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(numbers) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
