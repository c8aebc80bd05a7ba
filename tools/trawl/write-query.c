/* What trawl last-write and trawl next-write share (cmd-last-write.c,
 * cmd-next-write.c): which line wrote (or will next write) a register or a
 * memory range. */
#include <stdlib.h>
#include <string.h>

#include "write-query.h"

/* ADDR[:LEN] when it reads as a number, else a register. */
int write_target_parse(const char *target, struct write_target *t)
{
	t->name = target;
	t->addr = 0;
	t->len = 1;
	char *copy = strdup(target), *colon = copy ? strchr(copy, ':') : NULL;
	if (colon)
		*colon = 0;
	t->is_mem = copy && cli_parse_u64(copy, &t->addr);
	int bad = t->is_mem && colon && (!cli_parse_u64(colon + 1, &t->len) || t->len == 0);
	free(copy);
	return bad ? -1 : 0;
}

/* A register's core defaults to that of the event at ev, because a
 * register name means a different register on each core. */
enum trawl_status write_query_find(struct index_cli *c, uint64_t ev, const struct write_target *t,
				   int have_cpu, uint16_t cpu, int dir, uint64_t *found,
				   struct trawl_error *err)
{
	if (t->is_mem)
		return dir < 0 ? trawl_index_last_write_mem(c->ix, ev, t->addr, t->len, found, err)
			       : trawl_index_next_write_mem(c->ix, ev, t->addr, t->len, found, err);
	uint32_t reg, off, size;
	if (!index_cli_reg(c, t->name, ev, &reg, &off, &size))
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "'%s' is not a register of this trace",
				       t->name);
	if (!have_cpu) {
		struct trawl_index_event e;
		trawl_index_event(c->ix, ev, &e, NULL);
		cpu = e.cpu;
	}
	return dir < 0 ? trawl_index_last_write_reg(c->ix, ev, cpu, reg, off, size, found, err)
		       : trawl_index_next_write_reg(c->ix, ev, cpu, reg, off, size, found, err);
}

/* last-write and next-write differ only in direction (dir < 0: backwards), so
 * one function serves both and they cannot drift apart. The target is
 * ADDR[:LEN] when it parses as a number, else a register resolved against the
 * trace at LINE (write_query_find). */
int write_query_run(int argc, char **argv, const char *name, int dir)
{
	struct index_cli c;
	const char *at = NULL, *cpu_arg = NULL;
	memset(&c, 0, sizeof c);
	c.to.cmd = name;
	const struct cli_option opts[] = {
		CLI_STRING("at", 0, "LINE", &at, "a line of the trace (1-based)"),
		CLI_STRING("cpu", 0, "N", &cpu_arg,
			   "the core whose register is meant (default: that of LINE)"),
		INDEX_OPTIONS(&c),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = name,
		.usage = "[options] TRACE --at LINE REG|ADDR[:LEN]",
		.description =
			dir < 0 ? "Prints the last event at or before LINE that wrote register REG (any alias:\n"
				  "x3, w3, q0, d1, sp, a system register name) or any byte of memory\n"
				  "[ADDR, ADDR+LEN) (LEN defaults to 1). A semihosting call that filled the\n"
				  "memory counts as a write.\n"
				: "Prints the first event after LINE that writes register REG (any alias) or\n"
				  "any byte of memory [ADDR, ADDR+LEN) (LEN defaults to 1).\n",
		.options = opts,
		.min_args = 2, .max_args = 2, .missing = "give a trace and a register or address",
	};
	int rc;
	if (index_cli_parse(&c, &cmd, argc, argv, &rc) < 0)
		return rc;
	const char *target = argv[1];
	if (!at)
		return cli_usage(name, "--at LINE is required");
	uint64_t cpu = 0;
	if (cpu_arg && (!cli_parse_u64(cpu_arg, &cpu) || cpu > 65535))
		return cli_usage(name, "bad cpu number '%s'", cpu_arg);
	struct write_target wt;
	if (write_target_parse(target, &wt))
		return cli_usage(name, "bad length in '%s'", target);
	/* a last write at or before a line is in the trace up to it */
	if (c.no_index && (dir > 0 || !cli_parse_u64(at, &c.until_line) || !c.until_line))
		return cli_usage(name, dir > 0 ? "--no-index: next-write needs the whole trace "
					 "(use --memory-index)" : "--no-index needs --at LINE");
	rc = index_cli_open(&c);
	if (rc)
		return rc;
	uint64_t ev, found;
	struct trawl_error err;
	enum trawl_status st;
	if ((rc = index_cli_line(&c, at, &ev)) || (cpu_arg && (rc = index_cli_check_cpu(&c, cpu))))
		goto out;
	st = write_query_find(&c, ev, &wt, cpu_arg != NULL, (uint16_t)cpu, dir, &found, &err);
	if (st == TRAWL_ERR_FORMAT && !wt.is_mem) {
		rc = cli_usage(name, "'%s' is neither an address nor a register of this trace",
			       target);
		goto out;
	}
	if (st == TRAWL_ERR_NOT_FOUND) {
		if (c.json)
			printf("{\"write\":null}\n");
		else
			printf("no %s write to %s\n", dir < 0 ? "earlier" : "later", target);
		goto out;
	}
	if (st) {
		rc = index_cli_report(&c, &err);
		goto out;
	}
	if (c.json) {
		printf("{\"write\":");
		index_cli_print_event(&c, stdout, found);
		printf("}\n");
	} else {
		index_cli_print_event(&c, stdout, found);
		putchar('\n');
	}
out:
	return index_cli_end(&c, rc);
}
