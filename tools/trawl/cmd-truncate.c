/* trawl truncate: cut a trace where execution got stuck. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-open.h"

/* The text read so far and not yet written. A plain file is mapped whole,
 * so its bytes are written from the mapping; other inputs (pipes,
 * compressed files) hand every chunk to copy_tap, which keeps it until the
 * detector says no cut can drop it (trawl_stuck_safe_offset). */
struct copy {
	FILE *out;
	const char *map;
	size_t map_len;
	char *buf;
	size_t cap, len;            /* buf holds bytes [base, base + len) of the text */
	uint64_t base;
	uint64_t written;
	int failed;                 /* a write failed: nothing more is written */
	int errnum;                 /* its errno */
};

static enum trawl_status copy_tap(void *ctx, const struct trawl_chunk *ch,
				  struct trawl_error *err)
{
	struct copy *c = ctx;
	if (c->written > c->base) { /* drop what is already out */
		size_t drop = (size_t)(c->written - c->base);
		memmove(c->buf, c->buf + drop, c->len - drop);
		c->len -= drop;
		c->base = c->written;
	}
	if (ch->offset != c->base + c->len)
		return trawl_error_set(err, TRAWL_ERR_IO, "internal error: input chunks not contiguous");
	if (c->len + ch->len > c->cap) {
		size_t cap = c->cap * 2 > c->len + ch->len ? c->cap * 2 : c->len + ch->len;
		char *nb = realloc(c->buf, cap);
		if (!nb)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		c->buf = nb;
		c->cap = cap;
	}
	if (ch->len)
		memcpy(c->buf + c->len, ch->data, ch->len);
	c->len += ch->len;
	return TRAWL_OK;
}

static uint64_t copy_available(const struct copy *c)
{
	return c->map ? c->map_len : c->base + c->len;
}

/* Write the text up to byte `upto` (flushed: a killed run keeps it). */
static void copy_upto(struct copy *c, uint64_t upto)
{
	if (upto > copy_available(c))
		upto = copy_available(c);
	if (c->failed || upto <= c->written)
		return;
	size_t n = (size_t)(upto - c->written);
	const char *p = c->map ? c->map + c->written : c->buf + (c->written - c->base);
	if (fwrite(p, 1, n, c->out) != n || fflush(c->out) != 0) {
		c->failed = 1;
		c->errnum = errno;
	}
	c->written = upto;
}

static void report_stuck(const char *trace, const struct trawl_stuck_result *r)
{
	char what[160];
	int n = snprintf(what, sizeof what, "%u instruction%s", r->insns, r->insns == 1 ? "" : "s");
	if (r->exceptions)
		n += snprintf(what + n, sizeof what - (size_t)n, ", %u exception%s", r->exceptions,
			      r->exceptions == 1 ? "" : "s");
	if (r->reasons)
		snprintf(what + n, sizeof what - (size_t)n, ", %u exception-reason line%s",
			 r->reasons, r->reasons == 1 ? "" : "s");
	fprintf(stderr,
		"trawl: truncate: %s: stuck in a loop of %s from line %" PRIu64 " (%" PRIu64
		" identical turns); kept lines up to %" PRIu64 "\n",
		trace, what, r->loop_line, r->repeats, r->cut_line);
}

/* Read until a loop is certain or the input ends, writing as we go. */
static int run(struct trace_open *to, struct trawl_reader *rd, struct trawl_stuck *s,
	       struct copy *c)
{
	struct trawl_error err;
	struct trawl_stuck_result res;
	enum trawl_status st;
	int rc = 0;
	trawl_error_clear(&err);
	struct cli_progress prog;
	cli_progress_start(&prog, "truncate", trawl_input_raw_size(trawl_reader_input(rd)));
	for (;;) {
		struct trawl_event_batch b;
		st = trawl_reader_next(rd, &b, &err);
		if (st != TRAWL_OK)
			break;
		cli_progress_update(&prog, trace_progress(rd));
		/* a pipe stops at the first certain loop; a file is read to its
		 * end (following), so a wait loop it leaves is not the cut */
		if (trawl_stuck_add(s, &b) && !c->map)
			break;
		copy_upto(c, trawl_stuck_safe_offset(s));
		if (c->failed) /* reported by the caller; a pipe may never end */
			break;
	}
	cli_progress_finish(&prog);
	trawl_stuck_result(s, &res);
	to->tail_dropped = res.stuck;
	trace_report_skipped(to, rd);
	if (c->failed)
		return 0; /* the caller says the output could not be written */
	if (res.stuck) {
		copy_upto(c, res.cut_offset);
		report_stuck(to->path, &res);
	} else if (st == TRAWL_END) {
		copy_upto(c, copy_available(c));
		fprintf(stderr, "trawl: truncate: %s: not stuck; copied the whole trace\n", to->path);
	} else {
		/* keep the lines before the one that could not be read */
		uint64_t upto = copy_available(c);
		if (err.has_offset)
			upto = err.offset - (err.column ? err.column - 1 : 0);
		copy_upto(c, upto);
		rc = cli_report("truncate", &err);
		cli_error("truncate", "%s: copied the %" PRIu64 " bytes before the error", to->path,
			  c->written);
	}
	return rc;
}

