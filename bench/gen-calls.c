/* Generates a call-heavy AArch64 Tarmac trace (Fast Models style) for the
 * call-structure benchmark: a main loop calling a DAG of 16 functions, each
 * with a real prologue (STP x29,x30 with its SP and memory writes), a body
 * of ALU/load/store instructions, calls to later functions (BL writing X30)
 * and an epilogue (LDP restoring X30 and SP) ending in RET. Deterministic.
 * The number of calls and the deepest nesting go to stderr, so the bench can
 * check trawl's answer against them.
 *
 * usage: bench-gen-calls INSTRUCTIONS > file
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFUNC 16

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char buf[1 << 20];
static size_t used;
static uint64_t count, target, calls, maxdepth;
static uint64_t sp = 0x80000000, x30;

static void flush(void)
{
	fwrite(buf, 1, used, stdout);
	used = 0;
}

static void put(const char *s, size_t n)
{
	if (used + n + 256 > sizeof buf)
		flush();
	memcpy(buf + used, s, n);
	used += n;
}

#define PUTS(s) put(s, sizeof(s) - 1)

static void hex(uint64_t v, int digits)
{
	static const char d[] = "0123456789abcdef";
	for (int i = digits - 1; i >= 0; i--)
		buf[used++] = d[(v >> (4 * i)) & 15];
}

static void dec(uint64_t v)
{
	char t[24];
	int n = 0;
	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		buf[used++] = t[--n];
}

static void insn(uint64_t pc, uint32_t enc, const char *dis)
{
	count++;
	if (used + 512 > sizeof buf)
		flush();
	dec(count);
	PUTS(" clk IT (");
	dec(count);
	PUTS(") ");
	hex(pc, 8);
	buf[used++] = ' ';
	hex(enc, 8);
	PUTS(" O EL1h_ns : ");
	put(dis, strlen(dis));
	buf[used++] = '\n';
}

static void reg(const char *name, uint64_t v)
{
	dec(count);
	PUTS(" clk R ");
	put(name, strlen(name));
	buf[used++] = ' ';
	hex(v, 16);
	buf[used++] = '\n';
}

static void mem(const char *kind, uint64_t addr, uint64_t v)
{
	dec(count);
	buf[used++] = ' ';
	PUTS("clk ");
	put(kind, 4);
	hex(addr, 8);
	buf[used++] = ' ';
	hex(v >> 32, 8);
	buf[used++] = '_';
	hex(v, 8);
	buf[used++] = '\n';
}

static uint64_t func_addr(int f)
{
	return 0x10000 + (uint64_t)f * 0x1000;
}

static void body(uint64_t *pc, int n)
{
	for (int i = 0; i < n; i++) {
		switch (next() % 4) {
		case 0:
			insn(*pc, 0x91000400, "ADD      x0,x0,#1");
			reg("X0", next());
			break;
		case 1:
			insn(*pc, 0xf9400bea, "LDR      x10,[sp,#0x10]");
			mem("MR8 ", sp + 16, next());
			reg("X10", next());
			break;
		case 2:
			insn(*pc, 0xcb020021, "SUB      x1,x1,x2");
			reg("X1", next());
			break;
		default:
			insn(*pc, 0xf9000be9, "STR      x9,[sp,#0x10]");
			mem("MW8 ", sp + 16, next());
			break;
		}
		*pc += 4;
	}
}

static void call(int f, uint64_t depth)
{
	uint64_t pc = func_addr(f), ret = x30, saved_sp = sp;
	calls++;
	if (depth > maxdepth)
		maxdepth = depth;
	sp -= 32;
	insn(pc, 0xa9be7bfd, "STP      x29,x30,[sp,#-0x20]!");
	mem("MW8 ", sp, 0);
	mem("MW8 ", sp + 8, ret);
	reg("SP_EL1", sp);
	pc += 4;
	body(&pc, 2 + (int)(next() % 6));
	for (int g = f + 1; g < NFUNC && count < target; g++) {
		if (next() % 3)
			continue;
		uint64_t to = func_addr(g);
		insn(pc, 0x94000000u | (uint32_t)(((to - pc) / 4) & 0x03FFFFFF), "BL       callee");
		x30 = pc + 4;
		reg("X30", x30);
		call(g, depth + 1);
		pc += 4;
		body(&pc, 1 + (int)(next() % 3));
	}
	insn(pc, 0xa8c27bfd, "LDP      x29,x30,[sp],#0x20");
	mem("MR8 ", sp, 0);
	mem("MR8 ", sp + 8, ret);
	sp = saved_sp;
	x30 = ret;
	reg("X30", x30);
	reg("SP_EL1", sp);
	insn(pc + 4, 0xd65f03c0, "RET");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bench-gen-calls INSTRUCTIONS > file\n");
		return 2;
	}
	target = strtoull(argv[1], NULL, 10);
	reg("SP_EL1", sp);
	while (count < target) {
		uint64_t pc = 0x1000;
		body(&pc, 3);
		insn(pc, 0x94000000u | (uint32_t)(((func_addr(0) - pc) / 4) & 0x03FFFFFF), "BL       f0");
		x30 = pc + 4;
		reg("X30", x30);
		call(0, 1);
		insn(pc + 4, 0x17fffffc, "B        {pc}-0x10 ; 0x1000");
	}
	flush();
	fprintf(stderr, "instructions %llu calls %llu depth %llu\n", (unsigned long long)count,
		(unsigned long long)calls, (unsigned long long)maxdepth);
	return 0;
}
