/* Stuck-loop detection (lib/analysis/stuck.c) on hand-made Tarmac traces
 * read by the real reader. Every expected line number below is worked out
 * by hand from the trace text next to it; byte offsets are checked against
 * the start of that line, found by counting newlines in the text.
 *
 * Each trace is fed one event at a time (and again in batches), so the
 * tests also pin down *when* a loop becomes certain and that the offset a
 * tool may write up to never goes back and never passes the cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/reader.h"
#include "trawl/stuck.h"

struct outcome {
	struct trawl_stuck_result r;
	uint64_t certain_line;  /* first line of the event that made it certain */
	uint64_t events_fed;
};

/* Byte offset of the start of line `line` (1-based) in text. */
static uint64_t line_start(const char *text, uint64_t line)
{
	uint64_t off = 0;
	for (uint64_t l = 1; l < line; l++) {
		const char *nl = strchr(text + off, '\n');
		assert_non_null(nl);
		off = (uint64_t)(nl - text) + 1;
	}
	return off;
}

/* Read `text`, feeding the detector `step` events at a time (0 = whole
 * batches of `batch` events), checking the safe offset on the way. */
static void detect_with(const char *text, unsigned maxp, unsigned repeats, uint32_t batch,
			size_t step, struct outcome *o)
{
	struct trawl_input *in = NULL;
	struct trawl_reader *rd = NULL;
	struct trawl_stuck *s = NULL;
	struct trawl_reader_options opt = { .format = TRAWL_FORMAT_TARMAC, .batch_events = batch };
	memset(o, 0, sizeof *o);
	assert_int_equal(trawl_input_open_memory(&in, text, strlen(text), "t", NULL, NULL), TRAWL_OK);
	assert_int_equal(trawl_reader_open_input(&rd, in, &opt, NULL), TRAWL_OK);
	assert_int_equal(trawl_stuck_create(&s, maxp, repeats, NULL), TRAWL_OK);
	uint64_t safe = 0, end = 0;
	int done = 0;
	struct trawl_event_batch b;
	while (!done && trawl_reader_next(rd, &b, NULL) == TRAWL_OK) {
		for (size_t i = 0; i < b.count && !done; i += step ? step : b.count) {
			struct trawl_event_batch part = b;
			part.events = b.events + i;
			part.count = step && step < b.count - i ? step : b.count - i;
			done = trawl_stuck_add(s, &part);
			o->events_fed += part.count;
			const struct trawl_event *last = &part.events[part.count - 1];
			if (done && step == 1)
				o->certain_line = last->line;
			end = last->offset + last->length;
			uint64_t now = trawl_stuck_safe_offset(s);
			assert_true(now >= safe); /* never takes back what was written */
			assert_true(now <= end);
			safe = now;
		}
	}
	trawl_stuck_result(s, &o->r);
	if (o->r.stuck) {
		assert_int_equal(trawl_stuck_safe_offset(s), o->r.cut_offset);
		assert_int_equal(o->r.cut_offset, line_start(text, o->r.cut_line + 1));
	}
	trawl_stuck_destroy(s);
	trawl_reader_close(rd);
}

/* One event at a time, then whole batches of 3 and of the default size:
 * the answer must not depend on how events are handed in. */
static void detect(const char *text, unsigned maxp, unsigned repeats, struct outcome *o)
{
	struct outcome o2, o3;
	detect_with(text, maxp, repeats, 0, 1, o);
	detect_with(text, maxp, repeats, 3, 0, &o2);
	detect_with(text, maxp, repeats, 0, 0, &o3);
	assert_memory_equal(&o->r, &o2.r, sizeof o->r);
	assert_memory_equal(&o->r, &o3.r, sizeof o->r);
}

/* Repeat `turn` n times after `head`, then append `tail`. `turn` is a
 * printf format whose %1$d (any number of times) is the turn's time. */
static char *build(const char *head, const char *turn, int n, const char *tail)
{
	size_t cap = strlen(head) + (size_t)n * (strlen(turn) + 64) + strlen(tail) + 1;
	char *t = malloc(cap);
	assert_non_null(t);
	size_t len = (size_t)snprintf(t, cap, "%s", head);
	for (int i = 0; i < n; i++) {
		len += (size_t)snprintf(t + len, cap - len, turn, 10 + i);
	}
	snprintf(t + len, cap - len, "%s", tail);
	return t;
}

