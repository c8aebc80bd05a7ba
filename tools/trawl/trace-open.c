/* Shared reader options and warnings for trace-reading commands. */
#include "trace-open.h"

#include <string.h>

static void print_warning(void *ctx, const struct trawl_error *w)
{
	const struct trace_open *to = ctx;
	char buf[1024];
	trawl_error_format(w, buf, sizeof buf);
	/* a command that reads the trace twice (serve: for its index, then
	 * for its call tree) would repeat every warning of the first read */
	if (cli_warned(buf))
		return;
	cli_warn(to->cmd, "%s", buf);
	if (w->excerpt[0])
		fprintf(stderr, "  | %s\n", w->excerpt);
}

void trace_open_options(struct trace_open *to)
{
	to->opt.ete_config = to->ete_config;
	if (to->ete_config)
		to->opt.format = TRAWL_FORMAT_ETE;
	to->opt.ete_images = to->ete_images.v;
	to->opt.ete_nimages = (size_t)to->ete_images.n;
}

int trace_reader_open(struct trace_open *to, struct trawl_reader **out)
{
	struct trawl_error err;
	trawl_error_clear(&err);
	trace_open_options(to);
	to->opt.warn = print_warning;
	to->opt.warn_ctx = to;
	if (trawl_reader_open(out, to->path, &to->opt, &err) != TRAWL_OK)
		return cli_report(to->cmd, &err);
	return 0;
}

void trace_report_skipped(const struct trace_open *to, const struct trawl_reader *r)
{
	const struct trawl_reader_stats *s = trawl_reader_stats(r);
	if (s->bad_lines) {
		cli_warn(to->cmd, "%s: skipped %llu malformed line%s", to->path,
			 (unsigned long long)s->bad_lines, s->bad_lines == 1 ? "" : "s");
		cli_mark_lossy();
	}
	if ((s->cut_lines && !to->tail_dropped) || s->cut_input) /* warned as read */
		cli_mark_lossy();
	if (s->damaged) /* each place warned about as it was read */
		cli_mark_lossy();
}

int trace_reader_open_input(struct trace_open *to, struct trawl_input *in,
			    struct trawl_reader **out)
{
	struct trawl_error err;
	trawl_error_clear(&err);
	trace_open_options(to);
	to->opt.warn = print_warning;
	to->opt.warn_ctx = to;
	if (trawl_reader_open_input(out, in, &to->opt, &err) != TRAWL_OK)
		return cli_report(to->cmd, &err);
	return 0;
}

uint64_t trace_progress(struct trawl_reader *r)
{
	struct trawl_input *in = trawl_reader_input(r);
	if (trawl_input_compression(in) == TRAWL_COMPRESSION_NONE)
		return trawl_reader_stats(r)->bytes;
	return trawl_input_raw_pos(in);
}
