/* The VCD writer (lib/analysis/vcd.c) on hand-built event batches, read
 * back by a small VCD reader written here from IEEE 1364-2005 section 18
 * (declarations, #time, bVALUE ID / 0ID / 1ID): each access of a store
 * pair at its own time, FP/SIMD registers as 128-bit signals with x for
 * unknown bytes, AArch32 names, the time scale of each mode, timestamps
 * that go backwards. Expected values are worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/reg.h"
#include "trawl/vcd.h"

/* ---- a tiny batch builder ---------------------------------------------- */

struct tb {
	struct trawl_event ev[32];
	struct trawl_reg_write regs[64];
	struct trawl_mem_access mems[32];
	uint8_t pool[4096];
	size_t nev, nreg, nmem, npool;
};

static void insn(struct tb *t, uint64_t time, uint64_t pc, uint8_t iset)
{
	struct trawl_event *e = &t->ev[t->nev];
	memset(e, 0, sizeof *e);
	e->seq = t->nev;
	e->line = t->nev + 1;
	e->kind = TRAWL_EV_INSN;
	e->time = time;
	e->time_unit = TRAWL_TIME_PS;
	e->first_reg = (uint32_t)t->nreg;
	e->first_mem = (uint32_t)t->nmem;
	e->u.insn.pc = pc;
	e->u.insn.iset = iset;
	e->u.insn.width = 4;
	t->nev++;
}

static uint32_t bytes(struct tb *t, const uint8_t *b, size_t n)
{
	uint32_t off = (uint32_t)t->npool;
	memcpy(t->pool + t->npool, b, n);
	t->npool += n;
	return off;
}

/* v: the value's bytes, least significant first; known: mask or NULL */
static void reg(struct tb *t, uint32_t r, uint16_t off, uint16_t size, uint16_t zext,
		const uint8_t *v, const uint8_t *known)
{
	struct trawl_reg_write *w = &t->regs[t->nreg++];
	memset(w, 0, sizeof *w);
	w->reg = r;
	w->offset = off;
	w->size = size;
	w->zext = zext;
	w->value = bytes(t, v, size);
	w->known = known ? bytes(t, known, (size + 7u) / 8u) : TRAWL_ALL_KNOWN;
	t->ev[t->nev - 1].nregs++;
}

static void mem(struct tb *t, uint8_t flags, uint64_t addr, uint32_t size, const uint8_t *v)
{
	struct trawl_mem_access *m = &t->mems[t->nmem++];
	memset(m, 0, sizeof *m);
	m->flags = flags;
	m->addr = addr;
	m->size = size;
	m->value = bytes(t, v, size);
	m->known = TRAWL_ALL_KNOWN;
	t->ev[t->nev - 1].nmems++;
}

/* The VCD text for t (malloc'ed). */
static char *write_vcd(const struct tb *t, int timestamps, uint64_t *backwards)
{
	struct trawl_vcd_options opt = { .use_timestamps = timestamps };
	struct trawl_vcd *v;
	struct trawl_error err;
	assert_int_equal(trawl_vcd_create(&v, &opt, &err), TRAWL_OK);
	struct trawl_event_batch b = { .events = t->ev, .count = t->nev, .regs = t->regs,
				       .mems = t->mems, .pool = t->pool };
	assert_int_equal(trawl_vcd_add(v, &b, &err), TRAWL_OK);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(trawl_vcd_finish(v, f, &err), TRAWL_OK);
	fclose(f);
	if (backwards)
		*backwards = trawl_vcd_backwards(v, NULL);
	trawl_vcd_destroy(v);
	return text;
}

/* ---- a small VCD reader ------------------------------------------------ */

/* Width and identifier of the variable `name` in scope cpu0; 0 if none. */
static unsigned var(const char *vcd, const char *name, char *id, size_t idsize)
{
	const char *p = vcd;
	char w[16], ident[16], nm[64];
	while ((p = strstr(p, "$var ")) != NULL) {
		if (sscanf(p, "$var %*s %15s %15s %63s $end", w, ident, nm) == 3 &&
		    strcmp(nm, name) == 0) {
			snprintf(id, idsize, "%s", ident);
			return (unsigned)atoi(w);
		}
		p += 5;
	}
	return 0;
}

/* Every change of identifier id after $enddefinitions, as "TIME:VALUE;"
 * in file order, into out. Times must never decrease. */