/* ---- b . ------------------------------------------------------------------
 * lines 1-2  MOV x0,#1 ; R X0
 * line  3..  B {pc}, one line per turn
 * Certain at the 4th B (line 6): turns at lines 3,4,5,6. Kept: lines 1-3. */
static const char self_head[] =
	"1 clk IT (1) 00001000 d2800020 O EL1h_ns : MOV      x0,#1\n"
	"1 clk R X0 0000000000000001\n";
static const char self_turn[] =
	"%1$d clk IT (%1$d) 00001004 14000000 O EL1h_ns : B        {pc} ; 0x1004\n";

static void branch_to_self(void **state)
{
	(void)state;
	char *t = build(self_head, self_turn, 9, "20 clk E simulation_stopped\n");
	struct outcome o;
	detect(t, 0, 0, &o);
	assert_true(o.r.stuck);
	assert_int_equal(o.r.period, 1);
	assert_int_equal(o.r.insns, 1);
	assert_int_equal(o.r.exceptions, 0);
	assert_int_equal(o.r.repeats, 4);
	assert_int_equal(o.r.loop_line, 3);
	assert_int_equal(o.r.cut_line, 3);
	assert_int_equal(o.certain_line, 6);
	/* it stopped there: events after line 6 were never needed */
	assert_int_equal(o.events_fed, 5);
	/* --repeats 9: certain at the 9th turn (line 11), same cut */
	detect(t, 0, 9, &o);
	assert_true(o.r.stuck);
	assert_int_equal(o.r.repeats, 9);
	assert_int_equal(o.certain_line, 11);
	assert_int_equal(o.r.cut_line, 3);
	/* --repeats 10: nine turns are not enough */
	detect(t, 0, 10, &o);
	assert_false(o.r.stuck);
	free(t);
}

/* While a run is open the safe offset stays at its second turn; with none
 * open it is the end of what was read. */
static void safe_offset_trails_the_run(void **state)
{
	(void)state;
	char *t = build(self_head, self_turn, 3, "");
	struct trawl_input *in = NULL;
	struct trawl_reader *rd = NULL;
	struct trawl_stuck *s = NULL;
	struct trawl_reader_options opt = { .format = TRAWL_FORMAT_TARMAC };
	uint64_t safe_after[8] = { 0 }; /* by the line of the event just fed */
	assert_int_equal(trawl_input_open_memory(&in, t, strlen(t), "t", NULL, NULL), TRAWL_OK);
	assert_int_equal(trawl_reader_open_input(&rd, in, &opt, NULL), TRAWL_OK);
	assert_int_equal(trawl_stuck_create(&s, 0, 0, NULL), TRAWL_OK);
	struct trawl_event_batch b;
	while (trawl_reader_next(rd, &b, NULL) == TRAWL_OK) {
		for (size_t i = 0; i < b.count; i++) {
			struct trawl_event_batch part = b;
			part.events = b.events + i;
			part.count = 1;
			assert_int_equal(trawl_stuck_add(s, &part), 0);
			assert_true(part.events[0].line < 8);
			safe_after[part.events[0].line] = trawl_stuck_safe_offset(s);
		}
	}
	/* no run open after the MOV and the first B: up to their end (the
	 * event's bytes; its newline goes out with the next event) */
	assert_true(safe_after[1] + 1 >= line_start(t, 3) && safe_after[1] <= line_start(t, 3));
	assert_true(safe_after[3] + 1 >= line_start(t, 4) && safe_after[3] <= line_start(t, 4));
	assert_int_equal(safe_after[4], line_start(t, 4)); /* the run starts at line 4 */
	assert_int_equal(safe_after[5], line_start(t, 4));
	trawl_stuck_destroy(s);
	trawl_reader_close(rd);
	free(t);
}

