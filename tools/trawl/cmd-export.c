/* trawl export: the call structure in formats other tools open. */
#include <stdio.h>
#include <string.h>

#include "calls-cli.h"
#include "events-act.h"

/* --perfetto is required although it is the only format, so that adding a
 * second one later does not change what a bare "trawl export" means. The
 * warnings about missing or backward timestamps come before the output,
 * because the file itself cannot say that its time axis was substituted or
 * clamped. */
int cmd_export(int argc, char **argv)
{
	struct calls_run r;
	const char *out_path = NULL;
	struct trawl_perfetto_options po = { 0 };
	int perfetto = 0, timestamps = 0, rc;
	FILE *f = NULL;
	/* a software-event trace (CTF directory) has its own reader */
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '-' && events_is_trace(argv[i]))
			return events_export(argc, argv);
	if ((rc = calls_run_init(&r, "export")))
		return rc;
	const struct cli_option opts[] = {
		CLI_FLAG("perfetto", 0, &perfetto, "Chrome Trace Event JSON (the only format so far)"),
		CALLS_OPTIONS(&r),
		CLI_STRING("output", 'o', "FILE", &out_path, "output file (default: standard output)"),
		CLI_FLAG("timestamps", 0, &timestamps,
			 "use the trace's timestamps instead of instruction counts"),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "export",
		.usage = "--perfetto [--image ELF[@OFFSET]]... [--timestamps] [-o FILE] TRACE",
		.description =
			"--perfetto writes Chrome Trace Event JSON that opens in ui.perfetto.dev\n"
			"and chrome://tracing: one complete slice per call activation, one track\n"
			"per CPU, nested as the calls were. Time is the instruction count (one\n"
			"instruction shows as 1 us) unless --timestamps asks for the trace's own\n"
			"timestamps (ps and ns are converted; clock ticks and cycles show as us).\n"
			"\n"
			"A software-event trace (a CTF directory) is exported with options of its\n"
			"own: --defs for activities and the events filters (--cpu, --thread,\n"
			"--subsys, --event, --time, --where, --script...); `trawl export --help\n"
			"TRACEDIR` lists them.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	if (calls_run_args(&r, &cmd, argc, argv, &rc) < 0)
		goto out;
	po.use_timestamps = timestamps;
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
