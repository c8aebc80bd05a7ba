/* The flow loop (lib/tarmac/flow.c) against the line parser.
 *
 * Under partial parsing without memory the reader takes runs of the common
 * Fast Models lines in its own loop. Whatever it takes must give exactly
 * the events the line parser gives line by line, so random traces mixing
 * the shapes it takes with everything it must leave alone (other widths,
 * mode changes, long times and indices, CCFAIL, blanks, carriage returns,
 * wanted registers, LD/ST diagrams, text and bad lines) are read both ways,
 * through chunks and batches of several sizes, and every field of every
 * event is compared. The line parser is itself checked against the general
 * grammar (test-tarmac.c); for well-formed traces this test compares with
 * the general grammar too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/reader.h"
#include "trawl/reg.h"
#include "trawl/tarmac.h"

#include "event-text.h"

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

struct text {
	char *s;
	size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...)
{
	if (t->len + 512 > t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1 << 16;
		t->s = realloc(t->s, t->cap);
		assert_non_null(t->s);
	}
	va_list ap;
	va_start(ap, fmt);
	t->len += (size_t)vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
}

static void hex(struct text *t, unsigned digits, int upper)
{
	for (unsigned i = 0; i < digits; i++)
		put(t, "%c", (upper ? "0123456789ABCDEF" : "0123456789abcdef")[rnd(16)]);
}

/* A random trace: mostly instruction lines of the flow loop's shape and
 * their effect lines, with every neighbouring shape mixed in. `bad` adds
 * malformed lines (for lenient readings). */
