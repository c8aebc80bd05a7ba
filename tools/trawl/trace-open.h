/* Opening a trace from the command line: the reader options every
 * trace-reading command accepts, and warnings printed as they come. */
#ifndef TRAWL_TRACE_OPEN_H
#define TRAWL_TRACE_OPEN_H

#include "cli.h"
#include "options.h"

/* The reader options every trace-reading command takes: entries of its
 * option table (to is a struct trace_open *). */
#define TRACE_OPTIONS(to)                                                            \
	CLI_FLAG("implicit-thumb", 0, &(to)->opt.implicit_thumb,                     \
		 "instruction lines without an instruction-set field\n"              \
		 "are Thumb (Cortex-M traces)"),                                      \
	CLI_FLAG("big-endian", 0, &(to)->opt.big_endian,                             \
		 "memory values in the trace are big-endian"),                        \
	CLI_FLAG("lenient", 0, &(to)->opt.lenient,                                   \
		 "skip malformed lines (counted and reported) instead\n"             \
		 "of stopping at the first one"),                                     \
	CLI_STRING("defs", 0, "DEFS", &(to)->opt.defs,                               \
		   "Barrelfish dumps: event names from DEFS (.json of\n"            \
		   "'trawl defs', or a .tdef file)"),                                \
	CLI_STRING("ete-config", 0, "FILE", &(to)->ete_config,                       \
		   "the trace is a raw ETE/ETMv4 buffer (TRBE): FILE gives\n"      \
		   "the trace unit's registers, TRBE pointers, format"),            \
	CLI_LIST("ete-image", 0, "ELF[@OFFSET]|ADDR=FILE", &(to)->ete_images,        \
		 "ETE: program image to decode with (repeatable; added\n"          \
		 "to a snapshot's memory dumps)"),                                   \
	CLI_STRING("ete-buffer", 0, "NAME", &(to)->opt.ete_buffer,                   \
		   "ETE snapshot: read only this trace buffer (default:\n"        \
		   "every buffer, in trace.ini's order)"),                        \
	CLI_STRING("symfs", 0, "DIR", &(to)->opt.perf_symfs,                         \
		   "perf.data: look for mapped files under DIR (recorded\n"        \
		   "path, base name)"),                                             \
	CLI_STRING("binary-dir", 0, "DIR", &(to)->opt.perf_binary_dir,               \
		   "perf.data: mapped files by build id (DIR/<hex id>,\n"          \
		   "DIR/.build-id/..)"),                                            \
	CLI_STRING("vmlinux", 0, "FILE", &(to)->opt.perf_vmlinux,                    \
		   "perf.data: the kernel's ELF image, placed where it ran"),      \
	CLI_STRING("kallsyms", 0, "FILE", &(to)->opt.perf_kallsyms,                  \
		   "perf.data: a copy of /proc/kallsyms (where _text ran)")

struct trace_open {
	const char *cmd;
	const char *path;
	struct trawl_reader_options opt;
	int tail_dropped; /* the command drops the end of the input on purpose
			   * (truncate): a cut last line there is no loss */
	const char *ete_config;      /* --ete-config: also asks for format ETE */
	struct cli_list ete_images;
	/* the command reads several traces with one set of options (serve,
	 * autofdo, coverage): each is read with the options that apply to its
	 * kind (trace_options_check_all checked that each applies to one) */
	int fit;
};

/* Several traces: every reader option given must apply to one of them at
 * least; else a usage error (returned: EXIT_USAGE) naming the option, what
 * it is for and the kinds given. 0 when all do. Sets to->fit. */
int trace_options_check_all(struct trace_open *to, char *const *paths, int n);

/* Put the options parsed into to->opt (the ETE ones need it); done by
 * trace_reader_open and index_cli_build_options. */
void trace_open_options(struct trace_open *to);
/* The reader options for to->path: to->opt, less (with to->fit) the ones
 * that do not apply to its kind. */
struct trawl_reader_options trace_open_fitted(struct trace_open *to);

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

/* After reading: report skipped bad lines (lenient mode); they, a last
 * line cut off by the end of the input and decoded trace that could not be
 * decoded everywhere (warned about as it was read) make the command exit 1
 * once it has written its output (cli_mark_lossy). */
void trace_report_skipped(const struct trace_open *to, const struct trawl_reader *r);

#endif
