/* trawl callinfo: every call to some functions, with time, line and caller. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls-cli.h"

struct want {
	const char *spec;
	uint64_t addr;
	int by_addr;
	uint64_t hits;
};

struct info {
	struct calls_run *r;
	struct want *w;
	size_t idx;
	uint32_t *parents;       /* current path, to name the caller */
	size_t cap;
	int nomem;
};

static int info_visit(void *ctx, uint32_t id, const struct trawl_call *n, unsigned depth)
{
	struct info *s = ctx;
	const struct trawl_calls *c = s->r->calls;
	struct want *w = &s->w[s->idx];
	char name[256], from[256];
	if (depth >= s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		uint32_t *p = realloc(s->parents, ncap * sizeof *p);
		if (!p)
			return s->nomem = 1;
		s->parents = p;
		s->cap = ncap;
	}
	s->parents[depth] = id;
	int match = w->by_addr ? (n->kind != TRAWL_FRAME_EXCEPTION && n->entry_pc == w->addr)
			       : strcmp(trawl_calls_name(c, n, name, sizeof name), w->spec) == 0;
	if (!match)
		return 0;
	w->hits++;
	printf("  time %" PRIu64 "-%" PRIu64 "%s  lines %" PRIu64 "-%" PRIu64 "  insns %" PRIu64
	       "/%" PRIu64,
	       n->first_time, n->end_time, calls_unit_suffix(c), n->first_line, n->last_line,
	       n->insns, n->self);
	if (n->call_pc && !(n->flags & TRAWL_FRAMEF_BEFORE))
		printf("  from %s line %" PRIu64, trawl_calls_describe(c, n->call_pc, from, sizeof from),
		       n->call_line);
	else if (depth)
		printf("  in %s", trawl_calls_name(c, trawl_calls_nodes(c, &(size_t){ 0 }) +
							      s->parents[depth - 1],
						   from, sizeof from));
	if (n->flags & TRAWL_FRAMEF_UNFINISHED)
		fputs("  [unfinished]", stdout);
	if (n->kind == TRAWL_FRAME_TAIL)
		fputs("  [tail call]", stdout);
	if (trawl_calls_cpus(c) > 1)
		printf("  cpu%u", (unsigned)n->cpu);
	putchar('\n');
	return 0;
}

/* Every FUNC is resolved before the trace is read (symbol, then address,
 * then an exception name in brackets), so a typo is a usage error at once
 * rather than after a long read. The trace is read once and the tree walked
 * once per FUNC; output goes through -o only after the read succeeded. */
int cmd_callinfo(int argc, char **argv)
{
	struct calls_run r;
	struct info s = { .r = &r };
	struct want *want = NULL;
	size_t nwant = 0;
	const char *out_path = NULL;
	int rc;
	if ((rc = calls_run_init(&r, "callinfo")))
		return rc;
	const struct cli_option opts[] = {
		CALLS_OPTIONS(&r),
		CLI_STRING("output", 'o', "FILE", &out_path, "write to FILE instead of standard output"),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "callinfo",
		.usage = "[--image ELF[@OFFSET]]... TRACE FUNC...",
		.description =
			"Lists every call to each FUNC: a symbol name (needs --image), an entry\n"
			"address (0x...), or an exception name in brackets ([IRQ]). For each call:\n"
			"\n"
			"  time START-END  lines FIRST-LAST  insns INCL/SELF  from CALLER line L\n",
		.options = opts,
		.min_args = 2, .max_args = -1,
		.missing = "give a trace and at least one function after it",
	};
	int n = calls_run_args(&r, &cmd, argc, argv, &rc);
	if (n < 0)
		goto out;
	nwant = (size_t)n - 1;
	want = calloc(nwant, sizeof *want);
	if (!want) {
		cli_error("callinfo", "out of memory");
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	for (size_t k = 0; k < nwant; k++)
		want[k].spec = argv[k + 1];
	for (size_t k = 0; k < nwant; k++) {
		const struct trawl_symbol *sym = trawl_image_symbol_named(r.image, want[k].spec);
		if (sym) {
			want[k].addr = sym->addr;
			want[k].by_addr = 1;
		} else if (cli_parse_u64(want[k].spec, &want[k].addr)) {
			want[k].by_addr = 1;
		} else if (want[k].spec[0] != '[') {
			rc = cli_usage("callinfo", "'%s' is neither a symbol of the images nor an address",
				       want[k].spec);
			goto out;
		}
	}
	if ((rc = calls_run_read(&r)) || (rc = cli_output_to("callinfo", out_path)))
		goto out;
	s.w = want;
	for (size_t k = 0; k < nwant; k++) {
		char name[256];
		if (want[k].by_addr)
			printf("%s (0x%" PRIx64 "):\n",
			       trawl_calls_describe(r.calls, want[k].addr, name, sizeof name),
			       want[k].addr);
		else
			printf("%s:\n", want[k].spec);
		s.idx = k;
		for (unsigned cpu = 0; cpu < trawl_calls_cpus(r.calls); cpu++)
			if (trawl_calls_walk(r.calls, cpu, info_visit, NULL, &s) < 0)
				s.nomem = 1;
		if (s.nomem) {
			cli_error("callinfo", "out of memory");
			rc = EXIT_BAD_INPUT;
			goto out;
		}
		printf("  %" PRIu64 " call%s\n", want[k].hits, want[k].hits == 1 ? "" : "s");
	}
	if (fflush(stdout) != 0) {
		cli_error("callinfo", "cannot write the output");
		rc = EXIT_BAD_INPUT;
	}
out:
	free(s.parents);
	free(want);
	calls_run_release(&r);
	return rc;
}
