/* Reading traces into counted ranges (see ranges-cli.h). */
#include "ranges-cli.h"

/* Only instruction events are needed: with no registers and no memory
 * asked for, the Tarmac reader skips every effect line by its prefix. A
 * later source (perf.data) plugs in here, beside trawl_reader_open. */
static int read_one(struct trace_open *to, struct trawl_ranges *r, const struct trawl_image *img)
{
	struct image_check ic = { 0 };
	struct trawl_reader *rd = NULL;
	struct trawl_error err;
	trawl_error_clear(&err);
	to->opt.want = TRAWL_WANT_FILTER;
	to->opt.want_regs = 0;
	int rc = trace_reader_open(to, &rd);
	if (rc)
		return rc;
	struct cli_progress prog;
	cli_progress_start(&prog, to->cmd, trawl_input_raw_size(trawl_reader_input(rd)));
	for (;;) {
		struct trawl_event_batch b;
		enum trawl_status st = trawl_reader_next(rd, &b, &err);
		if (st == TRAWL_END)
			break;
		if (st != TRAWL_OK || trawl_ranges_add(r, &b, &err) != TRAWL_OK) {
			rc = cli_report(to->cmd, &err);
			goto out;
		}
		image_check_batch(&ic, img, b.events, b.count);
		cli_progress_update(&prog, trawl_input_raw_pos(trawl_reader_input(rd)));
	}
	cli_progress_finish(&prog);
	if (trawl_ranges_end_trace(r, &err) != TRAWL_OK)
		rc = cli_report(to->cmd, &err);
	trace_report_skipped(to, rd);
	if (!rc)
		image_check_report(to->cmd, &ic);
out:
	trawl_reader_close(rd);
	return rc;
}

int ranges_read_traces(struct trace_open *to, char **paths, int n, struct trawl_ranges *r,
		       const struct trawl_image *img)
{
	for (int i = 0; i < n; i++) {
		to->path = paths[i];
		int rc = read_one(to, r, img);
		if (rc)
			return rc;
	}
	return 0;
}
