/* trawl emulate: run a static AArch64 Linux program and write its Tarmac trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "ete-out.h"
#include "trawl/emu.h"

static const char emulate_description[] =
	"Runs PROGRAM, a statically linked AArch64 Linux executable (for example built\n"
	"with 'aarch64-linux-gnu-gcc -static'), in an emulator at EL0 and writes a Tarmac\n"
	"trace of every instruction: an IT line (IS when a conditional branch is not\n"
	"taken) with index, PC, encoding and disassembly, an R line for each register\n"
	"the instruction writes, and MR/MW lines for every memory access. Timestamps\n"
	"count instructions. The program's system calls are emulated on the host\n"
	"(files it opens are real host files, changed only under --root); its exit\n"
	"status becomes trawl's. Threads run as cores cpu0, cpu1...\n";

static const char emulate_footer[] =
	"A program that faults with no handler for the signal (unmapped access:\n"
	"SIGSEGV, undefined instruction: SIGILL, BRK: SIGTRAP) dies of it as on Linux:\n"
	"a message gives the signal, the PC and address, and the exit status is\n"
	"128 + the signal (139 for SIGSEGV). A run trawl cannot go on with (an\n"
	"unsupported system call) stops with a message and exit status 1. Either way\n"
	"the trace is valid up to the last completed instruction.\n"
	"\n"
	"Example:\n"
	"  trawl emulate build/examples/sort -o sort.tarmac.zst -- 5000\n";

/* Run the program (argv after -- are its arguments) and write its trace;
 * the exit status is the program's own when it exits. */
