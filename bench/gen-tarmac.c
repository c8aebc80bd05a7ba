/* Generates Fast-Models-style AArch64 Tarmac text for the parser benchmark:
 * a small program looping over a 64 KiB code region, with the register and
 * memory lines Fast Models prints after each instruction (X writes, cpsr
 * after compares, MR8/MW8/MR4/MW4 with virtual:physical addresses, IS for
 * condition-failed branches). Deterministic (fixed PRNG seed).
 *
 * usage: bench-gen-tarmac MEGABYTES > file
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char buf[1 << 20];
static size_t used;

static void flush(void)
{
	fwrite(buf, 1, used, stdout);
	used = 0;
}

static void put(const char *s, size_t n)
{
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

static void prefix(uint64_t time)
{
	dec(time);
	PUTS(" clk ");
}

struct op {
	const char *disasm;
	uint32_t enc;
	int kind; /* 0 alu, 1 load, 2 store, 3 pair store, 4 cmp, 5 cond branch, 6 call */
};

static const struct op ops[] = {
	{ "MOV      x8,#0x10000", 0xd2a00028, 0 },
	{ "ADD      x0,x0,#1", 0x91000400, 0 },
	{ "LDR      x0,[x8,#0x400]", 0xf9420100, 1 },
	{ "STR      x9,[x8,#0x410]", 0xf9020909, 2 },
	{ "SUB      x1,x1,x2", 0xcb020021, 0 },
	{ "LDR      w3,[x19,#0x18]", 0xb9401a63, 1 },
	{ "CMP      x1,x2", 0xeb02003f, 4 },
	{ "B.NE     {pc}-0xc ; 0xc7e0", 0x54ffffa1, 5 },
	{ "STP      x29,x30,[sp,#-0x20]!", 0xa9be7bfd, 3 },
	{ "ORR      x9,xzr,x0", 0xaa0003e9, 0 },
	{ "BL       {pc}+0x4778 ; 0xc778", 0x940011de, 6 },
	{ "STR      w10,[x21,#0x4]", 0xb90006aa, 2 },
	{ "LDR      x10,[sp,#0x10]", 0xf9400bea, 1 },
	{ "MADD     x11,x12,x13,x11", 0x9b0d2d8b, 0 },
};

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bench-gen-tarmac MEGABYTES > file\n");
		return 2;
	}
	uint64_t target = strtoull(argv[1], NULL, 10) << 20, total = 0;
	uint64_t time = 0, count = 0, pc = 0x80000;
	const size_t nops = sizeof ops / sizeof ops[0];
	while (total < target) {
		const struct op *o = &ops[next() % nops];
		int fail = o->kind == 5 && next() % 4 == 0;
		prefix(time);
		put(fail ? "IS (" : "IT (", 4);
		dec(count);
		PUTS(") ");
		hex(pc, 8);
		buf[used++] = ' ';
		hex(o->enc, 8);
		PUTS(" O EL1h_ns : ");
		put(o->disasm, strlen(o->disasm));
		buf[used++] = '\n';
		uint64_t a = 0x40010000 + (next() & 0xfff8), v = next();
		unsigned reg = (unsigned)(next() % 31);
		switch (fail ? -1 : o->kind) {
		case 0:
			prefix(time);
			PUTS("R X");
			dec(reg);
			buf[used++] = ' ';
			hex(v, 16);
			buf[used++] = '\n';
			break;
		case 1:
			prefix(time);
			put(o->disasm[9] == 'w' ? "MR4 " : "MR8 ", 4);
			hex(a, 8);
			buf[used++] = ':';
			hex(a, 12);
			buf[used++] = ' ';
			if (o->disasm[9] == 'w') {
				hex(v, 8);
			} else {
				hex(v >> 32, 8);
				buf[used++] = '_';
				hex(v, 8);
			}
			buf[used++] = '\n';
			prefix(time);
			PUTS("R X");
			dec(reg);
			buf[used++] = ' ';
			hex(o->disasm[9] == 'w' ? (uint32_t)v : v, 16);
			buf[used++] = '\n';
			break;
		case 3:
			prefix(time);
			PUTS("MW8 ");
			hex(a + 8, 8);
			buf[used++] = ':';
			hex(a + 8, 12);
			buf[used++] = ' ';
			hex(next() >> 32, 8);
			buf[used++] = '_';
			hex(v, 8);
			buf[used++] = '\n';
			prefix(time);
			PUTS("R SP_EL1 ");
			hex(a, 16);
			buf[used++] = '\n';
			goto store; /* the second store of the pair */
		case 2:
store:
			prefix(time);
			PUTS("MW8 ");
			hex(a, 8);
			buf[used++] = ':';
			hex(a, 12);
			buf[used++] = ' ';
			hex(v >> 32, 8);
			buf[used++] = '_';
			hex(v, 8);
			buf[used++] = '\n';
			break;
		case 4:
			prefix(time);
			PUTS("R cpsr ");
			hex((next() & 0xf0000000) | 0x3c5, 8);
			buf[used++] = '\n';
			break;
		case 6:
			prefix(time);
			PUTS("R X30 ");
			hex(pc + 4, 16);
			buf[used++] = '\n';
			break;
		default:
			break;
		}
		/* mostly straight-line code with occasional jumps in 64 KiB */
		pc = next() % 8 == 0 ? 0x80000 + (next() & 0xfffc) : pc + 4;
		if (pc >= 0x90000)
			pc = 0x80000;
		time++;
		count++;
		if (used > sizeof buf - 4096) {
			total += used;
			flush();
		}
	}
	flush();
	return 0;
}
