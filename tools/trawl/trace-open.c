/* Shared reader options and warnings for trace-reading commands. */
#include "trace-open.h"

#include <stdlib.h>
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

struct trawl_reader_options trace_open_fitted(struct trace_open *to)
{
	trace_open_options(to);
	struct trawl_reader_options o = to->opt;
	if (to->fit && to->path)
		trawl_reader_options_fit(&o, trawl_trace_kind_probe(to->path, &o));
	return o;
}

int trace_options_check_all(struct trace_open *to, char *const *paths, int n)
{
	enum trawl_trace_kind *kinds = calloc(n > 0 ? (size_t)n : 1, sizeof *kinds);
	const char *name, *for_what;
	char given[256] = "";
	size_t k = 0;
	int rc = 0;
	if (!kinds) {
		cli_error(to->cmd, "out of memory");
		return EXIT_BAD_INPUT;
	}
	trace_open_options(to);
	for (int i = 0; i < n; i++) {
		kinds[i] = trawl_trace_kind_probe(paths[i], &to->opt);
		const char *kn = trawl_trace_kind_name(kinds[i]);
		if (!strstr(given, kn))
			k += (size_t)snprintf(given + k, k < sizeof given ? sizeof given - k : 0,
					      "%s%s", k ? ", " : "", kn);
		k = k < sizeof given ? k : sizeof given;
	}
	to->fit = 1;
	for (size_t i = 0; !rc; i++) {
		int fits = trawl_reader_option_fits_any(&to->opt, i, kinds, (size_t)n, &name, &for_what);
		if (fits < 0)
			break;
		if (!fits)
			rc = cli_usage(to->cmd, "--%s is for %s; the traces given are %s", name, for_what,
				       given);
	}
	free(kinds);
	return rc;
}

int trace_reader_open(struct trace_open *to, struct trawl_reader **out)
{
	struct trawl_error err;
	trawl_error_clear(&err);
	to->opt.warn = print_warning;
	to->opt.warn_ctx = to;
	struct trawl_reader_options o = trace_open_fitted(to);
	if (trawl_reader_open(out, to->path, &o, &err) != TRAWL_OK)
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
	to->opt.warn = print_warning;
	to->opt.warn_ctx = to;
	struct trawl_reader_options o = trace_open_fitted(to);
	if (trawl_reader_open_input(out, in, &o, &err) != TRAWL_OK)
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
