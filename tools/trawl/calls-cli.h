/* What the call-structure commands (calltree, profile, callinfo,
 * flamegraph, export) share: --image and --debug=calls, reading a trace
 * into a call tree, and naming. */
#ifndef TRAWL_CALLS_CLI_H
#define TRAWL_CALLS_CLI_H

#include "trace-open.h"

#define CALLS_OPTIONS_HELP                                                         \
	"  --image ELF[@OFFSET]  read symbols from ELF, loaded OFFSET bytes above its\n" \
	"                    link addresses (repeatable)\n"                             \
	"  --debug=calls     explain every call, return and tail-call decision on\n"   \
	"                    standard error\n"                                         \
	"  --use-index       read PCs and encodings from the trace's index (built\n"   \
	"                    when missing) instead of parsing the text: much faster\n" \
	"                    once the index exists; without register values, calls\n"  \
	"                    need BL/BLR/BLX and returns are matched by address only\n" \
	"  --parse-all       parse every line of the trace (by default lines the call\n" \
	"                    analysis does not need, memory accesses and writes of\n" \
	"                    other registers, are skipped unparsed)\n"

struct calls_run {
	struct trace_open to;
	struct trawl_image *image;
	struct trawl_calls *calls;
	int debug;
	int use_index;
	int parse_all;     /* --parse-all: no partial parsing (for comparison) */
	uint64_t events;
};

/* The --use-index path of calls_run_read (calls-index.c). */
int calls_read_index(struct calls_run *r);
/* Start: cmd is the command name for messages. */
int calls_run_init(struct calls_run *r, const char *cmd);
/* If argv[*i] is --image/--debug or a reader option, apply it (advancing
 * *i past a separate argument) and return 1; -1 after printing a usage or
 * image error (the command returns the exit code in *rc); 0 otherwise. */
int calls_run_option(struct calls_run *r, int argc, char **argv, int *i, int *rc);
/* A command's own options: return 1 when argv[*i] was one (advance *i past
 * a separate value), 0 when it is not, -1 after a usage error (exit code in
 * *rc). */
typedef int (*calls_option_fn)(void *ctx, int argc, char **argv, int *i, int *rc);
/* Arguments after TRACE (callinfo's functions); NULL: they are errors. */
typedef void (*calls_extra_fn)(void *ctx, const char *arg);

/* Parse argv[1..]: the shared options, the command's own (opt), TRACE, and
 * further arguments (extra). Returns 0 or the exit code to return. */
int calls_run_args(struct calls_run *r, int argc, char **argv, calls_option_fn opt,
		   calls_extra_fn extra, void *ctx);

/* Read the whole trace at r->to.path into r->calls. Returns an exit code. */
int calls_run_read(struct calls_run *r);
void calls_run_release(struct calls_run *r);

/* Time with its unit for people: "1234" or "10.5us" style. */
const char *calls_unit_suffix(const struct trawl_calls *c);

#endif
