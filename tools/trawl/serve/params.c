/* Checking and typing API parameters (see params.h). */
#include "params.h"

#include <stdio.h>
#include <string.h>

#include "trawl/number.h"

void serve_req_init(struct serve_req *r)
{
	memset(r, 0, sizeof *r);
	r->dir = 1;
}

struct num_param {
	const char *key;
	uint32_t bit;
	size_t off;
	uint64_t min, max;
};

#define NUM(k, b, f, lo, hi) { k, b, offsetof(struct serve_req, f), lo, hi }
static const struct num_param nums[] = {
	NUM("line", SP_LINE, line, 1, UINT64_MAX),
	NUM("from", SP_FROM, from, 0, UINT64_MAX),
	NUM("to", SP_TO, to, 0, UINT64_MAX),
	NUM("count", SP_COUNT, count, 1, SERVE_COUNT_MAX),
	NUM("cols", SP_COLS, cols, 1, SERVE_COLS_MAX),
	NUM("max", SP_MAX, max, 1, SERVE_ITEMS_MAX),
	NUM("addr", SP_ADDR, addr, 0, UINT64_MAX),
	NUM("len", SP_LEN, len, 1, SERVE_MEM_MAX),
};

const char *const serve_filter_keys[SF_N] = { "cpus", "threads", "subsys", "events", "where", "acts" };

static const char *const names[] = { "trace", "line", "from", "to", "count", "cols", "max",
				     "addr", "len", "cpu", "dir", "reg", "text", "op", "q", "mark" };

static int fail(char *why, size_t n, const char *fmt, const char *key)
{
	snprintf(why, n, fmt, key);
	return -1;
}

static int set_string(char *dst, size_t cap, const char *key, const char *v, size_t len,
		      char *why, size_t n)
{
	if (len >= cap)
		return fail(why, n, "parameter '%s' is too long", key);
	if (memchr(v, 0, len))
		return fail(why, n, "parameter '%s' holds a NUL byte", key);
	memcpy(dst, v, len);
	dst[len] = 0;
	return 0;
}

static int set_number(struct serve_req *r, const struct num_param *p, const char *v, char *why,
		      size_t n)
{
	uint64_t x;
	if (!trawl_u64_parse(v, &x))
		return fail(why, n, "parameter '%s' is not a number", p->key);
	if (x < p->min || x > p->max)
		return fail(why, n, "parameter '%s' is out of range", p->key);
	memcpy((char *)r + p->off, &x, sizeof x);
	r->have |= p->bit;
	return 0;
}

/* Keys with a fixed set of words. */
static int set_word(struct serve_req *r, const char *key, const char *v, char *why, size_t n)
{
	if (!strcmp(key, "dir")) {
		if (strcmp(v, "next") && strcmp(v, "last"))
			return fail(why, n, "parameter '%s' is 'next' or 'last'", key);
		r->dir = v[0] == 'n' ? 1 : -1;
		r->have |= SP_DIR;
		return 0;
	}
	static const char *const ops[] = { NULL, "over", "back", "out" };
	for (int i = 1; i <= 3; i++)
		if (!strcmp(v, ops[i])) {
			r->op = i;
			r->have |= SP_OP;
			return 0;
		}
	return fail(why, n, "parameter '%s' is 'over', 'back' or 'out'", key);
}

int serve_req_set(struct serve_req *r, const char *key, const char *value, size_t value_len,
		  char *why, size_t why_size)
{
	if (!key)
		return fail(why, why_size, "a parameter without a name%s", "");
	if (!strcmp(key, "token"))
		return 0;       /* checked before any handler */
	if (!value)
		return fail(why, why_size, "parameter '%s' has no value", key);
	if (!strcmp(key, "reg"))
		return set_string(r->reg, sizeof r->reg, key, value, value_len, why, why_size) ||
		       (r->have |= SP_REG, 0);
	if (!strcmp(key, "mark"))
		return set_string(r->mark, sizeof r->mark, key, value, value_len, why, why_size) ||
		       (r->have |= SP_MARK, 0);
	for (int i = 0; i < SF_N; i++)
		if (!strcmp(key, serve_filter_keys[i])) {
			if (set_string(r->filter[i], sizeof r->filter[i], key, value, value_len, why, why_size))
				return -1;
			r->filter_have |= 1u << i;
			r->have |= SP_FILTER;
			return 0;
		}
	if (!strcmp(key, "text") || !strcmp(key, "q")) {
		if (set_string(r->text, sizeof r->text, key, value, value_len, why, why_size))
			return -1;
		r->have |= key[0] == 't' ? SP_TEXT : SP_Q;
		return 0;
	}
	/* the rest are short words or numbers, which never hold a NUL */
	if (memchr(value, 0, value_len) || strlen(value) != value_len)
		return fail(why, why_size, "parameter '%s' holds a NUL byte", key);
	if (!strcmp(key, "dir") || !strcmp(key, "op"))
		return set_word(r, key, value, why, why_size);
	uint64_t x;
	if (!strcmp(key, "trace") || !strcmp(key, "cpu")) {
		if (!trawl_u64_parse(value, &x) || x > (key[0] == 't' ? 4095 : 65535))
			return fail(why, why_size, "parameter '%s' is not a small number", key);
		if (key[0] == 't') {
			r->trace = (uint32_t)x;
			r->have |= SP_TRACE;
		} else {
			r->cpu = (uint16_t)x;
			r->have |= SP_CPU;
		}
		return 0;
	}
	for (size_t i = 0; i < sizeof nums / sizeof *nums; i++)
		if (!strcmp(key, nums[i].key))
			return set_number(r, &nums[i], value, why, why_size);
	return fail(why, why_size, "unknown parameter '%.40s'", key);
}

int serve_req_need(const struct serve_req *r, uint32_t need, char *why, size_t why_size)
{
	for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
		if ((need >> i & 1) && !(r->have >> i & 1))
			return fail(why, why_size, "parameter '%s' is missing", names[i]);
	return 0;
}
