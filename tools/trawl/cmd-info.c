/* trawl info: what an index holds. */
#include <stdio.h>
#include <string.h>

#include "index-cli.h"
#include "perf-cli.h"

/* A perf.data is described by its records, not by an index. */
static int perf_arg(int argc, char **argv, int *json, int *recs)
{
	uint8_t magic[8];
	FILE *f = argc > 1 ? fopen(argv[argc - 1], "rb") : NULL;
	size_t n = f ? fread(magic, 1, sizeof magic, f) : 0;
	if (f)
		fclose(f);
	*json = *recs = 0;
	for (int i = 1; i < argc - 1; i++) {
		*json |= !strcmp(argv[i], "--json");
		*recs |= !strcmp(argv[i], "--records");
	}
	return trawl_perf_is_perf(magic, n);
}

/* What info prints, gathered once for both forms. */
struct info_view {
	struct trawl_index_info in;
	const char *kind, *seek_path;
	double ratio, per_line, per_event, seek_ratio;
	uint64_t seek, swcpus, swthreads;
	int sw, verify;
};

static void info_json(struct index_cli *c, const struct info_view *v)
{
	printf("{\"index\":");
	trawl_json_write_string(stdout, trawl_index_path(c->ix), strlen(trawl_index_path(c->ix)));
	printf(",\"kind\":\"%s\",\"version\":%u,\"size\":%llu,\"trace_size\":%llu,"
	       "\"ratio\":%.3f,\"bytes_per_line\":%.2f,\"bytes_per_event\":%.2f,\"events\":%llu,"
	       "\"lines\":%llu,\"cpus\":%u,"
	       "\"checkpoint_interval\":%u,\"time_unit\":\"%s\",\"mem_writes\":%llu,"
	       "\"reg_writes\":%llu,\"snapshots\":%llu,\"backdated\":%llu,"
	       "\"clobbers\":%llu,\"build_seconds\":%.3f,\"created\":%llu,\"reader_version\":%u",
	       v->kind, v->in.version, (unsigned long long)v->in.file_size,
	       (unsigned long long)v->in.trace_size, v->ratio, v->per_line, v->per_event,
	       (unsigned long long)v->in.events,
	       (unsigned long long)v->in.lines, v->in.cpus, v->in.checkpoint_interval,
	       trawl_time_unit_name((enum trawl_time_unit)v->in.time_unit),
	       (unsigned long long)v->in.mem_writes, (unsigned long long)v->in.reg_writes,
	       (unsigned long long)v->in.snapshots, (unsigned long long)v->in.backdated,
	       (unsigned long long)v->in.clobbers, (double)v->in.build_ns / 1e9,
	       (unsigned long long)v->in.created, v->in.reader_version);
	if (v->sw)
		printf(",\"sw_events\":%llu,\"sw_cpus\":%llu,\"sw_threads\":%llu",
		       (unsigned long long)v->in.sw_events, (unsigned long long)v->swcpus,
		       (unsigned long long)v->swthreads);
	if (v->seek)
		printf(",\"seek_size\":%llu,\"seek_ratio\":%.3f", (unsigned long long)v->seek,
		       v->seek_ratio);
	uint64_t back_line = 0, back = trawl_index_time_back(c->ix, &back_line);
	if (back)
		printf(",\"time_back\":%llu,\"time_back_line\":%llu", (unsigned long long)back,
		       (unsigned long long)back_line);
	printf("%s}\n", v->verify ? ",\"verified\":true" : "");
}

