/* The emulator reads X0-X30, SP and NZCV straight from Unicorn's CPU
 * state (lib/emu/regs-direct.c). With the Unicorn the build uses the
 * words must be found (else the emulator silently falls back to the slow
 * uc_reg_read), and they must agree with uc_reg_read, the independent
 * truth: for values written through Unicorn's API, for all 16 NZCV
 * values, and after a program ran. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "emu/emu-int.h"

#if defined(TRAWL_HAVE_UNICORN) && defined(TRAWL_HAVE_CAPSTONE)
static int uc_id(unsigned i)
{
	return i < 29 ? UC_ARM64_REG_X0 + (int)i : i == 29 ? UC_ARM64_REG_X29
	       : i == 30 ? UC_ARM64_REG_X30 : UC_ARM64_REG_SP;
}

static void check_all(struct trawl_emu *e)
{
	for (unsigned i = 0; i < 32; i++) {
		uint64_t v = 0, d[2];
		uc_reg_read(e->uc, uc_id(i), &v);
		emu_read_reg(e, i, d);
		assert_true(d[0] == v);
		assert_true(e->xregs[i] == v);
	}
}

static void direct_reads(void **state)
{
	(void)state;
	char program[4096];
	const char *b = getenv("TRAWL_BUILD");
	snprintf(program, sizeof program, "%s/examples/sort", b ? b : "build");
	if (access(program, X_OK) != 0)
		skip();
	char *argv[] = { program, "200", NULL };
	struct trawl_emu_options opt = { .argc = 2, .argv = argv, .style = TRAWL_EMU_STYLE_NONE };
	opt.guest_stdout = open("/dev/null", O_WRONLY);
	struct trawl_emu *e;
	struct trawl_error err;
	assert_int_equal(trawl_emu_open(&e, program, &opt, &err), TRAWL_OK);
	assert_non_null(e->xregs);
	assert_non_null(e->flagw);
	check_all(e);
	uint64_t sp0 = 0;
	uc_reg_read(e->uc, UC_ARM64_REG_SP, &sp0);
	for (unsigned i = 0; i < 32; i++) {
		uint64_t v = (UINT64_C(0x0123456789abcdef) * (i + 1)) ^ ((uint64_t)i << 59);
		uc_reg_write(e->uc, uc_id(i), &v);
	}
	check_all(e);
	for (uint32_t f = 0; f < 16; f++) {
		uint32_t want = f << 28, got = 0;
		uint64_t d[2];
		uc_reg_write(e->uc, UC_ARM64_REG_NZCV, &want);
		uc_reg_read(e->uc, UC_ARM64_REG_NZCV, &got);
		assert_int_equal(got & 0xf0000000u, want);
		emu_read_reg(e, EMU_REG_CPSR, d);
		assert_int_equal(d[0], want);
	}
	/* put the start-up state back and run the program: the words must
	 * still be the live ones afterwards */
	uint64_t zero = 0;
	for (unsigned i = 0; i < 31; i++)
		uc_reg_write(e->uc, uc_id(i), &zero);
	uc_reg_write(e->uc, UC_ARM64_REG_SP, &sp0);
	struct trawl_emu_result res;
	assert_int_equal(trawl_emu_run(e, NULL, &res, &err), TRAWL_OK);
	assert_int_equal(res.exit_code, 0);
	check_all(e);
	uint32_t nzcv = 0;
	uint64_t d[2];
	uc_reg_read(e->uc, UC_ARM64_REG_NZCV, &nzcv);
	emu_read_reg(e, EMU_REG_CPSR, d);
	assert_int_equal(d[0], nzcv & 0xf0000000u);
	trawl_emu_close(e);
	close(opt.guest_stdout);
}
#else
static void direct_reads(void **state)
{
	(void)state;
	skip();
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(direct_reads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
