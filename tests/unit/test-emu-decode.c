/* The emulator's write sets: what each instruction writes, including the
 * classes Capstone 4 gets wrong. Expected sets are read off the Arm
 * architecture's description of each instruction; the encodings come from
 * GNU as (aarch64-linux-gnu-as) for the assembly shown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "emu/decode.h"

#define V(n) (EMU_REG_V0 + (n))
#define END 0xffff

struct want {
	uint32_t enc;
	const char *text;        /* assembly the encoding came from */
	unsigned kind;
	unsigned regs[9];        /* expected write set, END-terminated */
};

static const struct want cases[] = {
	{ 0xeb02003f, "cmp x1, x2", 0, { EMU_REG_CPSR, END } },
	{ 0x3100107f, "cmn w3, #4", 0, { EMU_REG_CPSR, END } },
	{ 0xf2401cbf, "tst x5, #0xff", 0, { EMU_REG_CPSR, END } },
	{ 0x6b02003f, "cmp w1, w2", 0, { EMU_REG_CPSR, END } },
	{ 0xfa431820, "ccmp x1, #3, #0, ne", 0, { EMU_REG_CPSR, END } },
	{ 0x1e612000, "fcmp d0, d1", 0, { EMU_REG_CPSR, END } },
	{ 0xd4000001, "svc #0", 0, { 0, END } },
	{ 0x4c00a000, "st1 {v0.16b, v1.16b}, [x0]", 0, { END } },
	{ 0x4c9f0824, "st4 {v4.4s-v7.4s}, [x1], #64", 0, { 1, END } },
	{ 0x0c40405d, "ld3 {v29.8b-v31.8b}, [x2]", 0, { V(29), V(30), V(31), END } },
	{ 0x4cdf0061, "ld4 {v1.16b-v4.16b}, [x3], #64", 0, { V(1), V(2), V(3), V(4), 3, END } },
	{ 0x0ddf9089, "ld1 {v9.s}[1], [x4], #4", 0, { V(9), 4, END } },
	{ 0x94000000, "bl .", 0, { 30, END } },
	{ 0xd63f00e0, "blr x7", 0, { 30, END } },
	{ 0xf8408c41, "ldr x1, [x2, #8]!", 0, { 1, 2, END } },
	{ 0xf8408441, "ldr x1, [x2], #8", 0, { 1, 2, END } },
	{ 0xb81f0fe3, "str w3, [sp, #-16]!", 0, { EMU_REG_SP, END } },
	{ 0xa9be7bfd, "stp x29, x30, [sp, #-32]!", 0, { EMU_REG_SP, END } },
	{ 0xa8c253f3, "ldp x19, x20, [sp], #32", 0, { 19, 20, EMU_REG_SP, END } },
	{ 0xad400400, "ldp q0, q1, [x0]", 0, { V(0), V(1), END } },
	{ 0xab020020, "adds x0, x1, x2", 0, { 0, EMU_REG_CPSR, END } },
	{ 0x54000001, "b.ne .", EMU_INSN_COND_BRANCH, { END } },
	{ 0xb4000001, "cbz x1, .", EMU_INSN_COND_BRANCH, { END } },
	{ 0xd65f03c0, "ret", 0, { END } },
	{ 0xd51b4203, "msr nzcv, x3", 0, { EMU_REG_CPSR, END } },
	{ 0xd51bd044, "msr tpidr_el0, x4", 0, { EMU_REG_TPIDR, END } },
	{ 0xd53bd045, "mrs x5, tpidr_el0", 0, { 5, END } },
	{ 0xc8097d6a, "stxr w9, x10, [x11]", 0, { 9, END } },
	{ 0xc85ffdac, "ldaxr x12, [x13]", 0, { 12, END } },
	{ 0x4e24d462, "fadd v2.4s, v3.4s, v4.4s", 0, { V(2), END } },
	{ 0x4e0c1cc5, "mov v5.s[1], w6", 0, { V(5), END } },
	{ 0xd5033bbf, "dmb ish", 0, { END } },
	{ 0xd503201f, "nop", 0, { END } },
	{ 0x3dc00507, "ldr q7, [x8, #16]", 0, { V(7), END } },
	{ 0xf2a00029, "movk x9, #1, lsl #16", 0, { 9, END } },
	{ 0x9a830041, "csel x1, x2, x3, eq", 0, { 1, END } },
};

