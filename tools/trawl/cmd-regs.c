/* trawl regs: every register as it was after a line of the trace. */
#include <string.h>

#include "index-cli.h"

static const char regs_description[] =
	"Prints the registers of one core as they were after the event containing\n"
	"LINE, or with --time after the last event before the trace's time first\n"
	"passes T (where times only grow: the last event at or before T). Bytes the\n"
	"trace never showed are printed as ??. Registers with no known byte are left\n"
	"out. Each register is printed at the width the trace writes it (psr as 32\n"
	"bits in AArch64), not padded with ?? to the width the index stores it in.\n"
	"On an AArch32 event the core registers are r0-r12, sp, lr and pc, each 32\n"
	"bits.\n";

struct regs_print {
	int json, first;
};

static void print_reg(void *ctx, const char *name, const uint8_t *v, const uint8_t *k, uint32_t n)
{
	struct regs_print *p = ctx;
	if (p->json) {
		printf("%s\"%s\":\"", p->first++ ? "," : "", name);
		print_reg_hex(stdout, v, k, n);
		putchar('"');
	} else {
		printf("  %-10s ", name);
		print_reg_hex(stdout, v, k, n);
		putchar('\n');
	}
}

/* Registers in one fixed order (core, FP/SIMD, SVE, then system registers
 * as the trace named them), each at the width the trace writes it
 * (trawl_reg_shown_width, shared with the browser so the two agree) and
 * named as the event's instruction state names it. */
int cmd_regs(int argc, char **argv)
{
	struct index_cli c;
	const char *at = NULL, *when = NULL, *cpu_arg = NULL;
	memset(&c, 0, sizeof c);
	c.to.cmd = "regs";
	const struct cli_option opts[] = {
		CLI_STRING("at", 0, "LINE", &at, "a line of the trace (1-based)"),
		CLI_STRING("time", 0, "T", &when, "a time: a count in the trace's unit (trawl stats\n"
			   "shows it; real time is kept in ps), or with a unit:\n"
			   "1500ns, 1.5us, 12clk (cycles and real time are\n"
			   "never converted)"),
		CLI_STRING("cpu", 0, "N", &cpu_arg, "the core (default: the core of that event)"),
		INDEX_OPTIONS(&c),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "regs",
		.usage = "[options] TRACE --at LINE|--time T [--cpu N]",
		.description = regs_description,
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	int rc;
	if (index_cli_parse(&c, &cmd, argc, argv, &rc) < 0)
		return rc;
	if (!at == !when)
		return cli_usage("regs", "give one of --at LINE or --time T");
	uint64_t cpu = 0, t = 0;
	if (cpu_arg && (!cli_parse_u64(cpu_arg, &cpu) || cpu > 65535))
		return cli_usage("regs", "bad cpu number '%s'", cpu_arg);
	/* the registers after a line need only the trace up to it */
	if (c.no_index && (!at || !cli_parse_u64(at, &c.until_line) || !c.until_line))
		return cli_usage("regs", "--no-index needs --at LINE");
	rc = index_cli_open(&c);
	if (rc)
		return rc;
	if (cpu_arg && (rc = index_cli_check_cpu(&c, cpu))) {
		index_cli_close(&c);
		return rc;
	}
	uint64_t ev;
	struct trawl_error err;
	struct trawl_index_regs regs;
	trawl_index_regs_init(&regs);
	enum trawl_status st;
	struct trawl_index_info info;
	trawl_index_get_info(c.ix, &info);
	if (at)
		rc = index_cli_line(&c, at, &ev);
	else if (trawl_time_parse(when, (enum trawl_time_unit)info.time_unit, &t, &err))
		/* "5ns" on a trace in clk: a question the trace cannot answer */
		rc = cli_usage("regs", "%s", err.message);
	else if ((st = trawl_index_event_at_time(c.ix, t, &ev, &err)) == TRAWL_ERR_NOT_FOUND)
		/* a time before the first event is a wrong question, as a line
		 * past the end is (index_cli_line) */
		rc = cli_usage("regs", "%s", err.message);
	else if (st)
		rc = index_cli_report(&c, &err);
	if (rc)
		goto out;
	struct trawl_index_event e;
	trawl_index_event(c.ix, ev, &e, NULL);
	if (!cpu_arg)
		cpu = e.cpu;
	if (trawl_index_regs_at(c.ix, ev, (uint16_t)cpu, &regs, &err)) {
		rc = index_cli_report(&c, &err);
		goto out;
	}
	if (c.json) {
		printf("{\"event\":%llu,\"line\":%llu,\"cpu\":%u,\"registers\":{",
		       (unsigned long long)ev, (unsigned long long)e.line, (unsigned)cpu);
	} else {
		printf("cpu %u ", (unsigned)cpu);
		index_cli_print_after(&c, stdout, ev);
		putchar('\n');
	}
	struct regs_print rp = { .json = c.json };
	index_cli_regs_each(&c, &regs, e.iset == TRAWL_ISET_A32 || e.iset == TRAWL_ISET_T32,
			    print_reg, &rp);
	if (c.json)
		printf("}}\n");
out:
	trawl_index_regs_release(&regs);
	return index_cli_end(&c, rc);
}
