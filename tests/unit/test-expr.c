/* Address expressions: values worked out by hand, error columns, and
 * hostile text (deep nesting, overflow) that must fail cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "trawl/expr.h"

/* x19 = 0x40010000, sp = 0x8000fff0, main = 0x80000, x5 is unknown */
static enum trawl_expr_name lookup(void *ctx, const char *name, size_t len, uint64_t *v)
{
	int *calls = ctx;
	(*calls)++;
	if (len == 3 && !memcmp(name, "x19", 3))
		*v = 0x40010000;
	else if (len == 2 && !memcmp(name, "sp", 2))
		*v = 0x8000fff0;
	else if (len == 4 && !memcmp(name, "main", 4))
		*v = 0x80000;
	else if (len == 7 && !memcmp(name, "$x._a.1", 7))
		*v = 7;
	else if (len == 13 && !memcmp(name, "Lexer::next()", 13))
		*v = 0x210c04;
	else if (len == 26 && !memcmp(name, "Parser::add(unsigned int&)", 26))
		*v = 0x2110c4;
	else if (len == 30 && !memcmp(name, "std::vector<int>::size() const", 30))
		*v = 0x100;
	else if (len == 2 && !memcmp(name, "x5", 2))
		return TRAWL_EXPR_NAME_NO_VALUE;
	else
		return TRAWL_EXPR_NAME_UNKNOWN_NAME;
	return TRAWL_EXPR_NAME_OK;
}

static uint64_t eval_ok(const char *s)
{
	int calls = 0;
	uint64_t v = 0xdead;
	struct trawl_error err;
	enum trawl_status st = trawl_expr_eval(s, lookup, &calls, &v, &err);
	if (st)
		fail_msg("'%s' failed: %s (column %u)", s, err.message, err.column);
	return v;
}

static void values(void **state)
{
	assert_int_equal(eval_ok("0"), 0);
	assert_int_equal(eval_ok("1234"), 1234);
	assert_int_equal(eval_ok("0x40010000"), 0x40010000);
	assert_int_equal(eval_ok("0XfF"), 255);
	assert_int_equal(eval_ok("18446744073709551615"), UINT64_MAX);
	assert_int_equal(eval_ok("0xffffffffffffffff"), UINT64_MAX);
	assert_int_equal(eval_ok("x19+0x18"), 0x40010018);
	assert_int_equal(eval_ok("  x19 + 0x18  "), 0x40010018);
	assert_int_equal(eval_ok("sp-16"), 0x8000ffe0);
	assert_int_equal(eval_ok("main - 8 + 4"), 0x7fffc);
	assert_int_equal(eval_ok("main-(8+4)"), 0x7fff4);
	assert_int_equal(eval_ok("((x19))"), 0x40010000);
	assert_int_equal(eval_ok("-1"), UINT64_MAX);
	assert_int_equal(eval_ok("+5"), 5);
	assert_int_equal(eval_ok("-(1 - 3)"), 2);
	assert_int_equal(eval_ok("0 - 1"), UINT64_MAX); /* wraps like an address */
	assert_int_equal(eval_ok("0xffffffffffffffff + 2"), 1);
	assert_int_equal(eval_ok("$x._a.1+1"), 8);
	assert_int_equal(eval_ok("x19-sp"), (uint64_t)0x40010000 - 0x8000fff0);
}

/* demangled C++ names are one name (addresses from nm -C of the corpus
 * calculator: Lexer::next() at 0x210c04, Parser::add at 0x2110c4) */
static void cxx_names(void **state)
{
	assert_int_equal(eval_ok("Lexer::next()"), 0x210c04);
	assert_int_equal(eval_ok("Lexer::next() + 8"), 0x210c0c);
	assert_int_equal(eval_ok("(Lexer::next())-4"), 0x210c00);
	assert_int_equal(eval_ok("Parser::add(unsigned int&)"), 0x2110c4);
	assert_int_equal(eval_ok("std::vector<int>::size() const+1"), 0x101);
}

