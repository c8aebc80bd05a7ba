/* The table-driven option parser (see options.h). */
#include "options.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"

/* ---- help ---------------------------------------------------------------- */

#define HELP_COLUMN 20 /* where help text starts: 2 spaces + 18 */

static int option_label(const struct cli_option *o, char *buf, size_t size)
{
	int n = 0;
	if (o->short_name && o->name)
		n = snprintf(buf, size, "-%c, --%s", o->short_name, o->name);
	else if (o->short_name)
		n = snprintf(buf, size, "-%c", o->short_name);
	else
		n = snprintf(buf, size, "--%s", o->name ? o->name : "");
	if (o->arg && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n,
			      o->flags & CLI_OPT_OPTIONAL_VALUE ? "[=%s]" : " %s", o->arg);
	return n;
}

/* Help lines after the first are indented to the help column. */
static void print_indented(const char *text, int indent)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (p != text)
			printf("%*s", indent, "");
		printf("%.*s\n", (int)len, p);
		p += len + (nl ? 1 : 0);
	}
}

/* A long name met earlier in the table: the parser takes the first one
 * (find_long), so a later entry (a shared option block repeating a
 * command's own option) is never used and is not listed. */
static int shadowed(const struct cli_option *opts, const struct cli_option *o)
{
	if (o->kind == CLI_OPT_TEXT || !o->name)
		return 0;
	for (const struct cli_option *p = opts; p != o; p++)
		if (p->kind != CLI_OPT_TEXT && p->name && strcmp(p->name, o->name) == 0)
			return 1;
	return 0;
}

void cli_print_help(const struct cli_command *cmd)
{
	printf("usage: trawl %s %s\n", cmd->name, cmd->usage);
	if (cmd->description)
		printf("\n%s", cmd->description);
	int heading = 0;
	for (const struct cli_option *o = cmd->options; o && o->kind != CLI_OPT_END; o++) {
		if ((o->flags & CLI_OPT_HIDDEN) || shadowed(cmd->options, o))
			continue;
		if (o->kind == CLI_OPT_TEXT) {
			printf("\n%s\n", o->help);
			heading = 1;
			continue;
		}
		if (!heading) {
			printf("\nOptions:\n");
			heading = 1;
		}
		char label[128];
		int n = option_label(o, label, sizeof label);
		printf("  %s", label);
		if (n + 2 >= HELP_COLUMN - 1)
			printf("  ");
		else
			printf("%*s", HELP_COLUMN - 2 - n, "");
		print_indented(o->help ? o->help : "", HELP_COLUMN);
	}
	if (cmd->footer)
		printf("\n%s", cmd->footer);
}

/* ---- parsing ------------------------------------------------------------- */

/* Edit distance, for "did you mean" on a mistyped long option. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64];
	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static int unknown_option(const struct cli_command *cmd, const char *arg, size_t namelen)
{
	char name[64];
	snprintf(name, sizeof name, "%.*s", (int)namelen, arg);
	const char *guess = NULL;
	size_t best = 3;
	for (const struct cli_option *o = cmd->options; arg[1] == '-' && o->kind; o++) {
		if (!o->name || o->kind == CLI_OPT_TEXT)
			continue;
		size_t d = distance(name + 2, o->name);
		if (d < best) {
			best = d;
			guess = o->name;
		}
	}
	if (guess)
		return cli_usage(cmd->name, "unknown option '%s' (did you mean '--%s'?)", name, guess);
	return cli_usage(cmd->name, "unknown option '%s'", name);
}

/* One switch for every option kind, so each kind is checked the same way in
 * every command: numbers against their maximum, repeated options against
 * the list's size, choices by listing the valid values in the error. Values
 * are stored only once they are valid, so a usage error leaves no half-set
 * option behind. */
