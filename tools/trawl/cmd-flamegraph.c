/* trawl flamegraph: folded stacks, or an interactive SVG flame graph. */
#include <stdio.h>
#include <string.h>

#include "calls-cli.h"

static const char flamegraph_usage[] =
	"usage: trawl flamegraph [--image ELF[@OFFSET]]... [-o FILE] [--svg FILE] TRACE\n"
	"\n"
	"Writes the folded stacks of TRACE, one line per distinct call stack:\n"
	"\n"
	"  outer;inner;innermost COUNT\n"
	"\n"
	"where COUNT is the number of instructions executed with exactly that\n"
	"stack (the format flamegraph.pl and speedscope read). With --svg, draws\n"
	"an interactive flame graph instead (click a frame to zoom into it, click\n"
	"the bottom bar to zoom out; hover for counts).\n"
	"\n"
	"Options:\n"
	CALLS_OPTIONS_HELP
	"  -o FILE           write the folded stacks to FILE instead of stdout\n"
	"  --svg FILE        write an SVG flame graph to FILE\n"
	"  --title TEXT      title of the SVG (default: the trace name)\n"
	TRACE_OPTIONS_HELP;

struct flame_opts {
	const char *out, *svg, *title;
};

static int flame_option(void *ctx, int argc, char **argv, int *i, int *rc)
{
	struct flame_opts *fo = ctx;
	const char *a = argv[*i];
	const char **dst = strcmp(a, "-o") == 0 ? &fo->out
			 : strcmp(a, "--svg") == 0 ? &fo->svg
			 : strcmp(a, "--title") == 0 ? &fo->title : NULL;
	(void)rc;
	if (!dst || *i + 1 >= argc)
		return 0;
	*dst = argv[++*i];
	return 1;
}

int cmd_flamegraph(int argc, char **argv)
{
	struct calls_run r;
	struct trawl_cct t = { 0 };
	const char *out_path = NULL, *svg_path = NULL, *title = NULL;
	FILE *f = NULL;
	int rc;
	if (cli_wants_help(argc, argv)) {
		fputs(flamegraph_usage, stdout);
		return EXIT_OK;
	}
	if ((rc = calls_run_init(&r, "flamegraph")))
		return rc;
	struct flame_opts fo = { NULL, NULL, NULL };
	if ((rc = calls_run_args(&r, argc, argv, flame_option, NULL, &fo)))
		goto out;
	out_path = fo.out;
	svg_path = fo.svg;
	title = fo.title;
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
		if (trawl_cct_write_svg(&t, f, title ? title : r.to.path, &err) != TRAWL_OK ||
		    fclose(f) != 0) {
			f = NULL;
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
