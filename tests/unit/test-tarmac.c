/* Tarmac parser: one case per producer's line shape, with values worked
 * out by hand from the text; grouping; errors; lenient mode; the reader
 * over chunked, piped and compressed input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "trawl/tarmac.h"
#include "trawl/reader.h"

static struct trawl_tarmac *parser(int implicit_thumb, int big_endian, int lenient)
{
	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.implicit_thumb = implicit_thumb;
	o.big_endian = big_endian;
	o.lenient = lenient;
	struct trawl_tarmac *t;
	assert_int_equal(trawl_tarmac_create(&t, "t.tarmac", &o, NULL), TRAWL_OK);
	/* the cases put lines of many producers, each in its own unit, in
	 * one text; test-tarmac-units.c checks the one-unit rule */
	trawl_tarmac_set_mixed_units(t, 1);
	return t;
}

/* Feed lines (separated by '\n'); all must parse. */
static void feed(struct trawl_tarmac *t, const char *text)
{
	struct trawl_error err;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		enum trawl_status st = trawl_tarmac_parse_line(t, p, n, (uint64_t)(p - text), &err);
		if (st != TRAWL_OK)
			fail_msg("line '%.*s': %s (col %u)", (int)n, p, err.message, err.column);
		p += n + (nl != NULL);
	}
}

/* Both parser paths must give the same events for any text: run the text
 * through the general grammar too and compare the flattened events. */
static void peek_all(struct trawl_tarmac *t, struct trawl_event_batch *b)
{
	trawl_tarmac_finish(t);
	trawl_tarmac_peek(t, b);
}

static void bytes_eq(const uint8_t *pool, uint32_t off, const char *hex)
{
	size_t n = strlen(hex) / 2;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		sscanf(hex + 2 * i, "%2x", &v);
		assert_int_equal(pool[off + i], v);
	}
}

static void fm_instruction_lines(void **state)
{
	(void)state;
	struct trawl_tarmac *t = parser(0, 0, 0);
	struct trawl_event_batch b;
	feed(t, "0 clk IT (0) 00008000 fa000000 A svc_s : BLX      {pc}+8 ; 0x8008\n"
		"1 clk IT (1) 00008008 a00a T svc_s : ADR      r0,{pc}+0x2c ; 0x8034\n"
		"12 clk IS (12) 0000802c 1afb T svc_s : SUBNE    r3,r7,r3\n"
		"483 clk IS (483) 0000c7ec 54ffffa1 O EL3h_s : B.NE     {pc}-0xc ; 0xc7e0\n"
		"3 clk IT (3) 0000800a:00000000800a,00000000800c e8900c00 T svc_s : LDM      r0,{r10,r11}\n"
		"23 clk IT (23) 0000815c:00000000815c_NS,00000000815e_NS f7ffef76 T hyp_n : BLX {pc}\n");
	peek_all(t, &b);
	assert_int_equal(b.count, 6);
	const struct trawl_event *e = b.events;
	assert_int_equal(e[0].kind, TRAWL_EV_INSN);
	assert_int_equal(e[0].u.insn.pc, 0x8000);
	assert_int_equal(e[0].u.insn.encoding, 0xfa000000);
	assert_int_equal(e[0].u.insn.iset, TRAWL_ISET_A32);
	assert_int_equal(e[0].u.insn.width, 4);
	assert_int_equal(e[0].u.insn.el, 1); /* svc */
	assert_int_equal(e[0].time_unit, TRAWL_TIME_CLK);
	assert_int_equal(e[0].u.insn.disasm.len, strlen("BLX      {pc}+8 ; 0x8008"));
	assert_memory_equal(e[0].u.insn.mode.ptr, "svc_s", 5);
	assert_int_equal(e[1].u.insn.iset, TRAWL_ISET_T32);
	assert_int_equal(e[1].u.insn.width, 2);
	assert_int_equal(e[1].u.insn.encoding, 0xa00a);
	assert_true(e[2].flags & TRAWL_EVF_CCFAIL);
	assert_int_equal(e[3].time, 483);
	assert_int_equal(e[3].u.insn.iset, TRAWL_ISET_A64);
	assert_int_equal(e[3].u.insn.el, 3);
	assert_true(e[3].flags & TRAWL_EVF_CCFAIL);
	assert_true(e[4].flags & TRAWL_EVF_HAS_PADDR);
	assert_int_equal(e[4].u.insn.paddr, 0x800a);
	assert_int_equal(e[5].u.insn.paddr, 0x815c);
	assert_int_equal(e[5].u.insn.el, 2);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(e[i].line, i + 1);
		assert_int_equal(e[i].seq, i);
	}
	trawl_tarmac_destroy(t);
}

static void other_instruction_forms(void **state)
{
	(void)state;
	struct trawl_tarmac *t = parser(0, 0, 0);
	struct trawl_event_batch b;
	feed(t, "    6000000 cs IT (00000000004d6eb8) 54fffea1 O  ---_- :        b.ne\t0x4d6e8c\n"
		"      3041 cyc IT (00022a7c:00000006) 00022a7c     48f6 T16 LDR      r0,[pc,#984]\n"
		" 948756 ns IT (00000000:00000000) 00000000 ea000006 A :                      B pc+0x18\n"
		"     307754 tic ES  (0000aaaaabaf59f0:--------) O el0t_ns:\n"
		"     800000 ns  ES  (000001a4:03a06a01) A svc:     CCFAIL MOVEQ    r6,#0x1000\n");
	peek_all(t, &b);
	assert_int_equal(b.count, 5);
	const struct trawl_event *e = b.events;
	/* (address) form: the bracket holds the pc */
	assert_int_equal(e[0].u.insn.pc, 0x4d6eb8);
	assert_int_equal(e[0].u.insn.encoding, 0x54fffea1);
	assert_int_equal(e[0].time_unit, TRAWL_TIME_CS);
	assert_memory_equal(e[0].u.insn.disasm.ptr, "b.ne\t0x4d6e8c", 13);
	/* Cortex-M4: (addr:serial), T16, no mode */
	assert_int_equal(e[1].u.insn.pc, 0x22a7c);
	assert_int_equal(e[1].u.insn.width, 2);
	assert_int_equal(e[1].u.insn.mode.len, 0);
	assert_int_equal(e[1].time_unit, TRAWL_TIME_CYC);
	assert_memory_equal(e[1].u.insn.disasm.ptr, "LDR", 3);
	/* Cortex-R5: mode missing before the colon */
	assert_int_equal(e[2].u.insn.encoding, 0xea000006);
	assert_int_equal(e[2].u.insn.mode.len, 0);
	assert_memory_equal(e[2].u.insn.disasm.ptr, "B pc+0x18", 9);
	/* failed fetch */
	assert_true(e[3].flags & TRAWL_EVF_FETCH_FAIL);
	assert_false(e[3].flags & TRAWL_EVF_HAS_ENCODING);
	assert_int_equal(e[3].u.insn.pc, 0xaaaaabaf59f0);
	assert_int_equal(e[3].u.insn.el, 0);
	assert_int_equal(e[3].time_unit, TRAWL_TIME_TIC);
	/* ES with CCFAIL */
	assert_true(e[4].flags & TRAWL_EVF_CCFAIL);
	assert_int_equal(e[4].u.insn.pc, 0x1a4);
	assert_memory_equal(e[4].u.insn.disasm.ptr, "MOVEQ", 5);
	trawl_tarmac_destroy(t);
}