/* ---- two instructions: a poll that never sees its flag ---------------------
 * lines 1-2  MOV x0,#0x3000
 * turn (4 lines): LDR w1,[x0] ; MR4 ; R X1 ; CBZ w1 back
 * turns at lines 3, 7, 11, 15: certain when the 4th turn's CBZ (line 18)
 * completes it; kept: lines 1-6. */
static const char poll_head[] =
	"1 clk IT (1) 00002000 d2860000 O EL1h_ns : MOV      x0,#0x3000\n"
	"1 clk R X0 0000000000003000\n";
static const char poll_turn[] =
	"%1$d clk IT (%1$d) 00002004 b9400001 O EL1h_ns : LDR      w1,[x0]\n"
	"%1$d clk MR4 00003000 00000000\n"
	"%1$d clk R X1 0000000000000000\n"
	"%1$d clk IT (%1$d) 00002008 34ffffe1 O EL1h_ns : CBZ      w1,{pc}-4 ; 0x2004\n";

static void two_instruction_loop(void **state)
{
	(void)state;
	char *t = build(poll_head, poll_turn, 6, "");
	struct outcome o;
	detect(t, 0, 0, &o);
	assert_true(o.r.stuck);
	assert_int_equal(o.r.period, 2);
	assert_int_equal(o.r.insns, 2);
	assert_int_equal(o.r.loop_line, 3);
	assert_int_equal(o.r.cut_line, 6);
	assert_int_equal(o.certain_line, 18);
	free(t);
}

/* ---- loops that make progress are not stuck -------------------------------
 * the same PCs every turn, but a register (a counter) or a value read from
 * memory (a device register) differs each turn. */
static const char count_turn[] =
	"%1$d clk IT (%1$d) 00003000 f1000400 O EL1h_ns : SUBS     x0,x0,#1\n"
	"%1$d clk R X0 00000000000000%2$02x\n"
	"%1$d clk IT (%1$d) 00003004 54ffffe1 O EL1h_ns : B.NE     {pc}-4 ; 0x3000\n";

static void progress_is_not_stuck(void **state)
{
	(void)state;
	char buf[4096];
	size_t len = 0;
	for (int i = 0; i < 12; i++) /* X0 = 0x40 - i each turn */
		len += (size_t)snprintf(buf + len, sizeof buf - len, count_turn, 10 + i, 0x40 - i);
	struct outcome o;
	detect(buf, 0, 0, &o);
	assert_false(o.r.stuck);
	assert_int_equal(o.events_fed, 24);
	/* the poll loop again, but the device register counts up */
	len = snprintf(buf, sizeof buf, "%s", poll_head);
	for (int i = 0; i < 8; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len,
					"%1$d clk IT (%1$d) 00002004 b9400001 O EL1h_ns : LDR      w1,[x0]\n"
					"%1$d clk MR4 00003000 0000000%2$d\n"
					"%1$d clk R X1 0000000000000000\n"
					"%1$d clk IT (%1$d) 00002008 34ffffe1 O EL1h_ns : CBZ      w1,{pc}-4 ; 0x2004\n",
					10 + i, i);
	detect(buf, 0, 0, &o);
	assert_false(o.r.stuck);
}

/* ---- crash loop through an exception vector (Fast Models, A64) -------------
 * The stack pointer is bad; the first push faults and the vector's own push
 * (at VBAR_EL1 + 0x200) faults again, forever.
 * lines 1-4    MOV x0 ; MOV sp
 * lines 5-12   STP at 0x80008 (aborted write), E CURRENT_SPx_SYNC, 5 R lines
 * lines 13-20  the same at 0x81200: the first turn; 21-28 the second ...
 * Kept: lines 1-20, the first turn *with* its exception and register
 * lines (cutting after line 14 would lose what explains the crash). */
