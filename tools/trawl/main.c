/* trawl: the command table and dispatch (git-style subcommands). */
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
		"usage: trawl [--version] [--help] COMMAND [ARGS...]\n"
		"\n"
		"trawl makes processor and system execution traces explorable in time.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"'trawl help COMMAND' or 'trawl COMMAND --help' explains one command.\n"
		"Exit status: 0 success, 1 bad input or failure, 2 usage error.\n");
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
	if (cli_wants_help(argc, argv)) {
		printf("usage: trawl version\n\nPrints the version of trawl.\n");
		return EXIT_OK;
	}
	if (argc > 1)
		return cli_usage("version", "unexpected argument '%s'", argv[1]);
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
		return c->fn(2, hargv);
	}
	const struct command *c = find_command(name);
	if (!c) {
		fprintf(stderr, "trawl: '%s' is not a trawl command. See 'trawl --help'.\n", name);
		return EXIT_USAGE;
	}
	/* an index command that met a damaged index asks for one rebuild and
	 * a second run (index-cli.c) */
	int rc = c->fn(argc - 1, argv + 1);
	if (rc == INDEX_CLI_RETRY) {
		fflush(stdout);
		rc = c->fn(argc - 1, argv + 1);
	}
	return rc == INDEX_CLI_RETRY ? EXIT_BAD_INPUT : rc;
}
