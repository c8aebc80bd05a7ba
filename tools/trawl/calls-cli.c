/* Shared plumbing of the call-structure commands. */
#include "calls-cli.h"

#include "trawl/index.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int calls_run_init(struct calls_run *r, const char *cmd)
{
	memset(r, 0, sizeof *r);
	r->to.cmd = cmd;
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_image_create(&r->image, &err) != TRAWL_OK)
		return cli_report(cmd, &err);
	r->image_opt.cmd = cmd;
	r->image_opt.img = r->image;
	return 0;
}

int calls_debug_option(void *ctx, const struct cli_option *opt, const char *value)
{
	struct calls_run *r = ctx;
	(void)opt;
	if (value && strcmp(value, "calls") != 0)
		return cli_usage(r->to.cmd, "unknown debug topic '%s' (only --debug=calls)", value);
	r->debug = 1;
	return 0;
}

int calls_run_args(struct calls_run *r, const struct cli_command *cmd, int argc, char **argv,
		   int *rc)
{
	int n = cli_parse(cmd, argc, argv, rc);
	if (n > 0)
		r->to.path = argv[0];
	return n;
}

static void debug_line(void *ctx, const struct trawl_event *ev, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "calls: line %" PRIu64 " cpu%u: %s\n", ev->line, (unsigned)ev->cpu, msg);
}

/* Unless --parse-all, the reader is asked for instructions and the three
 * registers the detector reads (SP and both link registers), which lets the
 * Tarmac reader skip every other effect line by its prefix: the call commands
 * are fast because they parse little. With an index the events come from it
 * instead, through the same detector. */
int calls_run_read(struct calls_run *r)
{
	struct trawl_reader *rd = NULL;
	struct trawl_error err;
	trawl_error_clear(&err);
	if (!r->parse_all) {
		/* the detector reads only the stack pointer and link registers
		 * (track_regs in lib/analysis/calls.c) */
		r->to.opt.want = TRAWL_WANT_FILTER;
		r->to.opt.want_regs = TRAWL_WANT_REG(TRAWL_REG_SP) | TRAWL_WANT_REG(TRAWL_REG_X0 + 14) |
				      TRAWL_WANT_REG(TRAWL_REG_X0 + 30);
	}
	int rc = r->use_index ? 0 : trace_reader_open(&r->to, &rd);
	if (rc)
		return rc;
	struct trawl_calls_options copt = { .image = r->image };
	if (r->debug) {
		copt.debug = debug_line;
		copt.debug_ctx = r;
	}
	if (trawl_calls_create(&r->calls, &copt, &err) != TRAWL_OK) {
		rc = cli_report(r->to.cmd, &err);
		goto out;
	}
	if (r->use_index) {
		rc = calls_read_index(r);
		goto out;
	}
	struct cli_progress prog;
	uint64_t total = trawl_input_raw_size(trawl_reader_input(rd));
	cli_progress_start(&prog, r->to.cmd, total);
	for (;;) {
		struct trawl_event_batch b;
		enum trawl_status st = trawl_reader_next(rd, &b, &err);
		if (st == TRAWL_END)
			break;
		if (st != TRAWL_OK) {
			rc = cli_report(r->to.cmd, &err);
			goto out;
		}
		r->events += b.count;
		image_check_batch(&r->image_check, r->image, b.events, b.count);
		if (trawl_calls_add(r->calls, &b, &err) != TRAWL_OK) {
			rc = cli_report(r->to.cmd, &err);
			goto out;
		}
		uint64_t done = trawl_input_raw_pos(trawl_reader_input(rd));
		cli_progress_update(&prog, done);
		if (r->progress)
			r->progress(r->progress_ctx, done, total);
	}
	cli_progress_finish(&prog);
	trawl_calls_finish(r->calls);
	trace_report_skipped(&r->to, rd);
out:
	if (!rc)
		image_check_report(r->to.cmd, &r->image_check);
	trawl_reader_close(rd);
	return rc;
}

void calls_run_release(struct calls_run *r)
{
	trawl_calls_destroy(r->calls);
	trawl_image_destroy(r->image);
	memset(r, 0, sizeof *r);
}

const char *calls_unit_suffix(const struct trawl_calls *c)
{
	enum trawl_time_unit u = trawl_calls_time_unit(c);
	return u == TRAWL_TIME_NONE ? "" : trawl_time_unit_name(u);
}
