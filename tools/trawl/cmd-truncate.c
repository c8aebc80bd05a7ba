/* trawl truncate: cut a trace where execution got stuck. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace-open.h"

/* Standard input and compressed files cannot be mapped: their decompressed
 * text goes to a temporary file first, which is then read (once) and cut. */
static int spool(const char *path, char *tmp, size_t size, int *spooled)
{
	struct trawl_input *in = NULL;
	struct trawl_error err;
	trawl_error_clear(&err);
	*spooled = 0;
	if (trawl_input_open(&in, path, NULL, &err) != TRAWL_OK)
		return cli_report("truncate", &err);
	size_t len;
	if (trawl_input_mapping(in, &len)) {
		trawl_input_close(in);
		return 0;
	}
	const char *dir = getenv("TMPDIR");
	snprintf(tmp, size, "%s/trawl-truncate-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(tmp);
	if (fd < 0) {
		cli_error("truncate", "cannot create a temporary file: %s", strerror(errno));
		trawl_input_close(in);
		return EXIT_BAD_INPUT;
	}
	*spooled = 1;
	FILE *f = fdopen(fd, "w");
	int rc = 0;
	for (;;) {
		struct trawl_chunk ch;
		enum trawl_status st = trawl_input_next(in, &ch, &err);
		if (st == TRAWL_END)
			break;
		if (st != TRAWL_OK) {
			rc = cli_report("truncate", &err);
			break;
		}
		if (ch.len && fwrite(ch.data, 1, ch.len, f) != ch.len) {
			cli_error("truncate", "cannot write %s: %s", tmp, strerror(errno));
			rc = EXIT_BAD_INPUT;
			break;
		}
		if (ch.last)
			break;
	}
	if (fclose(f) != 0 && !rc) {
		cli_error("truncate", "cannot write %s", tmp);
		rc = EXIT_BAD_INPUT;
	}
	trawl_input_close(in);
	return rc;
}

int cmd_truncate(int argc, char **argv)
{
	struct trace_open to = { .cmd = "truncate" };
	struct trawl_stuck *s = NULL;
	struct trawl_reader *rd = NULL;
	const char *out_path = NULL, *trace = NULL;
	uint64_t maxp = 64, repeats = 4;
	char tmp[4096] = "";
	int spooled = 0, rc = 0;
	FILE *f = NULL;
	const struct cli_option opts[] = {
		CLI_STRING("output", 'o', "OUT", &out_path, "output file (default: standard output)"),
		CLI_U64("max-period", "N", &maxp, 4096, NULL,
			"longest loop recognised, in instructions (default 64)"),
		CLI_U64("repeats", "N", &repeats, 1000000, NULL,
			"turns needed at the end of the trace (default 4)"),
		TRACE_OPTIONS(&to),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "truncate",
		.usage = "[--max-period N] [--repeats N] [-o OUT] TRACE",
		.description =
			"Copies TRACE (a file or - for standard input; .gz/.zst are decompressed)\n"
			"up to the point where execution got stuck: when the trace ends in a loop\n"
			"it never leaves - the same PC again and again with no register change, or\n"
			"a cycle of instructions repeating with identical effects - the copy keeps\n"
			"one turn of that loop and drops the rest. A trace that does not end stuck\n"
			"is copied whole. What was found is reported on standard error.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	if (cli_parse(&cmd, argc, argv, &rc) < 0)
		return rc;
	trace = argv[0];
	if (maxp == 0)
		return cli_usage("truncate", "--max-period wants 1 to 4096");
	if (repeats < 2)
		return cli_usage("truncate", "--repeats wants 2 or more");
	if ((rc = spool(trace, tmp, sizeof tmp, &spooled)))
		goto out;
	to.path = spooled ? tmp : trace;
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_stuck_create(&s, (unsigned)maxp, (unsigned)repeats, &err) != TRAWL_OK) {
		rc = cli_report("truncate", &err);
		goto out;
	}
	if ((rc = trace_reader_open(&to, &rd)))
		goto out;
	for (;;) {
		struct trawl_event_batch b;
		enum trawl_status st = trawl_reader_next(rd, &b, &err);
		if (st == TRAWL_END)
			break;
		if (st != TRAWL_OK) {
			rc = cli_report("truncate", &err);
			goto out;
		}
		trawl_stuck_add(s, &b);
	}
	trace_report_skipped(&to, rd);
	struct trawl_stuck_result res;
	trawl_stuck_result(s, &res);
	size_t len = 0;
	const char *text = trawl_input_mapping(trawl_reader_input(rd), &len);
	if (!text && len) {
		cli_error("truncate", "internal error: trace text not mapped");
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	size_t keep = len;
	if (res.stuck) {
		keep = res.cut_offset < len ? (size_t)res.cut_offset : len;
		while (keep > 0 && keep < len && text[keep - 1] != '\n') /* whole lines */
			keep++;
		fprintf(stderr,
			"trawl: truncate: %s: stuck in a loop of %u instruction%s from line %" PRIu64
			" (%" PRIu64 " turns); kept lines up to %" PRIu64 "\n",
			trace, res.period, res.period == 1 ? "" : "s", res.loop_line, res.repeats,
			res.cut_line);
	} else {
		fprintf(stderr, "trawl: truncate: %s: not stuck; copied the whole trace\n", trace);
	}
	f = out_path && strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
	if (!f) {
		cli_error("truncate", "cannot create '%s': %s", out_path, strerror(errno));
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	if (keep && fwrite(text, 1, keep, f) != keep) {
		cli_error("truncate", "cannot write the output");
		rc = EXIT_BAD_INPUT;
	}
out:
	if (f && f != stdout && fclose(f) != 0 && !rc) {
		cli_error("truncate", "cannot write '%s'", out_path);
		rc = EXIT_BAD_INPUT;
	}
	if (f == stdout && fflush(stdout) != 0 && !rc) {
		cli_error("truncate", "cannot write the output");
		rc = EXIT_BAD_INPUT;
	}
	trawl_reader_close(rd);
	trawl_stuck_destroy(s);
	if (spooled)
		unlink(tmp);
	return rc;
}
