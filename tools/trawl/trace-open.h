/* Opening a trace from the command line: the reader options every
 * trace-reading command accepts, and warnings printed as they come. */
#ifndef TRAWL_TRACE_OPEN_H
#define TRAWL_TRACE_OPEN_H

#include "cli.h"

/* Help text for the shared options, to paste into a command's usage. */
#define TRACE_OPTIONS_HELP                                                      \
	"  --implicit-thumb  instruction lines without an instruction-set field\n" \
	"                    are Thumb (Cortex-M traces)\n"                       \
	"  --big-endian      memory values in the trace are big-endian\n"          \
	"  --lenient         skip malformed lines (counted and reported) instead\n" \
	"                    of stopping at the first one\n"

struct trace_open {
	const char *cmd;
	const char *path;
	struct trawl_reader_options opt;
};

/* If argv[*i] is a shared reader option, apply it, advance *i and return 1. */
int trace_option(struct trace_open *to, int argc, char **argv, int *i);

/* Open to->path; prints the error and returns the exit code on failure
 * (0 on success). */
int trace_reader_open(struct trace_open *to, struct trawl_reader **out);

/* The same over an input the command opened itself (to tap its bytes);
 * the reader takes `in`, also when this fails. */
int trace_reader_open_input(struct trace_open *to, struct trawl_input *in,
			    struct trawl_reader **out);

/* How far through its input a reader is, in the units of
 * trawl_input_raw_size: parsed bytes for plain files (handed out as one
 * mapped chunk), compressed bytes consumed otherwise. */
uint64_t trace_progress(struct trawl_reader *r);

/* After reading: report skipped bad lines (lenient mode). */
void trace_report_skipped(const struct trace_open *to, const struct trawl_reader *r);

#endif
