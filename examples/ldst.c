/* Every A64 load/store form the emulator computes its memory accesses for
 * (lib/emu/memop.c), each run once over a buffer of known bytes; the
 * program prints a checksum of the buffer and registers, the same on any
 * AArch64 Linux. `pair` also runs LDXP/STXP, which the decoder leaves to
 * Unicorn's memory hooks (the fallback). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint8_t buf[1024] __attribute__((aligned(64)));
static uint64_t lit64 = 0x1122334455667788u;

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3u;
}

static uint64_t gpr_forms(void)
{
	uint64_t b = (uint64_t)(buf + 256), r[8], h = 0;
	int64_t idx = -3;
	__asm__ volatile(
		"ldr  %0, [%8]\n\t"
		"ldr  %w1, [%8, #4]\n\t"
		"ldrh %w2, [%8, #6]\n\t"
		"ldrb %w3, [%8, #9]\n\t"
		"ldrsb %4, [%8, #10]\n\t"
		"ldrsh %w5, [%8, #12]\n\t"
		"ldrsw %6, [%8, #16]\n\t"
		"ldrsb %w7, [%8, #255]\n\t"
		"str  %0, [%8, #64]\n\t"
		"str  %w1, [%8, #72]\n\t"
		"strh %w2, [%8, #76]\n\t"
		"strb %w3, [%8, #79]\n\t"
		"ldur %0, [%8, #-5]\n\t"
		"stur %w1, [%8, #-17]\n\t"
		"ldtr %2, [%8, #8]\n\t"
		"sttrb %w3, [%8, #3]\n\t"
		"ldtrsh %4, [%8, #2]\n\t"
		"ldr  %5, [%8, %9, lsl #3]\n\t"
		"ldr  %w6, [%8, %w9, sxtw #2]\n\t"
		"ldrb %w7, [%8, %w9, sxtw]\n\t"
		"ldrh %w7, [%8, %9, sxtx #1]\n\t"
		"str  %5, [%8, %9]\n\t"
		"ldr  xzr, [%8, #24]\n\t"
		"str  xzr, [%8, #32]\n\t"
		"stp  xzr, xzr, [%8, #96]\n\t"
		"prfm pldl1keep, [%8, #128]\n\t"
		"prfm pldl1keep, [%8, %9]\n\t"
		"prfum pldl1keep, [%8, #3]\n\t"
		: "=&r"(r[0]), "=&r"(r[1]), "=&r"(r[2]), "=&r"(r[3]), "=&r"(r[4]), "=&r"(r[5]),
		  "=&r"(r[6]), "=&r"(r[7])
		: "r"(b), "r"(idx)
		: "memory");
	for (int i = 0; i < 8; i++)
		h = mix(h, r[i]);
	/* uxtw index with the top half set: only the low word counts */
	uint64_t big = 0xffffffff00000005u;
	__asm__ volatile("ldr %0, [%1, %w2, uxtw #3]" : "=r"(r[0]) : "r"(b), "r"(big) : "memory");
	h = mix(h, r[0]);
	/* pre/post-index and pairs */
	uint64_t p = b;
	__asm__ volatile(
		"ldr  %0, [%6, #8]!\n\t"
		"ldr  %w1, [%6], #-4\n\t"
		"str  %0, [%6, #-16]!\n\t"
		"strh %w1, [%6], #6\n\t"
		"ldp  %2, %3, [%6, #16]\n\t"
		"ldp  %w4, %w5, [%6, #-8]!\n\t"
		"stp  %2, %3, [%6], #32\n\t"
		"stp  %w4, %w5, [%6, #-64]\n\t"
		"ldpsw %2, %3, [%6, #8]\n\t"
		"ldnp %4, %5, [%6, #16]\n\t"
		"stnp %4, %5, [%6, #48]\n\t"
		"ldp  %0, %1, [%6], #16\n\t"
		: "=&r"(r[0]), "=&r"(r[1]), "=&r"(r[2]), "=&r"(r[3]), "=&r"(r[4]), "=&r"(r[5]), "+r"(p)
		:
		: "memory");
	for (int i = 0; i < 6; i++)
		h = mix(h, r[i]);
	h = mix(h, p - b);
	/* literal pool */
	__asm__ volatile(
		"ldr  %0, 1f\n\t"
		"ldr  %w1, 1f\n\t"
		"ldrsw %2, 2f\n\t"
		"prfm pldl1keep, 1f\n\t"
		"b 3f\n\t"
		".balign 8\n"
		"1: .quad 0x8877665544332211\n"
		"2: .word 0x80000001\n"
		"3:\n\t"
		: "=&r"(r[0]), "=&r"(r[1]), "=&r"(r[2]));
	h = mix(mix(mix(h, r[0]), r[1]), r[2]);
	/* exclusives and acquire/release */
	uint64_t x = (uint64_t)(buf + 512);
	uint32_t st = 0;
	__asm__ volatile(
		"1: ldxr  %0, [%4]\n\t"
		"add   %0, %0, #1\n\t"
		"stxr  %w2, %0, [%4]\n\t"
		"cbnz  %w2, 1b\n\t"
		"2: ldaxr %w1, [%4, #0]\n\t"
		"stlxr %w2, %w1, [%4]\n\t"
		"cbnz  %w2, 2b\n\t"
		"3: ldxrb %w1, [%4]\n\t"
		"stxrb %w2, %w1, [%4]\n\t"
		"cbnz  %w2, 3b\n\t"
		"4: ldaxrh %w1, [%4]\n\t"
		"stlxrh %w2, %w1, [%4]\n\t"
		"cbnz  %w2, 4b\n\t"
		"ldar  %0, [%4]\n\t"
		"ldarb %w1, [%4]\n\t"
		"stlr  %0, [%4, #0]\n\t"
		"stlrh %w1, [%4]\n\t"
		"ldxr  %w3, [%4]\n\t"
		"clrex\n\t"
		"stxr  %w2, %w3, [%4]\n\t"   /* fails: no access */
		: "=&r"(r[0]), "=&r"(r[1]), "=&r"(st), "=&r"(r[2])
		: "r"(x)
		: "memory");
	h = mix(mix(mix(mix(h, r[0]), r[1]), st), r[2]);
	return h ^ lit64;
}

