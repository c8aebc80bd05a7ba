/* Tarmac time units: every unit the specs and producers write, with the
 * times worked out by hand (real time in ps: 1 ns = 1000 ps, 1 us = 10^6,
 * 1 ms = 10^9, 1 s = 10^12; counting units keep their count); one unit per
 * trace; unknown units; times going backwards; timestamps near 2^64. Each
 * case goes through the line grammar and the fast path, and the reader
 * (which runs the flow loop under partial parsing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/input.h"
#include "trawl/reader.h"
#include "trawl/tarmac.h"

#define INSN "IT (1) 00008000 d503201f O EL0t_n : nop, a line long enough for the flow loop"

/* A parser fed text line by line: TRAWL_OK, or the first error's status
 * (the line number in *bad_line). */
static enum trawl_status feed(const char *text, int fast, int lenient, struct trawl_event_batch *b,
			      struct trawl_tarmac **tp, struct trawl_error *err, uint64_t *bad_line)
{
	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.lenient = lenient;
	struct trawl_tarmac *t;
	assert_int_equal(trawl_tarmac_create(&t, "u.tarmac", &o, NULL), TRAWL_OK);
	trawl_tarmac_set_fast_path(t, fast);
	enum trawl_status st = TRAWL_OK;
	uint64_t n = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		n++;
		st = trawl_tarmac_parse_line(t, p, len, (uint64_t)(p - text), err);
		if (st != TRAWL_OK) {
			*bad_line = n;
			break;
		}
		p += len + (nl != NULL);
	}
	trawl_tarmac_finish(t);
	trawl_tarmac_peek(t, b);
	*tp = t;
	return st;
}

/* Both paths: the events' times and units must be these. */
static void times_are(const char *text, size_t n, const uint64_t *time, int unit)
{
	for (int fast = 0; fast < 2; fast++) {
		struct trawl_event_batch b;
		struct trawl_tarmac *t;
		struct trawl_error err;
		uint64_t bad = 0;
		enum trawl_status st = feed(text, fast, 0, &b, &t, &err, &bad);
		if (st != TRAWL_OK)
			fail_msg("line %llu: %s", (unsigned long long)bad, err.message);
		assert_int_equal(b.count, n);
		for (size_t i = 0; i < n; i++) {
			if (b.events[i].time != time[i])
				fail_msg("%s path, event %zu: time %llu, want %llu", fast ? "fast" : "general",
					 i, (unsigned long long)b.events[i].time,
					 (unsigned long long)time[i]);
			assert_int_equal(b.events[i].time_unit, unit);
		}
		trawl_tarmac_destroy(t);
	}
}

/* Both paths: line `line` is refused with a message containing `msg`. */
static void refused(const char *text, uint64_t line, uint32_t col, const char *msg)
{
	for (int fast = 0; fast < 2; fast++) {
		struct trawl_event_batch b;
		struct trawl_tarmac *t;
		struct trawl_error err;
		uint64_t bad = 0;
		enum trawl_status st = feed(text, fast, 0, &b, &t, &err, &bad);
		if (st != TRAWL_ERR_FORMAT)
			fail_msg("%s path: accepted (status %d): %s", fast ? "fast" : "general", st, text);
		assert_int_equal(bad, line);
		if (!strstr(err.message, msg))
			fail_msg("message '%s' lacks '%s'", err.message, msg);
		if (col)
			assert_int_equal(err.column, col);
		trawl_tarmac_destroy(t);
	}
}

static void each_unit(void **state)
{
	(void)state;
	static const struct {
		const char *word;
		uint64_t ps; /* 0: a counting unit, kept as the count */
		int unit;
	} u[] = {
		{ "clk", 0, TRAWL_TIME_CLK }, { "cyc", 0, TRAWL_TIME_CYC }, { "tic", 0, TRAWL_TIME_TIC },
		{ "cs", 0, TRAWL_TIME_CS },   { "ps", 1, TRAWL_TIME_PS },   { "ns", 1000, TRAWL_TIME_PS },
		{ "us", 1000000, TRAWL_TIME_PS }, { "ms", 1000000000, TRAWL_TIME_PS },
		{ "s", 1000000000000ull, TRAWL_TIME_PS },
	};
	for (size_t i = 0; i < sizeof u / sizeof *u; i++) {
		char text[512];
		/* spaced, then the same unit again (the fast path's), then glued */
		snprintf(text, sizeof text, "7 %s " INSN "\n8 %s " INSN "\n9%s " INSN "\n", u[i].word,
			 u[i].word, u[i].word);
		uint64_t m = u[i].ps ? u[i].ps : 1;
		const uint64_t want[3] = { 7 * m, 8 * m, 9 * m };
		times_are(text, 3, want, u[i].unit);
	}
	/* fractions: 1.5 ms = 1 500 000 000 ps; 0.000001 s = 1 us; 2.25 ns */
	static const uint64_t frac[3] = { 1500000000ull, 1000000ull, 2250ull };
	times_are("1.5ms " INSN "\n0.000001s " INSN "\n2.25 ns " INSN "\n", 3, frac, TRAWL_TIME_PS);
	/* no unit: the count as written */
	static const uint64_t bare[2] = { 5, 6 };
	times_are("5 " INSN "\n6 " INSN "\n", 2, bare, TRAWL_TIME_NONE);
}

