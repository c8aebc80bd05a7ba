/* The index against the replay oracle (index-oracle.h) on real Tarmac
 * traces read by the reader: the hand-made ones in tests/data/index, every
 * Tarmac trace of the conformance corpus when $TRAWL_CORPUS is there (the
 * Fast Models and LD/ST-style calculator runs, quicksort, the call tests),
 * and `trawl emulate` traces of the example programs. Zero mismatches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index-oracle.h"

static int check_trace(const char *path, const struct trawl_reader_options *opt)
{
	struct synth s;
	struct stat sb;
	if (stat(path, &sb) != 0)
		return 0;
	assert_int_equal(stream_from_trace(&s, path, opt), TRAWL_OK);
	assert_true(s.nev > 0);
	char out[128];
	snprintf(out, sizeof out, "/tmp/trawl-test-index-trace-%d.trawlidx", (int)getpid());
	/* a tiny checkpoint interval exercises checkpoints and snapshots; the
	 * default one too on small traces */
	static const uint32_t ks[] = { 5, 128 };
	int nk = s.nev < 3000 ? 2 : 1;
	for (int k = 0; k < nk; k++) {
		struct trawl_index *ix = oracle_build(&s, out, ks[k], 0);
		assert_int_equal(trawl_index_event_count(ix), s.nev);
		oracle_check(&s, ix, s.nev < 400 ? (int)s.nev : 400, 99 + (uint64_t)k);
		trawl_index_close(ix);
	}
	unlink(out);
	synth_free(&s);
	return 1;
}

static void hand_made_traces(void **state)
{
	const char *src = getenv("TRAWL_SRC");
	char p[4096];
	if (!src)
		skip();
	snprintf(p, sizeof p, "%s/tests/data/index/mixed.tarmac", src);
	assert_true(check_trace(p, NULL));
	struct trawl_reader_options be = { .big_endian = 1 };
	snprintf(p, sizeof p, "%s/tests/data/index/big-endian.tarmac", src);
	assert_true(check_trace(p, &be));
}

static void corpus_traces(void **state)
{
	const char *corpus = getenv("TRAWL_CORPUS");
	static const char *names[] = {
		"calculator-aarch64-fastmodel.tarmac", "calculator-aarch64-es-ld-st-style.tarmac",
		"quicksort.tarmac", "indextest.tarmac", "calltests/calltest32.tarmac",
		"calltests/calltest64.tarmac",
	};
	int n = 0;
	if (!corpus) {
		print_message("TRAWL_CORPUS not set: corpus traces skipped\n");
		skip();
	}
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char p[4096];
		snprintf(p, sizeof p, "%s/tarmac/%s", corpus, names[i]);
		n += check_trace(p, NULL);
	}
	/* the reference parser's tests are snippets of several producers in
	 * one file, in clk, cyc, tic, cs, ps and ns: one trace keeps one time
	 * unit, so lines in the others are skipped (lenient), as a user's
	 * --lenient run would */
	struct trawl_reader_options mixed = { .lenient = 1 };
	struct trawl_reader_options thumb = { .implicit_thumb = 1, .lenient = 1 };
	char p[4096];
	snprintf(p, sizeof p, "%s/tarmac/parsertest.txt", corpus);
	n += check_trace(p, &mixed);
	snprintf(p, sizeof p, "%s/tarmac/parsertest-implicit-thumb.txt", corpus);
	n += check_trace(p, &thumb);
	if (!n) {
		print_message("no corpus traces under %s: skipped\n", corpus);
		skip();
	}
}

/* Traces of the example programs written by `trawl emulate` (skipped when
 * the examples were not built). */
static void emulator_traces(void **state)
{
	const char *trawl = getenv("TRAWL"), *build = getenv("TRAWL_BUILD");
	/* program, its arguments, trawl's options (threads: short quanta so
	 * that 15000 instructions hold many switches between 3 cores) */
	static const char *progs[][3] = {
		{ "sort", "300", "" }, { "checksum", "", "" }, { "recurse", "", "" },
		{ "simd", "", "" }, { "faults", "", "" }, { "signals", "", "" },
		{ "threads", "2", "--quantum 300" },
	};
	int n = 0;
	if (!trawl || !build)
		skip();
	for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
		char exe[4096], trace[256], cmd[8192];
		snprintf(exe, sizeof exe, "%s/examples/%s", build, progs[i][0]);
		if (access(exe, X_OK) != 0)
			continue;
		snprintf(trace, sizeof trace, "/tmp/trawl-test-index-emu-%d.tarmac", (int)getpid());
		snprintf(cmd, sizeof cmd, "'%s' emulate '%s' -n 15000 %s -o '%s' -- %s >/dev/null 2>&1",
			 trawl, exe, progs[i][2], trace, progs[i][1]);
		if (system(cmd) == -1)
			continue;
		n += check_trace(trace, NULL);
		unlink(trace);
	}
	if (!n) {
		print_message("no example programs under %s/examples: skipped\n", build);
		skip();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hand_made_traces),
		cmocka_unit_test(corpus_traces),
		cmocka_unit_test(emulator_traces),
	};
	return oracle_run_kinds(tests, sizeof tests / sizeof tests[0]);
}
