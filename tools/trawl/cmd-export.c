/* trawl export: the call structure in formats other tools open. */
#include <stdio.h>
#include <string.h>

#include "calls-cli.h"

static const char export_usage[] =
	"usage: trawl export --perfetto [--image ELF[@OFFSET]]... [--timestamps] [-o FILE] TRACE\n"
	"\n"
	"--perfetto writes Chrome Trace Event JSON that opens in ui.perfetto.dev\n"
	"and chrome://tracing: one complete slice per call activation, one track\n"
	"per CPU, nested as the calls were. Time is the instruction count (one\n"
	"instruction shows as 1 us) unless --timestamps asks for the trace's own\n"
	"timestamps (ps and ns are converted; clock ticks and cycles show as us).\n"
	"\n"
	"Options:\n"
	CALLS_OPTIONS_HELP
	"  -o FILE           output file (default: standard output)\n"
	"  --timestamps      use the trace's timestamps instead of instruction counts\n"
	TRACE_OPTIONS_HELP;

struct export_opts {
	int perfetto, timestamps;
	const char *out;
};

static int export_option(void *ctx, int argc, char **argv, int *i, int *rc)
{
	struct export_opts *eo = ctx;
	const char *a = argv[*i];
	(void)rc;
	if (strcmp(a, "--perfetto") == 0)
		eo->perfetto = 1;
	else if (strcmp(a, "--timestamps") == 0)
		eo->timestamps = 1;
	else if (strcmp(a, "-o") == 0 && *i + 1 < argc)
		eo->out = argv[++*i];
	else
		return 0;
	return 1;
}

int cmd_export(int argc, char **argv)
{
	struct calls_run r;
	const char *out_path = NULL;
	struct trawl_perfetto_options po = { 0 };
	int perfetto = 0, rc;
	FILE *f = NULL;
	if (cli_wants_help(argc, argv)) {
		fputs(export_usage, stdout);
		return EXIT_OK;
	}
	if ((rc = calls_run_init(&r, "export")))
		return rc;
	struct export_opts eo = { 0, 0, NULL };
	if ((rc = calls_run_args(&r, argc, argv, export_option, NULL, &eo)))
		goto out;
	perfetto = eo.perfetto;
	po.use_timestamps = eo.timestamps;
	out_path = eo.out;
	if (!perfetto) {
		rc = cli_usage("export", "say which format: --perfetto");
		goto out;
	}
	if ((rc = calls_run_read(&r)))
		goto out;
	if (po.use_timestamps && trawl_calls_time_unit(r.calls) == TRAWL_TIME_NONE)
		cli_warn("export", "%s has no timestamps: using instruction counts", r.to.path);
	if (po.use_timestamps && trawl_calls_stats(r.calls)->time_backwards)
		cli_warn("export", "timestamps go backwards %llu times in %s: slices are clamped "
				   "inside their callers",
			 (unsigned long long)trawl_calls_stats(r.calls)->time_backwards, r.to.path);
	po.process_name = r.to.path;
	f = out_path && strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
	if (!f) {
		cli_error("export", "cannot create '%s'", out_path);
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_calls_write_perfetto(r.calls, f, &po, &err) != TRAWL_OK)
		rc = cli_report("export", &err);
out:
	if (f && f != stdout && fclose(f) != 0 && !rc) {
		cli_error("export", "cannot write '%s'", out_path);
		rc = EXIT_BAD_INPUT;
	}
	calls_run_release(&r);
	return rc;
}
