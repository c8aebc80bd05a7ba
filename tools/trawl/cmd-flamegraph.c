/* trawl flamegraph: folded stacks, or an interactive SVG flame graph. */
#include <stdio.h>
#include <string.h>

#include "calls-cli.h"

/* The calling-context tree is built once and written in either form; with
 * --svg the folded stacks are only written as well when -o asks for them, so
 * the SVG alone does not also flood standard output. Each output file is
 * closed and checked here, because a full disk only shows at fclose. */
int cmd_flamegraph(int argc, char **argv)
{
	struct calls_run r;
	struct trawl_cct t = { 0 };
	const char *out_path = NULL, *svg_path = NULL, *title = NULL;
	FILE *f = NULL;
	int rc;
	if ((rc = calls_run_init(&r, "flamegraph")))
		return rc;
	const struct cli_option opts[] = {
		CALLS_OPTIONS(&r),
		CLI_STRING("output", 'o', "FILE", &out_path,
			   "write the folded stacks to FILE instead of stdout"),
		CLI_STRING("svg", 0, "FILE", &svg_path, "write an SVG flame graph to FILE"),
		CLI_STRING("title", 0, "TEXT", &title, "title of the SVG (default: the trace name)"),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "flamegraph",
		.usage = "[--image ELF[@OFFSET]]... [-o FILE] [--svg FILE] TRACE",
		.description =
			"Writes the folded stacks of TRACE, one line per distinct call stack:\n"
			"\n"
			"  outer;inner;innermost COUNT\n"
			"\n"
			"where COUNT is the number of instructions executed with exactly that\n"
			"stack (the format flamegraph.pl and speedscope read). With --svg, draws\n"
			"an interactive flame graph instead (click a frame to zoom into it, click\n"
			"the bottom bar to zoom out; hover for counts).\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	if (calls_run_args(&r, &cmd, argc, argv, &rc) < 0)
		goto out;
	if ((rc = calls_run_read(&r)))
		goto out;
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_cct_build(&t, r.calls, &err) != TRAWL_OK) {
		rc = cli_report("flamegraph", &err);
		goto out;
	}
	if (svg_path) {
		f = fopen(svg_path, "w");
		if (!f) {
			cli_error("flamegraph", "cannot create '%s'", svg_path);
			rc = EXIT_BAD_INPUT;
			goto out;
		}
		enum trawl_status st = trawl_cct_write_svg(&t, f, title ? title : r.to.path, &err);
		int closed = fclose(f);
		f = NULL;
		if (st != TRAWL_OK) {
			rc = cli_report("flamegraph", &err);
			goto out;
		}
		if (closed != 0) {
			cli_error("flamegraph", "cannot write '%s'", svg_path);
			rc = EXIT_BAD_INPUT;
			goto out;
		}
		f = NULL;
		if (!out_path)
			goto out;
	}
	f = out_path && strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
	if (!f) {
		cli_error("flamegraph", "cannot create '%s'", out_path);
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	if (trawl_cct_write_folded(&t, f, &err) != TRAWL_OK) {
		rc = cli_report("flamegraph", &err);
		goto out;
	}
out:
	if (f && f != stdout && fclose(f) != 0 && !rc) {
		cli_error("flamegraph", "cannot write '%s'", out_path);
		rc = EXIT_BAD_INPUT;
	}
	trawl_cct_release(&t);
	calls_run_release(&r);
	return rc;
}