static void check_error(const char *s, enum trawl_status want, uint32_t col, const char *msg)
{
	int calls = 0;
	uint64_t v = 42;
	struct trawl_error err;
	enum trawl_status st = trawl_expr_eval(s, lookup, &calls, &v, &err);
	if (st != want)
		fail_msg("'%s': status %d, want %d (%s)", s, st, want, err.message);
	assert_int_equal(err.status, want);
	if (err.column != col)
		fail_msg("'%s': column %u, want %u (%s)", s, err.column, col, err.message);
	if (!strstr(err.message, msg))
		fail_msg("'%s': message '%s' lacks '%s'", s, err.message, msg);
	assert_int_equal(v, 42); /* untouched on failure */
}

static void errors(void **state)
{
	check_error("", TRAWL_ERR_USAGE, 1, "ends too soon");
	check_error("   ", TRAWL_ERR_USAGE, 4, "ends too soon");
	check_error("x19+", TRAWL_ERR_USAGE, 5, "ends too soon");
	check_error("x19 +  nope", TRAWL_ERR_USAGE, 8, "no register or symbol 'nope'");
	check_error("x5+1", TRAWL_ERR_NOT_FOUND, 1, "unknown here: 'x5'");
	check_error("0x", TRAWL_ERR_USAGE, 1, "needs digits");
	check_error("12ab", TRAWL_ERR_USAGE, 1, "bad number '12ab'");
	check_error("0x1g", TRAWL_ERR_USAGE, 1, "bad number");
	check_error("0x10000000000000000", TRAWL_ERR_USAGE, 1, "too large");
	check_error("18446744073709551616", TRAWL_ERR_USAGE, 1, "too large");
	check_error("(1+2", TRAWL_ERR_USAGE, 5, "missing ')'");
	check_error("1+2)", TRAWL_ERR_USAGE, 4, "unmatched ')'");
	check_error("1 2", TRAWL_ERR_USAGE, 3, "unexpected '2'");
	check_error("1*2", TRAWL_ERR_USAGE, 2, "unexpected '*'");
	check_error("1+-2", TRAWL_ERR_USAGE, 3, "two operators");
	check_error("#5", TRAWL_ERR_USAGE, 1, "unexpected '#'");
	/* a C++ name is looked up whole, and reported whole */
	check_error("Lexer::nope() + 1", TRAWL_ERR_USAGE, 1, "no register or symbol 'Lexer::nope()'");
	/* unbalanced: not a C++ name, the plain name is what is looked up */
	check_error("main(", TRAWL_ERR_USAGE, 5, "unexpected '('");
	check_error("main::", TRAWL_ERR_USAGE, 5, "unexpected ':'");
}

static void hostile(void **state)
{
	/* 100000 '(' must not recurse 100000 deep */
	size_t n = 100000;
	char *s = malloc(n + 2);
	assert_non_null(s);
	memset(s, '(', n);
	s[n] = '1';
	s[n + 1] = 0;
	check_error(s, TRAWL_ERR_USAGE, 65, "nested too deeply");
	free(s);
	/* no lookup function: every name is unknown */
	uint64_t v;
	struct trawl_error err;
	assert_int_equal(trawl_expr_eval("sp", NULL, NULL, &v, &err), TRAWL_ERR_USAGE);
	assert_int_equal(trawl_expr_eval(NULL, NULL, NULL, &v, &err), TRAWL_ERR_USAGE);
	assert_int_equal(trawl_expr_eval("64", NULL, NULL, &v, NULL), TRAWL_OK);
	assert_int_equal(v, 64);
}

/* conditions: len = 120, port = 80, neg = -5, gone has no value */
static int cresolve(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	static const char *const names[] = { "len", "port", "neg", "gone" };
	for (int i = 0; i < 4; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], name, len))
			return i;
	return -1;
}

