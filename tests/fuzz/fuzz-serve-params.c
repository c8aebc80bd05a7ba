/* Fuzz harness for trawl serve's request parameters
 * (tools/trawl/serve/params.c): the input is a query string, split at '&'
 * and '=' as libmicrohttpd splits it (values may hold any byte, NULs
 * included). No crash, and what is accepted holds together: every number
 * is inside its documented range, strings are NUL-terminated within their
 * buffers, and a refusal always says why. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/trawl/serve/params.c"

static void check(const struct serve_req *r)
{
	if (r->have & SP_COUNT)
		assert(r->count >= 1 && r->count <= SERVE_COUNT_MAX);
	if (r->have & SP_COLS)
		assert(r->cols >= 1 && r->cols <= SERVE_COLS_MAX);
	if (r->have & SP_MAX)
		assert(r->max >= 1 && r->max <= SERVE_ITEMS_MAX);
	if (r->have & SP_LEN)
		assert(r->len >= 1 && r->len <= SERVE_MEM_MAX);
	if (r->have & SP_LINE)
		assert(r->line >= 1);
	if (r->have & SP_TRACE)
		assert(r->trace <= 4095);
	if (r->have & SP_OP)
		assert(r->op >= SERVE_OP_OVER && r->op <= SERVE_OP_OUT);
	assert(r->dir == 1 || r->dir == -1);
	assert(memchr(r->reg, 0, sizeof r->reg) && memchr(r->text, 0, sizeof r->text));
	for (int i = 0; i < SF_N; i++) {
		assert(memchr(r->filter[i], 0, sizeof r->filter[i]));
		assert((r->filter_have >> i & 1) || !r->filter[i][0]);
	}
	assert(!r->filter_have == !(r->have & SP_FILTER));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	struct serve_req r;
	serve_req_init(&r);
	char why[160];
	size_t i = 0;
	while (i <= size) {
		size_t end = i;
		while (end < size && buf[end] != '&')
			end++;
		buf[end] = 0;
		char *key = buf + i, *eq = memchr(key, '=', end - i);
		const char *value = NULL;
		size_t vlen = 0;
		if (eq) {
			*eq = 0;
			value = eq + 1;
			vlen = (size_t)(buf + end - value);
		}
		why[0] = 0;
		if (serve_req_set(&r, key, value, vlen, why, sizeof why))
			assert(why[0]);
		check(&r);
		i = end + 1;
	}
	why[0] = 0;
	if (serve_req_need(&r, SP_TRACE | SP_LINE | SP_Q, why, sizeof why))
		assert(why[0]);
	free(buf);
	return 0;
}
