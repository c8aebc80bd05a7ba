/* trawl vcd: a trace as a waveform (IEEE 1364 VCD). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "calls-cli.h"

/* Every event goes through the VCD writer, which must know every signal
 * before the first value: it keeps the value changes aside and writes the
 * header and then them at the end. Timestamps that go backwards are held
 * and reported, not an error. */
int cmd_vcd(int argc, char **argv)
{
	struct calls_run r;
	struct trawl_vcd_options vo = { 0 };
	struct trawl_vcd *v = NULL;
	struct trawl_reader *rd = NULL;
	const char *out_path = NULL;
	FILE *f = NULL;
	int rc, timestamps = 0;
	if ((rc = calls_run_init(&r, "vcd")))
		return rc;
	const struct cli_option opts[] = {
		CLI_CALLBACK("image", "ELF[@OFFSET]", cli_image_option, &r.image_opt,
			     "symbols for the function signal (repeatable)"),
		CLI_STRING("output", 'o', "FILE", &out_path, "output file (default: standard output)"),
		CLI_FLAG("timestamps", 0, &timestamps, "time from the trace's timestamps"),
		TRACE_OPTIONS(&r.to),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "vcd",
		.usage = "[--image ELF[@OFFSET]]... [--timestamps] [-o FILE] TRACE",
		.description =
			"Writes TRACE as a VCD waveform (IEEE 1364) for GTKWave and other viewers:\n"
			"one scope per CPU holding pc, encoding, text (the disassembly, ASCII),\n"
			"function (with --image; ASCII), every core register the trace writes, and\n"
			"the memory access of each instruction (mem_addr, mem_data, mem_size,\n"
			"mem_read, mem_write). Time is the instruction count (1 ns each) unless\n"
			"--timestamps asks for the trace's own; timestamps that go backwards are\n"
			"held at the latest time and reported, not an error.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	if (calls_run_args(&r, &cmd, argc, argv, &rc) < 0)
		goto out;
	vo.use_timestamps = timestamps;
	size_t nsyms;
	trawl_image_symbols(r.image, &nsyms);
	vo.image = nsyms ? r.image : NULL;
	struct trawl_error err;
	trawl_error_clear(&err);
	if ((rc = trace_reader_open(&r.to, &rd)))
		goto out;
	if (trawl_vcd_create(&v, &vo, &err) != TRAWL_OK) {
		rc = cli_report("vcd", &err);
		goto out;
	}
	struct cli_progress prog;
	cli_progress_start(&prog, "vcd", trawl_input_raw_size(trawl_reader_input(rd)));
	for (;;) {
		struct trawl_event_batch b;
		enum trawl_status st = trawl_reader_next(rd, &b, &err);
		if (st == TRAWL_END)
			break;
		if (st != TRAWL_OK || trawl_vcd_add(v, &b, &err) != TRAWL_OK) {
			cli_progress_finish(&prog);
			rc = cli_report("vcd", &err);
			goto out;
		}
		image_check_batch(&r.image_check, vo.image, b.events, b.count);
		cli_progress_update(&prog, trace_progress(rd));
	}
	cli_progress_finish(&prog);
	trace_report_skipped(&r.to, rd);
	image_check_report("vcd", &r.image_check);
	uint64_t first;
	uint64_t back = trawl_vcd_backwards(v, &first);
	if (back)
		cli_warn("vcd", "%s: timestamps go backwards %" PRIu64 " time%s (first at line %" PRIu64
				"); held at the latest time",
			 r.to.path, back, back == 1 ? "" : "s", first);
	f = out_path && strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
	if (!f) {
		cli_error("vcd", "cannot create '%s'", out_path);
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	if (trawl_vcd_finish(v, f, &err) != TRAWL_OK)
		rc = cli_report("vcd", &err);
out:
	if (f && f != stdout && fclose(f) != 0 && !rc) {
		cli_error("vcd", "cannot write '%s'", out_path);
		rc = EXIT_BAD_INPUT;
	}
	trawl_vcd_destroy(v);
	trawl_reader_close(rd);
	calls_run_release(&r);
	return rc;
}