static char *random_trace(size_t ninsn, int bad, size_t *len)
{
	static const char *const modes[] = { "EL0t_n", "EL0t_n", "EL0t_n", "EL3h_s", "svc_s",
					     "verylongmodename_xyz", "EL1h" };
	static const char *const texts[] = { "nop", "BL       {pc}+0x40", "RET", "", "  ldr x0, [sp]",
					     "CCFAIL nop", "b.ne {pc}-0xc ; 0x8000" };
	struct text t = { 0, 0, 0 };
	uint64_t time = rnd(50);
	const char *mode = modes[0];
	/* one unit per trace (a change is an error); ns lines are kept in ps,
	 * which the flow loop scales as the line parser does */
	const char *unit = rnd(2) ? "clk" : "ns";
	for (size_t i = 0; i < ninsn; i++) {
		/* the time: mostly one more, sometimes long */
		uint32_t r = rnd(100);
		time += r < 90 ? 1 : r < 95 ? 1000003 : r < 98 ? 1234567890123ull : 0;
		if (time > 9999999999999999ull)
			time = rnd(1000);
		char pre[64];
		snprintf(pre, sizeof pre, "%llu %s ", (unsigned long long)time, unit);
		if (rnd(8) == 0)
			mode = modes[rnd(sizeof modes / sizeof modes[0])];
		/* the instruction line */
		put(&t, "%s%s (", pre, rnd(10) ? "IT" : "IS");
		hex(&t, rnd(20) ? 1 + rnd(7) : 1 + rnd(18), rnd(20) == 0);
		put(&t, ") ");
		r = rnd(40);
		hex(&t, r == 0 ? 16 : r == 1 ? 7 : 8, rnd(30) == 0);
		put(&t, " ");
		hex(&t, rnd(20) ? 8 : 4, rnd(30) == 0);
		r = rnd(60);
		char is = r == 0 ? (bad ? 'Q' : 'A') : r < 5 ? 'T' : r < 8 ? 'A' : 'O';
		put(&t, " %c %s%s%s", is, mode,
		    rnd(30) ? " :" : "  :", rnd(20) ? " " : rnd(2) ? "" : "  ");
		put(&t, "%s%s\n", texts[rnd(sizeof texts / sizeof texts[0])],
		    rnd(40) ? "" : rnd(2) ? "  " : "\r");
		/* its effects */
		for (unsigned k = rnd(4); k; k--) {
			r = rnd(20);
			if (r < 7) {
				put(&t, "%sR X%u ", pre, rnd(32));
				hex(&t, 16, 0);
			} else if (r < 9) {
				put(&t, "%sR %s ", pre, rnd(2) ? "cpsr" : "CPSR");
				hex(&t, 8, 0);
			} else if (r < 10) {
				put(&t, "%sR SP_EL%u ", pre, rnd(4));
				hex(&t, 16, 0);
			} else if (r < 11) {
				/* named by the instruction set of the line before:
				 * r13/r14 are SP/LR after A32 and T32 lines */
				static const char *const names[] = { "W30", "r14", "r13", "sp", "lr" };
				put(&t, "%sR %s ", pre, names[rnd(5)]);
				hex(&t, 8, 0);
			} else if (r < 12) {
				put(&t, "%sR q%u ", pre, rnd(32));
				hex(&t, 32, 0);
			} else if (r < 16) {
				put(&t, "%sMR8 ", pre);
				hex(&t, 16, 0);
				put(&t, " ");
				hex(&t, 16, 0);
			} else if (r < 18) {
				put(&t, "%sMW4 ", pre);
				hex(&t, 8, 0);
				put(&t, ":");
				hex(&t, 12, 0);
				put(&t, " ");
				hex(&t, 8, 0);
			} else if (r < 19) {
				put(&t, "%sR X%u ", pre, rnd(31));
				hex(&t, bad && rnd(2) ? 5 : 16, 0);
			} else {
				put(&t, "%sMR1 ", pre);
				hex(&t, 8, 0);
				put(&t, " ");
				hex(&t, 2, 0);
			}
			put(&t, "\n");
		}
		/* other lines now and then */
		r = rnd(60);
		if (r == 0)
			put(&t, "        ES  (%016llx:--------) O el0t_ns:\n"
				"                    LD %016llx  ........ 44444444 ........ 2222..11    "
				"S:007ff80fe0    nGnRnE OSH\n",
			    (unsigned long long)i, (unsigned long long)i * 16);
		else if (r == 1)
			put(&t, "%llu %s CADI something happened\n", (unsigned long long)time, unit);
		else if (r == 2)
			put(&t, "\n");
		else if (r == 3)
			put(&t, "%llu %s R X1 0000000000000001\n", (unsigned long long)time + 1, unit);
		else if (r == 4 && bad)
			put(&t, "%llu %s IT (1) 0000800g d503201f O EL0t_n : nop\n",
			    (unsigned long long)time, unit);
		else if (r == 5 && bad)
			put(&t, "garbage line\n");
		else if (r == 6)
			put(&t, "%llu %s E 00008000 00000001 CoreEvent_IRQ\n", (unsigned long long)time, unit);
		else if (r == 7)
			put(&t, "%scpu1 R X30 0000000000000001\n", pre);
		else if (r == 8)
			put(&t, "%llu %s cpu1 IT (1) 00008000 d503201f O EL0t_n : nop on another core\n"
				"%llu %s cpu1 R X0 0000000000000001\n",
			    (unsigned long long)time, unit, (unsigned long long)time, unit);
	}
	*len = t.len;
	return t.s;
}

struct reading {
	uint32_t want;
	uint64_t want_regs;
	int lenient;
};

/* The line parser, one line at a time (fast path on or off). */
static char *read_lines(const char *text, size_t len, const struct reading *how, int fast)
{
	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.want = how->want;
	o.want_regs = how->want_regs;
	o.lenient = how->lenient;
	struct trawl_error err;
	struct trawl_reader_stats stats;
	struct event_text out = { 0, 0, 0 };
	if (event_text_by_lines(&out, text, len, &o, fast, &err, &stats) != TRAWL_OK)
		fail_msg("line %llu: %s", (unsigned long long)err.line, err.message);
	event_text_put(&out, "lines %llu events %llu bad %llu\n", (unsigned long long)stats.lines,
		       (unsigned long long)stats.events, (unsigned long long)stats.bad_lines);
	return out.s;
}