static void implicit_thumb(void **state)
{
	(void)state;
	struct trawl_error err;
	const char *line = "354ns IT 00000350 490d        LDR      r1,[pc,#52]  ; [0x388]";
	struct trawl_tarmac *t = parser(0, 0, 0);
	assert_int_equal(trawl_tarmac_parse_line(t, line, strlen(line), 0, &err), TRAWL_ERR_FORMAT);
	assert_non_null(strstr(err.message, "--implicit-thumb"));
	assert_int_equal(err.column, 31); /* at "LDR" */
	trawl_tarmac_destroy(t);

	struct trawl_event_batch b;
	t = parser(1, 0, 0);
	feed(t, line);
	peek_all(t, &b);
	assert_int_equal(b.count, 1);
	assert_int_equal(b.events[0].u.insn.iset, TRAWL_ISET_T32);
	assert_int_equal(b.events[0].u.insn.pc, 0x350);
	assert_int_equal(b.events[0].time, 354000); /* 354 ns in ps */
	assert_int_equal(b.events[0].time_unit, TRAWL_TIME_PS);
	trawl_tarmac_destroy(t);
}

static void timestamps(void **state)
{
	(void)state;
	struct trawl_tarmac *t = parser(0, 0, 0);
	struct trawl_event_batch b;
	feed(t, "         10.356000us R PSR f1000003\n"
		"271ns R r13 20001fff (MSP)\n"
		"R X0 0000000000000001\n"
		"5 clk cpu3 R X0 0000000000000002\n"
		"180000140000 ps MR8 0000010006fffcc0:010116fffcc0_NS 00000100_05101000\n");
	peek_all(t, &b);
	assert_int_equal(b.count, 4);
	/* 10.356 us = 10 356 000 ps */
	assert_int_equal(b.events[0].time, 10356000);
	assert_int_equal(b.events[0].time_unit, TRAWL_TIME_PS);
	assert_int_equal(b.events[1].time, 271000); /* 271 ns */
	assert_int_equal(b.events[1].time_unit, TRAWL_TIME_PS);
	/* no timestamp: the line joins the previous one's time and event */
	assert_int_equal(b.events[1].nregs, 2);
	assert_int_equal(b.events[1].nlines, 2);
	assert_int_equal(b.events[2].cpu, 3);
	assert_int_equal(b.events[3].time, 180000140000ull);
	trawl_tarmac_destroy(t);
}

static void register_lines(void **state)
{
	(void)state;
	struct trawl_tarmac *t = parser(0, 0, 0);
	struct trawl_event_batch b;
	feed(t, "1 clk IT (1) 00008000 d2a00028 O EL3h_s : MOV x8,#0x10000\n"
		"1 clk R X8 0000000000010000\n"
		"1 clk R cpsr 20000000 __C_\n"
		"1 clk R FPCR 01230123:23452345\n"
		"1 clk R Q0 -------- -------- 3ff6a09e 667f3bcd\n"
		"1 clk R V5<127:64> 00000000\n"
		"1 clk R P1 01010101_01010101\n"
		"1 clk R psr xx0xxXxx\n"
		"1 clk R SPSR_EL3 00000000000001cd\n"
		"1 clk R X0 01234567 89abcdef\n"
		"1 clk R X1 --------\n");
	peek_all(t, &b);
	assert_int_equal(b.count, 1);
	const struct trawl_event *e = b.events;
	assert_int_equal(e->nlines, 11);
	assert_int_equal(e->nregs, 9);
	const struct trawl_reg_write *w = &b.regs[e->first_reg];
	/* X8: 8 bytes, least significant first */
	assert_int_equal(w[0].reg, TRAWL_REG_X0 + 8);
	assert_int_equal(w[0].size, 8);
	bytes_eq(b.pool, w[0].value, "0000010000000000");
	/* cpsr: flag text ignored */
	assert_int_equal(w[1].reg, TRAWL_REG_PSR);
	assert_int_equal(w[1].size, 4);
	bytes_eq(b.pool, w[1].value, "00000020");
	/* FPCR across a colon: 8 bytes */
	assert_int_equal(w[2].size, 8);
	bytes_eq(b.pool, w[2].value, "4523452323012301");
	/* Q0 with the top half not written: only bytes 0..7 */
	assert_int_equal(w[3].reg, TRAWL_REG_V0);
	assert_int_equal(w[3].offset, 0);
	assert_int_equal(w[3].size, 8);
	assert_int_equal(w[3].zext, 0);
	bytes_eq(b.pool, w[3].value, "cd3b7f669ea0f63f");
	/* V5<127:64> abbreviated zero: 8 bytes at offset 8 */
	assert_int_equal(w[4].reg, TRAWL_REG_V0 + 5);
	assert_int_equal(w[4].offset, 8);
	assert_int_equal(w[4].size, 8);
	bytes_eq(b.pool, w[4].value, "0000000000000000");
	/* SVE predicate */
	assert_int_equal(w[5].reg, TRAWL_REG_P0 + 1);
	assert_int_equal(w[5].size, 8);
	/* x digits: bytes 0,2,3 unknown, byte 1 known as 0x0x? no: "xx0xxXxx"
	 * pairs are xx 0x xX xx, all unknown */
	assert_int_equal(w[6].size, 4);
	assert_true(w[6].known != TRAWL_ALL_KNOWN);
	for (int i = 0; i < 4; i++)
		assert_false(trawl_known_bit(b.pool, w[6].known, (uint32_t)i));
	/* system register kept by name */
	assert_true(w[7].reg >= TRAWL_REG_SYS_BASE);
	assert_string_equal(trawl_reg_names_get(b.sysregs, w[7].reg), "SPSR_EL3");
	assert_int_equal(w[7].size, 8);
	/* value split by a space */
	bytes_eq(b.pool, w[8].value, "efcdab8967452301");
	trawl_tarmac_destroy(t);
}