static const char crash_head[] =
	"1 clk cpu0 IT (1) 00080000 d2a00020 O EL1h_s : MOV      x0,#0x10000\n"
	"1 clk cpu0 R X0 0000000000010000\n"
	"2 clk cpu0 IT (2) 00080004 9100001f O EL1h_s : MOV      sp,x0\n"
	"2 clk cpu0 R SP_EL1 0000000000010000\n"
	"3 clk cpu0 IT (3) 00080008 a9bf7bfd O EL1h_s : STP      x29,x30,[sp,#-0x10]!\n"
	"3 clk cpu0 MW8 0000fff0 (ABORTED)\n"
	"3 clk cpu0 E 00080008 00000004 CoreEvent_CURRENT_SPx_SYNC\n"
	"3 clk cpu0 R ESR_EL1 96000045\n"
	"3 clk cpu0 R FAR_EL1 000000000000fff0\n"
	"3 clk cpu0 R ELR_EL1 0000000000080008\n"
	"3 clk cpu0 R SPSR_EL1 00000000000003c5\n"
	"3 clk cpu0 R cpsr 000003c5\n";
static const char crash_turn[] =
	"%1$d clk cpu0 IT (%1$d) 00081200 a9bf7bfd O EL1h_s : STP      x29,x30,[sp,#-0x10]!\n"
	"%1$d clk cpu0 MW8 0000fff0 (ABORTED)\n"
	"%1$d clk cpu0 E 00081200 00000004 CoreEvent_CURRENT_SPx_SYNC\n"
	"%1$d clk cpu0 R ESR_EL1 96000045\n"
	"%1$d clk cpu0 R FAR_EL1 000000000000fff0\n"
	"%1$d clk cpu0 R ELR_EL1 0000000000081200\n"
	"%1$d clk cpu0 R SPSR_EL1 00000000000003c5\n"
	"%1$d clk cpu0 R cpsr 000003c5\n";

static void crash_loop_keeps_the_exception(void **state)
{
	(void)state;
	char *t = build(crash_head, crash_turn, 6, "");
	struct outcome o;
	detect(t, 0, 0, &o);
	assert_true(o.r.stuck);
	assert_int_equal(o.r.period, 3); /* STP, exception, its register lines */
	assert_int_equal(o.r.insns, 1);
	assert_int_equal(o.r.exceptions, 1);
	assert_int_equal(o.r.loop_line, 13);
	assert_int_equal(o.r.cut_line, 20);
	free(t);
}

/* ---- SVC loop whose trace starts as the exception is taken (AArch32) -------
 * lines 1-4    E CoreEvent_SWI ; R r14_svc ; R spsr_svc ; R cpsr
 * lines 5-6    MOVS pc,lr ; R cpsr       (back to user mode)
 * line  7      B back to the SVC
 * line  8      SVC #0
 * lines 9-12   E CoreEvent_SWI and its registers, again
 * The steps repeat from line 9 (an exception equal to line 1's), but the
 * kept turn must not end at the SVC of line 8 without its exception: the
 * cut moves to the next instruction (line 13). Kept: lines 1-12. */
static const char swi_turn[] =
	"%1$d clk E 00000008 00000002 CoreEvent_SWI\n"
	"%1$d clk R r14_svc 00008004\n"
	"%1$d clk R spsr_svc 00000010\n"
	"%1$d clk R cpsr 00000193\n"
	"%1$d clk IT (%1$d) 00000008 e1b0f00e A svc : MOVS     pc,lr\n"
	"%1$d clk R cpsr 00000010\n"
	"%1$d clk IT (%1$d) 00008004 eafffffd A usr : B        {pc}-4 ; 0x8000\n"
	"%1$d clk IT (%1$d) 00008000 ef000000 A usr : SVC      #0x0\n";

static void swi_loop_cut_after_its_exception(void **state)
{
	(void)state;
	char *t = build("", swi_turn, 5, "");
	struct outcome o;
	detect(t, 0, 0, &o);
	assert_true(o.r.stuck);
	assert_int_equal(o.r.period, 5); /* E, state, MOVS, B, SVC */
	assert_int_equal(o.r.insns, 3);
	assert_int_equal(o.r.exceptions, 1);
	assert_int_equal(o.r.loop_line, 5);
	assert_int_equal(o.r.cut_line, 12);
	free(t);
}

/* ---- Cortex-M lockup: no instructions, the reason line repeats -------------
 * lines 1-2  MOVS r0,#0
 * line  3    LDR r0,[r0] faults
 * line  4    reason: HardFault taken
 * line  5    the handler's first instruction faults too
 * line  6..  reason: lockup, once per cycle
 * Kept: lines 1-6 (the first lockup line). */
