/* tarmac_insn_may_store (lib/tarmac/store.c) against encodings made by an
 * independent assembler: every row below is llvm-mc 14's output for the
 * instruction in its comment (-show-encoding; aarch64 +lse, armv7a and
 * thumbv7a +neon,+vfp3; T32 as hw1 << 16 | hw2), and whether that
 * instruction can write memory is what the Arm ARM says of it (stores,
 * swaps, CAS, SRS, DC ZVA, and SVC/HLT/BKPT for semihosting: yes; loads,
 * literal loads, PRFM, data processing, branches: no). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tarmac/tarmac-int.h"

static const struct {
	uint32_t enc;
	uint8_t iset, width;
	int stores;
	const char *text;
} table[] = {
	{ 0xf90003e1, TRAWL_ISET_A64, 4, 1, "str x1, [sp]" },
	{ 0x39000420, TRAWL_ISET_A64, 4, 1, "strb w0, [x1, #1]" },
	{ 0xf81f8062, TRAWL_ISET_A64, 4, 1, "stur x2, [x3, #-8]" },
	{ 0xf8226820, TRAWL_ISET_A64, 4, 1, "str x0, [x1, x2]" },
	{ 0x3d8007e0, TRAWL_ISET_A64, 4, 1, "str q0, [sp, #16]" },
	{ 0xfd000001, TRAWL_ISET_A64, 4, 1, "str d1, [x0]" },
	{ 0xa9bf7bfd, TRAWL_ISET_A64, 4, 1, "stp x29, x30, [sp, #-16]!" },
	{ 0xad0007e0, TRAWL_ISET_A64, 4, 1, "stp q0, q1, [sp]" },
	{ 0xa8000440, TRAWL_ISET_A64, 4, 1, "stnp x0, x1, [x2]" },
	{ 0xc8007c41, TRAWL_ISET_A64, 4, 1, "stxr w0, x1, [x2]" },
	{ 0xc89ffc20, TRAWL_ISET_A64, 4, 1, "stlr x0, [x1]" },
	{ 0xc8200861, TRAWL_ISET_A64, 4, 1, "stxp w0, x1, x2, [x3]" },
	{ 0x48207c82, TRAWL_ISET_A64, 4, 1, "casp x0, x1, x2, x3, [x4]" },
	{ 0xc8a07c41, TRAWL_ISET_A64, 4, 1, "cas x0, x1, [x2]" },
	{ 0xf8200041, TRAWL_ISET_A64, 4, 1, "ldadd x0, x1, [x2]" },
	{ 0xf8208041, TRAWL_ISET_A64, 4, 1, "swp x0, x1, [x2]" },
	{ 0x4c007000, TRAWL_ISET_A64, 4, 1, "st1 { v0.16b }, [x0]" },
	{ 0xd4000001, TRAWL_ISET_A64, 4, 1, "svc #0" },
	{ 0xd45e0000, TRAWL_ISET_A64, 4, 1, "hlt #0xf000" },
	{ 0xd50b7420, TRAWL_ISET_A64, 4, 1, "dc zva, x0" },
	{ 0xf94003e1, TRAWL_ISET_A64, 4, 0, "ldr x1, [sp]" },
	{ 0x39400420, TRAWL_ISET_A64, 4, 0, "ldrb w0, [x1, #1]" },
	{ 0xf85f8062, TRAWL_ISET_A64, 4, 0, "ldur x2, [x3, #-8]" },
	{ 0xf8626820, TRAWL_ISET_A64, 4, 0, "ldr x0, [x1, x2]" },
	{ 0x3dc007e0, TRAWL_ISET_A64, 4, 0, "ldr q0, [sp, #16]" },
	{ 0xfd400001, TRAWL_ISET_A64, 4, 0, "ldr d1, [x0]" },
	{ 0xa8c17bfd, TRAWL_ISET_A64, 4, 0, "ldp x29, x30, [sp], #16" },
	{ 0xad4007e0, TRAWL_ISET_A64, 4, 0, "ldp q0, q1, [sp]" },
	{ 0xc85f7c41, TRAWL_ISET_A64, 4, 0, "ldxr x1, [x2]" },
	{ 0xc8dffc20, TRAWL_ISET_A64, 4, 0, "ldar x0, [x1]" },
	{ 0xc87f0861, TRAWL_ISET_A64, 4, 0, "ldxp x1, x2, [x3]" },
	{ 0x58000800, TRAWL_ISET_A64, 4, 0, "ldr x0, #256" },
	{ 0xb9800020, TRAWL_ISET_A64, 4, 0, "ldrsw x0, [x1]" },
	{ 0xf9800000, TRAWL_ISET_A64, 4, 0, "prfm pldl1keep, [x0]" },
	{ 0x4c407000, TRAWL_ISET_A64, 4, 0, "ld1 { v0.16b }, [x0]" },
	{ 0x8b020020, TRAWL_ISET_A64, 4, 0, "add x0, x1, x2" },
	{ 0x14000010, TRAWL_ISET_A64, 4, 0, "b #64" },
	{ 0x94000010, TRAWL_ISET_A64, 4, 0, "bl #64" },
	{ 0xd65f03c0, TRAWL_ISET_A64, 4, 0, "ret" },
	{ 0xd2800020, TRAWL_ISET_A64, 4, 0, "mov x0, #1" },
	{ 0x1e6e1001, TRAWL_ISET_A64, 4, 0, "fmov d1, #1.00000000" },
	{ 0x9b020c20, TRAWL_ISET_A64, 4, 0, "madd x0, x1, x2, x3" },
	{ 0xe5810000, TRAWL_ISET_A32, 4, 1, "str r0, [r1]" },
	{ 0xe5c10001, TRAWL_ISET_A32, 4, 1, "strb r0, [r1, #1]" },
	{ 0xe7810002, TRAWL_ISET_A32, 4, 1, "str r0, [r1, r2]" },
	{ 0xe1c100b0, TRAWL_ISET_A32, 4, 1, "strh r0, [r1]" },
	{ 0xe1c200f0, TRAWL_ISET_A32, 4, 1, "strd r0, r1, [r2]" },
	{ 0xe8800006, TRAWL_ISET_A32, 4, 1, "stm r0, {r1, r2}" },
	{ 0xe92d4010, TRAWL_ISET_A32, 4, 1, "push {r4, lr}" },
	{ 0xe1820f91, TRAWL_ISET_A32, 4, 1, "strex r0, r1, [r2]" },
	{ 0xe1020091, TRAWL_ISET_A32, 4, 1, "swp r0, r1, [r2]" },
	{ 0xed800b00, TRAWL_ISET_A32, 4, 1, "vstr d0, [r0]" },
	{ 0xed2d8b02, TRAWL_ISET_A32, 4, 1, "vpush {d8}" },
	{ 0xf96d0513, TRAWL_ISET_A32, 4, 1, "srsdb sp!, #19" },
	{ 0xf400070f, TRAWL_ISET_A32, 4, 1, "vst1.8 {d0}, [r0]" },
	{ 0xef123456, TRAWL_ISET_A32, 4, 1, "svc #1193046" },
	{ 0xe5910000, TRAWL_ISET_A32, 4, 0, "ldr r0, [r1]" },
	{ 0xe5d10001, TRAWL_ISET_A32, 4, 0, "ldrb r0, [r1, #1]" },
	{ 0xe7910002, TRAWL_ISET_A32, 4, 0, "ldr r0, [r1, r2]" },
	{ 0xe1d100b0, TRAWL_ISET_A32, 4, 0, "ldrh r0, [r1]" },
	{ 0xe1c200d0, TRAWL_ISET_A32, 4, 0, "ldrd r0, r1, [r2]" },
	{ 0xe1d100d0, TRAWL_ISET_A32, 4, 0, "ldrsb r0, [r1]" },
	{ 0xe8900006, TRAWL_ISET_A32, 4, 0, "ldm r0, {r1, r2}" },
	{ 0xe8bd8010, TRAWL_ISET_A32, 4, 0, "pop {r4, pc}" },
	{ 0xe1920f9f, TRAWL_ISET_A32, 4, 0, "ldrex r0, [r2]" },
	{ 0xed900b00, TRAWL_ISET_A32, 4, 0, "vldr d0, [r0]" },
	{ 0xecbd8b02, TRAWL_ISET_A32, 4, 0, "vpop {d8}" },
	{ 0xf420070f, TRAWL_ISET_A32, 4, 0, "vld1.8 {d0}, [r0]" },
	{ 0xe0810002, TRAWL_ISET_A32, 4, 0, "add r0, r1, r2" },
	{ 0xe0000291, TRAWL_ISET_A32, 4, 0, "mul r0, r1, r2" },
	{ 0xeb000040, TRAWL_ISET_A32, 4, 0, "bl #256" },
	{ 0xfa000040, TRAWL_ISET_A32, 4, 0, "blx #256" },
	{ 0xe12fff1e, TRAWL_ISET_A32, 4, 0, "bx lr" },
	{ 0xe3a00001, TRAWL_ISET_A32, 4, 0, "mov r0, #1" },
	{ 0xee310b02, TRAWL_ISET_A32, 4, 0, "vadd.f64 d0, d1, d2" },
	{ 0xf2010802, TRAWL_ISET_A32, 4, 0, "vadd.i8 d0, d1, d2" },
	{ 0xee110f10, TRAWL_ISET_A32, 4, 0, "mrc p15, #0, r0, c1, c0, #0" },
	{ 0x00006008, TRAWL_ISET_T32, 2, 1, "str r0, [r1]" },
	{ 0x00008048, TRAWL_ISET_T32, 2, 1, "strh r0, [r1, #2]" },
	{ 0x00005488, TRAWL_ISET_T32, 2, 1, "strb r0, [r1, r2]" },
	{ 0x00009001, TRAWL_ISET_T32, 2, 1, "str r0, [sp, #4]" },
	{ 0x0000c006, TRAWL_ISET_T32, 2, 1, "stm r0!, {r1, r2}" },
	{ 0x0000b510, TRAWL_ISET_T32, 2, 1, "push {r4, lr}" },
	{ 0x0000dfab, TRAWL_ISET_T32, 2, 1, "svc #171" },
	{ 0x0000beab, TRAWL_ISET_T32, 2, 1, "bkpt #171" },
	{ 0x00006808, TRAWL_ISET_T32, 2, 0, "ldr r0, [r1]" },
	{ 0x00008848, TRAWL_ISET_T32, 2, 0, "ldrh r0, [r1, #2]" },
	{ 0x00005688, TRAWL_ISET_T32, 2, 0, "ldrsb r0, [r1, r2]" },
	{ 0x00009801, TRAWL_ISET_T32, 2, 0, "ldr r0, [sp, #4]" },
	{ 0x0000c806, TRAWL_ISET_T32, 2, 0, "ldm r0!, {r1, r2}" },
	{ 0x0000bd10, TRAWL_ISET_T32, 2, 0, "pop {r4, pc}" },
	{ 0x00004802, TRAWL_ISET_T32, 2, 0, "ldr r0, [pc, #8]" },
	{ 0x00001888, TRAWL_ISET_T32, 2, 0, "adds r0, r1, r2" },
	{ 0x00002007, TRAWL_ISET_T32, 2, 0, "movs r0, #7" },
	{ 0x00004770, TRAWL_ISET_T32, 2, 0, "bx lr" },
	{ 0x0000b180, TRAWL_ISET_T32, 2, 0, "cbz r0, #32" },
	{ 0x0000e010, TRAWL_ISET_T32, 2, 0, "b #32" },
	{ 0xf8c10004, TRAWL_ISET_T32, 4, 1, "str.w r0, [r1, #4]" },
	{ 0xf8010002, TRAWL_ISET_T32, 4, 1, "strb.w r0, [r1, r2]" },
	{ 0xe9c20100, TRAWL_ISET_T32, 4, 1, "strd r0, r1, [r2]" },
	{ 0xe92d4ff0, TRAWL_ISET_T32, 4, 1, "push.w {r4, r5, r6, r7, r8, r9, r10, r11, lr}" },
	{ 0xe8421000, TRAWL_ISET_T32, 4, 1, "strex r0, r1, [r2]" },
	{ 0xed800b00, TRAWL_ISET_T32, 4, 1, "vstr d0, [r0]" },
	{ 0xed2d8b02, TRAWL_ISET_T32, 4, 1, "vpush {d8}" },
	{ 0xf900070f, TRAWL_ISET_T32, 4, 1, "vst1.8 {d0}, [r0]" },
	{ 0xe82dc013, TRAWL_ISET_T32, 4, 1, "srsdb sp!, #19" },
	{ 0xf8d10004, TRAWL_ISET_T32, 4, 0, "ldr.w r0, [r1, #4]" },
	{ 0xf8110002, TRAWL_ISET_T32, 4, 0, "ldrb.w r0, [r1, r2]" },
	{ 0xe9d20100, TRAWL_ISET_T32, 4, 0, "ldrd r0, r1, [r2]" },
	{ 0xe8bd8ff0, TRAWL_ISET_T32, 4, 0, "pop.w {r4, r5, r6, r7, r8, r9, r10, r11, pc}" },
	{ 0xe8520f00, TRAWL_ISET_T32, 4, 0, "ldrex r0, [r2]" },
	{ 0xed900b00, TRAWL_ISET_T32, 4, 0, "vldr d0, [r0]" },
	{ 0xecbd8b02, TRAWL_ISET_T32, 4, 0, "vpop {d8}" },
	{ 0xf920070f, TRAWL_ISET_T32, 4, 0, "vld1.8 {d0}, [r0]" },
	{ 0xe8d0f001, TRAWL_ISET_T32, 4, 0, "tbb [r0, r1]" },
	{ 0xeb010002, TRAWL_ISET_T32, 4, 0, "add.w r0, r1, r2" },
	{ 0xf000f880, TRAWL_ISET_T32, 4, 0, "bl #256" },
	{ 0xfb01f002, TRAWL_ISET_T32, 4, 0, "mul r0, r1, r2" },
	{ 0xee110f10, TRAWL_ISET_T32, 4, 0, "mrc p15, #0, r0, c1, c0, #0" },
	{ 0xee310b02, TRAWL_ISET_T32, 4, 0, "vadd.f64 d0, d1, d2" },
};

static void encodings(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		int got = tarmac_insn_may_store(table[i].enc, table[i].iset, table[i].width);
		if (got != table[i].stores)
			fail_msg("%s (0x%08x): may_store %d, expected %d", table[i].text,
				 table[i].enc, got, table[i].stores);
	}
}

static void unknown_state(void **state)
{
	(void)state;
	/* no instruction set known: no claim that it cannot store */
	assert_int_equal(tarmac_insn_may_store(0xd503201f, TRAWL_ISET_UNKNOWN, 4), 1);
	/* T32 without a width: 16-bit when the encoding fits 16 bits */
	assert_int_equal(tarmac_insn_may_store(0x6008, TRAWL_ISET_T32, 0), 1);  /* str r0,[r1] */
	assert_int_equal(tarmac_insn_may_store(0x6808, TRAWL_ISET_T32, 0), 0);  /* ldr r0,[r1] */
	assert_int_equal(tarmac_insn_may_store(0xf8c10004u, TRAWL_ISET_T32, 0), 1); /* str.w */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(encodings),
		cmocka_unit_test(unknown_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