static int run_program(const char *program, const char *output, struct trawl_emu_options *o,
		       int stats, uint64_t zthreads, int nargs, char **args, struct ete_emu *ete)
{
	struct trawl_emu_options opt = *o;
	int rc;
	/* guest argv: the program's name, then everything after -- */
	int gargc = 1 + nargs;
	char **gargv = calloc((size_t)gargc + 1, sizeof *gargv);
	if (!gargv) {
		cli_error("emulate", "out of memory");
		return EXIT_BAD_INPUT;
	}
	gargv[0] = (char *)program;
	for (int k = 1; k < gargc; k++)
		gargv[k] = args[k - 1];
	opt.argc = gargc;
	opt.argv = gargv;
	int to_stdout = opt.style != TRAWL_EMU_STYLE_NONE && (!output || strcmp(output, "-") == 0) &&
			!(ete && !output);
	opt.guest_stdout = to_stdout ? 2 : 1;

	struct trawl_error err;
	struct trawl_emu *emu = NULL;
	struct trawl_outfile *out = NULL;
	struct trawl_emu_result res = { 0 };
	rc = EXIT_BAD_INPUT;
	enum trawl_status st = trawl_emu_open(&emu, program, &opt, &err);
	if (st) {
		rc = cli_report("emulate", &err);
		goto done;
	}
	if (opt.style != TRAWL_EMU_STYLE_NONE && !(ete && !output)) {
		st = trawl_outfile_open(&out, output ? output : "-", &err);
		if (!st)
			st = trawl_outfile_set_threads(out, (int)zthreads, &err);
		if (st) {
			rc = cli_report("emulate", &err);
			goto done;
		}
	}
	double t0 = cli_now();
	struct rusage ru0, ru1;
	getrusage(RUSAGE_SELF, &ru0);
	st = trawl_emu_run(emu, out, &res, &err);
	if (out) {
		struct trawl_error cerr;
		enum trawl_status cst = trawl_outfile_close(out, &cerr);
		out = NULL;
		if (cst && !st) {
			st = cst;
			err = cerr;
		}
	}
	getrusage(RUSAGE_SELF, &ru1);
	double wall = cli_now() - t0;
	double cpu = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
		     (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
		     (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
		     (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
	if (stats)
		fprintf(stderr,
			"emulate: %llu instructions, %llu trace bytes (%.1f per instruction), "
			"%.3f s wall, %.3f s cpu, %.2f M instructions/s (cpu), peak RSS %ld KiB\n",
			(unsigned long long)res.insns, (unsigned long long)res.trace_bytes,
			res.insns ? (double)res.trace_bytes / (double)res.insns : 0.0, wall, cpu,
			cpu > 0 ? (double)res.insns / cpu / 1e6 : 0.0, ru1.ru_maxrss);
	if (stats && res.mem_hooks_from)
		fprintf(stderr,
			"emulate: memory accesses from Unicorn's memory hooks from instruction %llu on%s; "
			"%llu instructions the decoder does not model\n",
			(unsigned long long)res.mem_hooks_from,
			opt.mem_hooks ? " (--memory-hooks)" : "", (unsigned long long)res.mem_unmodelled);
	/* with --root, only changes through descriptors opened outside it are
	 * refused: asking for --root again would send the user astray */
	if (res.refused_writes)
		cli_warn("emulate",
			 "the program's changes to files%s were refused (EROFS), %llu time%s; the first: %s%s",
			 opt.root ? " not opened through --root" : "",
			 (unsigned long long)res.refused_writes, res.refused_writes == 1 ? "" : "s",
			 res.refused_first, opt.root ? "" : ". Give --root DIR to let it write under DIR");
	if (st) {
		rc = cli_report("emulate", &err);
		if (res.stop == TRAWL_EMU_FAULT && res.signal)
			rc = res.exit_code; /* the program died of it, as on Linux */
		goto done;
	}
	rc = res.stop == TRAWL_EMU_EXITED ? res.exit_code : EXIT_OK;
done:
	if (ete) {
		int erc = ete->failed ? cli_report("emulate", &ete->err)
				      : ete_out_close("emulate", ete->eo, ete->dir, ete->img, 1);
		if (ete->failed)
			ete_out_abandon(ete->eo);
		if (erc && !rc)
			rc = erc;
	}
	if (out)
		trawl_outfile_close(out, NULL);
	trawl_emu_close(emu);
	free(gargv);
	return rc;
}

/* --ete DIR: the encoder sees each instruction as its line is written, and
 * the program's segments (and any code outside them the run executed)
 * become the snapshot's memory dumps. */
static int run_with_ete(const char *program, const char *output, struct trawl_emu_options *o,
			int stats, uint64_t zthreads, int nargs, char **args, const char *dir,
			const struct ete_out_opts *eo)
{
	struct ete_emu ete;
	struct trawl_image *img = NULL;
	memset(&ete, 0, sizeof ete);
	if (trawl_image_create(&img, &ete.err) != TRAWL_OK ||
	    trawl_image_add_elf(img, program, 0, &ete.err) != TRAWL_OK) {
		trawl_image_destroy(img);
		return cli_report("emulate", &ete.err);
	}
	int rc = ete_out_open("emulate", eo, &ete.eo);
	if (rc == 0) {
		ete.img = img;
		ete.dir = dir;
		o->insn_fn = ete_out_emu_insn;
		o->insn_ctx = &ete;
		rc = run_program(program, output, o, stats, zthreads, nargs, args, &ete);
	}
	trawl_image_destroy(img);
	return rc;
}

/* Only the arguments before "--" are parsed as trawl options: everything
 * after belongs to the program, options included. Combinations that would
 * surely be a mistake (-n 0, -o with --style none, a trace to a terminal)
 * are usage errors before the program starts. */
int cmd_emulate(int argc, char **argv)
{
	const char *program = NULL, *output = NULL;
	struct trawl_emu_options opt = { 0 };
	int stats = 0, style = 0, n_seen = 0, q_seen = 0, st_seen = 0, i, rc;
	uint64_t zthreads = (uint64_t)trawl_outfile_default_threads();
	const char *ete_dir = NULL;
	struct ete_out_opts eo;
	memset(&eo, 0, sizeof eo);
	/* in the order of enum trawl_emu_style */
	static const char *const styles[] = { "fm", "ldst", "none", NULL };
	const struct cli_option opts[] = {
		CLI_STRING("output", 'o', "TRACE", &output,
			   "write the trace to TRACE (default: standard output, in which\n"
			   "case the program's own output goes to standard error);\n"
			   "TRACE ending in .gz or .zst is compressed on the fly"),
		{ .kind = CLI_OPT_U64, .name = "max-insns", .short_name = 'n', .arg = "N",
		  .value = &opt.max_insns, .seen = &n_seen,
		  .help = "stop after N instructions (exit status 0)" },
		CLI_CHOICE("style", "STYLE", &style, styles,
			   "fm: Fast Models style memory lines, MR8 ADDR VALUE (default)\n"
			   "ldst: LD/ST lines, 16-byte memory diagrams, highest address first\n"
			   "none: no trace at all (to time the emulation alone)"),
		CLI_U64("compress-threads", "N", &zthreads, 64, NULL,
			"a .zst TRACE is compressed on N threads beside the emulator's,\n"
			"in independent frames (default: one fewer than the CPUs,\n"
			"at most 8; the emulating thread helps when they are busy);\n"
			"0 compresses in the emulating thread, as one frame"),
		CLI_STRING("root", 0, "DIR", &opt.root,
			   "the program may change files, under DIR only: its paths\n"
			   "resolve inside DIR (/x is DIR/x; no way out by .. or symlinks);\n"
			   "without it, every change fails with EROFS"),
		CLI_U64("quantum", "N", &opt.quantum, 0, &q_seen,
			"a thread runs N instructions before the next one does\n"
			"(default 10000); each thread is a core (cpuN) in the trace"),
		CLI_FLAG("fixed-clock", 0, &opt.fixed_clock,
			 "the program's clock_gettime reads a clock of the run's own:\n"
			 "2025-01-01 00:00 UTC (monotonic clocks: 0) plus 1 ns per\n"
			 "instruction, not the host's time, so that it gives the same\n"
			 "trace each run"),
		CLI_FLAG("stats", 0, &stats, "print instructions, trace size and speed on standard error"),
		CLI_U64("stack-top", "ADDR", &opt.stack_top, 0, &st_seen,
			"put the end of the 8 MiB stack at ADDR (page aligned, at most and by\n"
			"default 0xfffffffff000), e.g. where qemu-aarch64 puts it, to compare\n"
			"registers"),
		CLI_FLAG("memory-hooks", 0, &opt.mem_hooks,
			 "take memory accesses from Unicorn's memory hooks (slower; the\n"
			 "same trace: to compare with the accesses computed from the\n"
			 "decoded instructions)"),
		CLI_FLAG("check-writes", 0, &opt.verify_writes,
			 "slow self-check: compare the whole register file after each\n"
			 "instruction with the registers the trace reports as written"),
		CLI_STRING("ete", 0, "DIR", &ete_dir,
			   "also write the ETE snapshot a trace unit would have made\n"
			   "(trawl ete reads it); without -o, no Tarmac trace"),
		ETE_OUT_OPTIONS(&eo),
		CLI_TEXT("Arguments after -- are PROGRAM's own (its argv[1...])."),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "emulate",
		.usage = "PROGRAM [-o TRACE] [-n MAX_INSNS] [--style fm|ldst|none] [--compress-threads N]\n"
			 "                     [--stats] [--root DIR] [--quantum N] [--stack-top ADDR]\n"
			 "                     [--fixed-clock] [--check-writes] [--memory-hooks] [--ete DIR ...]\n"
			 "                     [-- ARGS...]",
		.description = emulate_description,
		.options = opts,
		.footer = emulate_footer,
		.min_args = 1, .max_args = -1, .missing = "no program given",
	};
	/* everything after -- belongs to the program, options included */
	int dashdash = 1;
	while (dashdash < argc && strcmp(argv[dashdash], "--") != 0)
		dashdash++;
	int n = cli_parse(&cmd, dashdash, argv, &rc);
	if (n < 0)
		return rc;
	if (n > 1)
		return cli_usage("emulate", "unexpected argument '%s' (program arguments go after --)",
				 argv[1]);
	program = argv[0];
	i = dashdash < argc ? dashdash + 1 : argc;
	opt.style = (enum trawl_emu_style)style;
	if (n_seen && !opt.max_insns)
		return cli_usage("emulate", "-n needs a positive number");
	if (q_seen && !opt.quantum)
		return cli_usage("emulate", "--quantum needs a positive number");
	if (st_seen && !opt.stack_top) /* 0 stands for the default in the emulator */
		return cli_usage("emulate", "--stack-top must not be 0");
	if (opt.style == TRAWL_EMU_STYLE_NONE && output)
		return cli_usage("emulate", "--style none writes no trace; drop -o");
	if (ete_dir && opt.style == TRAWL_EMU_STYLE_NONE)
		return cli_usage("emulate", "--ete needs a traced run; drop --style none");
	if (!output && !ete_dir && opt.style != TRAWL_EMU_STYLE_NONE && isatty(1))
		return cli_usage("emulate", "the trace would go to the terminal; give -o FILE");
	int urc = ete_out_check("emulate", &eo, ete_dir != NULL);
	if (urc)
		return urc;
	if (!ete_dir)
		return run_program(program, output, &opt, stats, zthreads, argc - i, argv + i, NULL);
	return run_with_ete(program, output, &opt, stats, zthreads, argc - i, argv + i, ete_dir, &eo);

}