static const char lockup_head[] =
	"1 ns cpu0 IT (1) 00000100 2000 T thread : MOVS     r0,#0\n"
	"1 ns cpu0 R r0 00000000\n"
	"2 ns cpu0 IT (2) 00000102 6800 T thread : LDR      r0,[r0,#0]\n"
	"2 ns cpu0 INFO_EXCEPTION_REASON: HardFault: bus error reading 0x00000000\n"
	"3 ns cpu0 IT (3) 00000200 6800 T handler : LDR      r0,[r0,#0]\n";
static const char lockup_turn[] =
	"%1$d ns cpu0 INFO_EXCEPTION_REASON: Lockup: HardFault in the HardFault handler\n";

static void lockup_reason_lines(void **state)
{
	(void)state;
	char *t = build(lockup_head, lockup_turn, 7, "");
	struct outcome o;
	detect(t, 0, 0, &o);
	assert_true(o.r.stuck);
	assert_int_equal(o.r.period, 1);
	assert_int_equal(o.r.insns, 0);
	assert_int_equal(o.r.reasons, 1);
	assert_int_equal(o.r.loop_line, 6);
	assert_int_equal(o.r.cut_line, 6);
	assert_int_equal(o.certain_line, 9);
	free(t);
}

/* ---- the end of the input cuts the loop -----------------------------------
 * b . for three turns and a half line: never certain (not stuck), however
 * the input ends; with a fourth whole turn before the cut-off line it is. */
static void loop_cut_by_end_of_input(void **state)
{
	(void)state;
	char *t = build(self_head, self_turn, 3, "13 clk IT (13) 00001004 1400");
	struct outcome o;
	detect(t, 0, 0, &o);
	assert_false(o.r.stuck);
	free(t);
	t = build(self_head, self_turn, 4, "14 clk IT (14) 00001004 1400");
	detect(t, 0, 0, &o);
	assert_true(o.r.stuck);
	assert_int_equal(o.r.cut_line, 3);
	free(t);
	/* a counter loop cut in the middle of a turn is not stuck either */
	t = build(poll_head, poll_turn, 3, "30 clk IT (30) 00002004 b9400001 O EL1h_ns : LDR");
	detect(t, 0, 0, &o);
	assert_false(o.r.stuck);
	free(t);
}

/* Text lines between turns neither break nor extend a loop; a period longer
 * than --max-period is not recognised. */
static void text_and_limits(void **state)
{
	(void)state;
	char *t = build(poll_head,
			"%1$d clk IT (%1$d) 00002004 b9400001 O EL1h_ns : LDR      w1,[x0]\n"
			"%1$d clk MR4 00003000 00000000\n"
			"%1$d clk R X1 0000000000000000\n"
			"%1$d clk CADI E something_printed\n"
			"%1$d clk IT (%1$d) 00002008 34ffffe1 O EL1h_ns : CBZ      w1,{pc}-4 ; 0x2004\n",
			5, "");
	struct outcome o;
	detect(t, 0, 0, &o);
	assert_true(o.r.stuck);
	assert_int_equal(o.r.period, 2);
	assert_int_equal(o.r.cut_line, 7); /* the text line inside the turn is kept */
	detect(t, 1, 0, &o);
	assert_false(o.r.stuck);
	free(t);
	struct trawl_stuck *s = NULL;
	assert_int_equal(trawl_stuck_create(&s, 4097, 0, NULL), TRAWL_ERR_USAGE);
	assert_int_equal(trawl_stuck_create(&s, 0, 1, NULL), TRAWL_ERR_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(branch_to_self),
		cmocka_unit_test(safe_offset_trails_the_run),
		cmocka_unit_test(two_instruction_loop),
		cmocka_unit_test(progress_is_not_stuck),
		cmocka_unit_test(crash_loop_keeps_the_exception),
		cmocka_unit_test(swi_loop_cut_after_its_exception),
		cmocka_unit_test(lockup_reason_lines),
		cmocka_unit_test(loop_cut_by_end_of_input),
		cmocka_unit_test(text_and_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
