/* One option parser for every command, in the way of git's parse_options:
 * each command describes its options in a table, and the same table drives
 * parsing and the --help text, so the two cannot disagree.
 *
 * Every option with a value takes both `--name VALUE` and `--name=VALUE`
 * (a short one `-o VALUE` and `-oVALUE`); a flag given a value is an error.
 * `--` ends the options; `-` alone is an argument (standard input). Options
 * and arguments may come in any order. --help and -h print the help. */
#ifndef TRAWL_OPTIONS_H
#define TRAWL_OPTIONS_H

#include <stdint.h>

enum cli_opt_kind {
	CLI_OPT_END = 0,
	CLI_OPT_FLAG,     /* int *: set to 1 */
	CLI_OPT_STRING,   /* const char **: the last one given wins */
	CLI_OPT_U64,      /* uint64_t *: decimal or 0x hex, at most `max` */
	CLI_OPT_LIST,     /* struct cli_list *: every value, in order */
	CLI_OPT_CHOICE,   /* int *: the index of the value in choices[] */
	CLI_OPT_CALLBACK, /* cb(ctx, value): value NULL for a flag */
	CLI_OPT_TEXT,     /* no option: a line of help text (a heading) */
};

/* An option's value may be left out (`--debug` or `--debug=calls`). */
#define CLI_OPT_OPTIONAL_VALUE 1
/* Parsed but not listed in --help (testing aids). */
#define CLI_OPT_HIDDEN 2

struct cli_option;
/* Returns 0 when the value was taken, or an exit code after printing why. */
typedef int (*cli_option_fn)(void *ctx, const struct cli_option *opt, const char *value);

struct cli_option {
	enum cli_opt_kind kind;
	const char *name;  /* long name without dashes, or NULL */
	char short_name;   /* 'o' for -o, or 0 */
	const char *arg;   /* name of the value in help ("LINE"); NULL: a flag */
	const char *help;  /* may hold '\n' for more lines */
	void *value;
	cli_option_fn cb;
	void *ctx;
	uint64_t max;      /* CLI_OPT_U64: largest value allowed (0: any) */
	const char *const *choices; /* CLI_OPT_CHOICE: the names, NULL-ended */
	int flags;
	int *seen;         /* when set, counts how often the option was given */
};

/* The values of a repeated option. */
#define CLI_LIST_MAX 64
struct cli_list {
	const char *v[CLI_LIST_MAX];
	int n;
};

#define CLI_FLAG(n, s, var, h) { .kind = CLI_OPT_FLAG, .name = n, .short_name = s, .help = h, .value = var }
#define CLI_STRING(n, s, a, var, h) \
	{ .kind = CLI_OPT_STRING, .name = n, .short_name = s, .arg = a, .help = h, .value = var }
#define CLI_U64(n, a, var, mx, seenp, h) \
	{ .kind = CLI_OPT_U64, .name = n, .arg = a, .help = h, .value = var, .max = mx, .seen = seenp }
#define CLI_LIST(n, s, a, var, h) \
	{ .kind = CLI_OPT_LIST, .name = n, .short_name = s, .arg = a, .help = h, .value = var }
#define CLI_CHOICE(n, a, var, names, h) \
	{ .kind = CLI_OPT_CHOICE, .name = n, .arg = a, .help = h, .value = var, .choices = names }
#define CLI_CALLBACK(n, a, fn, cx, h) \
	{ .kind = CLI_OPT_CALLBACK, .name = n, .arg = a, .help = h, .cb = fn, .ctx = cx }
#define CLI_TEXT(t) { .kind = CLI_OPT_TEXT, .help = t }
#define CLI_END { .kind = CLI_OPT_END }

/* A command (or a verb of one, such as "ete packets"). */
struct cli_command {
	const char *name;        /* as in messages: "regs", "ete packets" */
	const char *usage;       /* what follows "usage: trawl NAME " */
	const char *description; /* paragraphs after the usage line */
	const struct cli_option *options;
	const char *footer;      /* text after the options (examples), or NULL */
	int min_args, max_args;  /* positional arguments; max -1: no limit */
	const char *missing;     /* message when fewer than min_args ("no trace given") */
};

/* Parse argv[1..argc) against cmd. Returns the number of positional
 * arguments, which are moved to argv[0..n) in order; or -1 when the
 * command must return *rc at once (0 after --help, EXIT_USAGE after a
 * usage message on stderr). */
int cli_parse(const struct cli_command *cmd, int argc, char **argv, int *rc);

/* The --help text of cmd on stdout. */
void cli_print_help(const struct cli_command *cmd);

#endif
