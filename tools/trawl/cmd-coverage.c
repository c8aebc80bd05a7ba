/* trawl coverage: line, function and branch coverage of one or more traces
 * of a program, as lcov, drcov or a text summary. */
#include <stdio.h>
#include <string.h>

#include "perf-cli.h"
#include "ranges-cli.h"

enum { FMT_LCOV, FMT_DRCOV, FMT_TEXT };

/* Line tables of every image, read before the traces so that a program
 * built without -g is reported at once. */
static int load_lines(struct trawl_image *img, struct trawl_lines *lines)
{
	size_t n;
	const struct trawl_image_module *m = trawl_image_modules(img, &n);
	struct trawl_error err;
	trawl_error_clear(&err);
	for (size_t i = 0; i < n; i++)
		if (trawl_lines_add_elf(lines, m[i].path, m[i].offset, &err) != TRAWL_OK)
			return cli_report("coverage", &err);
	return 0;
}

static int write_out(int format, struct trawl_ranges *r, struct trawl_image *img,
		     struct trawl_lines *lines)
{
	struct trawl_error err;
	struct trawl_coverage cov;
	trawl_error_clear(&err);
	enum trawl_status st;
	if (format == FMT_DRCOV) {
		st = trawl_coverage_write_drcov(stdout, r, img, &err);
	} else {
		st = trawl_coverage_build(&cov, r, img, lines, &err);
		if (st == TRAWL_OK) {
			st = format == FMT_LCOV ? trawl_coverage_write_lcov(stdout, &cov, "", &err)
						: trawl_coverage_write_text(stdout, &cov, &err);
			trawl_coverage_release(&cov);
		}
	}
	return st == TRAWL_OK ? 0 : cli_report("coverage", &err);
}

/* Line tables are loaded before the traces are read and the output file
 * is created only after them, so a program without -g or a bad trace
 * leaves no empty report behind. */
int cmd_coverage(int argc, char **argv)
{
	struct trace_open to = { .cmd = "coverage" };
	struct cli_image im = { .cmd = "coverage" };
	struct trawl_ranges *r = NULL;
	struct trawl_lines *lines = NULL;
	struct trawl_error err;
	const char *out_path = NULL;
	int format = FMT_LCOV, rc;
	trawl_error_clear(&err);
	if (trawl_image_create(&im.img, &err) != TRAWL_OK ||
	    trawl_ranges_create(&r, &err) != TRAWL_OK || trawl_lines_create(&lines, &err) != TRAWL_OK) {
		rc = cli_report("coverage", &err);
		goto out;
	}
	static const char *const formats[] = { "lcov", "drcov", "text", NULL };
	const struct cli_option opts[] = {
		CLI_CALLBACK("image", "ELF[@OFFSET]", cli_image_option, &im,
			     "the traced program (built with -g), loaded OFFSET\n"
			     "bytes above its link addresses (repeatable; required\n"
			     "but for a perf.data: the binaries its mappings name)"),
		CLI_CHOICE("format", "FORMAT", &format, formats,
			   "lcov (default: a tracefile for genhtml), drcov\n"
			   "(basic blocks, for Lighthouse) or text (a summary)"),
		CLI_STRING("output", 'o', "FILE", &out_path, "write to FILE instead of standard output"),
		TRACE_OPTIONS(&to),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "coverage",
		.usage = "--image ELF[@OFFSET]... [--format lcov|drcov|text] [-o FILE] TRACE...",
		.description =
			"Which source lines (DWARF line tables), functions (symbol table) and\n"
			"conditional branches (taken / not taken) the traces executed, and how\n"
			"often. Several traces add their counts.\n",
		.options = opts,
		.footer = "example:\n"
			  "  trawl emulate prog -o prog.tarmac\n"
			  "  trawl coverage --image prog prog.tarmac -o prog.info\n"
			  "  genhtml prog.info -o html\n",
		.min_args = 1, .max_args = -1, .missing = "no trace given",
	};
	int n = cli_parse(&cmd, argc, argv, &rc);
	if (n < 0)
		goto out;
	/* several traces share the reader options: each must be for one */
	if (n > 1 && (rc = trace_options_check_all(&to, argv, n)))
		goto out;
	/* a perf.data says where its binaries were: no --image needed */
	int mapped = 0;
	for (int i = 0; !im.given && i < n; i++)
		if (perf_cli_is_perf(argv[i]) &&
		    (rc = perf_cli_symbol_images(argv[i], &to.opt, im.img, "coverage", &mapped, NULL, 0)))
			goto out;
	im.given |= mapped;
	if (!im.given) {
		rc = cli_usage("coverage", "give the traced program with --image ELF");
		goto out;
	}
	if ((format != FMT_DRCOV && (rc = load_lines(im.img, lines))) ||
	    (rc = ranges_read_traces(&to, argv, n, r, im.img)) || (rc = cli_output_to("coverage", out_path)))
		goto out;
	rc = write_out(format, r, im.img, lines);
	/* as autofdo says: a wrong image or offset is otherwise a silent 0% */
	size_t nr;
	const struct trawl_range_count *rg = trawl_ranges_list(r, &nr);
	uint64_t outside = trawl_ranges_outside(rg, nr, im.img);
	if (!rc && outside && outside == nr) {
		/* nothing of the trace is in the images: the 0% is no answer */
		cli_warn("coverage", "%llu executed range%s outside the images given (not counted): "
			 "none of the trace is in them (a wrong image or offset?)",
			 (unsigned long long)outside, outside == 1 ? "" : "s");
		cli_mark_lossy();
	} else if (!rc && outside) {
		cli_warn("coverage", "%llu executed range%s outside the images given (not counted)",
			 (unsigned long long)outside, outside == 1 ? "" : "s");
	}
out:
	trawl_lines_destroy(lines);
	trawl_ranges_destroy(r);
	trawl_image_destroy(im.img);
	return rc;
}