/* Real-time units are one unit: ns and us lines compare in ps. */
static void real_time_units_agree(void **state)
{
	(void)state;
	static const uint64_t want[4] = { 10000, 2000000, 2000001, 3000000000000ull };
	times_are("10 ns " INSN "\n2 us " INSN "\n2000001 ps " INSN "\n3 s " INSN "\n", 4, want,
		  TRAWL_TIME_PS);
}

static void unknown_units(void **state)
{
	(void)state;
	/* a word between the time and an instruction: a unit trawl does not
	 * know, never the record type (the instruction would become text) */
	refused("12 fs " INSN "\n", 1, 4, "unknown time unit 'fs'");
	refused("12fs " INSN "\n", 1, 3, "unknown time unit 'fs'");
	refused("1 clk " INSN "\n12 sec R X0 0000000000000001\n", 2, 4, "unknown time unit 'sec'");
	refused("1 clk " INSN "\n12 min MR4 00001000 00000000\n", 2, 4, "unknown time unit 'min'");
	/* ... while a word before no record type is one (text) */
	struct trawl_event_batch b;
	struct trawl_tarmac *t;
	struct trawl_error err;
	uint64_t bad = 0;
	assert_int_equal(feed("3 CADI simulation stopped\n", 1, 0, &b, &t, &err, &bad), TRAWL_OK);
	assert_int_equal(b.count, 1);
	assert_int_equal(b.events[0].kind, TRAWL_EV_TEXT);
	trawl_tarmac_destroy(t);
	/* a record type right after a bare time is the record type, even
	 * when the next word looks like one (R MSP, R W04...) */
	assert_int_equal(feed("12 R MSP 20001000\n13 R R08 00000001\n", 1, 0, &b, &t, &err, &bad),
			 TRAWL_OK);
	assert_int_equal(b.count, 2);
	assert_int_equal(b.events[0].nregs, 1);
	trawl_tarmac_destroy(t);
	/* ... and so is a cpu field ("5 cpu1 IT ...": a bare time on core 1) */
	assert_int_equal(feed("5 cpu1 " INSN "\n", 1, 0, &b, &t, &err, &bad), TRAWL_OK);
	assert_int_equal(b.count, 1);
	assert_int_equal(b.events[0].cpu, 1);
	assert_int_equal(b.events[0].time, 5);
	assert_int_equal(b.events[0].time_unit, TRAWL_TIME_NONE);
	trawl_tarmac_destroy(t);
}

/* One trace, one unit: cycles and times, or two clocks, never compared. */
static void mixed_units(void **state)
{
	(void)state;
	refused("10 clk " INSN "\n20 ns " INSN "\n", 2, 4,
		"time unit changes from 'clk' (line 1) to 'ns': cycles and real time cannot be compared");
	refused("10 ns " INSN "\n20 clk " INSN "\n", 2, 4, "from 'ns' (line 1) to 'clk'");
	refused("10 clk " INSN "\nR X0 0000000000000001\n20 cyc " INSN "\n", 3, 4,
		"from 'clk' (line 1) to 'cyc': counts of different clocks cannot be compared");
	refused("10 tic " INSN "\n11 cs " INSN "\n", 2, 4, "from 'tic' (line 1) to 'cs'");
	refused("10 " INSN "\n20 clk " INSN "\n", 2, 4, "from none (line 1) to 'clk'");
	refused("10 clk " INSN "\n20 " INSN "\n", 2, 1, "from 'clk' (line 1) to none");
	refused("1.5us " INSN "\n20 cyc " INSN "\n", 2, 4, "from 'us' (line 1) to 'cyc'");

	/* lenient: the other unit's lines are skipped and counted; the
	 * trace's own still read (the fast path included) */
	for (int fast = 0; fast < 2; fast++) {
		struct trawl_event_batch b;
		struct trawl_tarmac *t;
		struct trawl_error err;
		uint64_t bad = 0;
		assert_int_equal(feed("10 clk " INSN "\n20 ns " INSN "\n21 ns " INSN "\n30 clk " INSN "\n",
				      fast, 1, &b, &t, &err, &bad),
				 TRAWL_OK);
		assert_int_equal(b.count, 2);
		assert_int_equal(b.events[0].time, 10);
		assert_int_equal(b.events[1].time, 30);
		assert_int_equal(b.events[1].time_unit, TRAWL_TIME_CLK);
		assert_int_equal(trawl_tarmac_stats(t)->bad_lines, 2);
		trawl_tarmac_destroy(t);
	}
}

/* Times going backwards are what the trace says (a cycle model's lines
 * are out of order by a few cycles): kept, in order of the lines. */
static void time_backwards(void **state)
{
	(void)state;
	static const uint64_t want[3] = { 6000022, 6000017, 6000021 };
	times_are("6000022 cs " INSN "\n6000017 cs " INSN "\n6000021 cs " INSN "\n", 3, want,
		  TRAWL_TIME_CS);
	static const uint64_t ns[2] = { 2000000, 15000 };
	times_are("2 us " INSN "\n15 ns " INSN "\n", 2, ns, TRAWL_TIME_PS);
}

