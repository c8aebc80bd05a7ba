/* Expressions: the address evaluator and the condition compiler (--where)
 * on the same bytes, each compiled condition run on a few value sets, and
 * the --time duration parser. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/expr.h"
#include "trawl/sw-filter.h"

static enum trawl_expr_name lookup(void *ctx, const char *name, size_t len, uint64_t *v)
{
	(void)ctx;
	if (len == 2 && !memcmp(name, "x0", 2)) {
		*v = 0x1000;
		return TRAWL_EXPR_NAME_OK;
	}
	return len == 2 && !memcmp(name, "x1", 2) ? TRAWL_EXPR_NAME_NO_VALUE : TRAWL_EXPR_NAME_UNKNOWN_NAME;
}

static int resolve(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	static const char *const names[] = { "len", "port", "cpu", "gone" };
	for (int i = 0; i < 4; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], name, len))
			return i;
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	uint64_t v;
	struct trawl_error err;
	trawl_expr_eval(s, lookup, NULL, &v, &err);
	struct trawl_expr *e;
	if (trawl_expr_compile(s, resolve, NULL, &e, &err) == TRAWL_OK) {
		static const int64_t sets[][3] = { { 0, 0, 0 }, { 100, 80, 1 }, { -1, INT64_MIN, INT64_MAX } };
		static const int16_t map[] = { 0, 1, -2, -1 }; /* cpu from b, gone unknown */
		static const uint8_t usym[] = { 1, 0, 0, 0 }; /* len a u64 */
		/* the same condition inside !!(...) runs on the stack machine,
		 * never as a chain: both ways must give the same answer */
		size_t wl = size + 8;
		char *w = malloc(wl);
		struct trawl_expr *we = NULL;
		if (w) {
			snprintf(w, wl, "!!(%s)", s);
			if (trawl_expr_compile(w, resolve, NULL, &we, &err) != TRAWL_OK)
				we = NULL;
		}
		for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
			for (int u = 0; u < 2; u++) {
				int64_t out = 0, wout = 0;
				int r = trawl_expr_run(e, map, sets[i], sets[i] + 2, u ? usym : NULL, &out);
				if (we) {
					int wr = trawl_expr_run(we, map, sets[i], sets[i] + 2, u ? usym : NULL, &wout);
					if (wr != r || (!r && (out != 0) != (wout != 0)))
						__builtin_trap();
				}
			}
		trawl_expr_free(we);
		free(w);
		trawl_expr_free(e);
	}
	uint64_t ns;
	trawl_swfilter_parse_duration(s, size, &ns);
	free(s);
	return 0;
}