/* len, port, neg from the first array; gone unknown */
static const int16_t cmap[] = { 0, 1, 2, -1 };
static const int64_t cvals[] = { 120, 80, -5 };

/* 1 true, 0 false, -1 unknown */
static int cond(const char *s)
{
	struct trawl_expr *e;
	struct trawl_error err;
	if (trawl_expr_compile(s, cresolve, NULL, &e, &err) != TRAWL_OK)
		fail_msg("'%s' does not compile: %s (column %u)", s, err.message, err.column);
	int64_t v = 0;
	int r = trawl_expr_run(e, cmap, cvals, NULL, NULL, &v);
	trawl_expr_free(e);
	return r ? -1 : v != 0;
}

static int64_t cval(const char *s)
{
	struct trawl_expr *e;
	struct trawl_error err;
	assert_int_equal(trawl_expr_compile(s, cresolve, NULL, &e, &err), TRAWL_OK);
	int64_t v = 0;
	assert_int_equal(trawl_expr_run(e, cmap, cvals, NULL, NULL, &v), 0);
	trawl_expr_free(e);
	return v;
}

static void conditions(void **state)
{
	/* the second array: map -2 reads b[0] */
	{
		struct trawl_expr *e;
		static const int16_t m2[] = { -2, -3, -1, -1 };
		static const int64_t b[] = { 7, 9 };
		int64_t v = 0;
		assert_int_equal(trawl_expr_compile("len * 10 + port", cresolve, NULL, &e, NULL), TRAWL_OK);
		assert_int_equal(trawl_expr_run(e, m2, NULL, b, NULL, &v), 0);
		assert_int_equal(v, 79);
		assert_int_equal(trawl_expr_run(e, NULL, NULL, NULL, NULL, &v), -1);
		trawl_expr_free(e);
	}
	assert_int_equal(cond("len > 100 && port == 80"), 1);
	assert_int_equal(cond("len > 100 && port != 80"), 0);
	assert_int_equal(cond("len < 100 || port == 80"), 1);
	assert_int_equal(cond("neg < 0"), 1);          /* signed */
	assert_int_equal(cond("neg < -4 && -neg == 5"), 1);
	assert_int_equal(cond("!(len >= 121)"), 1);
	assert_int_equal(cond("len <= 120 && len >= 120"), 1);
	/* C precedence: * before +, + before <<, << before <, < before ==, == before &, & before ^ before | */
	assert_int_equal(cval("2 + 3 * 4"), 14);
	assert_int_equal(cval("1 << 2 + 1"), 8);
	assert_int_equal(cval("1 < 2 == 1"), 1);
	assert_int_equal(cval("6 & 3 == 3"), 0);       /* 6 & (3 == 3) */
	assert_int_equal(cval("1 | 2 ^ 3 & 1"), 3);    /* 1 | (2 ^ (3 & 1)) */
	assert_int_equal(cval("len % 7 + len / 7"), 120 % 7 + 120 / 7);
	assert_int_equal(cval("~0"), -1);
	assert_int_equal(cval("0x10 >> 2"), 4);
	assert_int_equal(cval("(len - port) * -2"), -80);
	/* unknown: a missing field, decided only by a known side of || or && */
	assert_int_equal(cond("gone > 3"), -1);
	assert_int_equal(cond("gone > 3 || len == 120"), 1);
	assert_int_equal(cond("len == 120 || gone > 3"), 1);
	assert_int_equal(cond("gone > 3 && len == 1"), 0);
	assert_int_equal(cond("gone > 3 && len == 120"), -1);
	assert_int_equal(cond("!(gone > 3)"), -1);
	assert_int_equal(cond("len / 0 == 1"), -1);
	assert_int_equal(cond("len / (port - 80) > 0 || 1"), 1);
}