static void changes(const char *vcd, const char *id, char *out, size_t size)
{
	const char *p = strstr(vcd, "$enddefinitions $end");
	assert_non_null(p);
	p = strchr(p, '\n') + 1;
	unsigned long long now = 0, last = 0;
	int have_time = 0;
	out[0] = 0;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char line[256];
		assert_true(n < sizeof line);
		memcpy(line, p, n);
		line[n] = 0;
		p += n + (e != NULL);
		if (line[0] == '#') {
			now = strtoull(line + 1, NULL, 10);
			if (have_time && now < last)
				fail_msg("time goes backwards: #%llu after #%llu", now, last);
			last = now;
			have_time = 1;
			continue;
		}
		assert_true(have_time);
		char val[160], ident[16];
		if (line[0] == 'b') {
			assert_int_equal(sscanf(line + 1, "%159s %15s", val, ident), 2);
		} else {
			val[0] = line[0];
			val[1] = 0;
			assert_true(strlen(line + 1) < sizeof ident);
			memcpy(ident, line + 1, strlen(line + 1) + 1);
		}
		if (strcmp(ident, id) == 0) {
			size_t used = strlen(out);
			snprintf(out + used, size - used, "%llu:%s;", now, val);
		}
	}
}

static void history(const char *vcd, const char *name, char *out, size_t size)
{
	char id[16];
	if (!var(vcd, name, id, sizeof id))
		fail_msg("no variable %s", name);
	changes(vcd, id, out, size);
}

/* ---- tests --------------------------------------------------------------- */

static const uint8_t ones[8] = { 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11 };
static const uint8_t twos[8] = { 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22 };

static void pair_accesses(void **state)
{
	(void)state;
	static struct tb t;
	memset(&t, 0, sizeof t);
	/* 0: STP x1,x2,[sp] with sp 0x10000; 1: LDP, same addresses; 2: NOP */
	insn(&t, 10, 0x1000, TRAWL_ISET_A64);
	mem(&t, TRAWL_MEM_WRITE, 0x10000, 8, ones);
	mem(&t, TRAWL_MEM_WRITE, 0x10008, 8, twos);
	insn(&t, 20, 0x1004, TRAWL_ISET_A64);
	mem(&t, TRAWL_MEM_READ, 0x10000, 8, ones);
	mem(&t, TRAWL_MEM_READ, 0x10008, 8, twos);
	insn(&t, 30, 0x1008, TRAWL_ISET_A64);
	char *vcd = write_vcd(&t, 0, NULL);
	char h[1024];
	assert_non_null(strstr(vcd, "$timescale 1 ps $end"));
	/* instruction i at i*1000 (1 ns), access j of 2 at +j*500 */
	history(vcd, "mem_addr", h, sizeof h);
	assert_string_equal(h, "0:10000000000000000;500:10000000000001000;"
			       "1000:10000000000000000;1500:10000000000001000;");
	history(vcd, "mem_data", h, sizeof h);
	assert_string_equal(h, "0:1000100010001000100010001000100010001000100010001000100010001;"
			       "500:10001000100010001000100010001000100010001000100010001000100010;"
			       "1000:1000100010001000100010001000100010001000100010001000100010001;"
			       "1500:10001000100010001000100010001000100010001000100010001000100010;");
	history(vcd, "mem_write", h, sizeof h);
	assert_string_equal(h, "0:1;1000:0;");
	history(vcd, "mem_read", h, sizeof h);
	assert_string_equal(h, "0:0;1000:1;2000:0;");
	history(vcd, "pc", h, sizeof h);
	assert_string_equal(h, "0:1000000000000;1000:1000000000100;2000:1000000001000;");
	free(vcd);
}