static void memory_lines(void **state)
{
	(void)state;
	struct trawl_tarmac *t = parser(0, 0, 0);
	struct trawl_event_batch b;
	feed(t, "2 clk MR4 00008034 000029b4\n"
		"3 clk MR8 0000c7c8:00000000c7c8 00000000_0000ca68\n"
		"4 clk MR16 400171e0 400f731b40000000 3ff87cc460000000\n"
		"5 cs W04 X ffffffbdc3c15c30 010c010b\n"
		"6 ns MSW4___D 201fffec xxxxxxxx\n"
		"7 cyc MNW4___D 2002fa00 efbeefbe\n"
		"8 clk MR4 dfdfdfcf (ABORTED)\n"
		"9 ns MNW4____ (00000050:000000a8) 05011000 00000003\n");
	peek_all(t, &b);
	assert_int_equal(b.count, 8);
	const struct trawl_mem_access *m = b.mems;
	assert_int_equal(m[0].flags, TRAWL_MEM_READ);
	assert_int_equal(m[0].addr, 0x8034);
	bytes_eq(b.pool, m[0].value, "b4290000");
	assert_true(m[1].flags & TRAWL_MEM_HAS_PADDR);
	bytes_eq(b.pool, m[1].value, "68ca000000000000");
	/* two words, high first: the low word is at the address */
	assert_int_equal(m[2].size, 16);
	bytes_eq(b.pool, m[2].value, "00000060c47cf83f000000401b730f40");
	assert_int_equal(m[3].flags, TRAWL_MEM_WRITE);
	assert_int_equal(m[3].addr, 0xffffffbdc3c15c30ull);
	bytes_eq(b.pool, m[3].value, "0b010c01");
	assert_true(m[4].known != TRAWL_ALL_KNOWN);
	assert_false(trawl_known_bit(b.pool, m[4].known, 0));
	/* Cortex-M D lines are in memory order already */
	bytes_eq(b.pool, m[5].value, "efbeefbe");
	assert_true(m[6].flags & TRAWL_MEM_ABORTED);
	assert_int_equal(m[7].addr, 0x05011000);
	bytes_eq(b.pool, m[7].value, "03000000");
	trawl_tarmac_destroy(t);

	/* big-endian: the value's first byte is at the lowest address */
	t = parser(0, 1, 0);
	feed(t, "2 clk MR4 00008034 000029b4\n2 clk MW2 00008038 1234\n");
	peek_all(t, &b);
	bytes_eq(b.pool, b.mems[0].value, "000029b4");
	bytes_eq(b.pool, b.mems[1].value, "1234");
	trawl_tarmac_destroy(t);
}

static void ld_st_diagrams(void **state)
{
	(void)state;
	struct trawl_tarmac *t = parser(0, 0, 0);
	struct trawl_event_batch b;
	feed(t, "  947020259 ps  ES  (000000008000d1fc:a90d8be1) O el3t_rt:        STP      x1,x2,[sp,#0xd8]\n"
		"                    ST 000000009884cfb0  ........ ........ 00000000 000000fe  NS:000000009884cfb0   NM ISH IWBRWA\n"
		"                       000000009884cfa0  00000000 00000007 ........ ........  NS:000000009884cfa0   NM ISH IWBRWA\n"
		"       3981 tic ES  (000000d8:c878)     T thrd_s:         LDMCS    r0!,{r3-r6}\n"
		"                    LD 00004020  ........ 626d654d 2043424d 4545203e   S:0000000000004020  NM NSH\n"
		"                       00004010  3e000a73 ........ ........ ........   S:0000000000004010  NM NSH\n"
		"   23226000 ns  ES  (00000364:e5c02000) A svc:            STRB     r2,[r0,#0]\n"
		"                    ST b0000000  ........ ........ ........ ......##     00b0000000    SO ISH INC\n");
	peek_all(t, &b);
	assert_int_equal(b.count, 3);
	const struct trawl_event *e = b.events;
	assert_int_equal(e[0].nmems, 2);
	assert_int_equal(e[0].nlines, 3);
	const struct trawl_mem_access *m = &b.mems[e[0].first_mem];
	/* rightmost byte is the base address */
	assert_int_equal(m[0].addr, 0x9884cfb0);
	assert_int_equal(m[0].size, 8);
	assert_int_equal(m[0].flags, TRAWL_MEM_WRITE | TRAWL_MEM_HAS_PADDR);
	bytes_eq(b.pool, m[0].value, "fe00000000000000");
	assert_int_equal(m[1].addr, 0x9884cfa8);
	bytes_eq(b.pool, m[1].value, "0700000000000000");
	/* continuation with an all-decimal address is still a continuation */
	m = &b.mems[e[1].first_mem];
	assert_int_equal(e[1].nmems, 2);
	assert_int_equal(m[0].addr, 0x4020);
	assert_int_equal(m[0].size, 12);
	bytes_eq(b.pool, m[0].value, "3e2045454d4243204d656d62");
	assert_int_equal(m[1].addr, 0x401c);
	bytes_eq(b.pool, m[1].value, "730a003e");
	/* ## is accessed with an unknown value */
	m = &b.mems[e[2].first_mem];
	assert_int_equal(m[0].size, 1);
	assert_false(trawl_known_bit(b.pool, m[0].known, 0));
	trawl_tarmac_destroy(t);
}

static void exceptions_and_text(void **state)
{
	(void)state;
	struct trawl_tarmac *t = parser(0, 0, 0);
	struct trawl_event_batch b;
	feed(t, "0 clk cpu0 E 10001848 00000001 CoreEvent_RESET\n"
		"0 clk cpu1 E DebugEvent_HaltingDebugState 00000000\n"
		"      17000 ns  ES  EXC [0x00] Reset\n"
		"                    EXC [0x200] Synchronous Current EL with SP_ELx\n"
		"4541 clk CADI E simulation_stopped\n"
		"0 clk SIGNAL: SIGNAL=Abort STATE=N\n"
		"40 clk R DC CISW 00000000:00000000\n");
	peek_all(t, &b);
	assert_int_equal(b.count, 7);
	const struct trawl_event *e = b.events;
	assert_int_equal(e[0].kind, TRAWL_EV_EXCEPTION);
	assert_int_equal(e[0].u.exc.target, 0x10001848);
	assert_int_equal(e[0].u.exc.number, 1);
	assert_memory_equal(e[0].u.exc.name.ptr, "CoreEvent_RESET", 15);
	assert_int_equal(e[1].kind, TRAWL_EV_TEXT);
	assert_int_equal(e[1].cpu, 1);
	assert_int_equal(e[2].kind, TRAWL_EV_EXCEPTION);
	assert_int_equal(e[2].u.exc.name.len, 5);
	assert_int_equal(e[3].u.exc.number, 0x200);
	assert_int_equal(e[3].time, 17000000); /* 17000 ns */
	assert_int_equal(e[4].kind, TRAWL_EV_TEXT);
	assert_memory_equal(e[4].u.text.type.ptr, "CADI", 4);
	assert_int_equal(e[4].u.text.text.len, strlen("E simulation_stopped"));
	assert_memory_equal(e[5].u.text.text.ptr, "SIGNAL=Abort", 12);
	assert_memory_equal(e[6].u.text.type.ptr, "DC", 2);
	trawl_tarmac_destroy(t);
}

