/* Hopping over calls through the PC index, against two truths: the calls
 * of the hand-made calls.tarmac worked out by hand, and a plain scan of
 * every event (first later event on the CPU at the caller's depth) over a
 * trace of a real recursive program written by trawl emulate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trawl/callhop.h"
#include "trawl/index.h"

static struct trawl_index *open_trace(const char *trace, char *idx, size_t size)
{
	struct trawl_index *ix = NULL;
	struct trawl_error err;
	static int n;
	snprintf(idx, size, "/tmp/trawl-test-callhop-%d-%d.trawlidx", (int)getpid(), n++);
	if (trawl_index_build(trace, idx, NULL, &err) || trawl_index_open(&ix, idx, NULL, &err))
		fail_msg("%s: %s", trace, err.message);
	return ix;
}

static void hand_made(void **state)
{
	const char *src = getenv("TRAWL_SRC");
	char trace[4096], idx[128];
	snprintf(trace, sizeof trace, "%s/tests/data/browse/calls.tarmac", src ? src : ".");
	struct trawl_index *ix = open_trace(trace, idx, sizeof idx);
	assert_int_equal(trawl_index_event_count(ix), 21);
	/* calls.S: BL func at events 1 and 11, BL inner at 5 and 15; each
	 * returns to the instruction after it */
	static const uint64_t call[] = { 1, 5, 11, 15 }, ret[] = { 10, 8, 20, 18 };
	for (int i = 0; i < 4; i++) {
		uint64_t r = 0, c = 0;
		assert_int_equal(trawl_callhop_return(ix, call[i], &r, NULL), TRAWL_OK);
		assert_int_equal(r, ret[i]);
		assert_int_equal(trawl_callhop_call(ix, ret[i], &c, NULL), TRAWL_OK);
		assert_int_equal(c, call[i]);
	}
	/* no call, not a return point, past the end */
	uint64_t x;
	struct trawl_error err;
	assert_int_equal(trawl_callhop_return(ix, 0, &x, &err), TRAWL_ERR_NOT_FOUND);
	assert_int_equal(trawl_callhop_return(ix, 2, &x, NULL), TRAWL_ERR_NOT_FOUND);
	assert_int_equal(trawl_callhop_call(ix, 9, &x, NULL), TRAWL_ERR_NOT_FOUND);
	assert_int_equal(trawl_callhop_call(ix, 0, &x, NULL), TRAWL_ERR_NOT_FOUND);
	assert_int_equal(trawl_callhop_return(ix, 1000, &x, NULL), TRAWL_ERR_NOT_FOUND);
	assert_int_equal(trawl_callhop_call(ix, UINT64_MAX, &x, NULL), TRAWL_ERR_NOT_FOUND);
	trawl_index_close(ix);
	unlink(idx);
}

/* Every hop equals the scan; nearly every call is hopped (a call may
 * legitimately fail the shortcut, e.g. one that never returns). */
static void against_scan(void **state)
{
	const char *trawl = getenv("TRAWL"), *build = getenv("TRAWL_BUILD");
	char prog[4096], trace[128], cmd[8192], idx[128];
	if (!trawl || !build) {
		printf("SKIP: TRAWL/TRAWL_BUILD not set\n");
		skip();
	}
	snprintf(prog, sizeof prog, "%s/examples/recurse", build);
	if (access(prog, X_OK)) {
		printf("SKIP: %s not built (needs aarch64-linux-gnu-gcc)\n", prog);
		skip();
	}
	snprintf(trace, sizeof trace, "/tmp/trawl-test-callhop-%d.tarmac", (int)getpid());
	snprintf(cmd, sizeof cmd, "'%s' emulate '%s' -o '%s' -- 4 >/dev/null 2>&1", trawl, prog,
		 trace);
	assert_int_equal(system(cmd), 0);
	struct trawl_index *ix = open_trace(trace, idx, sizeof idx);
	uint64_t n = trawl_index_event_count(ix), calls = 0, hopped = 0, backs = 0;
	struct trawl_index_event *ev = malloc(n * sizeof *ev);
	assert_non_null(ev);
	for (uint64_t i = 0; i < n; i++)
		assert_int_equal(trawl_index_event(ix, i, &ev[i], NULL), TRAWL_OK);
	int32_t maxdepth = 0;
	for (uint64_t i = 0; i + 1 < n; i++) {
		if (ev[i].depth > maxdepth)
			maxdepth = ev[i].depth;
		if (ev[i].kind != TRAWL_EV_INSN || ev[i + 1].depth <= ev[i].depth)
			continue;
		calls++;
		uint64_t want = UINT64_MAX, got;
		for (uint64_t j = i + 1; j < n; j++)
			if (ev[j].depth <= ev[i].depth) {
				want = j;
				break;
			}
		if (trawl_callhop_return(ix, i, &got, NULL) == TRAWL_OK) {
			if (got != want)
				fail_msg("call at event %llu: hop says %llu, scan says %llu",
					 (unsigned long long)i, (unsigned long long)got,
					 (unsigned long long)want);
			hopped++;
			uint64_t back;
			assert_int_equal(trawl_callhop_call(ix, got, &back, NULL), TRAWL_OK);
			assert_int_equal(back, i);
			backs++;
		}
	}
	printf("%llu calls, %llu hopped, %llu back, depth up to %d\n", (unsigned long long)calls,
	       (unsigned long long)hopped, (unsigned long long)backs, (int)maxdepth);
	assert_true(calls > 100);
	assert_true(maxdepth >= 5);     /* the recursion is really there */
	assert_true(hopped * 100 >= calls * 95);
	free(ev);
	trawl_index_close(ix);
	unlink(idx);
	unlink(trace);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hand_made),
		cmocka_unit_test(against_scan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