/* The reader (which runs the flow loop under partial parsing). */
static char *read_reader(const char *text, size_t len, const struct reading *how, size_t chunk,
			 uint32_t batch)
{
	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.format = TRAWL_FORMAT_TARMAC;
	o.want = how->want;
	o.want_regs = how->want_regs;
	o.lenient = how->lenient;
	o.batch_events = batch;
	o.input.chunk_size = chunk;
	struct trawl_input *in;
	struct trawl_reader *r;
	struct trawl_error err;
	struct trawl_event_batch b;
	assert_int_equal(trawl_input_open_memory(&in, text, len, "mem", &o.input, &err), TRAWL_OK);
	assert_int_equal(trawl_reader_open_input(&r, in, &o, &err), TRAWL_OK);
	struct event_text out = { 0, 0, 0 };
	enum trawl_status st;
	while ((st = trawl_reader_next(r, &b, &err)) == TRAWL_OK) {
		/* (a line that closes the open event and makes one of its own
		 * can put the batch one over the limit, as before the loop) */
		if (!(b.count > 0 && b.count <= batch + 1))
			fail_msg("batch of %zu (limit %u, chunk %zu)", b.count, batch, chunk);
		event_text_batch(&out, &b);
	}
	assert_int_equal(st, TRAWL_END);
	const struct trawl_reader_stats *s = trawl_reader_stats(r);
	event_text_put(&out, "lines %llu events %llu bad %llu\n", (unsigned long long)s->lines,
		       (unsigned long long)s->events, (unsigned long long)s->bad_lines);
	trawl_reader_close(r);
	return out.s;
}

static const uint64_t CALL_REGS = TRAWL_WANT_REG(TRAWL_REG_SP) | TRAWL_WANT_REG(TRAWL_REG_X0 + 14) |
				  TRAWL_WANT_REG(TRAWL_REG_X0 + 30);

static void compare_all(const char *text, size_t len, const struct reading *how, int general)
{
	static const size_t chunks[] = { 0, 64, 333 };
	static const uint32_t batches[] = { 4096, 1, 3 };
	char *ref = read_lines(text, len, how, 1);
	if (general) {
		char *gen = read_lines(text, len, how, 0);
		assert_string_equal(ref, gen);
		free(gen);
	}
	for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
		for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
			char *got = read_reader(text, len, how, chunks[c], batches[b]);
			if (strcmp(ref, got) != 0) {
				/* name the first differing event */
				size_t i = 0;
				while (ref[i] && ref[i] == got[i])
					i++;
				while (i && ref[i - 1] != '\n')
					i--;
				fail_msg("chunk %zu batch %u:\n line parser: %.300s\n reader:      %.300s",
					 chunks[c], batches[b], ref + i, got + i);
			}
			free(got);
		}
	free(ref);
}

/* Well-formed random traces: the reader, the line parser and the general
 * grammar agree, for the call commands' registers, with CPSR too, and
 * with no register at all. */
static void flow_matches_line_parser(void **state)
{
	(void)state;
	static const uint64_t regs[] = { CALL_REGS, CALL_REGS | TRAWL_WANT_REG(TRAWL_REG_PSR), 0 };
	for (uint64_t seed = 1; seed <= 6; seed++) {
		rng_state = 0x9e3779b97f4a7c15ull * seed;
		size_t len;
		char *text = random_trace(1500, 0, &len);
		struct reading how = { TRAWL_WANT_FILTER, regs[seed % 3], 0 };
		compare_all(text, len, &how, 1);
		free(text);
	}
}

/* With bad lines, read leniently: the same lines are skipped and counted
 * either way (a malformed line the flow loop does not take goes to the
 * line parser, which judges it). */
static void flow_matches_with_bad_lines(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		rng_state = 0x2545f4914f6cdd1dull * seed;
		size_t len;
		char *text = random_trace(1500, 1, &len);
		struct reading how = { TRAWL_WANT_FILTER, CALL_REGS, 1 };
		compare_all(text, len, &how, 0);
		free(text);
	}
}

/* Hand-made edges: every line here is one the loop must take or must
 * leave, next to one it takes. */
