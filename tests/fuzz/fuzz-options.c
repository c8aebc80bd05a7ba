/* Fuzz harness for the command-line option parser (tools/trawl/options.c):
 * the input, split at NUL bytes, is an argv; a table with every kind of
 * option parses it. No crash, and what it returns holds together: the
 * arguments it hands back are words of argv that are not options (or came
 * after --), in order. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/trawl/cli.c"
#include "../../tools/trawl/options.c"

static int cb(void *ctx, const struct cli_option *opt, const char *value)
{
	(void)opt;
	if (value && value[0] == 'x')
		return cli_usage("fuzz", "callback refused '%s'", value);
	++*(int *)ctx;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *buf = malloc(size + 1);
	char *copy[258];
	char *argv[258];
	int argc = 0;
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	argv[argc++] = "fuzz";
	for (size_t i = 0; i <= size && argc < 257;) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	memcpy(copy, argv, sizeof argv);
	int flag = 0, choice = -1, calls = 0, seen = 0;
	const char *str = NULL;
	uint64_t num = 0;
	struct cli_list list = { .n = 0 };
	static const char *const names[] = { "a", "bb", "ccc", NULL };
	const struct cli_option opts[] = {
		CLI_FLAG("flag", 'f', &flag, "a flag"),
		CLI_STRING("str", 's', "S", &str, "a string"),
		CLI_U64("num", "N", &num, 1000, &seen, "a number"),
		CLI_CHOICE("choice", "C", &choice, names, "a choice"),
		CLI_LIST("list", 'l', "L", &list, "repeated"),
		CLI_CALLBACK("cb", "V", cb, &calls, "a callback"),
		{ .kind = CLI_OPT_CALLBACK, .name = "opt", .arg = "V", .flags = CLI_OPT_OPTIONAL_VALUE,
		  .cb = cb, .ctx = &calls, .help = "optional value" },
		CLI_TEXT("Heading:"),
		CLI_END,
	};
	const struct cli_command cmd = { .name = "fuzz", .usage = "[options] ARGS", .options = opts,
					 .min_args = 0, .max_args = 8 };
	int rc;
	int n = cli_parse(&cmd, argc, argv, &rc);
	if (n >= 0) {
		if (n >= argc || rc != 0)
			abort();
		/* the arguments are words of the input, in their order */
		int k = 1;
		for (int i = 0; i < n; i++) {
			while (k < argc && copy[k] != argv[i])
				k++;
			if (k == argc)
				abort();
			k++;
		}
		if (num > 1000 || list.n > CLI_LIST_MAX || (choice != -1 && (choice < 0 || choice > 2)))
			abort();
	} else if (rc != 0 && rc != EXIT_USAGE) {
		abort();
	}
	free(buf);
	return 0;
}