/* trawl's gap lines (written by `trawl ete tarmac`) are gap events with
 * their reason and end the instruction before them; the same words as an
 * E line's only field, or in another record type, are not. */
static void gap_lines(void **state)
{
	(void)state;
	struct trawl_tarmac *t = parser(0, 0, 0);
	struct trawl_event_batch b;
	feed(t, "1 clk IT (0) 00001000 d503201f O EL1h_s : NOP\n"
		"1 clk E 0000000000000000 00000000 GAP_TRACE_OFF\n"
		"2 clk cpu1 E 0000000000000000 00000000 GAP_OVERFLOW\n"
		"3 clk E 0000000000000000 00000000 GAP_LOST\n"
		"4 clk E 0000000000002000 00000000 NO_IMAGE\n"
		"5 clk E GAP_LOST\n"
		"6 clk E 0 0 GAP_LOSTX\n"
		"7 clk CADI GAP_LOST\n");
	peek_all(t, &b);
	assert_int_equal(b.count, 8);
	const struct trawl_event *e = b.events;
	assert_int_equal(e[0].kind, TRAWL_EV_INSN);
	assert_int_equal(e[0].nlines, 1);
	for (int i = 1; i <= 4; i++)
		assert_int_equal(e[i].kind, TRAWL_EV_GAP);
	assert_int_equal(e[1].u.gap.reason, TRAWL_GAP_TRACE_OFF);
	assert_int_equal(e[2].u.gap.reason, TRAWL_GAP_OVERFLOW);
	assert_int_equal(e[2].cpu, 1);
	assert_int_equal(e[3].u.gap.reason, TRAWL_GAP_LOST);
	assert_int_equal(e[3].time, 3);
	assert_int_equal(e[4].u.gap.reason, TRAWL_GAP_TRACE_OFF);
	assert_int_equal(e[5].kind, TRAWL_EV_TEXT);
	assert_int_equal(e[6].kind, TRAWL_EV_TEXT);
	assert_int_equal(e[7].kind, TRAWL_EV_TEXT);
	/* the writer's names are the reader's */
	for (uint32_t r = 0; r < 3; r++) {
		const char *n = trawl_tarmac_gap_name(r);
		assert_int_equal(trawl_tarmac_gap_reason(n, strlen(n)), (int)r);
	}
	trawl_tarmac_destroy(t);
}

/* Register lines join the instruction before them only on the same CPU and
 * at the same time; otherwise they form a STATE event. */
static void grouping(void **state)
{
	(void)state;
	struct trawl_tarmac *t = parser(0, 0, 0);
	struct trawl_event_batch b;
	feed(t, "0 clk R X0 0000000000000000\n"
		"0 clk R X1 0000000000000000\n"
		"1 clk cpu0 IT (1) 00001000 d503201f O EL1h_s : NOP\n"
		"1 clk cpu1 R X2 0000000000000002\n"
		"1 clk cpu0 R X3 0000000000000003\n"
		"\n"
		"2 clk cpu0 IT (2) 00001004 d503201f O EL1h_s : NOP\n"
		"3 clk cpu0 R X4 0000000000000004\n");
	peek_all(t, &b);
	assert_int_equal(b.count, 6);
	assert_int_equal(b.events[0].kind, TRAWL_EV_STATE);
	assert_int_equal(b.events[0].nregs, 2);
	assert_int_equal(b.events[0].nlines, 2);
	assert_int_equal(b.events[1].kind, TRAWL_EV_INSN);
	assert_int_equal(b.events[1].nregs, 0);
	assert_int_equal(b.events[2].kind, TRAWL_EV_STATE);
	assert_int_equal(b.events[2].cpu, 1);
	assert_int_equal(b.events[3].kind, TRAWL_EV_STATE);
	assert_int_equal(b.events[3].cpu, 0);
	assert_int_equal(b.events[4].kind, TRAWL_EV_INSN);
	assert_int_equal(b.events[4].line, 7);
	assert_int_equal(b.events[5].kind, TRAWL_EV_STATE); /* later time */
	assert_int_equal(b.events[5].time, 3);
	trawl_tarmac_destroy(t);
}

static void bad_lines(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		unsigned col;
		const char *msg;
	} cases[] = {
		{ "1 clk IT (1) 0000zz00 d2a00028 O EL3h_s : MOV", 14, "instruction address" },
		{ "1 clk R X0 12345", 12, "too short" },
		{ "1 clk R X0 0123456789abcdef01", 12, "expected 16" },
		{ "1 clk MR17 00001000 00", 7, "bad memory access type" },
		{ "1 clk MW0 00001000 00", 7, "bad memory access type" },
		{ "1 clk MR4 00001000 zz", 20, "memory contents" },
		{ "1 clk LD 00001000 ........ 00", 30, "16 data bytes" },
		{ "1 xyz IT (1) 00001000 d2a00028 O EL3h_s : MOV", 3, "unknown time unit 'xyz'" },
		{ "1 xyz text", 3, NULL },
		{ "12.5 clk R X0 0000000000000000", 1, "fractional" },
		{ "1 clk ES (0000:e59f", 20, "expected ')'" },
		{ "1 clk R V0<12:0> 00", 11, "whole bytes" },
		{ "(junk", 1, "record type" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct trawl_tarmac *t = parser(0, 0, 0);
		struct trawl_error err;
		enum trawl_status st = trawl_tarmac_parse_line(t, cases[i].line, strlen(cases[i].line), 100, &err);
		if (!cases[i].msg) {
			/* "xyz" before no record type: a record type of its own
			 * (text), the time unitless */
			assert_int_equal(st, TRAWL_OK);
			trawl_tarmac_destroy(t);
			continue;
		}
		if (st != TRAWL_ERR_FORMAT)
			fail_msg("'%s' parsed", cases[i].line);
		if (!strstr(err.message, cases[i].msg) || err.column != cases[i].col)
			fail_msg("'%s': got '%s' at column %u", cases[i].line, err.message, err.column);
		assert_string_equal(err.file, "t.tarmac");
		assert_int_equal(err.line, 1);
		assert_int_equal(err.offset, 100 + cases[i].col - 1);
		assert_string_equal(err.excerpt, cases[i].line);
		/* nothing of the bad line is left behind */
		struct trawl_event_batch b;
		peek_all(t, &b);
		assert_int_equal(b.count, 0);
		trawl_tarmac_destroy(t);
	}
}