/* A field compared with a number (one fused term, run as an interval
 * test) against C's own comparison, at the ends of the signed range too:
 * alone (the chain runner) and inside !!(...) (the stack machine). */
static void comparison_edges(void **state)
{
	(void)state;
	static const int64_t vals[] = { INT64_MIN, INT64_MIN + 1, -5, -1, 0, 1, 120, INT64_MAX - 1, INT64_MAX };
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };
	static const int16_t map[] = { 0 };
	size_t nv = sizeof vals / sizeof vals[0];
	for (size_t o = 0; o < 6; o++)
		for (size_t ki = 0; ki < nv; ki++)
			for (int wrap = 0; wrap < 2; wrap++) {
				char text[96];
				/* -N is one number, so a negative k is one term too */
				snprintf(text, sizeof text, wrap ? "!!(len %s %lld)" : "len %s %lld", ops[o],
					 (long long)vals[ki]);
				struct trawl_expr *e;
				struct trawl_error err;
				if (trawl_expr_compile(text, cresolve, NULL, &e, &err) != TRAWL_OK)
					fail_msg("'%s' does not compile: %s", text, err.message);
				struct trawl_expr_term t[2];
				int is_or = -1;
				/* a single term is an || chain; inside !!(...) not a chain */
				assert_int_equal(trawl_expr_chain(e, &is_or, t, 2), wrap ? 0 : 1);
				for (size_t xi = 0; xi < nv; xi++) {
					int64_t x = vals[xi], k = vals[ki], v = -1;
					int want = o == 0 ? x == k : o == 1 ? x != k : o == 2 ? x < k
						 : o == 3 ? x <= k : o == 4 ? x > k : x >= k;
					assert_int_equal(trawl_expr_run(e, map, &x, NULL, NULL, &v), 0);
					if ((v != 0) != want)
						fail_msg("'%s' with len = %lld gave %lld", text, (long long)x, (long long)v);
					if (!wrap && ((((uint64_t)x - t[0].lo <= t[0].span) ^ t[0].neg) != want))
						fail_msg("'%s' as an interval with len = %lld is wrong", text, (long long)x);
				}
				if (!wrap) {
					assert_int_equal(is_or, 1);
					assert_int_equal(t[0].sym, 0);
				}
				trawl_expr_free(e);
			}
}

/* The integers values say, against __int128 arithmetic: a field whose
 * values are unsigned (a u64: usym) compared with numbers from -2^63 to
 * 2^64 - 1, fused (the chain runner and trawl_expr_term_unsigned's
 * interval) and inside !!(...) (the stack machine); and a signed field
 * against numbers of 2^63 and more, which are above all its values. */
