/* trawl: the command table and dispatch (git-style subcommands). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "index-cli.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
#define TRAWL_COMMAND(name, fn, summary) { name, fn, summary },
#include "commands.h"
#include "index-cli.h"
#undef TRAWL_COMMAND
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void print_overview(FILE *f)
{
	fprintf(f,
		"usage: trawl [--version] [--help] COMMAND [ARGS...] [--debug]\n"
		"\n"
		"trawl makes processor and system execution traces explorable in time.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"'trawl help COMMAND' or 'trawl COMMAND --help' explains one command.\n"
		"--debug (with any command, or TRAWL_DEBUG=1) adds to an error where in\n"
		"trawl's code it was detected.\n"
		"Exit status: 0 when every input was used; 1 when anything was lost,\n"
		"skipped or damaged (after writing what could be written); 2 usage error.\n");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int cmd_version(int argc, char **argv)
{
	static const struct cli_option opts[] = { CLI_END };
	static const struct cli_command cmd = {
		.name = "version",
		.usage = "",
		.description = "Prints the version of trawl.\n",
		.options = opts,
	};
	int rc;
	if (cli_parse(&cmd, argc, argv, &rc) < 0)
		return rc;
	printf("trawl %s\n", TRAWL_VERSION);
	return EXIT_OK;
}

/* --debug anywhere before a "--" is taken out here, so every command has
 * it without its own option parsing knowing. */
static int take_debug(int argc, char **argv)
{
	const char *env = getenv("TRAWL_DEBUG");
	cli_debug = env && *env && strcmp(env, "0") != 0;
	int n = 1;
	for (int i = 1, opts = 1; i < argc; i++) {
		if (opts && strcmp(argv[i], "--") == 0)
			opts = 0;
		if (opts && strcmp(argv[i], "--debug") == 0) {
			cli_debug = 1;
			continue;
		}
		argv[n++] = argv[i];
	}
	argv[n] = NULL;
	return n;
}

/* What a command printed may still sit in stdout's buffer, and a full disk
 * or a closed pipe only shows when it is written: a command that answered
 * into a file that did not take it has lost its answer (exit 1, said once),
 * whatever the command itself checked. */
static int output_written(const char *name, int rc)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	if (rc != EXIT_OK)
		return rc;
	if (errno)
		fprintf(stderr, "trawl: %s: cannot write the output: %s\n", name, strerror(errno));
	else
		fprintf(stderr, "trawl: %s: cannot write the output\n", name);
	return EXIT_BAD_INPUT;
}

/* --debug is taken out first, then the words that are not commands (--help,
 * --version, help CMD) are answered here, so each command keeps one parser.
 * The command's exit status stands, with two exceptions: one second run when
 * an index proved damaged mid-query (INDEX_CLI_RETRY), and 0 becoming 1 when
 * the command marked input as lost (cli_mark_lossy). */
int main(int argc, char **argv)
{
	argc = take_debug(argc, argv);
	if (argc < 2) {
		print_overview(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
		print_overview(stdout);
		return EXIT_OK;
	}
	if (strcmp(name, "--version") == 0)
		name = "version";
	if (strcmp(name, "help") == 0) {
		if (argc < 3) {
			print_overview(stdout);
			return EXIT_OK;
		}
		const struct command *c = find_command(argv[2]);
		if (!c) {
			fprintf(stderr, "trawl: help: no such command '%s'\n", argv[2]);
			return EXIT_USAGE;
		}
		char *hargv[] = { argv[2], "--help", NULL };
		return output_written("help", c->fn(2, hargv));
	}
	const struct command *c = find_command(name);
	if (!c) {
		fprintf(stderr, "trawl: '%s' is not a trawl command. See 'trawl --help'.\n", name);
		return EXIT_USAGE;
	}
	/* an index command that met a damaged index asks for one rebuild and
	 * a second run (index-cli.c) */
	/* cli_parse reorders argv in place (arguments first), so the second
	 * run gets a copy of the command line as it was given */
	char **again = malloc(sizeof *again * (size_t)argc);
	if (again)
		memcpy(again, argv, sizeof *again * (size_t)argc);
	int rc = c->fn(argc - 1, argv + 1);
	if (rc == INDEX_CLI_RETRY && again) {
		fflush(stdout);
		rc = c->fn(argc - 1, again + 1);
	}
	free(again);
	if (rc == INDEX_CLI_RETRY)
		return EXIT_BAD_INPUT;
	/* input was lost or skipped (and said so): not a clean success */
	if (rc == EXIT_OK && cli_lossy())
		rc = EXIT_BAD_INPUT;
	return output_written(c->name, rc);
}
