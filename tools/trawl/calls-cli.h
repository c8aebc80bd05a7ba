/* What the call-structure commands (calltree, profile, callinfo,
 * flamegraph, export) share: --image and --debug=calls, reading a trace
 * into a call tree, and naming. */
#ifndef TRAWL_CALLS_CLI_H
#define TRAWL_CALLS_CLI_H

#include "image-check.h"
#include "trace-open.h"

/* The options every call-structure command takes: entries of its option
 * table (r is a struct calls_run *), the reader options included. */
#define CALLS_OPTIONS(r)                                                             \
	CLI_CALLBACK("image", "ELF[@OFFSET]", cli_image_option, &(r)->image_opt,     \
		     CLI_IMAGE_HELP),                                                \
	{ .kind = CLI_OPT_CALLBACK, .name = "debug", .arg = "calls",                 \
	  .flags = CLI_OPT_OPTIONAL_VALUE, .cb = calls_debug_option, .ctx = (r),     \
	  .help = "explain every call, return and tail-call decision on\n"          \
		  "standard error" },                                                \
	CLI_FLAG("use-index", 0, &(r)->use_index,                                    \
		 "read PCs and encodings from the trace's index (built\n"            \
		 "when missing) instead of parsing the text: much faster\n"          \
		 "once the index exists; without register values, calls\n"           \
		 "need BL/BLR/BLX and returns are matched by address only"),          \
	CLI_FLAG("parse-all", 0, &(r)->parse_all,                                    \
		 "parse every line of the trace (by default lines the call\n"        \
		 "analysis does not need, memory accesses and writes of\n"           \
		 "other registers, are skipped unparsed)"),                           \
	TRACE_OPTIONS(&(r)->to)

struct calls_run {
	struct trace_open to;
	struct trawl_image *image;
	struct cli_image image_opt; /* --image, adding to image */
	struct trawl_calls *calls;
	int debug;
	int use_index;
	int parse_all;     /* --parse-all: no partial parsing (for comparison) */
	uint64_t events;
	struct image_check image_check; /* the image against the trace's encodings */
	/* told of the reading's progress besides the terminal's bar; may be NULL */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
};

/* The --use-index path of calls_run_read (calls-index.c). */
int calls_read_index(struct calls_run *r);
/* Start: cmd is the command name for messages. */
int calls_run_init(struct calls_run *r, const char *cmd);
/* --debug[=calls] (CALLS_OPTIONS' callback; ctx is the struct calls_run). */
int calls_debug_option(void *ctx, const struct cli_option *opt, const char *value);

/* Parse the command line against cmd (whose table holds CALLS_OPTIONS(r))
 * with cli_parse; the first argument is the trace (r->to.path). Returns the
 * number of arguments (argv[0] the trace, argv[1..] the command's own), or
 * -1 when the command must return *rc. */
int calls_run_args(struct calls_run *r, const struct cli_command *cmd, int argc, char **argv,
		   int *rc);

/* Read the whole trace at r->to.path into r->calls. Returns an exit code. */
int calls_run_read(struct calls_run *r);
void calls_run_release(struct calls_run *r);

/* Time with its unit for people: "1234" or "10.5us" style. */
const char *calls_unit_suffix(const struct trawl_calls *c);

#endif