static void write_sets(void **state)
{
	struct emu_decoder *d;
	struct trawl_error err;
	(void)state;
	assert_int_equal(emu_decoder_create(&d, &err), TRAWL_OK);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct want *w = &cases[i];
		struct emu_insn in;
		char text[160];
		emu_decode(d, 0x400000, w->enc, &in, text, sizeof text);
		unsigned n = 0;
		while (w->regs[n] != END)
			n++;
		int ok = in.nwrites == n && in.kind == w->kind;
		for (unsigned k = 0; ok && k < n; k++) {
			int found = 0;
			for (unsigned j = 0; j < in.nwrites; j++)
				found |= in.writes[j] == w->regs[k];
			ok = found;
		}
		if (!ok) {
			print_error("%s (%08x, disassembled '%s'): got %u writes:", w->text, w->enc, text,
				    in.nwrites);
			for (unsigned j = 0; j < in.nwrites; j++)
				print_error(" %s", emu_reg_name(in.writes[j]));
			print_error(", kind %u\n", in.kind);
		}
		assert_true(ok);
	}
	emu_decoder_destroy(d);
}

static void vector_memory_is_merged(void **state)
{
	struct emu_decoder *d;
	struct trawl_error err;
	struct emu_insn in;
	char text[160];
	(void)state;
	assert_int_equal(emu_decoder_create(&d, &err), TRAWL_OK);
	emu_decode(d, 0, 0x0c40405d, &in, text, sizeof text);  /* ld3 */
	assert_true(in.simd_mem);
	emu_decode(d, 0, 0x3dc00507, &in, text, sizeof text);  /* ldr q7 */
	assert_true(in.simd_mem);
	emu_decode(d, 0, 0xa8c253f3, &in, text, sizeof text);  /* ldp x19, x20: stays two accesses */
	assert_false(in.simd_mem);
	/* stores: stp q0, q1 is a vector store; stp xzr, xzr is not (xzr has
	 * no register code, which read as "a vector register" and merged the
	 * two 8-byte stores into one 16-byte write) */
	emu_decode(d, 0, 0xad0007e0, &in, text, sizeof text);  /* stp q0, q1, [sp] */
	assert_true(in.simd_mem);
	emu_decode(d, 0, 0xa9007fff, &in, text, sizeof text);  /* stp xzr, xzr, [sp] */
	assert_false(in.simd_mem);
	emu_decode(d, 0, 0xa9000be1, &in, text, sizeof text);  /* stp x1, x2, [sp] */
	assert_false(in.simd_mem);
	emu_decoder_destroy(d);
}

static void store_exclusive_has_no_reads(void **state)
{
	struct emu_decoder *d;
	struct trawl_error err;
	struct emu_insn in;
	char text[160];
	(void)state;
	assert_int_equal(emu_decoder_create(&d, &err), TRAWL_OK);
	emu_decode(d, 0, 0xc8097d6a, &in, text, sizeof text);  /* stxr w9, x10, [x11] */
	assert_true(in.no_reads);
	emu_decode(d, 0, 0xc85ffdac, &in, text, sizeof text);  /* ldaxr x12, [x13] */
	assert_false(in.no_reads);
	emu_decoder_destroy(d);
}

static void cache_and_text(void **state)
{
	struct emu_decoder *d;
	struct trawl_error err;
	(void)state;
	assert_int_equal(emu_decoder_create(&d, &err), TRAWL_OK);
	/* enough instructions to make the table grow several times */
	for (uint64_t pc = 0x400000; pc < 0x400000 + 4 * 20000; pc += 4)
		assert_non_null(emu_decoder_add(d, pc, 0xd503201f));
	const struct emu_insn *in = emu_decoder_add(d, 0x12345678, 0xeb02003f);
	assert_non_null(in);
	assert_ptr_equal(emu_decoder_find(d, 0x12345678), in);
	assert_null(emu_decoder_find(d, 0x12345670));
	const char want[] = " 12345678 eb02003f O EL0t_n : cmp      x1, x2\n";
	assert_int_equal(in->tail_len, strlen(want));
	assert_memory_equal(in->tail, want, in->tail_len);
	assert_ptr_equal(emu_decoder_find(d, 0x400000 + 4 * 777)->pc, 0x400000 + 4 * 777);
	/* an encoding Capstone cannot decode */
	in = emu_decoder_add(d, 0x500000, 0x00000000);
	assert_int_equal(in->kind, EMU_INSN_UNDEFINED);
	assert_int_equal(in->nwrites, 0);
	emu_decoder_destroy(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(write_sets),
		cmocka_unit_test(vector_memory_is_merged),
		cmocka_unit_test(store_exclusive_has_no_reads),
		cmocka_unit_test(cache_and_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