static void flow_edges(void **state)
{
	(void)state;
	static const char text[] =
		"1 clk IT (1) 00008000 d503201f O EL0t_n : nop with enough text to be long\n"
		"2 clk IT (2) 00008004 D503201F O EL0t_n :   NOP with upper case and spaces\n"
		"2 clk R X30 0000000000008008\n"            /* wanted: the line parser's */
		"2 clk R X29 0000000000008008\n"            /* after it: skipped again */
		"3 clk IT (3) 00008008 d503201f O EL0t_nx : mode longer than the last one\n"
		"4 clk IT (4) 0000800c d503201f O EL0t : mode shorter than the last one....\n"
		"5 clk IT (5) 00008010 d503201f O EL0t  :two spaces before the colon.......\n"
		"6 clk IT (6) 00008014 d503201f O EL0t : CCFAIL nop in the disassembly.....\n"
		"7 clk IS (7) 00008018 d503201f O EL0t : condition failed, long enough line\n"
		"8 clk IT (8) 000000000000801c d503201f O EL0t : a sixteen-digit program counter\n"
		"9 clk IT (9) 00008020 a00a T EL0t : a four-digit encoding, long enough...\n"
		"10 clk IT (1234abcd) 00008024 d503201f O EL0t : an eight-digit index here\n"
		"11 clk IT (1234abcd9) 00008028 d503201f O EL0t : a nine-digit index here..\n"
		"12 clk IT (123456789abcdef) 0000802c d503201f O EL0t : fifteen-digit index\n"
		"13 clk IT (123456789abcdef0) 00008030 d503201f O EL0t : sixteen-digit index\n"
		"14 clk IT (e) 00008034 d503201f O EL0t : trailing blank at the end......  \n"
		"15 clk IT (f) 00008038 d503201f O EL0t : carriage return at the end.....\r\n"
		"12345678 clk IT (10) 0000803c d503201f O EL0t : an eight-digit time here\n"
		"12345678 clk R X3 0000000000000003\n"
		"123456789012 clk IT (11) 00008040 d503201f O EL0t : a twelve-digit time....\n"
		"123456789012 clk R X3 0000000000000003\n"  /* a prefix of 17 bytes */
		"123456789012 clk MR8 00001000 0000000000000001\n"
		"123456789012345 clk IT (12) 00008044 d503201f O EL0t : fifteen-digit time..\n"
		"1234567890123456 clk IT (13) 00008048 d503201f O EL0t : sixteen-digit time.\n";
	/* another trace, in ns: times scaled to ps on every path */
	static const char text_ns[] =
		"1234567890123457 ns IT (14) 0000804c d503201f O EL0t : another time unit...\n"
		"1234567890123457 ns R X3 0000000000000003\n"
		"1234567890123458 ns IT (15) 00008050 d503201f O EL0t : short\n"
		"1234567890123459 ns IT (16) 00008054 d503201f O EL0t : again in ns units....\n"
		"        ES  (0000c7f0:--------) O el0t_ns:\n"
		"                    LD 000000000000c830  ........ 44444444 ........ 2222..11    S:007ff80fe0    nGnRnE OSH\n"
		"1234567890123460 ns IT (17) 00008058 d503201f O EL0t : after an LD diagram..\n"
		"1234567890123460 ns R cpsr 60000000\n"
		"1234567890123460 ns R X5 00\n"              /* short: skipped by prefix */
		"1234567890123461 ns IT (18) 0000805c d503201f O EL0t :\n"
		"1234567890123462 ns IT (19) 00008060 d503201f A EL0t : A32 set, long enough\n"
		"1234567890123463 ns IT (1a) 00008064 d503201f T EL0t : T32 set, long enough\n";
	static const uint64_t regs[] = { CALL_REGS, CALL_REGS | TRAWL_WANT_REG(TRAWL_REG_PSR), 0 };
	for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
		struct reading how = { TRAWL_WANT_FILTER, regs[i], 0 };
		compare_all(text, sizeof text - 1, &how, 1);
		compare_all(text_ns, sizeof text_ns - 1, &how, 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flow_matches_line_parser),
		cmocka_unit_test(flow_matches_with_bad_lines),
		cmocka_unit_test(flow_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
