/* Helpers shared by the subcommands: messages, exit codes, progress. */
#ifndef TRAWL_CLI_H
#define TRAWL_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "options.h"
#include "trawl/trawl.h"

/* Exit codes: 0 ok, 1 bad input or failure, 2 usage. */
#define EXIT_OK 0
#define EXIT_BAD_INPUT 1
#define EXIT_USAGE 2

#define TRAWL_COMMAND(name, fn, summary) int fn(int argc, char **argv);
#include "commands.h"
#undef TRAWL_COMMAND

/* "trawl: CMD: message" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* trawl --debug (or TRAWL_DEBUG=1): errors also say where in trawl's code
 * they were detected. */
extern int cli_debug;

void cli_warn(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* The exit status rule, in one place: a command that reports lost,
 * skipped or damaged input and carries on (after writing what it can)
 * calls cli_mark_lossy(); main() then turns its exit status 0 into 1. */
void cli_mark_lossy(void);
int cli_lossy(void);

/* Print a library error (with file:line:col and excerpt) and return the exit
 * code that fits its status. */
int cli_report(const char *cmd, const struct trawl_error *err);
/* The message of the last cli_report in this thread ("" if none), for a
 * view that shows errors elsewhere than on the terminal (trawl serve). */
const char *cli_last_error(void);
/* The warnings cli_warn printed in this thread since the last clear, "; "
 * between them (cut with "..." past 1 KiB). */
const char *cli_warnings(void);
void cli_warnings_clear(void);
/* 1 when msg is one of the warnings cli_warnings() holds, word for word. */
int cli_warned(const char *msg);
/* Usage error: message plus "see 'trawl CMD --help'"; returns EXIT_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* The --image ELF[@OFFSET] option of the commands that read symbols: a
 * CLI_CALLBACK with cli_image_option and a struct cli_image as context. */
struct cli_option;
struct cli_image {
	const char *cmd;
	struct trawl_image *img;
	int given;
};
#define CLI_IMAGE_HELP                                                  \
	"read symbols from ELF, loaded OFFSET bytes above its\n"        \
	"link addresses (repeatable)"
int cli_image_option(void *ctx, const struct cli_option *opt, const char *value);

/* -o FILE for a command that prints to standard output: from now on
 * standard output goes to path ("-" or NULL: left as it is). Returns 0 or
 * EXIT_BAD_INPUT after saying why the file cannot be created. Call it once
 * the input is known to be readable, so a failed run leaves no empty file
 * behind it. */
int cli_output_to(const char *cmd, const char *path);

/* Parse an unsigned number (decimal or 0x hex). Returns 1 on success. */
int cli_parse_u64(const char *s, uint64_t *out);

/* Progress bar on stderr, shown only when stderr is a terminal and the work
 * takes long enough to matter (> 0.5 s). */
struct cli_progress {
	const char *label;
	uint64_t total;
	double start;
	double last;
	int active;
	int shown;
};
void cli_progress_start(struct cli_progress *p, const char *label, uint64_t total);
void cli_progress_update(struct cli_progress *p, uint64_t done);
void cli_progress_finish(struct cli_progress *p);

double cli_now(void);

#endif
