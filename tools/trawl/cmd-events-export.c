/* trawl export --perfetto over a software-event trace: the events and the
 * activities --defs declares as Chrome Trace Event JSON (sw-perfetto.h).
 * cmd-export.c hands a CTF trace directory over to this. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "events-act.h"
#include "events-run.h"
#include "trawl/sw-perfetto.h"

struct exp {
	struct events_run *r;
	struct trawl_swperf *p;
};

static void on_record(void *ctx, const struct trawl_act_record *rec)
{
	struct exp *e = ctx;
	if (events_run_act_kept(e->r, rec))
		trawl_swperf_activity(e->p, rec);
}

int events_is_trace(const char *path)
{
	char m[4096];
	struct stat st;
	snprintf(m, sizeof m, "%s/metadata", path);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) && stat(m, &st) == 0;
}

/* Its own option table (cmd-export.c's is for instruction traces): the
 * writer gets events as they are read and activities as the engine
 * finishes them, so the file is written in one pass with flat memory. */
int events_export(int argc, char **argv)
{
	struct events_run r = { .cmd = "export" };
	struct exp e = { .r = &r };
	const char *out_path = NULL;
	int perfetto = 0, prc;
	const struct cli_option opts[] = {
		CLI_FLAG("perfetto", 0, &perfetto, "Chrome Trace Event JSON (the only format so far)"),
		CLI_STRING("output", 'o', "FILE", &out_path, "output file (default: standard output)"),
		EVENTS_ACTIVITY_OPTIONS(&r),
		EVENTS_FILTER_OPTIONS(&r),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "export",
		.usage = "--perfetto [--defs FILE.tdef] [filters] [-o FILE] TRACE",
		.description =
			"For a software-event trace (a CTF directory): events as instants on\n"
			"one track per thread; with --defs, spans as slices (nested per thread;\n"
			"keyed by cpu or a field: async slices), states as slices on one track\n"
			"per core, messages as arrows between cores.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	if (cli_parse(&cmd, argc, argv, &prc) < 0)
		return prc;
	if (!perfetto)
		return cli_usage("export", "say which format: --perfetto");
	r.dir = argv[0];
	struct trawl_error err;
	trawl_error_clear(&err);
	int rc = events_run_open(&r, on_record, &e);
	if (!rc)
		rc = cli_output_to(r.cmd, out_path);
	if (!rc && trawl_swperf_begin(&e.p, stdout, r.dir, r.defs, r.act, &err))
		rc = cli_report(r.cmd, &err);
	if (rc) {
		events_run_close(&r);
		return rc;
	}
	struct trawl_sw_event ev;
	int keep;
	while (events_run_next(&r, &ev, &keep) == TRAWL_OK)
		if (keep)
			trawl_swperf_event(e.p, &ev);
	if (trawl_swperf_end(e.p, &err))
		rc = cli_report(r.cmd, &err);
	int rc2 = events_run_close(&r);
	return rc ? rc : rc2;
}
