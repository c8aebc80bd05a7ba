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
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int o = calls_run_option(&r, argc, argv, &i, &rc);
		if (o < 0)
			goto out;
		if (o)
			continue;
		if ((strcmp(a, "-o") == 0 || strcmp(a, "--svg") == 0 || strcmp(a, "--title") == 0) &&
		    i + 1 < argc) {
			const char **dst = a[1] == 'o' ? &out_path : a[2] == 's' ? &svg_path : &title;
			*dst = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			rc = cli_usage("flamegraph", "unknown option or missing value '%s'", a);
			goto out;
		} else if (!r.to.path) {
			r.to.path = a;
		} else {
			rc = cli_usage("flamegraph", "unexpected argument '%s'", a);
			goto out;
		}
	}
	if (!r.to.path) {
		rc = cli_usage("flamegraph", "no trace given");
		goto out;
	}
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