static int nwarn;
static void count_warn(void *ctx, const struct trawl_error *w)
{
	(void)ctx;
	(void)w;
	nwarn++;
}

static void lenient_mode(void **state)
{
	(void)state;
	const char *text = "1 clk IT (1) 00001000 d503201f O EL1h_s : NOP\n"
			   "1 clk R X0 zz\n"
			   "1 clk R X1 0000000000000001\n"
			   "1 clk FOO bar\n"
			   "1 clk FOO baz\n";
	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.lenient = 1;
	o.warn = count_warn;
	struct trawl_input *in;
	struct trawl_reader *r;
	struct trawl_error err;
	struct trawl_event_batch b;
	nwarn = 0;
	assert_int_equal(trawl_input_open_memory(&in, text, strlen(text), "mem", NULL, &err), TRAWL_OK);
	assert_int_equal(trawl_reader_open_input(&r, in, &o, &err), TRAWL_OK);
	assert_int_equal(trawl_reader_next(r, &b, &err), TRAWL_OK);
	assert_int_equal(b.count, 3);
	assert_int_equal(b.events[0].nregs, 1);
	assert_int_equal(b.events[0].nlines, 3);
	assert_int_equal(trawl_reader_next(r, &b, &err), TRAWL_END);
	assert_int_equal(trawl_reader_stats(r)->bad_lines, 1);
	assert_int_equal(trawl_reader_stats(r)->lines, 5);
	assert_int_equal(nwarn, 2); /* the bad line, and FOO once */
	trawl_reader_close(r);

	/* strict: the same text stops at line 2, after handing out the
	 * instruction before it */
	o.lenient = 0;
	assert_int_equal(trawl_input_open_memory(&in, text, strlen(text), "mem", NULL, &err), TRAWL_OK);
	assert_int_equal(trawl_reader_open_input(&r, in, &o, &err), TRAWL_OK);
	assert_int_equal(trawl_reader_next(r, &b, &err), TRAWL_OK);
	assert_int_equal(b.count, 1);
	assert_int_equal(b.events[0].line, 1);
	assert_int_equal(trawl_reader_next(r, &b, &err), TRAWL_ERR_FORMAT);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 12);
	assert_true(trawl_reader_next(r, &b, &err) < 0); /* stays failed */
	trawl_reader_close(r);
}

/* Flatten every event of an input into text, to compare readings. */
static char *read_all(struct trawl_input *in, uint32_t batch_events)
{
	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.batch_events = batch_events;
	struct trawl_reader *r;
	struct trawl_error err;
	struct trawl_event_batch b;
	assert_int_equal(trawl_reader_open_input(&r, in, &o, &err), TRAWL_OK);
	size_t cap = 1 << 16, n = 0;
	char *out = malloc(cap);
	enum trawl_status st;
	while ((st = trawl_reader_next(r, &b, &err)) == TRAWL_OK) {
		assert_true(b.count > 0 && b.count <= batch_events);
		for (size_t i = 0; i < b.count; i++) {
			const struct trawl_event *e = &b.events[i];
			if (n + 4096 > cap)
				out = realloc(out, cap *= 2);
			n += (size_t)snprintf(out + n, cap - n, "%llu %u %llu %llu k%u t%llu pc%llx %.*s |",
					      (unsigned long long)e->line, e->nlines,
					      (unsigned long long)e->offset, (unsigned long long)e->length,
					      e->kind, (unsigned long long)e->time,
					      (unsigned long long)e->u.insn.pc,
					      e->kind == TRAWL_EV_INSN ? (int)e->u.insn.disasm.len : 0,
					      e->kind == TRAWL_EV_INSN ? e->u.insn.disasm.ptr : "");
			for (uint32_t k = 0; k < e->nregs; k++) {
				const struct trawl_reg_write *w = &b.regs[e->first_reg + k];
				n += (size_t)snprintf(out + n, cap - n, " r%u:", w->reg);
				for (uint32_t j = 0; j < w->size; j++)
					n += (size_t)snprintf(out + n, cap - n, "%02x", b.pool[w->value + j]);
			}
			for (uint32_t k = 0; k < e->nmems; k++) {
				const struct trawl_mem_access *m = &b.mems[e->first_mem + k];
				n += (size_t)snprintf(out + n, cap - n, " m%llx:", (unsigned long long)m->addr);
				for (uint32_t j = 0; j < m->size; j++)
					n += (size_t)snprintf(out + n, cap - n, "%02x", b.pool[m->value + j]);
			}
			out[n++] = '\n';
		}
	}
	assert_int_equal(st, TRAWL_END);
	out[n] = 0;
	trawl_reader_close(r);
	return out;
}

static char *sample_text(size_t ninsn, size_t *len)
{
	size_t cap = ninsn * 200, n = 0;
	char *s = malloc(cap);
	for (size_t i = 0; i < ninsn; i++) {
		n += (size_t)snprintf(s + n, cap - n,
				      "%zu clk IT (%zu) %08zx 940011de O EL3h_s : BL       {pc}+0x%zx\n"
				      "%zu clk R X30 %016zx\n",
				      i, i, 0x8000 + 4 * i, i, i, i * 7);
		if (i % 3 == 0)
			n += (size_t)snprintf(s + n, cap - n, "%zu clk MW8 %08zx:%012zx 00000000_%08zx\n", i,
					      i * 8, i * 8, i);
		if (i % 5 == 0)
			n += (size_t)snprintf(s + n, cap - n,
					      "        ES  (%016zx:--------) O el0t_ns:\n"
					      "                    LD %016zx  ........ 44444444 ........ 2222..11    S:007ff80fe0    nGnRnE OSH\n",
					      i, i * 16);
	}
	*len = n;
	return s;
}

