/* Writes a synthetic AArch64 Tarmac trace (Fast Models style) for the
 * index benchmark: a mix of ALU instructions writing X/W registers, loads
 * and stores (8 and 16 bytes) over a 64 KiB stack and a 4 MiB heap, pair
 * stores, calls and returns. Usage: bench-index-gen N_INSNS > trace */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#define STACK 0x8ff00000ull
#define HEAP 0x90000000ull

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
	static char buf[1 << 20];
	setvbuf(stdout, buf, _IOFBF, sizeof buf);
	uint64_t pc = 0x80001000, sp = STACK + 0x8000, t = 0;
	uint64_t regs[31] = { 0 };
	for (uint64_t i = 0; i < n; i++) {
		t += 1 + (rnd() & 1);
		unsigned k = (unsigned)(rnd() % 100), r = (unsigned)(rnd() % 29);
		uint64_t v = rnd();
		if (k < 45) {
			printf("%" PRIu64 " clk IT (%" PRIu64 ") %016" PRIx64 " 8b020020 O EL1h_n : ADD      x%u,x1,x2\n",
			       t, i, pc, r);
			regs[r] = v;
			if (k < 10)
				printf("%" PRIu64 " clk R W%u %08" PRIx64 "\n", t, r, v & 0xffffffff);
			else
				printf("%" PRIu64 " clk R X%u %016" PRIx64 "\n", t, r, v);
		} else if (k < 65) {
			uint64_t a = (k & 1 ? HEAP + (rnd() % (4u << 20)) : sp + (rnd() % 512)) & ~(uint64_t)7;
			printf("%" PRIu64 " clk IT (%" PRIu64 ") %016" PRIx64 " f9400020 O EL1h_n : LDR      x%u,[x1]\n",
			       t, i, pc, r);
			printf("%" PRIu64 " clk MR8 %016" PRIx64 ":%012" PRIx64 " %08" PRIx64 "_%08" PRIx64 "\n",
			       t, a, a & (uint64_t)0xffffffffff, v >> 32, v & 0xffffffff);
			printf("%" PRIu64 " clk R X%u %016" PRIx64 "\n", t, r, v);
		} else if (k < 80) {
			uint64_t a = (k & 1 ? HEAP + (rnd() % (4u << 20)) : sp + (rnd() % 512)) & ~(uint64_t)7;
			printf("%" PRIu64 " clk IT (%" PRIu64 ") %016" PRIx64 " f9000020 O EL1h_n : STR      x%u,[x1]\n",
			       t, i, pc, r);
			printf("%" PRIu64 " clk MW8 %016" PRIx64 ":%012" PRIx64 " %08" PRIx64 "_%08" PRIx64 "\n",
			       t, a, a & (uint64_t)0xffffffffff, regs[r] >> 32, regs[r] & 0xffffffff);
		} else if (k < 85) {
			if (sp > STACK + 0x100)
				sp -= 16;
			printf("%" PRIu64 " clk IT (%" PRIu64 ") %016" PRIx64 " a9bf7bfd O EL1h_n : STP      x29,x30,[sp,#-16]!\n",
			       t, i, pc);
			printf("%" PRIu64 " clk MW16 %016" PRIx64 ":%012" PRIx64 " %016" PRIx64 "%016" PRIx64 "\n",
			       t, sp, sp & (uint64_t)0xffffffffff, regs[30], regs[29]);
			printf("%" PRIu64 " clk R SP_EL1 %016" PRIx64 "\n", t, sp);
		} else if (k < 88) {
			printf("%" PRIu64 " clk IT (%" PRIu64 ") %016" PRIx64 " 94000010 O EL1h_n : BL       0x%" PRIx64 "\n",
			       t, i, pc, pc + 64);
			printf("%" PRIu64 " clk R X30 %016" PRIx64 "\n", t, pc + 4);
			regs[30] = pc + 4;
			pc += 60;
		} else if (k < 91) {
			if (sp < STACK + 0x8000)
				sp += 16;
			printf("%" PRIu64 " clk IT (%" PRIu64 ") %016" PRIx64 " d65f03c0 O EL1h_n : RET\n", t, i, pc);
			pc = 0x80001000 + (rnd() % 4096) * 4 - 4;
		} else {
			printf("%" PRIu64 " clk IT (%" PRIu64 ") %016" PRIx64 " 54000041 O EL1h_n : B.NE     0x%" PRIx64 "\n",
			       t, i, pc, pc + 8);
		}
		pc += 4;
		if (pc > 0x80001000 + 0x10000)
			pc = 0x80001000;
	}
	return 0;
}
