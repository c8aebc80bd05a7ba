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
	return 0;
}

int calls_run_option(struct calls_run *r, int argc, char **argv, int *i, int *rc)
{
	const char *a = argv[*i];
	const char *spec = NULL;
	if (strcmp(a, "--image") == 0) {
		if (*i + 1 >= argc) {
			*rc = cli_usage(r->to.cmd, "--image needs an ELF file");
			return -1;
		}
		spec = argv[++*i];
	} else if (strncmp(a, "--image=", 8) == 0) {
		spec = a + 8;
	} else if (strcmp(a, "--use-index") == 0) {
		r->use_index = 1;
		return 1;
	} else if (strcmp(a, "--parse-all") == 0) {
		r->parse_all = 1;
		return 1;
	} else if (strcmp(a, "--debug=calls") == 0) {
		r->debug = 1;
		return 1;
	} else if (strncmp(a, "--debug", 7) == 0) {
		*rc = cli_usage(r->to.cmd, "unknown debug option '%s' (only --debug=calls)", a);
		return -1;
	} else {
		return trace_option(&r->to, argc, argv, i);
	}
	struct trawl_error err;
	trawl_error_clear(&err);
	if (trawl_image_add_spec(r->image, spec, &err) != TRAWL_OK) {
		*rc = cli_report(r->to.cmd, &err);
		return -1;
	}
	return 1;
}

int calls_run_args(struct calls_run *r, int argc, char **argv, calls_option_fn opt,
		   calls_extra_fn extra, void *ctx)
{
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int o = calls_run_option(r, argc, argv, &i, &rc);
		if (o == 0 && opt)
			o = opt(ctx, argc, argv, &i, &rc);
		if (o < 0)
			return rc;
		if (o)
			continue;
		if (a[0] == '-' && a[1])
			return cli_usage(r->to.cmd, "unknown option or missing value '%s'", a);
		if (!r->to.path)
			r->to.path = a;
		else if (extra)
			extra(ctx, a);
		else
			return cli_usage(r->to.cmd, "unexpected argument '%s'", a);
	}
	if (!r->to.path)
		return cli_usage(r->to.cmd, "no trace given");
	return 0;
}

static void debug_line(void *ctx, const struct trawl_event *ev, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "calls: line %" PRIu64 " cpu%u: %s\n", ev->line, (unsigned)ev->cpu, msg);
}

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
	cli_progress_start(&prog, r->to.cmd, trawl_input_raw_size(trawl_reader_input(rd)));
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
		if (trawl_calls_add(r->calls, &b, &err) != TRAWL_OK) {
			rc = cli_report(r->to.cmd, &err);
			goto out;
		}
		cli_progress_update(&prog, trawl_input_raw_pos(trawl_reader_input(rd)));
	}
	cli_progress_finish(&prog);
	trawl_calls_finish(r->calls);
	trace_report_skipped(&r->to, rd);
out:
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