/* 2^64 - 1 = 18446744073709551615: the largest time; a unit that scales
 * past it is an error, never a wrapped time. */
static void huge_times(void **state)
{
	(void)state;
	static const uint64_t max[2] = { 18446744073709551615ull, 18446744073709551614ull };
	times_are("18446744073709551615 clk " INSN "\n18446744073709551614 clk " INSN "\n", 2, max,
		  TRAWL_TIME_CLK);
	refused("18446744073709551616 clk " INSN "\n", 1, 1, "timestamp too large");
	refused("99999999999999999999999 clk " INSN "\n", 1, 1, "timestamp too large");
	/* 18446744073709551 ns = 18446744073709551000 ps fits; ...552 does not */
	static const uint64_t ns[1] = { 18446744073709551000ull };
	times_are("18446744073709551 ns " INSN "\n", 1, ns, TRAWL_TIME_PS);
	/* second lines: the fast path has the unit by then */
	refused("1 ns " INSN "\n18446744073709552 ns " INSN "\n", 2, 1, "more than 2^64-1");
	refused("1 us " INSN "\n18446744073710 us " INSN "\n", 2, 1, "more than 2^64-1");
	refused("1 s " INSN "\n18446745 s " INSN "\n", 2, 1, "more than 2^64-1");
	/* 18446744073.709551 ms = 18446744073709551000 ps; ...552 is over */
	refused("1 ms " INSN "\n18446744073.709552ms " INSN "\n", 2, 1, "more than 2^64-1");
	static const uint64_t ms[1] = { 18446744073709551000ull };
	times_are("18446744073.709551ms " INSN "\n", 1, ms, TRAWL_TIME_PS);
	static const uint64_t s[1] = { 18446744000000000000ull };
	times_are("18446744 s " INSN "\n", 1, s, TRAWL_TIME_PS);
}

/* The reader under partial parsing runs the flow loop over instruction
 * lines: the same ps times, and the same refusal of one too large. */
static void reader_flow(void **state)
{
	(void)state;
	static const char text[] = "1 us " INSN "\n2 us " INSN "\n3 us " INSN "\n4 us " INSN "\n"
				   "999999999999 us " INSN "\n18446744073710 us " INSN "\n";
	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.format = TRAWL_FORMAT_TARMAC;
	o.want = TRAWL_WANT_FILTER;
	struct trawl_input *in;
	struct trawl_reader *r;
	struct trawl_error err;
	struct trawl_event_batch b;
	assert_int_equal(trawl_input_open_memory(&in, text, sizeof text - 1, "mem", &o.input, &err),
			 TRAWL_OK);
	assert_int_equal(trawl_reader_open_input(&r, in, &o, &err), TRAWL_OK);
	static const uint64_t want[5] = { 1000000, 2000000, 3000000, 4000000, 999999999999000000ull };
	size_t n = 0;
	enum trawl_status st;
	while ((st = trawl_reader_next(r, &b, &err)) == TRAWL_OK)
		for (size_t i = 0; i < b.count; i++, n++) {
			assert_true(n < 5);
			assert_int_equal(b.events[i].time, want[n]);
			assert_int_equal(b.events[i].time_unit, TRAWL_TIME_PS);
		}
	assert_int_equal(st, TRAWL_ERR_FORMAT);
	assert_int_equal(err.line, 6);
	assert_non_null(strstr(err.message, "more than 2^64-1"));
	trawl_reader_close(r);
}

/* Not a unit, but the same two paths: text after a register or memory
 * value is refused where it starts (a lost newline: two records on one
 * line), on both paths; an annotation producers write is not. */
static void text_after_values(void **state)
{
	(void)state;
	/* "1 clk R X0 " 11 characters, 16 digits, a blank: column 29 */
	refused("1 clk " INSN "\n1 clk R X0 0000000000000001 1 clk R X1 0000000000000002\n", 2, 29,
		"unexpected text after the register value");
	/* "1 clk MW4 00001000 " 19, 8 digits, a blank: column 29 */
	refused("1 clk " INSN "\n1 clk MW4 00001000 12345678 99\n", 2, 29,
		"unexpected text after the memory value");
	refused("1 clk R X0 00000000 00000001 ffffffff\n", 1, 30, "unexpected text after the register value");
	static const uint64_t one[1] = { 1 };
	times_are("1 clk " INSN "\n1 clk R cpsr 20000000 __C_\n1 clk R cpsr 00000001 00000002\n"
		  "1 clk R r13 20001fff (MSP)\n",
		  1, one, TRAWL_TIME_CLK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_unit),        cmocka_unit_test(real_time_units_agree),
		cmocka_unit_test(unknown_units),    cmocka_unit_test(mixed_units),
		cmocka_unit_test(time_backwards),   cmocka_unit_test(huge_times),
		cmocka_unit_test(reader_flow),      cmocka_unit_test(text_after_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