static void unsigned_values(void **state)
{
	(void)state;
	static const uint64_t xs[] = { 0, 1, 120, INT64_MAX, (uint64_t)INT64_MAX + 1, (uint64_t)INT64_MAX + 2,
				       UINT64_MAX - 1, UINT64_MAX };
	static const char *const ks[] = { "-9223372036854775808", "-5", "0", "1", "120", "9223372036854775807",
					  "9223372036854775808", "0x8000000000000001", "18446744073709551614",
					  "0xffffffffffffffff" };
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };
	static const int16_t map[] = { 0 };
	static const uint8_t usym[] = { 1 };
	for (size_t o = 0; o < 6; o++)
		for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
			__int128 k = ks[ki][0] == '-' ? -(__int128)strtoull(ks[ki] + 1, NULL, 0)
						      : (__int128)strtoull(ks[ki], NULL, 0);
			for (int wrap = 0; wrap < 2; wrap++) {
				char text[96];
				snprintf(text, sizeof text, wrap ? "!!(len %s %s)" : "len %s %s", ops[o], ks[ki]);
				struct trawl_expr *e;
				struct trawl_error err;
				if (trawl_expr_compile(text, cresolve, NULL, &e, &err) != TRAWL_OK)
					fail_msg("'%s' does not compile: %s", text, err.message);
				struct trawl_expr_term t[2];
				int is_or = -1;
				assert_int_equal(trawl_expr_chain(e, &is_or, t, 2), wrap ? 0 : 1);
				struct trawl_expr_term ut = t[0];
				if (!wrap)
					trawl_expr_term_unsigned(&ut);
				for (size_t xi = 0; xi < sizeof xs / sizeof xs[0]; xi++) {
					/* as a u64 field */
					__int128 x = (__int128)xs[xi];
					int want = o == 0 ? x == k : o == 1 ? x != k : o == 2 ? x < k
						 : o == 3 ? x <= k : o == 4 ? x > k : x >= k;
					int64_t bits = (int64_t)xs[xi], v = -1;
					assert_int_equal(trawl_expr_run(e, map, &bits, NULL, usym, &v), 0);
					if ((v != 0) != want)
						fail_msg("'%s' with unsigned len = %llu gave %lld", text,
							 (unsigned long long)xs[xi], (long long)v);
					if (!wrap && (((xs[xi] - ut.lo <= ut.span) ^ ut.neg) != want))
						fail_msg("'%s' as an unsigned interval with len = %llu is wrong", text,
							 (unsigned long long)xs[xi]);
					/* as a signed field with the same bits */
					x = (__int128)bits;
					want = o == 0 ? x == k : o == 1 ? x != k : o == 2 ? x < k
					     : o == 3 ? x <= k : o == 4 ? x > k : x >= k;
					assert_int_equal(trawl_expr_run(e, map, &bits, NULL, NULL, &v), 0);
					if ((v != 0) != want)
						fail_msg("'%s' with signed len = %lld gave %lld", text, (long long)bits,
							 (long long)v);
					if (!wrap && ((((uint64_t)bits - t[0].lo <= t[0].span) ^ t[0].neg) != want))
						fail_msg("'%s' as a signed interval with len = %lld is wrong", text,
							 (long long)bits);
				}
				trawl_expr_free(e);
			}
		}
	/* arithmetic: an unsigned operand makes an unsigned result; / and >>
	 * as on uint64_t then, as on int64_t (>> keeping the sign) else */
	static const struct {
		const char *text;
		uint64_t x;
		int want;
	} ar[] = {
		{ "len + 1 > 5", (uint64_t)1 << 63, 1 },
		{ "len / 2 == 0x4000000000000000", (uint64_t)1 << 63, 1 },
		{ "len >> 62 == 3", UINT64_MAX, 1 },
		{ "(len & 0x8000000000000000) > 0", (uint64_t)1 << 63, 1 },
		{ "len - 1 > len", 0, 0 },
	};
	for (size_t i = 0; i < sizeof ar / sizeof ar[0]; i++) {
		struct trawl_expr *e;
		assert_int_equal(trawl_expr_compile(ar[i].text, cresolve, NULL, &e, NULL), TRAWL_OK);
		int64_t bits = (int64_t)ar[i].x, v = -1;
		assert_int_equal(trawl_expr_run(e, map, &bits, NULL, usym, &v), 0);
		if ((v != 0) != ar[i].want)
			fail_msg("'%s' with unsigned len = %llu gave %lld", ar[i].text, (unsigned long long)ar[i].x,
				 (long long)v);
		trawl_expr_free(e);
	}
	assert_int_equal(cval("-8 >> 1"), -4);
	assert_int_equal(cval("-(-9223372036854775808) > 9223372036854775807"), 1);
	assert_int_equal(cval("0 - 1 < 0"), 1);
}

/* The shapes trawl_expr_chain takes: terms joined all by || or all by &&,
 * at most max of them; anything else is 0. */