static uint64_t fp_forms(void)
{
	uint64_t b = (uint64_t)(buf + 128), p = b, h = 0;
	int64_t idx = 2;
	uint64_t out[2];
	__asm__ volatile(
		"ldr  q0, [%0]\n\t"
		"ldr  d1, [%0, #24]\n\t"
		"ldr  s2, [%0, #36]\n\t"
		"ldr  h3, [%0, #2]\n\t"
		"ldr  b4, [%0, #7]\n\t"
		"ldur q5, [%0, #-3]\n\t"
		"ldr  q6, [%0, %1, lsl #4]\n\t"
		"ldr  d7, [%0, %1]\n\t"
		"str  q0, [%0, #256]\n\t"
		"str  d1, [%0, #272]\n\t"
		"str  s2, [%0, #280]\n\t"
		"str  h3, [%0, #284]\n\t"
		"str  b4, [%0, #287]\n\t"
		"stur q5, [%0, #249]\n\t"
		"str  q6, [%0, %1, lsl #4]\n\t"
		"ldr  q16, [%2, #16]!\n\t"
		"str  d16, [%2], #8\n\t"
		"ldp  q17, q18, [%0, #32]\n\t"
		"ldp  d19, d20, [%0, #-16]\n\t"
		"ldp  s21, s22, [%0, #4]\n\t"
		"stp  q17, q18, [%2, #-32]!\n\t"
		"stp  d19, d20, [%2], #16\n\t"
		"stp  s21, s22, [%2, #100]\n\t"
		"ldnp q23, q24, [%0, #64]\n\t"
		"stnp d23, d24, [%0, #320]\n\t"
		"ldr  q25, 1f\n\t"
		"ldr  d26, 1f\n\t"
		"ldr  s27, 1f\n\t"
		"b 2f\n\t"
		".balign 16\n"
		"1: .quad 0x0123456789abcdef, 0xfedcba9876543210\n"
		"2:\n\t"
		"eor  v0.16b, v0.16b, v5.16b\n\t"
		"eor  v0.16b, v0.16b, v6.16b\n\t"
		"eor  v0.16b, v0.16b, v16.16b\n\t"
		"eor  v0.16b, v0.16b, v17.16b\n\t"
		"eor  v0.16b, v0.16b, v25.16b\n\t"
		"eor  v0.16b, v0.16b, v23.16b\n\t"
		"str  q0, [%3]\n\t"
		:
		: "r"(b), "r"(idx), "r"(p), "r"(out)
		: "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v16", "v17", "v18",
		  "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27");
	h = mix(mix(h, out[0]), out[1]);
	/* structures: multiple and single, with post-index by immediate and register */
	uint64_t q = (uint64_t)(buf + 640), s = (uint64_t)(buf + 320);
	uint64_t step = 5;
	__asm__ volatile(
		"ld1  {v0.16b}, [%0]\n\t"
		"ld1  {v1.8b, v2.8b}, [%0]\n\t"
		"ld1  {v3.4s, v4.4s, v5.4s}, [%0]\n\t"
		"ld1  {v4.2d, v5.2d, v6.2d, v7.2d}, [%0], #64\n\t"
		"ld2  {v16.8h, v17.8h}, [%0], %2\n\t"
		"ld3  {v18.8b, v19.8b, v20.8b}, [%0]\n\t"
		"ld4  {v20.4s, v21.4s, v22.4s, v23.4s}, [%0]\n\t"
		"ld1  {v24.b}[3], [%0]\n\t"
		"ld2  {v24.h, v25.h}[1], [%0], #4\n\t"
		"ld3  {v25.s, v26.s, v27.s}[2], [%0]\n\t"
		"ld4  {v26.d, v27.d, v28.d, v29.d}[1], [%0], %2\n\t"
		"ld1r {v28.4s}, [%0]\n\t"
		"ld2r {v29.8b, v30.8b}, [%0], #2\n\t"
		"ld3r {v29.2d, v30.2d, v31.2d}, [%0]\n\t"
		"ld4r {v28.4h, v29.4h, v30.4h, v31.4h}, [%0], %2\n\t"
		"st1  {v0.16b}, [%1]\n\t"
		"st1  {v1.8b, v2.8b}, [%1], #16\n\t"
		"st2  {v16.8h, v17.8h}, [%1]\n\t"
		"st3  {v18.8b, v19.8b, v20.8b}, [%1], %2\n\t"
		"st4  {v20.4s, v21.4s, v22.4s, v23.4s}, [%1]\n\t"
		"st1  {v24.b}[3], [%1], #1\n\t"
		"st2  {v24.h, v25.h}[1], [%1]\n\t"
		"st3  {v25.s, v26.s, v27.s}[2], [%1], %2\n\t"
		"st4  {v26.d, v27.d, v28.d, v29.d}[1], [%1]\n\t"
		"eor  v0.16b, v0.16b, v7.16b\n\t"
		"eor  v0.16b, v0.16b, v23.16b\n\t"
		"eor  v0.16b, v0.16b, v29.16b\n\t"
		"eor  v0.16b, v0.16b, v31.16b\n\t"
		"str  q0, [%3]\n\t"
		: "+r"(q), "+r"(s)
		: "r"(step), "r"(out)
		: "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v16", "v17", "v18",
		  "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30",
		  "v31");
	h = mix(mix(h, out[0]), out[1]);
	return mix(mix(h, q - (uint64_t)buf), s - (uint64_t)buf);
}

static uint64_t pair_exclusive(void)
{
	uint64_t x = (uint64_t)(buf + 768), lo, hi;
	uint32_t st;
	__asm__ volatile(
		"1: ldxp %0, %1, [%3]\n\t"
		"add  %0, %0, #1\n\t"
		"stxp %w2, %0, %1, [%3]\n\t"
		"cbnz %w2, 1b\n\t"
		: "=&r"(lo), "=&r"(hi), "=&r"(st)
		: "r"(x)
		: "memory");
	return mix(lo, hi);
}

int main(int argc, char **argv)
{
	for (unsigned i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 37 + 11);
	uint64_t h = gpr_forms();
	h = mix(h, fp_forms());
	if (argc > 1 && strcmp(argv[1], "pair") == 0)
		h = mix(h, pair_exclusive());
	uint64_t m = 0;
	for (unsigned i = 0; i < sizeof buf; i++)
		m = mix(m, buf[i]);
	printf("registers %016llx memory %016llx\n", (unsigned long long)h, (unsigned long long)m);
	return 0;
}
