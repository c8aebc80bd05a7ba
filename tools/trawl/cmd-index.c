/* trawl index: build (or check) the time-travel index of a trace. */
#include <string.h>

#include "index-cli.h"

/* With --force the index path is settled first, so that the rebuilt file
 * is the one this command then opens and reports on; without it the index
 * is found (or built, in memory when no folder can hold it) as every
 * command finds it, and the report names the one used. --force builds
 * without the up-to-date check but still prints the reader's warnings;
 * the summary is then read back from the index actually on disk. */
int cmd_index(int argc, char **argv)
{
	struct index_cli c;
	int force = 0;
	memset(&c, 0, sizeof c);
	c.to.cmd = "index";
	const struct cli_option opts[] = {
		INDEX_OPTIONS(&c),
		CLI_FLAG("force", 0, &force, "rebuild even when the index is up to date"),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "index",
		.usage = "[--index FILE] [--kind full|compact] [--force] [--json] [reader options] TRACE",
		.description =
			"Builds the time-travel index of TRACE, so that registers and memory at any\n"
			"line, last and next writes, PC visits and changes are answered at once.\n"
			"The index is written beside the trace as TRACE.trawlidx (or under\n"
			"$XDG_CACHE_HOME/trawl/ when that folder is read-only). An index that is\n"
			"up to date is kept; other commands build it themselves when needed.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	int rc;
	if (index_cli_parse(&c, &cmd, argc, argv, &rc) < 0)
		return rc;
	char def[4096];
	struct trawl_error err;
	trawl_error_clear(&err);
	if (c.memory || c.no_index)
		return cli_usage("index", "%s: trawl index writes an index; give it to the "
				 "command that needs one", c.memory ? "--memory-index" : "--no-index");
	if (!c.index_path && force) {
		if (trawl_index_default_path(c.to.path, def, sizeof def, &err))
			return cli_report("index", &err);
		c.index_path = def;
	}
	if (force) {
		struct cli_progress p;
		struct trawl_index_build_options opt;
		index_cli_build_options(&c, &opt);
		index_cli_warnings(&c, &opt.reader); /* --force must not hide them */
		struct trawl_trace_id id;
		cli_progress_start(&p, "indexing",
				   trawl_trace_id_get(c.to.path, &id, NULL) ? 0 : id.size);
		enum trawl_status st = trawl_index_build(c.to.path, c.index_path, &opt, &err);
		cli_progress_finish(&p);
		if (st)
			return cli_report("index", &err);
	}
	rc = index_cli_open(&c);
	if (rc)
		return rc;
	/* an explicit build command reads the whole index once: damage that
	 * opening does not see is found here and built over */
	if (!force && trawl_index_verify(c.ix, &err)) {
		rc = index_cli_report(&c, &err);
		index_cli_close(&c);
		return rc;
	}
	struct trawl_index_info info;
	trawl_index_get_info(c.ix, &info);
	double ratio = info.trace_size ? (double)info.file_size / (double)info.trace_size : 0;
	/* a compressed trace also gets its seek file (random access to the text) */
	const char *seek_path;
	uint64_t seek = index_cli_seek_size(&c, &seek_path);
	/* and reads the whole seek file once too, building over damage;
	 * --force builds it again as well */
	if (seek && force)
		trawl_error_set(&err, TRAWL_ERR_USAGE, "as --force asks");
	if (seek && (force || trawl_text_verify(c.text, &err)) &&
	    (trawl_text_rebuild(c.text, &err) || trawl_text_verify(c.text, &err))) {
		index_cli_close(&c);
		return cli_report("index", &err);
	}
	seek = index_cli_seek_size(&c, &seek_path);
	if (c.json) {
		printf("{\"index\":");
		const char *path = trawl_index_path(c.ix);
		trawl_json_write_string(stdout, path, strlen(path));
		printf(",\"events\":%llu,\"lines\":%llu,\"size\":%llu,\"trace_size\":%llu,"
		       "\"ratio\":%.3f,\"build_seconds\":%.3f",
		       (unsigned long long)info.events, (unsigned long long)info.lines,
		       (unsigned long long)info.file_size, (unsigned long long)info.trace_size, ratio,
		       (double)info.build_ns / 1e9);
		if (seek)
			printf(",\"seek_size\":%llu", (unsigned long long)seek);
		printf("}\n");
	} else {
		printf("%s: %llu events, %llu lines, %llu bytes (%.2fx the trace), built in %.2f s\n",
		       trawl_index_path(c.ix), (unsigned long long)info.events, (unsigned long long)info.lines,
		       (unsigned long long)info.file_size, ratio, (double)info.build_ns / 1e9);
		if (seek)
			printf("%s: %llu bytes (%.2fx the trace): random access to its text\n",
			       seek_path, (unsigned long long)seek,
			       info.trace_size ? (double)seek / (double)info.trace_size : 0);
	}
	return index_cli_end(&c, EXIT_OK);
}