static int take_value(const struct cli_command *cmd, const struct cli_option *o,
		      const char *shown, const char *value)
{
	if (o->seen)
		(*o->seen)++;
	switch (o->kind) {
	case CLI_OPT_FLAG:
		*(int *)o->value = 1;
		return 0;
	case CLI_OPT_STRING:
		*(const char **)o->value = value;
		return 0;
	case CLI_OPT_U64: {
		uint64_t v;
		if (!cli_parse_u64(value, &v))
			return cli_usage(cmd->name, "%s: '%s' is not a number", shown, value);
		if (o->max && v > o->max)
			return cli_usage(cmd->name, "%s: %s is larger than %llu", shown, value,
					 (unsigned long long)o->max);
		*(uint64_t *)o->value = v;
		return 0;
	}
	case CLI_OPT_LIST: {
		struct cli_list *l = o->value;
		if (l->n == CLI_LIST_MAX)
			return cli_usage(cmd->name, "%s given more than %d times", shown,
					 CLI_LIST_MAX);
		l->v[l->n++] = value;
		return 0;
	}
	case CLI_OPT_CHOICE: {
		char all[256];
		size_t used = 0;
		all[0] = 0;
		for (int k = 0; o->choices[k]; k++) {
			if (strcmp(o->choices[k], value) == 0) {
				*(int *)o->value = k;
				return 0;
			}
			int w = snprintf(all + used, sizeof all - used, "%s%s", k ? ", " : "",
					 o->choices[k]);
			if (w > 0 && (size_t)w < sizeof all - used)
				used += (size_t)w;
		}
		return cli_usage(cmd->name, "%s: unknown value '%s' (one of %s)", shown, value, all);
	}
	case CLI_OPT_CALLBACK:
		return o->cb(o->ctx, o, value);
	default:
		return 0;
	}
}

static const struct cli_option *find_long(const struct cli_option *opts, const char *name,
					  size_t len)
{
	for (const struct cli_option *o = opts; o->kind != CLI_OPT_END; o++)
		if (o->kind != CLI_OPT_TEXT && o->name && strlen(o->name) == len &&
		    memcmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

static const struct cli_option *find_short(const struct cli_option *opts, char c)
{
	for (const struct cli_option *o = opts; o->kind != CLI_OPT_END; o++)
		if (o->kind != CLI_OPT_TEXT && o->short_name == c)
			return o;
	return NULL;
}

/* One option at argv[*i]; advances *i past a separate value. Returns 0 or
 * an exit code. */
static int parse_one(const struct cli_command *cmd, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	const struct cli_option *o;
	const char *inline_value = NULL;
	char shown[80];
	if (a[1] == '-') {
		const char *eq = strchr(a, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		o = find_long(cmd->options, a + 2, len);
		if (!o)
			return unknown_option(cmd, a, len + 2);
		if (eq)
			inline_value = eq + 1;
		snprintf(shown, sizeof shown, "--%s", o->name);
	} else {
		o = find_short(cmd->options, a[1]);
		if (!o)
			return unknown_option(cmd, a, 2);
		if (a[2])
			inline_value = a + 2;
		snprintf(shown, sizeof shown, "-%c", o->short_name);
	}
	if (!o->arg) {
		if (inline_value)
			return cli_usage(cmd->name, "%s takes no value (got '%s')", shown, inline_value);
		return take_value(cmd, o, shown, NULL);
	}
	if (inline_value || (o->flags & CLI_OPT_OPTIONAL_VALUE))
		return take_value(cmd, o, shown, inline_value);
	if (*i + 1 >= argc)
		return cli_usage(cmd->name, "%s needs a value (%s)", shown, o->arg);
	return take_value(cmd, o, shown, argv[++*i]);
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv, int *rc)
{
	int n = 0, only_args = 0;
	*rc = 0;
	/* --help anywhere wins over everything else, even usage errors */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			cli_print_help(cmd);
			return -1;
		}
	}
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (only_args || a[0] != '-' || a[1] == 0) {
			argv[n++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_args = 1;
			continue;
		}
		*rc = parse_one(cmd, argc, argv, &i);
		if (*rc)
			return -1;
	}
	if (n < cmd->min_args) {
		*rc = cli_usage(cmd->name, "%s", cmd->missing ? cmd->missing : "missing argument");
		return -1;
	}
	if (cmd->max_args >= 0 && n > cmd->max_args) {
		*rc = cli_usage(cmd->name, "unexpected argument '%s'", argv[cmd->max_args]);
		return -1;
	}
	return n;
}