static void info_text(struct index_cli *c, const struct info_view *v)
{
	printf("index file:          %s\n", trawl_index_path(c->ix));
	printf("kind:                %s%s (format version %u)\n", v->kind,
	       v->sw ? ", with software events by time, per cpu and per thread" : "", v->in.version);
	printf("index size:          %llu bytes (%.2fx the trace, %llu bytes)\n",
	       (unsigned long long)v->in.file_size, v->ratio, (unsigned long long)v->in.trace_size);
	printf("cost:                %.1f bytes per line, %.1f per event\n", v->per_line,
	       v->per_event);
	if (v->seek)
		printf("seek file:           %s, %llu bytes (%.2fx the trace; with the "
		       "index %.2fx)\n", v->seek_path, (unsigned long long)v->seek, v->seek_ratio,
		       v->ratio + v->seek_ratio);
	printf("events:              %llu\n", (unsigned long long)v->in.events);
	printf("lines:               %llu\n", (unsigned long long)v->in.lines);
	/* the header counts core numbers, not the cores that appear */
	printf("cpus:                %u (numbers 0-%u)\n", v->in.cpus, v->in.cpus ? v->in.cpus - 1 : 0);
	printf("checkpoint interval: %u events\n", v->in.checkpoint_interval);
	printf("time unit:           %s\n",
	       v->in.time_unit ? trawl_time_unit_name((enum trawl_time_unit)v->in.time_unit) : "none");
	printf("memory writes:       %llu block records\n", (unsigned long long)v->in.mem_writes);
	printf("register writes:     %llu\n", (unsigned long long)v->in.reg_writes);
	printf("block snapshots:     %llu\n", (unsigned long long)v->in.snapshots);
	printf("back-dated blocks:   %llu\n", (unsigned long long)v->in.backdated);
	printf("clobbered blocks:    %llu\n", (unsigned long long)v->in.clobbers);
	if (v->sw)
		printf("software events:     %llu on %llu distinct cpus, %llu threads\n",
		       (unsigned long long)v->in.sw_events, (unsigned long long)v->swcpus,
		       (unsigned long long)v->swthreads);
	printf("build time:          %.3f s\n", (double)v->in.build_ns / 1e9);
	uint32_t ro = trawl_index_reader_options(c->ix);
	printf("reader options:      %s%s%s%s\n", ro ? "" : "none",
	       ro & TRAWL_ID_BIG_ENDIAN ? "--big-endian " : "",
	       ro & TRAWL_ID_IMPLICIT_THUMB ? "--implicit-thumb " : "",
	       ro & TRAWL_ID_LENIENT ? "--lenient" : "");
	if (v->in.reader_version) {
		static const char *reader_of[] = { [TRAWL_INDEX_SOURCE_TRACE] = "text",
						   [TRAWL_INDEX_SOURCE_ETE] = "ETE",
						   [TRAWL_INDEX_SOURCE_PERF] = "ETE",
						   [TRAWL_INDEX_SOURCE_SWEVENTS] = "software events" };
		const char *name = v->in.source < sizeof reader_of / sizeof reader_of[0] &&
						   reader_of[v->in.source]
					   ? reader_of[v->in.source]
					   : "?";
		printf("reader version:      %s %u\n", name, v->in.reader_version);
	}
	if (trawl_index_damaged(c->ix))
		printf("not decoded:         %llu places (decoded trace)\n",
		       (unsigned long long)trawl_index_damaged(c->ix));
	uint64_t back_line = 0, back = trawl_index_time_back(c->ix, &back_line);
	if (back)
		printf("time goes back:      %llu time%s (first at line %llu; --time searches each "
		       "run in turn)\n",
		       (unsigned long long)back, back == 1 ? "" : "s", (unsigned long long)back_line);
	if (trawl_index_skipped_lines(c->ix))
		printf("skipped lines:       %llu (--lenient)\n",
		       (unsigned long long)trawl_index_skipped_lines(c->ix));
	if (v->verify)
		printf("checksums:           ok\n");
}

/* Describes the index, building it first if needed, so a user sees what a
 * query would use (its path included). --verify checks every block, not
 * only the ones a query touches, so damage anywhere is reported. */
int cmd_info(int argc, char **argv)
{
	struct index_cli c;
	int verify = 0, json, recs;
	if (perf_arg(argc, argv, &json, &recs))
		return perf_cli_info(argv[argc - 1], json, recs);
	memset(&c, 0, sizeof c);
	c.to.cmd = "info";
	const struct cli_option opts[] = {
		INDEX_OPTIONS(&c),
		CLI_FLAG("verify", 0, &verify,
			 "check the checksum of every section (reads the whole index)"),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "info",
		.usage = "[--index FILE] [--verify] [--json] [reader options] TRACE",
		.description =
			"Describes the index of TRACE (building it if needed): its kind, size,\n"
			"events, lines, cores, checkpoint interval, record counts and build time.\n"
			"A Linux perf.data (CoreSight trace) is described instead: trace units and\n"
			"their registers, AUX buffers and flags, mapped files (--json; --records\n"
			"lists every record: file offset, type, name, size). Damaged records and\n"
			"trace the recording says it lost (AUX flags, AUX data not in the file)\n"
			"are named, and the exit status is then 1.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	int rc;
	if (index_cli_parse(&c, &cmd, argc, argv, &rc) < 0)
		return rc;
	rc = index_cli_open(&c);
	if (rc)
		return rc;
	struct trawl_error err;
	if (verify && trawl_index_verify(c.ix, &err)) {
		index_cli_close(&c);
		return cli_report("info", &err);
	}
	struct info_view v;
	memset(&v, 0, sizeof v);
	v.verify = verify;
	trawl_index_get_info(c.ix, &v.in);
	v.sw = v.in.sw_events != 0;
	if (v.sw && trawl_index_sw_counts(c.ix, &v.swcpus, &v.swthreads, &err)) {
		index_cli_close(&c);
		return cli_report("info", &err);
	}
	v.kind = trawl_index_kind_name(v.in.kind) ? trawl_index_kind_name(v.in.kind) : "?";
	v.ratio = v.in.trace_size ? (double)v.in.file_size / (double)v.in.trace_size : 0;
	/* a compressed trace's seek file is part of what the index costs */
	v.seek = index_cli_seek_size(&c, &v.seek_path);
	if (verify && c.text && trawl_text_verify(c.text, &err)) {
		index_cli_close(&c);
		return cli_report("info", &err);
	}
	v.seek_ratio = v.in.trace_size ? (double)v.seek / (double)v.in.trace_size : 0;
	v.per_line = v.in.lines ? (double)v.in.file_size / (double)v.in.lines : 0;
	v.per_event = v.in.events ? (double)v.in.file_size / (double)v.in.events : 0;
	if (c.json)
		info_json(&c, &v);
	else
		info_text(&c, &v);
	return index_cli_end(&c, EXIT_OK);
}