/* The output is created only once the input is known to be a trace, so a
 * failed start leaves no file; then the copy is written while reading. A
 * plain file is read to its end (a loop it leaves is no cut), a pipe stops
 * at the first certain loop (docs/calls.md). */
int cmd_truncate(int argc, char **argv)
{
	struct trace_open to = { .cmd = "truncate" };
	struct trawl_stuck *s = NULL;
	struct trawl_reader *rd = NULL;
	struct trawl_input *in = NULL;
	const char *out_path = NULL, *trace = NULL;
	uint64_t maxp = 64, repeats = 4;
	struct copy c = { 0 };
	int rc = 0;
	const struct cli_option opts[] = {
		CLI_STRING("output", 'o', "OUT", &out_path, "output file (default: standard output)"),
		CLI_U64("max-period", "N", &maxp, 4096, NULL,
			"longest loop recognised, in steps: instructions,\n"
			"exceptions, register/memory lines of their own,\n"
			"exception-reason lines (default 64)"),
		CLI_U64("repeats", "N", &repeats, 1000000, NULL,
			"identical turns that make a loop certain (default 4)"),
		TRACE_OPTIONS(&to),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "truncate",
		.usage = "[--max-period N] [--repeats N] [-o OUT] TRACE",
		.description =
			"Copies TRACE (a file or - for standard input; .gz/.zst are decompressed)\n"
			"up to the point where execution got stuck: once one turn of a loop has\n"
			"been seen --repeats times in a row, identical each time (same PCs, same\n"
			"register and memory effects, same exceptions), the copy keeps one turn\n"
			"of it, with the exception and register lines of its last instruction,\n"
			"and stops reading. A crash loop through an exception vector and a core\n"
			"repeating its exception-reason line (lockup) count as loops. A trace\n"
			"that ends before any loop is certain is copied whole (\"not stuck\").\n"
			"The copy is written as the trace is read, so a pipe from a simulator\n"
			"that never stops works; a pipe and a file of the same text give the\n"
			"same bytes. What was found is reported on standard error; the exit\n"
			"status is 0 either way.\n",
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
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_stuck_create(&s, (unsigned)maxp, (unsigned)repeats, &err) != TRAWL_OK) {
		rc = cli_report("truncate", &err);
		goto out;
	}
	if (trawl_input_open(&in, trace, &to.opt.input, &err) != TRAWL_OK) {
		rc = cli_report("truncate", &err);
		goto out;
	}
	c.map = trawl_input_mapping(in, &c.map_len);
	if (!c.map)
		trawl_input_set_tap(in, copy_tap, &c);
	else
		trawl_stuck_follow(s);
	to.path = trace;
	if ((rc = trace_reader_open_input(&to, in, &rd)))
		goto out;
	/* created before the events are read (the input is known to be a
	 * trace by now): a run killed early still leaves what it wrote */
	c.out = out_path && strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
	if (!c.out) {
		cli_error("truncate", "cannot create '%s': %s", out_path, strerror(errno));
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	rc = run(&to, rd, s, &c);
out:
	if (c.out && c.out != stdout && fclose(c.out) != 0 && !c.failed) {
		c.failed = 1;
		c.errnum = errno;
	}
	if (c.out == stdout && fflush(stdout) != 0 && !c.failed) {
		c.failed = 1;
		c.errnum = errno;
	}
	if (c.failed && !rc) {
		cli_error("truncate", "cannot write '%s': %s", out_path ? out_path : "standard output",
			  strerror(c.errnum));
		rc = EXIT_BAD_INPUT;
	}
	trawl_reader_close(rd);
	trawl_stuck_destroy(s);
	free(c.buf);
	return rc;
}
