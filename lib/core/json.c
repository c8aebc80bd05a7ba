/* The JSON writer (see trawl/json.h for the escaping rule). */
#include "trawl/json.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when s[0] does not
 * start one (stray continuation bytes, overlong forms, surrogates, values
 * past U+10FFFF, or a sequence cut by the end). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	uint32_t cp;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	if (c < 0xe0) {
		len = 2;
		cp = c & 0x1f;
	} else if (c < 0xf0) {
		len = 3;
		cp = c & 0x0f;
	} else {
		len = 4;
		cp = c & 0x07;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void trawl_json_write_string(FILE *f, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	putc('"', f);
	for (size_t i = 0; i < len;) {
		unsigned c = s[i];
		if (c >= 0x80) {
			size_t n = utf8_len(s + i, len - i);
			if (n) {
				fwrite(s + i, 1, n, f);
				i += n;
			} else {
				fprintf(f, "\\u%04x", c);
				i++;
			}
			continue;
		}
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				putc((int)c, f);
		}
		i++;
	}
	putc('"', f);
}

void trawl_json_init(struct trawl_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->after_key = 0;
	j->nonempty = 0;
}

static uint64_t bit(unsigned depth)
{
	return (uint64_t)1 << (depth < TRAWL_JSON_MAX_DEPTH ? depth : TRAWL_JSON_MAX_DEPTH - 1);
}

/* Before any value or key: the comma that separates it from the previous
 * member, unless it is the value of a key just written. */
static void separate(struct trawl_json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->depth) {
		if (j->nonempty & bit(j->depth))
			putc(',', j->f);
		j->nonempty |= bit(j->depth);
	}
}

void trawl_json_value_begin(struct trawl_json *j)
{
	separate(j);
}

static void open_container(struct trawl_json *j, int ch)
{
	separate(j);
	putc(ch, j->f);
	if (j->depth < TRAWL_JSON_MAX_DEPTH - 1)
		j->depth++;
	j->nonempty &= ~bit(j->depth);
}

static void close_container(struct trawl_json *j, int ch)
{
	putc(ch, j->f);
	j->after_key = 0;
	if (j->depth)
		j->depth--;
}

void trawl_json_object_begin(struct trawl_json *j)
{
	open_container(j, '{');
}

void trawl_json_object_end(struct trawl_json *j)
{
	close_container(j, '}');
}

void trawl_json_array_begin(struct trawl_json *j)
{
	open_container(j, '[');
}

void trawl_json_array_end(struct trawl_json *j)
{
	close_container(j, ']');
}

void trawl_json_key(struct trawl_json *j, const char *key)
{
	separate(j);
	trawl_json_write_string(j->f, key, strlen(key));
	putc(':', j->f);
	j->after_key = 1;
}

void trawl_json_string(struct trawl_json *j, const char *s, size_t len)
{
	separate(j);
	trawl_json_write_string(j->f, s, len);
}

void trawl_json_cstring(struct trawl_json *j, const char *s)
{
	trawl_json_string(j, s, strlen(s));
}

void trawl_json_u64(struct trawl_json *j, uint64_t v)
{
	separate(j);
	fprintf(j->f, "%" PRIu64, v);
}

void trawl_json_i64(struct trawl_json *j, int64_t v)
{
	separate(j);
	fprintf(j->f, "%" PRId64, v);
}

void trawl_json_double(struct trawl_json *j, double v)
{
	separate(j);
	if (isfinite(v))
		fprintf(j->f, "%.6f", v);
	else
		fputs("null", j->f);
}

void trawl_json_bool(struct trawl_json *j, int v)
{
	separate(j);
	fputs(v ? "true" : "false", j->f);
}

void trawl_json_null(struct trawl_json *j)
{
	separate(j);
	fputs("null", j->f);
}

void trawl_json_hex(struct trawl_json *j, uint64_t v)
{
	separate(j);
	fprintf(j->f, "\"0x%" PRIx64 "\"", v);
}
