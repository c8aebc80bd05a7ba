/* The emulator through its library API: exit status, the instruction limit,
 * a guest fault, and the trace read back through trawl's own reader (every
 * BL writes X30 with the address after it; the instruction count matches).
 * Uses the demo programs in $TRAWL_BUILD/examples; skipped without them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trawl/emu.h"
#include "trawl/reader.h"

static char program[4096], trace[4096];

static int find_example(const char *name)
{
	const char *b = getenv("TRAWL_BUILD");
	snprintf(program, sizeof program, "%s/examples/%s", b ? b : "build", name);
	snprintf(trace, sizeof trace, "/tmp/trawl-test-emu-run-%d.tarmac", (int)getpid());
	return access(program, X_OK) == 0;
}

static enum trawl_status emulate(char **argv, int argc, uint64_t max, struct trawl_emu_result *res,
				 struct trawl_error *err)
{
	struct trawl_emu_options opt = { .argc = argc, .argv = argv, .max_insns = max };
	struct trawl_emu *e;
	struct trawl_outfile *o;
	opt.guest_stdout = open("/dev/null", O_WRONLY);
	enum trawl_status st = trawl_emu_open(&e, program, &opt, err);
	if (st)
		return st;
	assert_int_equal(trawl_outfile_open(&o, trace, err), TRAWL_OK);
	st = trawl_emu_run(e, o, res, err);
	assert_int_equal(trawl_outfile_close(o, NULL), TRAWL_OK);
	trawl_emu_close(e);
	close(opt.guest_stdout);
	return st;
}

static void exit_status(void **state)
{
	(void)state;
	if (!find_example("faults"))
		skip();
	char *argv[] = { program, "exit", "3", NULL };
	struct trawl_emu_result res;
	struct trawl_error err;
	assert_int_equal(emulate(argv, 3, 0, &res, &err), TRAWL_OK);
	assert_int_equal(res.stop, TRAWL_EMU_EXITED);
	assert_int_equal(res.exit_code, 3);
	assert_true(res.insns > 1000);
	unlink(trace);
}

static void limit_and_reader(void **state)
{
	(void)state;
	if (!find_example("sort"))
		skip();
	char *argv[] = { program, "50", NULL };
	struct trawl_emu_result res;
	struct trawl_error err;
	assert_int_equal(emulate(argv, 2, 5000, &res, &err), TRAWL_OK);
	assert_int_equal(res.stop, TRAWL_EMU_LIMIT);
	assert_int_equal(res.insns, 5000);

	struct trawl_reader *r;
	assert_int_equal(trawl_reader_open(&r, trace, NULL, &err), TRAWL_OK);
	struct trawl_event_batch b;
	enum trawl_status st;
	uint64_t insns = 0, bls = 0;
	while ((st = trawl_reader_next(r, &b, &err)) == TRAWL_OK) {
		for (size_t i = 0; i < b.count; i++) {
			const struct trawl_event *ev = &b.events[i];
			if (ev->kind != TRAWL_EV_INSN)
				continue;
			insns++;
			assert_int_equal(ev->time, insns);  /* timestamps count instructions */
			if ((ev->u.insn.encoding & 0xfc000000u) != 0x94000000u)
				continue;
			/* BL: exactly one register write, X30 = pc + 4 */
			bls++;
			assert_int_equal(ev->nregs, 1);
			const struct trawl_reg_write *w = &b.regs[ev->first_reg];
			assert_int_equal(w->reg, TRAWL_REG_X0 + 30);
			uint64_t v = 0;
			memcpy(&v, b.pool + w->value, w->size < 8 ? w->size : 8);
			assert_int_equal(v, ev->u.insn.pc + 4);
		}
	}
	assert_int_equal(st, TRAWL_END);
	assert_int_equal(insns, 5000);
	assert_true(bls > 10);
	trawl_reader_close(r);
	unlink(trace);
}

static void fault(void **state)
{
	(void)state;
	if (!find_example("faults"))
		skip();
	char *argv[] = { program, "null", NULL };
	struct trawl_emu_result res;
	struct trawl_error err;
	assert_int_equal(emulate(argv, 2, 0, &res, &err), TRAWL_ERR_FORMAT);
	assert_int_equal(res.stop, TRAWL_EMU_FAULT);
	assert_int_equal(res.fault_addr, 0x10);
	char pc[32];
	snprintf(pc, sizeof pc, "at pc 0x%llx,", (unsigned long long)res.fault_pc);
	assert_non_null(strstr(err.message, pc));
	assert_non_null(strstr(err.message, "write to unmapped memory"));
	unlink(trace);
}

static void missing_program(void **state)
{
	(void)state;
	struct trawl_emu_options opt = { 0 };
	struct trawl_emu *e = NULL;
	struct trawl_error err;
	char *argv[] = { "prog", NULL };
	opt.argc = 1;
	opt.argv = argv;
	assert_int_not_equal(trawl_emu_open(&e, "/nonexistent/prog", &opt, &err), TRAWL_OK);
	assert_null(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exit_status),
		cmocka_unit_test(limit_and_reader),
		cmocka_unit_test(fault),
		cmocka_unit_test(missing_program),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