static void chain_shapes(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		size_t n;
		int is_or;
	} cases[] = {
		{ "len > 1 || port == 2 || neg < 0", 3, 1 }, { "len > 1 && port == 2", 2, 0 },
		{ "len > 1 || port == 2 && neg < 0", 0, 0 }, { "len + 1 > 2", 0, 0 },
		{ "!(len > 1)", 0, 0 },                      { "len > 1 || port == 2 || neg < 0 || len < 9", 0, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct trawl_expr *e;
		struct trawl_error err;
		struct trawl_expr_term t[3];
		int is_or = -1;
		assert_int_equal(trawl_expr_compile(cases[i].text, cresolve, NULL, &e, &err), TRAWL_OK);
		size_t n = trawl_expr_chain(e, &is_or, t, 3);
		if (n != cases[i].n)
			fail_msg("'%s': %zu terms, want %zu", cases[i].text, n, cases[i].n);
		if (n) {
			assert_int_equal(is_or, cases[i].is_or);
			assert_int_equal(t[0].sym, 0); /* len */
			assert_int_equal(t[1].sym, 1); /* port */
		}
		trawl_expr_free(e);
	}
}

static void check_cerror(const char *s, uint32_t col, const char *msg)
{
	struct trawl_expr *e = (void *)1;
	struct trawl_error err;
	assert_int_equal(trawl_expr_compile(s, cresolve, NULL, &e, &err), TRAWL_ERR_USAGE);
	assert_null(e);
	if (err.column != col)
		fail_msg("'%s': column %u, want %u (%s)", s, err.column, col, err.message);
	if (!strstr(err.message, msg))
		fail_msg("'%s': message '%s' lacks '%s'", s, err.message, msg);
}

static void condition_errors(void **state)
{
	check_cerror("len >", 6, "ends too soon");
	check_cerror("len > 1 &&& 2", 11, "unexpected '&'");
	check_cerror("lenx > 1", 1, "no field or name 'lenx'");
	check_cerror("(len > 1", 9, "missing ')'");
	check_cerror("len > 1)", 8, "unmatched ')'");
	check_cerror("len = 1", 5, "unexpected '='");
	/* 100000 '!' or '(' must not recurse 100000 deep; a long flat chain compiles */
	size_t n = 100000;
	char *s = malloc(2 * n + 2);
	assert_non_null(s);
	memset(s, '!', n);
	strcpy(s + n, "1");
	check_cerror(s, 65, "nested too deeply");
	for (size_t i = 0; i < n; i++)
		memcpy(s + 2 * i, "1+", 2);
	strcpy(s + 2 * n, "1");
	assert_int_equal(cval(s), (int64_t)n + 1);
	free(s);
}

/* Chains of comparisons joined by all || or all && run without the stack
 * machine; "!!(...)" is not a chain, so it runs the stack machine: the two
 * must agree on every chain of up to four terms over known, false and
 * unknown (gone) fields. */
static void chains(void **state)
{
	static const char *const terms[] = { "len > 100", "port != 80", "gone == 1", "neg < 0", "len == 7" };
	static const char *const ops[] = { " || ", " && " };
	char expr[256], wrapped[300];
	int checked = 0;
	for (int n = 1; n <= 4; n++)
		for (int op = 0; op < 2; op++)
			for (int pick = 0; pick < 625; pick++) {
				expr[0] = 0;
				int p = pick;
				for (int k = 0; k < n; k++, p /= 5) {
					if (k)
						strcat(expr, ops[op]);
					strcat(expr, terms[p % 5]);
				}
				snprintf(wrapped, sizeof wrapped, "!!(%s)", expr);
				assert_int_equal(cond(expr), cond(wrapped));
				checked++;
			}
	assert_true(checked > 1000);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(values),
		cmocka_unit_test(cxx_names),
		cmocka_unit_test(errors),
		cmocka_unit_test(hostile),
		cmocka_unit_test(conditions),
		cmocka_unit_test(comparison_edges),
		cmocka_unit_test(unsigned_values),
		cmocka_unit_test(chain_shapes),
		cmocka_unit_test(condition_errors),
		cmocka_unit_test(chains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
