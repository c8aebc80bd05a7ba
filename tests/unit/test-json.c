/* The JSON writer: the escaping rule (valid UTF-8 through, other bytes as
 * \u00XX, controls escaped) against hand-written expectations, commas and
 * colons placed by the writer, and every output accepted as UTF-8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/json.h"

/* What the writer produced, as a string (open_memstream). */
struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static void cap_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

static const char *cap_close(struct capture *c)
{
	fclose(c->f);
	return c->buf;
}

static void check_escape(const char *in, size_t len, const char *want)
{
	struct capture c;
	cap_open(&c);
	trawl_json_write_string(c.f, in, len);
	const char *got = cap_close(&c);
	if (strcmp(got, want) != 0)
		fail_msg("escaping %zu bytes: got %s, want %s", len, got, want);
	free(c.buf);
}

static void ascii_and_escapes(void **state)
{
	(void)state;
	check_escape("TPIDR_EL0", 9, "\"TPIDR_EL0\"");
	check_escape("a\"b\\c", 5, "\"a\\\"b\\\\c\"");
	check_escape("\n\r\t\b\f", 5, "\"\\n\\r\\t\\b\\f\"");
	check_escape("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"");
	check_escape("a\0b", 3, "\"a\\u0000b\""); /* a NUL inside is data */
	check_escape("", 0, "\"\"");
}

static void valid_utf8_passes_through(void **state)
{
	(void)state;
	check_escape("caf\xc3\xa9", 5, "\"caf\xc3\xa9\"");                /* U+00E9 */
	check_escape("\xe2\x82\xac", 3, "\"\xe2\x82\xac\"");              /* U+20AC */
	check_escape("\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\"");      /* U+1F600 */
	check_escape("\xf4\x8f\xbf\xbf", 4, "\"\xf4\x8f\xbf\xbf\"");      /* U+10FFFF */
}

static void invalid_bytes_become_latin1_escapes(void **state)
{
	(void)state;
	check_escape("\xff", 1, "\"\\u00ff\"");
	check_escape("\x80", 1, "\"\\u0080\"");                    /* stray continuation */
	check_escape("\xc3", 1, "\"\\u00c3\"");                    /* cut by the end */
	check_escape("\xc3(", 2, "\"\\u00c3(\"");                  /* bad continuation */
	check_escape("\xc0\xaf", 2, "\"\\u00c0\\u00af\"");         /* overlong '/' */
	check_escape("\xe0\x80\xaf", 3, "\"\\u00e0\\u0080\\u00af\""); /* overlong, 3 bytes */
	check_escape("\xed\xa0\x80", 3, "\"\\u00ed\\u00a0\\u0080\""); /* surrogate D800 */
	check_escape("\xf4\x90\x80\x80", 4, "\"\\u00f4\\u0090\\u0080\\u0080\""); /* > 10FFFF */
	/* a valid sequence after an invalid byte is kept */
	check_escape("\xff\xc3\xa9", 3, "\"\\u00ff\xc3\xa9\"");
}

/* Every byte string gives output that is valid UTF-8 (checked by a decoder
 * written here from the Unicode table, independent of the writer's). */
static int valid_utf8(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
				 : (c & 0xf8) == 0xf0 ? 4 : 0;
		if (!len || i + len > n)
			return 0;
		uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };
		if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
			return 0;
		i += len;
	}
	return 1;
}

static void random_bytes_give_valid_utf8(void **state)
{
	(void)state;
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (int round = 0; round < 20000; round++) {
		unsigned char in[16];
		size_t n = (size_t)(round % 16) + 1;
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* mostly high bytes, where the rules are */
			in[i] = (unsigned char)(x & 1 ? 0x80 | (x >> 8) : x >> 8);
		}
		struct capture c;
		cap_open(&c);
		trawl_json_write_string(c.f, (const char *)in, n);
		cap_close(&c);
		if (!valid_utf8((const unsigned char *)c.buf, c.len))
			fail_msg("round %d: output is not valid UTF-8: %s", round, c.buf);
		free(c.buf);
	}
}

static void writer_places_commas(void **state)
{
	(void)state;
	struct capture c;
	struct trawl_json j;
	cap_open(&c);
	trawl_json_init(&j, c.f);
	trawl_json_object_begin(&j);
	trawl_json_key(&j, "pc");
	trawl_json_hex(&j, 0x80000);
	trawl_json_key(&j, "visits");
	trawl_json_u64(&j, 3);
	trawl_json_key(&j, "events");
	trawl_json_array_begin(&j);
	trawl_json_object_begin(&j);
	trawl_json_key(&j, "line");
	trawl_json_i64(&j, -1);
	trawl_json_object_end(&j);
	trawl_json_null(&j);
	trawl_json_array_begin(&j);
	trawl_json_array_end(&j);
	trawl_json_bool(&j, 1);
	trawl_json_double(&j, 0.5);
	trawl_json_double(&j, 1.0 / 0.0);
	trawl_json_cstring(&j, "x\xff");
	trawl_json_array_end(&j);
	trawl_json_key(&j, "empty");
	trawl_json_object_begin(&j);
	trawl_json_object_end(&j);
	trawl_json_object_end(&j);
	const char *got = cap_close(&c);
	assert_string_equal(got, "{\"pc\":\"0x80000\",\"visits\":3,\"events\":[{\"line\":-1},null,[],"
				 "true,0.500000,null,\"x\\u00ff\"],\"empty\":{}}");
	free(c.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ascii_and_escapes),
		cmocka_unit_test(valid_utf8_passes_through),
		cmocka_unit_test(invalid_bytes_become_latin1_escapes),
		cmocka_unit_test(random_bytes_give_valid_utf8),
		cmocka_unit_test(writer_places_commas),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
