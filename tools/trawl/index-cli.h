/* Shared by the index commands (index, regs, mem, last-write, next-write,
 * pc, changes, info): option parsing, opening (and building) the index
 * with a progress bar, line/event mapping and printing helpers. */
#ifndef TRAWL_INDEX_CLI_H
#define TRAWL_INDEX_CLI_H

#include <stdio.h>

#include "trace-open.h"
#include "trawl/index.h"

#define INDEX_OPTIONS_HELP                                                      \
	"  --index FILE      the index to use (default: TRACE.trawlidx, or\n"      \
	"                    $XDG_CACHE_HOME/trawl/ when that folder is read-only);\n" \
	"                    built when missing or stale\n"                      \
	"  --json            machine-readable output\n"

struct index_cli {
	struct trace_open to;
	const char *index_path;
	int json;
	struct trawl_index *ix;
	/* the trace text, mapped when it is a plain file (for printing lines) */
	struct trawl_input *text;
	const char *map;
	size_t map_len;
};

/* Handle --index, --json and the reader options at argv[*i]; 1 if taken.
 * Sets *bad (and returns 1) when an option lacks its argument. */
int index_cli_option(struct index_cli *c, int argc, char **argv, int *i, int *bad);

/* A command's own option: "--name VALUE" (value set) or a flag (flag set). */
struct index_cli_opt {
	const char *name;
	const char **value;
	int *flag;
};

/* Parse argv[1..]: the shared options, then the command's own (opts ends
 * with a NULL name), then positional arguments: the trace into c->to.path
 * and up to max_extra more into extra[] (*nextra counts them; may be NULL
 * when max_extra is 0). Returns 0, or EXIT_USAGE after the usage message. */
int index_cli_parse(struct index_cli *c, int argc, char **argv,
		    const struct index_cli_opt *opts, const char **extra, int max_extra,
		    int *nextra);

/* Open (building if needed) the index of c->to.path. Returns 0 or an exit
 * code after printing the error. */
int index_cli_open(struct index_cli *c);
void index_cli_close(struct index_cli *c);

/* Exit code of an index command that met a damaged index for the first
 * time: main() runs the command once more, and that run's index_cli_open
 * rebuilds the index first. */
#define INDEX_CLI_RETRY 99

/* Report a query error: a damaged index (the first time) becomes a note
 * and INDEX_CLI_RETRY; anything else goes to cli_report. */
int index_cli_report(struct index_cli *c, const struct trawl_error *err);
/* Close, turning rc into INDEX_CLI_RETRY (or an error) when any query on
 * the index met damage, even one whose status the command did not need. */
int index_cli_end(struct index_cli *c, int rc);

/* --at LINE -> event; prints the error and returns an exit code, or 0. */
int index_cli_line(struct index_cli *c, const char *arg, uint64_t *ev);

/* The first line of an event's text in the trace ("" when not mapped). */
void index_cli_event_text(struct index_cli *c, uint64_t ev, const char **s, size_t *len);

/* Print the event as "line L (event N): TEXT" or as a JSON object ("null"
 * when it cannot be read: the damage then ends the command through
 * index_cli_end). */
void index_cli_print_event(struct index_cli *c, FILE *f, uint64_t ev);

/* JSON string with escapes. */
void json_str(FILE *f, const char *s, size_t len);

/* Register value as hex, most significant byte first, "??" for unknown. */
void print_reg_hex(FILE *f, const uint8_t *v, const uint8_t *k, uint32_t n);

/* Parse a register name as the trace would write it at event ev (lr is r14
 * on an AArch32 instruction): storage register, byte range. Returns 1 on
 * success. */
int index_cli_reg(struct index_cli *c, const char *name, uint64_t ev, uint32_t *reg,
		  uint32_t *off, uint32_t *size);

#endif