static void vector_registers(void **state)
{
	(void)state;
	static struct tb t;
	memset(&t, 0, sizeof t);
	uint8_t q[16];
	for (int i = 0; i < 16; i++)
		q[i] = (uint8_t)(i + 1); /* v0 = 0x100f0e...0201 */
	insn(&t, 1, 0x1000, TRAWL_ISET_A64);
	reg(&t, TRAWL_REG_V0, 0, 16, 0, q, NULL);
	/* D1 = 0xff (zext 16: the whole V1 known) */
	const uint8_t d[8] = { 0xff, 0, 0, 0, 0, 0, 0, 0 };
	insn(&t, 2, 0x1004, TRAWL_ISET_A64);
	reg(&t, TRAWL_REG_V0 + 1, 0, 8, 16, d, NULL);
	/* V2<63:32> only, byte 5 unknown: the rest of V2 is x */
	const uint8_t s[4] = { 0xaa, 0xbb, 0xcc, 0xdd };
	const uint8_t sk[1] = { 0x0d };
	insn(&t, 3, 0x1008, TRAWL_ISET_A64);
	reg(&t, TRAWL_REG_V0 + 2, 4, 4, 0, s, sk);
	/* the same V0 value again: no new change */
	insn(&t, 4, 0x100c, TRAWL_ISET_A64);
	reg(&t, TRAWL_REG_V0, 0, 16, 0, q, NULL);
	char *vcd = write_vcd(&t, 0, NULL);
	char id[16], h[1024], want[1024];
	assert_int_equal(var(vcd, "v0", id, sizeof id), 128);
	assert_int_equal(var(vcd, "v1", id, sizeof id), 128);
	assert_int_equal(var(vcd, "v3", id, sizeof id), 0); /* never written */
	history(vcd, "v0", h, sizeof h);
	/* 0x10 0f .. 01: the leading byte 0x10 is 10000 once zeros are dropped */
	char bits[129] = "";
	for (int i = 15; i >= 0; i--)
		for (int b = 7; b >= 0; b--)
			strcat(bits, ((q[i] >> b) & 1) ? "1" : "0");
	snprintf(want, sizeof want, "0:%s;", strchr(bits, '1'));
	assert_string_equal(h, want);
	history(vcd, "v1", h, sizeof h);
	assert_string_equal(h, "1000:11111111;");
	history(vcd, "v2", h, sizeof h);
	/* bytes 15-8 x, 7 dd, 6 cc, 5 x (unknown), 4 aa, 3-0 x */
	char x64[65], x32[33];
	memset(x64, 'x', 64);
	x64[64] = 0;
	memset(x32, 'x', 32);
	x32[32] = 0;
	snprintf(want, sizeof want, "2000:%s" "11011101" "11001100" "xxxxxxxx" "10101010" "%s;",
		 x64, x32);
	assert_string_equal(h, want);
	free(vcd);
}

static void aarch32_names(void **state)
{
	(void)state;
	static struct tb t;
	memset(&t, 0, sizeof t);
	const uint8_t r[4] = { 0x78, 0x56, 0x34, 0x12 };
	insn(&t, 1, 0x8000, TRAWL_ISET_A32);
	reg(&t, TRAWL_REG_X0, 0, 4, 0, r, NULL);
	reg(&t, TRAWL_REG_PSR, 0, 4, 0, r, NULL);
	reg(&t, TRAWL_REG_FPSCR, 0, 4, 0, r, NULL);
	/* s5 = V1 bytes 4-7 */
	reg(&t, TRAWL_REG_V0 + 1, 4, 4, 0, r, NULL);
	char *vcd = write_vcd(&t, 0, NULL);
	char id[16];
	assert_int_equal(var(vcd, "r0", id, sizeof id), 32);
	assert_int_equal(var(vcd, "cpsr", id, sizeof id), 32);
	assert_int_equal(var(vcd, "fpscr", id, sizeof id), 32);
	assert_int_equal(var(vcd, "q1", id, sizeof id), 128);
	assert_int_equal(var(vcd, "x0", id, sizeof id), 0);
	assert_int_equal(var(vcd, "v1", id, sizeof id), 0);
	char h[256];
	history(vcd, "r0", h, sizeof h);
	assert_string_equal(h, "0:10010001101000101011001111000;");
	free(vcd);
}

static void timestamps(void **state)
{
	(void)state;
	static struct tb t;
	memset(&t, 0, sizeof t);
	/* ps: the axis is fs; the STP's second access at +500 fs */
	insn(&t, 2000, 0x1000, TRAWL_ISET_A64);
	mem(&t, TRAWL_MEM_WRITE, 0x10, 8, ones);
	mem(&t, TRAWL_MEM_WRITE, 0x18, 8, twos);
	insn(&t, 1000, 0x1004, TRAWL_ISET_A64); /* backwards: held at 2000 */
	insn(&t, 3000, 0x1008, TRAWL_ISET_A64);
	uint64_t back = 0;
	char *vcd = write_vcd(&t, 1, &back);
	char h[512];
	assert_non_null(strstr(vcd, "$timescale 1 fs $end"));
	assert_int_equal(back, 1);
	history(vcd, "mem_addr", h, sizeof h);
	assert_string_equal(h, "2000000:10000;2000500:11000;");
	/* the backwards instruction's pc change is not before the last time */
	history(vcd, "pc", h, sizeof h);
	assert_string_equal(h, "2000000:1000000000000;2000500:1000000000100;"
			       "3000000:1000000001000;");
	free(vcd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pair_accesses),
		cmocka_unit_test(vector_registers),
		cmocka_unit_test(aarch32_names),
		cmocka_unit_test(timestamps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
