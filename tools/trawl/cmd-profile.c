/* trawl profile: calls, instructions and time per function. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "calls-cli.h"

static void json_str(const char *s)
{
	trawl_json_write_string(stdout, s, strlen(s));
}

static void csv_str(const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

/* One profile built from the call tree, then one of three renderings (a
 * table for people, JSON and CSV for tools); the output file is opened only
 * after the trace was read, so a failed run leaves no empty file. */
int cmd_profile(int argc, char **argv)
{
	struct calls_run r;
	struct trawl_profile prof = { 0 };
	int json = 0, csv = 0, sort = TRAWL_PROFILE_BY_INCL;
	const char *out_path = NULL;
	int rc;
	if ((rc = calls_run_init(&r, "profile")))
		return rc;
	/* in the order of enum trawl_profile_sort */
	static const char *const sort_keys[] = { "incl", "self", "calls", "name", "addr", NULL };
	const struct cli_option opts[] = {
		CALLS_OPTIONS(&r),
		CLI_STRING("output", 'o', "FILE", &out_path, "write to FILE instead of standard output"),
		CLI_CHOICE("sort", "KEY", &sort, sort_keys, "incl (default), self, calls, name or addr"),
		CLI_FLAG("json", 0, &json, "one JSON object: {\"total_insns\":N,\"functions\":[...]}"),
		CLI_FLAG("csv", 0, &csv, "comma-separated values with a header line"),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "profile",
		.usage = "[--image ELF[@OFFSET]]... [--sort KEY] [--json|--csv] TRACE",
		.description =
			"Prints one row per function: number of calls, instructions executed in it\n"
			"and its callees (inclusive; a recursive function's nested activations are\n"
			"counted once), instructions executed in it alone (exclusive), the same two\n"
			"in trace time, the deepest recursion, its entry address and name.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	if (calls_run_args(&r, &cmd, argc, argv, &rc) < 0)
		goto out;
	enum trawl_profile_sort by = (enum trawl_profile_sort)sort;
	if (json && csv) {
		rc = cli_usage("profile", "--json and --csv exclude each other");
		goto out;
	}
	if ((rc = calls_run_read(&r)) || (rc = cli_output_to("profile", out_path)))
		goto out;
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_profile_build(&prof, r.calls, &err) != TRAWL_OK) {
		rc = cli_report("profile", &err);
		goto out;
	}
	trawl_profile_sort(&prof, by);
	const char *unit = calls_unit_suffix(r.calls);
	if (json) {
		printf("{\"total_insns\":%" PRIu64 ",\"time_unit\":", prof.total_insns);
		json_str(unit);
		printf(",\"functions\":[");
		for (size_t i = 0; i < prof.count; i++) {
			const struct trawl_profile_entry *e = &prof.entries[i];
			printf("%s\n{\"name\":", i ? "," : "");
			json_str(e->name);
			printf(",\"addr\":\"0x%" PRIx64 "\",\"calls\":%" PRIu64 ",\"incl_insns\":%" PRIu64
			       ",\"self_insns\":%" PRIu64 ",\"incl_time\":%" PRIu64 ",\"self_time\":%" PRIu64
			       ",\"max_depth\":%" PRIu64 "}",
			       e->addr, e->calls, e->incl_insns, e->self_insns, e->incl_time,
			       e->self_time, e->max_depth);
		}
		printf("\n]}\n");
	} else if (csv) {
		printf("name,addr,calls,incl_insns,self_insns,incl_time,self_time,max_depth\n");
		for (size_t i = 0; i < prof.count; i++) {
			const struct trawl_profile_entry *e = &prof.entries[i];
			csv_str(e->name);
			printf(",0x%" PRIx64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			       ",%" PRIu64 "\n",
			       e->addr, e->calls, e->incl_insns, e->self_insns, e->incl_time,
			       e->self_time, e->max_depth);
		}
	} else {
		printf("%10s %12s %12s %7s %12s %12s %5s  %-12s %s\n", "calls", "incl insns",
		       "self insns", "self%", "incl time", "self time", "depth", "address",
		       "function");
		for (size_t i = 0; i < prof.count; i++) {
			const struct trawl_profile_entry *e = &prof.entries[i];
			double pct = prof.total_insns ? 100.0 * (double)e->self_insns /
								(double)prof.total_insns
						      : 0;
			printf("%10" PRIu64 " %12" PRIu64 " %12" PRIu64 " %6.2f%% %12" PRIu64
			       " %12" PRIu64 " %5" PRIu64 "  0x%-10" PRIx64 " %s\n",
			       e->calls, e->incl_insns, e->self_insns, pct, e->incl_time, e->self_time,
			       e->max_depth, e->addr, e->name);
		}
		printf("total: %" PRIu64 " instructions%s%s\n", prof.total_insns,
		       *unit ? "; time in " : "", unit);
	}
	if (fflush(stdout) != 0) {
		cli_error("profile", "cannot write the output");
		rc = EXIT_BAD_INPUT;
	}
out:
	trawl_profile_release(&prof);
	calls_run_release(&r);
	return rc;
}