/* Events do not depend on how the input is cut into chunks or batches. */
static void chunking_invariance(void **state)
{
	(void)state;
	size_t len;
	char *text = sample_text(3000, &len);
	struct trawl_input *in;
	struct trawl_input_options io;
	assert_int_equal(trawl_input_open_memory(&in, text, len, "mem", NULL, NULL), TRAWL_OK);
	char *whole = read_all(in, 4096);

	/* a pipe with small chunks, small batches */
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	if (fork() == 0) {
		close(fds[0]);
		for (size_t off = 0; off < len;) {
			ssize_t w = write(fds[1], text + off, len - off < 777 ? len - off : 777);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(fds[1]);
	memset(&io, 0, sizeof io);
	io.chunk_size = 4096;
	assert_int_equal(trawl_input_open_fd(&in, fds[0], "pipe", &io, NULL), TRAWL_OK);
	char *piped = read_all(in, 7);
	close(fds[0]);
	assert_string_equal(whole, piped);

	/* gzip through the streaming path */
	char path[] = "/tmp/trawl-tarmac-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	gzFile gz = gzopen(path, "wb");
	gzwrite(gz, text, (unsigned)len);
	gzclose(gz);
	assert_int_equal(trawl_input_open(&in, path, &io, NULL), TRAWL_OK);
	char *unz = read_all(in, 100);
	assert_string_equal(whole, unz);
	unlink(path);
	free(whole);
	free(piped);
	free(unz);
	free(text);
}

/* The fast path and the general grammar give identical events. */
/* want/want_regs: partial parsing as in reader.h (0 = everything);
 * keep_regs/keep_mems: what to print (a filter applied after a full parse
 * is the reference partial parsing is checked against). */
static char *flatten_with(const char *text, int fast, uint32_t want, uint64_t want_regs,
			  uint64_t keep_regs, int keep_mems)
{
	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.want = want;
	o.want_regs = want_regs;
	struct trawl_tarmac *t;
	assert_int_equal(trawl_tarmac_create(&t, "t.tarmac", &o, NULL), TRAWL_OK);
	trawl_tarmac_set_fast_path(t, fast);
	feed(t, text);
	struct trawl_event_batch b;
	peek_all(t, &b);
	size_t cap = 1 << 20, n = 0;
	char *out = malloc(cap);
	for (size_t i = 0; i < b.count; i++) {
		const struct trawl_event *e = &b.events[i];
		if (n + 4096 > cap)
			out = realloc(out, cap *= 2);
		n += (size_t)snprintf(out + n, cap - n, "%llu+%u o%llu l%llu s%llu k%u f%x t%llu u%u c%u pc%llx e%x w%u i%u el%u %.*s|%.*s|",
				      (unsigned long long)e->line, e->nlines, (unsigned long long)e->offset,
				      (unsigned long long)e->length, (unsigned long long)e->seq, e->kind, e->flags,
				      (unsigned long long)e->time, e->time_unit, e->cpu,
				      (unsigned long long)e->u.insn.pc, e->u.insn.encoding, e->u.insn.width,
				      e->u.insn.iset, e->u.insn.el,
				      e->kind == TRAWL_EV_INSN ? (int)e->u.insn.mode.len : 0,
				      e->kind == TRAWL_EV_INSN ? e->u.insn.mode.ptr : "",
				      e->kind == TRAWL_EV_INSN ? (int)e->u.insn.disasm.len : 0,
				      e->kind == TRAWL_EV_INSN ? e->u.insn.disasm.ptr : "");
		for (uint32_t k = 0; k < e->nregs; k++) {
			const struct trawl_reg_write *w = &b.regs[e->first_reg + k];
			if (keep_regs != ~(uint64_t)0 && (w->reg >= 64 || !(keep_regs >> w->reg & 1)))
				continue;
			n += (size_t)snprintf(out + n, cap - n, " r%u@%u/%u/%u:", w->reg, w->offset, w->size, w->zext);
			for (uint32_t j = 0; j < w->size; j++)
				n += (size_t)snprintf(out + n, cap - n, "%02x", b.pool[w->value + j]);
		}
		for (uint32_t k = 0; keep_mems && k < e->nmems; k++) {
			const struct trawl_mem_access *m = &b.mems[e->first_mem + k];
			n += (size_t)snprintf(out + n, cap - n, " m%llx/%llx/%u/%x:", (unsigned long long)m->addr,
					      (unsigned long long)m->paddr, m->size, m->flags);
			for (uint32_t j = 0; j < m->size; j++)
				n += (size_t)snprintf(out + n, cap - n, "%02x", b.pool[m->value + j]);
		}
		out[n++] = '\n';
	}
	out[n] = 0;
	trawl_tarmac_destroy(t);
	return out;
}

static char *flatten_lines(const char *text, int fast)
{
	return flatten_with(text, fast, 0, 0, ~(uint64_t)0, 1);
}

static void fast_path_agrees(void **state)
{
	(void)state;
	size_t len;
	char *text = sample_text(500, &len);
	static const char extra[] =
		"7 clk IT (7) 00008000 a00a T svc_s : ADR      r0,{pc}+0x2c ; 0x8034\n"
		"7 clk R r0 0000ab34\n"
		"7 clk R cpsr 600003c5\n"
		"7 clk R SP_EL1 00000000000fffe0\n"
		"7 clk R SCTLR_EL1 30d00800\n"
		"7 clk R q0 93c467e37db0c7a4d1be3f810152cb56\n"
		"7 clk R s0 3f800000\n"
		"7 clk MR1 000090c0 72\n"
		"7 clk MW2 0000ab94:00000000ab94 2202\n"
		"8 clk IS (8) 0000802c 1afb T svc_s : SUBNE    r3,r7,r3\n"
		"9 clk IT (9) 0000c7ec 54ffffa1 O EL3h_s : B.NE     {pc}-0xc ; 0xc7e0\n"
		"9 clk R X30 0000000000008004\n"
		"9 clk R W3 0000ffff\n";
	text = realloc(text, len + sizeof extra);
	memcpy(text + len, extra, sizeof extra);
	char *fast = flatten_lines(text, 1), *general = flatten_lines(text, 0);
	assert_true(strlen(fast) > 1000);
	assert_string_equal(fast, general);
	free(fast);
	free(general);
	free(text);
}

/* Shapes at the edges of the fast path's shortcuts (the two fixed-width
 * 8-digit fields read at once, a short "(index)" decoded from one word, the
 * mode word compared with the previous line's): lines it takes and lines it
 * must leave to the grammar give the same events either way. */
static void fast_path_edges(void **state)
{
	(void)state;
	static const char text[] =
		"1 clk IT (1) 00008000 d503201f O EL0t_n : nop\n"
		"2 clk IT (2) 00008004 D503201F O EL0t_n :   NOP  \n"       /* upper-case hex, spaces */
		"3 clk IT (3) 00008008 d503201f O EL0t_nx : nop\n"         /* mode longer than the last */
		"4 clk IT (4) 0000800c d503201f O EL0t : nop\n"            /* ... shorter */
		"5 clk IT (5) 00008010 d503201f O EL0t  :nop\n"            /* two spaces, no space after */
		"6 clk IT (6) 00008014 d503201f O EL3h_s :\n"              /* no disassembly */
		"7 clk IT (7) 00008018 d503201f O EL3h_s : CCFAIL nop\n"
		"8 clk IT (8) 000000000000801c d503201f O EL3h_s : nop\n"  /* 16-digit PC */
		"9 clk IT (9) 0008020 d503201f O EL3h_s : nop\n"           /* 7-digit PC */
		"10 clk IT (a) 00008024 a00a T svc_s : ADR r0,{pc}+0x2c\n" /* 4-digit encoding */
		"11 clk IT (1234abcd) 00008028 d503201f O svc_s : nop\n"   /* 8-digit index */
		"12 clk IT (1234abcd9) 0000802c d503201f A svc_s : nop\n"  /* 9-digit index */
		"14 clk IS (e) 00008034 d503201f O verylongmodename_xyz : nop\n"
		"15 clk IT (f) 00008038 d503201f O verylongmodename_xyz : nop\n"
		"16 clk IT (10) 0000803c d503201f O EL2h : nop\n"
		"17 clk IT (11) 00008040 d503201f O EL2h :\n"              /* line ends after " :" */
		"17 clk R X1 0000000000000001\n"
		"17 clk MR8 00001000 00000000_00000001\n"
		"18 clk IT (12) 00008044 d503201f O EL2h";                 /* input ends in the mode */
	for (uint32_t want = 0; want <= TRAWL_WANT_FILTER; want += TRAWL_WANT_FILTER) {
		char *fast = flatten_with(text, 1, want, TRAWL_WANT_REG(TRAWL_REG_X0 + 1), ~(uint64_t)0, 1);
		char *general = flatten_with(text, 0, want, TRAWL_WANT_REG(TRAWL_REG_X0 + 1), ~(uint64_t)0, 1);
		assert_string_equal(fast, general);
		assert_non_null(strstr(fast, "el0 EL0t_nx|nop|"));
		assert_non_null(strstr(fast, "|NOP|"));
		free(fast);
		free(general);
	}
	/* bad lines after a good one (the fast path is armed, the mode cached):
	 * the same error at the same column either way */
	static const char *const bad[] = {
		"2 clk IT (2) 0000800g d503201f O EL0t_n : nop",
		"2 clk IT (2) 00008004 d503201g O EL0t_n : nop",
		"2 clk IT (2) 00008004 d503201f  O EL0t_n : nop",
		"2 clk IT (2) 00008004 d503201f Q EL0t_n : nop",
		"2 clk IT (2) 00008004 d503201f O EL0t_n",
		"2 clk IT (2) 00008004 d503201f O EL0t_n ; nop",
		"2 clk IT (2 00008004 d503201f O EL0t_n : nop",
		"2 clk IT (2) 00008004d503201f O EL0t_n : nop",
		"2 clk IT (2) 000080040 d503201f O EL0t_n : nop",
		"2 clk IT () 00008004 d503201f O EL0t_n : nop",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct trawl_error err[2];
		enum trawl_status st[2];
		for (int fast = 0; fast <= 1; fast++) {
			struct trawl_tarmac *t;
			assert_int_equal(trawl_tarmac_create(&t, "t.tarmac", NULL, NULL), TRAWL_OK);
			trawl_tarmac_set_fast_path(t, fast);
			feed(t, "1 clk IT (1) 00008000 d503201f O EL0t_n : nop\n");
			st[fast] = trawl_tarmac_parse_line(t, bad[i], strlen(bad[i]), 46, &err[fast]);
			trawl_tarmac_destroy(t);
		}
		assert_int_equal(st[0], st[1]);
		if (st[0] != TRAWL_OK) {
			assert_string_equal(err[0].message, err[1].message);
			assert_int_equal(err[0].column, err[1].column);
			assert_int_equal(err[0].line, 2);
			assert_int_equal(err[1].offset, err[0].offset);
		}
	}
}

/* Partial parsing gives the events of a full parse minus the dropped
 * effects: same kinds, lines, offsets, line counts, instruction fields,
 * and the kept register writes byte for byte. Both parser paths. */
static void partial_parsing(void **state)
{
	(void)state;
	size_t len;
	char *text = sample_text(400, &len);
	static const char extra[] =
		"5 clk R SP_EL0 0000000000001000\n"   /* register dump before any instruction */
		"5 clk R X3 0000000000000003\n"
		"6 clk MR4 00001000 12345678\n"       /* a memory-only STATE event */
		"7 clk IT (7) 00008000 a00a T svc_s : ADR      r0,{pc}+0x2c ; 0x8034\n"
		"7 clk R r0 0000ab34\n"
		"7 clk R cpsr 600003c5\n"
		"7 clk R r14 00008004\n"
		"7 clk R r13 00007ff0\n"
		"7 clk R SCTLR_EL1 30d00800\n"
		"7 clk R q0 93c467e37db0c7a4d1be3f810152cb56\n"
		"7 clk MR1 000090c0 72\n"
		"7 clk MW2 0000ab94:00000000ab94 2202\n"
		"8 clk MW4 0000ab98 00000001\n"       /* other time: a STATE event of its own */
		"9 clk IT (9) 0000c7ec 94000010 O EL3h_s : BL       {pc}+0x40\n"
		"9 clk R X30 000000000000c7f0\n"
		"9 clk R cpsr 60000000\n"
		"9 clk R CPSR 20000000\n"
		"9 clk R cpsr_x 20000000\n"
		"9 clk R W30 0000fff0\n"
		"9 clk R SP_EL3 00000000000fffe0\n"
		"9 clk R X14 0000000000000001\n"
		"9 clk R X15 0000000000000002\n"
		"        ES  (0000c7f0:--------) O el0t_ns:\n"
		"                    LD 000000000000c830  ........ 44444444 ........ 2222..11    S:007ff80fe0    nGnRnE OSH\n"
		"10 clk IT (10) 0000c830 d65f03c0 O EL3h_s : RET\n";
	text = realloc(text, len + sizeof extra);
	memcpy(text + len, extra, sizeof extra);
	/* with and without CPSR: unwanted CPSR lines are skipped by their
	 * first bytes like X registers */
	for (int psr = 0; psr <= 1; psr++) {
		uint64_t keep = TRAWL_WANT_REG(TRAWL_REG_SP) | TRAWL_WANT_REG(TRAWL_REG_X0 + 14) |
				TRAWL_WANT_REG(TRAWL_REG_X0 + 30) | (psr ? TRAWL_WANT_REG(TRAWL_REG_PSR) : 0);
		char *ref = flatten_with(text, 1, 0, 0, keep, 0);
		char *full = flatten_lines(text, 1);
		assert_true(strlen(ref) > 10000);
		assert_string_not_equal(ref, full); /* something was dropped */
		for (int fast = 0; fast <= 1; fast++) {
			char *part = flatten_with(text, fast, TRAWL_WANT_FILTER, keep, ~(uint64_t)0, 1);
			assert_string_equal(ref, part);
			free(part);
		}
		/* memory accesses kept when asked for */
		char *refm = flatten_with(text, 1, 0, 0, keep, 1);
		char *partm = flatten_with(text, 1, TRAWL_WANT_FILTER | TRAWL_WANT_MEMS, keep, ~(uint64_t)0, 1);
		assert_string_equal(refm, partm);
		/* want = 0 is a full parse */
		char *all = flatten_with(text, 1, 0, keep, ~(uint64_t)0, 1);
		assert_string_equal(full, all);
		free(refm);
		free(partm);
		free(all);
		free(ref);
		free(full);
	}
	free(text);
}

/* A line cut off by the end of the input is never skipped unparsed: with
 * partial parsing its event gets the same lines and flags (truncated or
 * not) as with a full parse, which decides whether the cut line is whole. */
static void cut_case(const char *text)
{
	uint32_t nlines[2] = { 0, 0 };
	uint16_t flags[2] = { 0, 0 };
	for (int partial = 0; partial <= 1; partial++) {
		struct trawl_reader_options o;
		memset(&o, 0, sizeof o);
		o.lenient = 1;
		if (partial)
			o.want = TRAWL_WANT_FILTER;
		struct trawl_input *in;
		struct trawl_reader *r;
		struct trawl_error err;
		struct trawl_event_batch b;
		assert_int_equal(trawl_input_open_memory(&in, text, strlen(text), "mem", NULL, NULL),
				 TRAWL_OK);
		assert_int_equal(trawl_reader_open_input(&r, in, &o, &err), TRAWL_OK);
		assert_int_equal(trawl_reader_next(r, &b, &err), TRAWL_OK);
		assert_int_equal(b.count, 1);
		if (partial)
			assert_int_equal(b.events[0].nmems, 0);
		nlines[partial] = b.events[0].nlines;
		flags[partial] = b.events[0].flags;
		trawl_reader_close(r);
	}
	assert_int_equal(flags[0], flags[1]);
	assert_int_equal(nlines[0], nlines[1]);
}

static void partial_cut_line(void **state)
{
	(void)state;
	cut_case("1 clk IT (1) 00008000 d503201f O EL3h_s : nop\n1 clk R X8 00000000");
	cut_case("1 clk IT (1) 00008000 d503201f O EL3h_s : nop\n1 clk MR8 00001000 0000");
}

static void hostile_input(void **state)
{
	(void)state;
	struct trawl_input *in;
	struct trawl_reader *r;
	struct trawl_error err;
	struct trawl_event_batch b;
	/* empty input: no events */
	assert_int_equal(trawl_input_open_memory(&in, "", 0, "empty", NULL, NULL), TRAWL_OK);
	assert_int_equal(trawl_reader_open_input(&r, in, NULL, &err), TRAWL_OK);
	assert_int_equal(trawl_reader_next(r, &b, &err), TRAWL_END);
	trawl_reader_close(r);
	/* binary data is refused by detection */
	static const char bin[] = "\x7f" "ELF\x02\x01\x01\x00\x00\x00garbage";
	assert_int_equal(trawl_input_open_memory(&in, bin, sizeof bin, "bin", NULL, NULL), TRAWL_OK);
	assert_int_equal(trawl_reader_open_input(&r, in, NULL, &err), TRAWL_ERR_FORMAT);
	assert_non_null(strstr(err.message, "not a trace format"));
	/* a last line cut off by the end of the input (a trace still being
	 * written) is dropped and its event marked truncated, not misread */
	static const char trunc[] = "1 clk IT (1) 00001000 d503201f O EL1h_s : NOP\n1 clk R X0 00012";
	assert_int_equal(trawl_input_open_memory(&in, trunc, sizeof trunc - 1, "cut", NULL, NULL), TRAWL_OK);
	assert_int_equal(trawl_reader_open_input(&r, in, NULL, &err), TRAWL_OK);
	enum trawl_status st;
	size_t events = 0;
	while ((st = trawl_reader_next(r, &b, &err)) == TRAWL_OK) {
		for (size_t i = 0; i < b.count; i++, events++) {
			assert_int_equal(b.events[i].kind, TRAWL_EV_INSN);
			assert_true(b.events[i].flags & TRAWL_EVF_TRUNCATED);
			assert_int_equal(b.events[i].nregs, 0);
		}
	}
	assert_int_equal(st, TRAWL_END);
	assert_int_equal(events, 1);
	trawl_reader_close(r);
	/* a malformed line that is not the last is still an error naming it */
	static const char bad[] = "1 clk IT (1) 00001000 d503201f O EL1h_s : NOP\n1 clk R X0 00012\n";
	assert_int_equal(trawl_input_open_memory(&in, bad, sizeof bad - 1, "bad", NULL, NULL), TRAWL_OK);
	assert_int_equal(trawl_reader_open_input(&r, in, NULL, &err), TRAWL_OK);
	while ((st = trawl_reader_next(r, &b, &err)) == TRAWL_OK)
		;
	assert_int_equal(st, TRAWL_ERR_FORMAT);
	assert_int_equal(err.line, 2);
	trawl_reader_close(r);
	/* a very long line of register digits is refused, not overflowed */
	size_t n = 1 << 20;
	char *big = malloc(n + 32);
	memcpy(big, "1 clk R Z0 ", 11);
	memset(big + 11, 'a', n);
	struct trawl_tarmac *t = parser(0, 0, 0);
	assert_int_equal(trawl_tarmac_parse_line(t, big, n + 11, 0, &err), TRAWL_ERR_FORMAT);
	trawl_tarmac_destroy(t);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fm_instruction_lines),
		cmocka_unit_test(other_instruction_forms),
		cmocka_unit_test(implicit_thumb),
		cmocka_unit_test(timestamps),
		cmocka_unit_test(register_lines),
		cmocka_unit_test(memory_lines),
		cmocka_unit_test(ld_st_diagrams),
		cmocka_unit_test(exceptions_and_text),
		cmocka_unit_test(gap_lines),
		cmocka_unit_test(grouping),
		cmocka_unit_test(bad_lines),
		cmocka_unit_test(lenient_mode),
		cmocka_unit_test(chunking_invariance),
		cmocka_unit_test(fast_path_agrees),
		cmocka_unit_test(fast_path_edges),
		cmocka_unit_test(partial_parsing),
		cmocka_unit_test(partial_cut_line),
		cmocka_unit_test(hostile_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
