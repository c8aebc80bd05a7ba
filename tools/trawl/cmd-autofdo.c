/* trawl autofdo: an AutoFDO text profile (executed ranges and taken
 * branches with counts, per binary) from one or more traces. */
#include <stdio.h>
#include <string.h>

#include "perf-cli.h"
#include "ranges-cli.h"

/* The trace is read before the output file is created, so a failed run
 * leaves no empty profile behind it. */
int cmd_autofdo(int argc, char **argv)
{
	struct trace_open to = { .cmd = "autofdo" };
	struct cli_image im = { .cmd = "autofdo" };
	struct trawl_ranges *r = NULL;
	struct trawl_error err;
	const char *out_path = NULL, *binary = NULL;
	int format = 0, rc, mapped = 0;
	char damage[768] = "";
	trawl_error_clear(&err);
	if (trawl_image_create(&im.img, &err) != TRAWL_OK || trawl_ranges_create(&r, &err) != TRAWL_OK) {
		rc = cli_report("autofdo", &err);
		goto out;
	}
	/* in the order of enum trawl_autofdo_format */
	static const char *const formats[] = { "text", "llvm-profgen", NULL };
	const struct cli_option opts[] = {
		CLI_CALLBACK("image", "ELF[@OFFSET]", cli_image_option, &im,
			     "a binary of the traced program, loaded OFFSET bytes\n"
			     "above its link addresses (repeatable): one block each,\n"
			     "addresses relative to it"),
		CLI_STRING("binary", 0, "NAME", &binary,
			   "write only the block of the image NAME (its path or\n"
			   "file name)"),
		CLI_CHOICE("format", "FORMAT", &format, formats,
			   "text (default: create_llvm_prof / create_gcov\n"
			   "--profiler text, as simpleperf inject writes it) or\n"
			   "llvm-profgen (its --unsymbolized-profile input)"),
		CLI_STRING("output", 'o', "FILE", &out_path, "write to FILE instead of standard output"),
		TRACE_OPTIONS(&to),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "autofdo",
		.usage = "[--image ELF[@OFFSET]]... [--binary NAME] [--format text|llvm-profgen]\n"
			 "                     [-o FILE] TRACE...",
		.description =
			"Counts the address ranges the traces executed (sequential runs ended by\n"
			"a taken branch, an exception or a gap) and the taken branches, and writes\n"
			"them as an AutoFDO text profile. Several traces add their counts.\n",
		.options = opts,
		.footer = "example:\n"
			  "  trawl emulate prog -o prog.tarmac\n"
			  "  trawl autofdo --image prog --format llvm-profgen prog.tarmac -o prog.raw\n"
			  "  llvm-profgen --binary prog --unsymbolized-profile prog.raw --output prog.afdo\n",
		.min_args = 1, .max_args = -1, .missing = "no trace given",
	};
	int n = cli_parse(&cmd, argc, argv, &rc);
	if (n < 0)
		goto out;
	/* several traces share the reader options: each must be for one */
	if (n > 1 && (rc = trace_options_check_all(&to, argv, n)))
		goto out;
	/* a perf.data says where its binaries were: no --image needed */
	for (int i = 0; !im.given && i < n; i++)
		if (perf_cli_is_perf(argv[i]) &&
		    (rc = perf_cli_symbol_images(argv[i], &to.opt, im.img, "autofdo", &mapped,
						  damage, sizeof damage)))
			goto out;
	im.given |= mapped;
	struct trawl_autofdo_options o = { .format = (enum trawl_autofdo_format)format,
					   .binary = binary, .damaged = damage[0] != 0 };
	struct trawl_autofdo_stats st;
	if (trawl_autofdo_check(im.given ? im.img : NULL, &o, &err) != TRAWL_OK) {
		/* a name a damaged recording lost is loss (1), not a usage error */
		if (err.status == TRAWL_ERR_CORRUPT) {
			cli_warn("autofdo", "%s: %s", damage, err.message);
			rc = EXIT_BAD_INPUT;
		} else {
			rc = cli_usage("autofdo", "%s", err.message);
		}
		goto out;
	}
	if ((rc = ranges_read_traces(&to, argv, n, r, im.given ? im.img : NULL)) || (rc = cli_output_to("autofdo", out_path)))
		goto out;
	if (trawl_autofdo_write(stdout, r, im.given ? im.img : NULL, &o, &st, &err) != TRAWL_OK) {
		rc = cli_report("autofdo", &err);
		goto out;
	}
	size_t nr;
	trawl_ranges_list(r, &nr);
	if (st.ranges_outside && st.ranges_outside == nr) {
		/* nothing of the trace is in the images: an empty profile */
		cli_warn("autofdo", "%llu executed range%s outside the images given (not written): "
			 "none of the trace is in them (a wrong image or offset?)",
			 (unsigned long long)st.ranges_outside, st.ranges_outside == 1 ? "" : "s");
		cli_mark_lossy();
	} else if (st.ranges_outside) {
		cli_warn("autofdo", "%llu executed range%s outside the images given (not written)",
			 (unsigned long long)st.ranges_outside, st.ranges_outside == 1 ? "" : "s");
	}
out:
	trawl_ranges_destroy(r);
	trawl_image_destroy(im.img);
	return rc;
}
