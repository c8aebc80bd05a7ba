/* trawl calltree: the indented call hierarchy of a trace. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "calls-cli.h"
#include "trawl/fmt.h"

struct tree_print {
	struct calls_run *r;
	uint64_t max_depth;
	FILE *f;
};

/* One line per activation, formatted by hand: a tree of a long trace has
 * hundreds of thousands of them and fprintf's formatting was a tenth of
 * the whole command's time. */
static int print_node(void *ctx, uint32_t id, const struct trawl_call *n, unsigned depth)
{
	struct tree_print *p = ctx;
	const struct trawl_calls *c = p->r->calls;
	char name[256], from[256];
	/* up to 256 levels of indent + names + numbers + marks always fit */
	char line[512 + 2 * 256 + 512], *q = line;
	(void)id;
	if (depth > p->max_depth)
		return 0;
	uint64_t indent = 2 * (uint64_t)depth;
	for (; indent > 512; indent -= 512)
		fprintf(p->f, "%512s", "");
	memset(q, ' ', (size_t)indent);
	q += indent;
	q = trawl_fmt_str(q, trawl_calls_name(c, n, name, sizeof name), sizeof name);
	q = trawl_fmt_str(q, " @0x", 4);
	q = trawl_fmt_hex(q, n->entry_pc);
	q = trawl_fmt_str(q, "  lines ", 8);
	q = trawl_fmt_dec(q, n->first_line);
	*q++ = '-';
	q = trawl_fmt_dec(q, n->last_line);
	q = trawl_fmt_str(q, "  time ", 7);
	q = trawl_fmt_dec(q, n->first_time);
	*q++ = '-';
	q = trawl_fmt_dec(q, n->end_time);
	q = trawl_fmt_str(q, calls_unit_suffix(c), 16);
	q = trawl_fmt_str(q, "  insns ", 8);
	q = trawl_fmt_dec(q, n->insns);
	*q++ = '/';
	q = trawl_fmt_dec(q, n->self);
	if (n->kind != TRAWL_FRAME_ROOT && n->call_pc && !(n->flags & TRAWL_FRAMEF_BEFORE)) {
		q = trawl_fmt_str(q, "  from ", 7);
		q = trawl_fmt_str(q, trawl_calls_describe(c, n->call_pc, from, sizeof from),
				  sizeof from);
		q = trawl_fmt_str(q, " line ", 6);
		q = trawl_fmt_dec(q, n->call_line);
	}
	static const struct {
		int kind;
		uint32_t flag;
		const char *text;
	} marks[] = {
		{ TRAWL_FRAME_TAIL, 0, "  [tail call]" },
		{ TRAWL_FRAME_EXCEPTION, 0, "  [exception]" },
		{ -1, TRAWL_FRAMEF_UNFINISHED, "  [unfinished]" },
		{ -1, TRAWL_FRAMEF_UNWOUND, "  [unwound]" },
		{ -1, TRAWL_FRAMEF_BEFORE, "  [before trace]" },
		{ -1, TRAWL_FRAMEF_LINKLESS, "  [linkless]" },
	};
	for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
		if (marks[i].kind >= 0 ? (int)n->kind == marks[i].kind : (n->flags & marks[i].flag) != 0)
			q = trawl_fmt_str(q, marks[i].text, 32);
	*q++ = '\n';
	fwrite(line, 1, (size_t)(q - line), p->f);
	return 0;
}

/* The help text says what every mark and both time ends mean, because the
 * tree is read by people and the rules (tail calls, unwinding, frames still
 * open at the end) are not obvious from the output. The "cpu N:" headers are
 * only printed when more than one CPU has activations, so single-core output
 * stays a plain tree. */
int cmd_calltree(int argc, char **argv)
{
	struct calls_run r;
	struct tree_print p = { .max_depth = UINT64_MAX, .f = stdout };
	const char *out_path = NULL;
	int rc;
	if ((rc = calls_run_init(&r, "calltree")))
		return rc;
	const struct cli_option opts[] = {
		CALLS_OPTIONS(&r),
		CLI_STRING("output", 'o', "FILE", &out_path, "write to FILE instead of standard output"),
		CLI_U64("max-depth", "N", &p.max_depth, 0, NULL, "show activations at most N calls deep"),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "calltree",
		.usage = "[--image ELF[@OFFSET]]... [--max-depth N] [--debug=calls] TRACE",
		.description =
			"Prints the call hierarchy of TRACE, one activation per line, indented by\n"
			"call depth:\n"
			"\n"
			"  NAME @ENTRY  lines FIRST-LAST  time START-END  insns INCL/SELF  [from CALLER line L]\n"
			"\n"
			"INCL counts the instructions of the activation and its callees, SELF its\n"
			"own; time runs from its first instruction to the one control returned to\n"
			"(never returned: to the event that unwound it, or at the end of the trace\n"
			"to the end of its last instruction, as long as the step before it).\n"
			"Marks: [tail call], [exception], [unfinished] (still running at the end),\n"
			"[unwound] (its stack frame was discarded without a return), [before trace]\n"
			"(called before the trace began), [linkless] (call found from a link\n"
			"register write before a branch rather than a BL). Multi-core traces get one\n"
			"tree per CPU.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	if (calls_run_args(&r, &cmd, argc, argv, &rc) < 0)
		goto out;
	if ((rc = calls_run_read(&r)) || (rc = cli_output_to("calltree", out_path)))
		goto out;
	p.r = &r;
	unsigned used = 0;
	for (unsigned cpu = 0; cpu < trawl_calls_cpus(r.calls); cpu++)
		used += trawl_calls_first_root(r.calls, cpu) != TRAWL_CALL_NONE;
	for (unsigned cpu = 0; cpu < trawl_calls_cpus(r.calls); cpu++) {
		if (trawl_calls_first_root(r.calls, cpu) == TRAWL_CALL_NONE)
			continue;
		if (used > 1)
			printf("cpu %u:\n", cpu);
		if (trawl_calls_walk(r.calls, cpu, print_node, NULL, &p) < 0) {
			cli_error("calltree", "out of memory walking the call tree");
			rc = EXIT_BAD_INPUT;
			goto out;
		}
	}
	if (fflush(stdout) != 0) {
		cli_error("calltree", "cannot write the output");
		rc = EXIT_BAD_INPUT;
	}
out:
	calls_run_release(&r);
	return rc;
}
