/* trawl pc: every visit of an instruction address. */
#include <string.h>

#include "index-cli.h"

/* One visit found by a step, or "none"/"null" when there is none. */
static void print_step(struct index_cli *c, int found, uint64_t ev)
{
	if (found)
		index_cli_print_event(c, stdout, ev);
	else
		fputs(c->json ? "null" : "none", stdout);
}

/* --from LINE: only the visits just before and after that line's event,
 * each a logarithmic step on the by-PC list. */
static int pc_around(struct index_cli *c, uint64_t pc, uint64_t n, const char *from)
{
	struct trawl_error err;
	uint64_t at, prev, next;
	int rc;
	if ((rc = index_cli_line(c, from, &at)))
		return rc;
	enum trawl_status sp = trawl_index_pc_step(c->ix, pc, at, -1, &prev, &err);
	if (sp && sp != TRAWL_ERR_NOT_FOUND)
		return index_cli_report(c, &err);
	enum trawl_status sn = trawl_index_pc_step(c->ix, pc, at, 1, &next, &err);
	if (sn && sn != TRAWL_ERR_NOT_FOUND)
		return index_cli_report(c, &err);
	int hp = sp == TRAWL_OK, hn = sn == TRAWL_OK;
	if (c->json) {
		printf("{\"pc\":\"0x%llx\",\"visits\":%llu,\"previous\":",
		       (unsigned long long)pc, (unsigned long long)n);
		print_step(c, hp, prev);
		fputs(",\"next\":", stdout);
		print_step(c, hn, next);
		puts("}");
	} else {
		printf("previous: ");
		print_step(c, hp, prev);
		printf("\nnext:     ");
		print_step(c, hn, next);
		putchar('\n');
	}
	return 0;
}

/* Every visit in trace order, at most limit of them (0 = all), as a hot
 * loop's PC has millions. */
static int pc_all(struct index_cli *c, uint64_t pc, uint64_t n, uint64_t limit)
{
	struct trawl_error err;
	uint64_t ev, shown = limit && limit < n ? limit : n;
	if (c->json)
		printf("{\"pc\":\"0x%llx\",\"visits\":%llu,\"events\":[", (unsigned long long)pc,
		       (unsigned long long)n);
	else
		printf("0x%llx: %llu visit%s\n", (unsigned long long)pc, (unsigned long long)n,
		       n == 1 ? "" : "s");
	for (uint64_t i = 0; i < shown; i++) {
		if (trawl_index_pc_visit(c->ix, pc, i, &ev, &err))
			return index_cli_report(c, &err);
		if (c->json && i)
			putchar(',');
		if (!c->json)
			fputs("  ", stdout);
		index_cli_print_event(c, stdout, ev);
		if (!c->json)
			putchar('\n');
	}
	if (c->json)
		puts("]}");
	else if (shown < n)
		printf("  ... %llu more (--limit 0 shows all)\n", (unsigned long long)(n - shown));
	return 0;
}

/* Two questions on one by-PC list: every visit (pc_all), or with --from
 * only the visits around one line (pc_around). */
int cmd_pc(int argc, char **argv)
{
	struct index_cli c;
	const char *from = NULL;
	uint64_t limit = 1000;
	memset(&c, 0, sizeof c);
	c.to.cmd = "pc";
	const struct cli_option opts[] = {
		CLI_STRING("from", 0, "LINE", &from, "show the visits around this line"),
		CLI_U64("limit", "N", &limit, 0, NULL, "list at most N visits (default 1000, 0 = all)"),
		INDEX_OPTIONS(&c),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "pc",
		.usage = "[options] TRACE ADDR [--from LINE] [--limit N]",
		.description =
			"Lists the events that executed the instruction at ADDR, in trace order.\n"
			"With --from LINE, prints only the previous visit before that line's event\n"
			"and the next one after it.\n",
		.options = opts,
		.min_args = 2, .max_args = 2, .missing = "give a trace and an address",
	};
	int rc;
	if (index_cli_parse(&c, &cmd, argc, argv, &rc) < 0)
		return rc;
	const char *target = argv[1];
	uint64_t pc;
	if (!cli_parse_u64(target, &pc))
		return cli_usage("pc", "bad address '%s'", target);
	rc = index_cli_open(&c);
	if (rc)
		return rc;
	uint64_t n = trawl_index_pc_count(c.ix, pc);
	rc = from ? pc_around(&c, pc, n, from) : pc_all(&c, pc, n, limit);
	return index_cli_end(&c, rc);
}
