/* trawl changes: registers and memory that differ between two lines. */
#include <stdlib.h>
#include <string.h>

#include "index-cli.h"

struct walk {
	struct index_cli *c;
	uint64_t ev1, ev2;
	struct trawl_index_regs r1, r2;
	int cpu;               /* cpu loaded in r1/r2, -1 none */
	int first;
	int rc;
	int a32;               /* the --to event is an AArch32 instruction */
};

static void print_bytes(const uint8_t *v, const uint8_t *k, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		if ((k[i / 8] >> (i % 8)) & 1)
			printf("%02x", v[i]);
		else
			fputs("??", stdout);
	}
}

/* The register states at both lines are fetched again only when the CPU
 * changes, not per change, because each fetch replays from a checkpoint.
 * Both sides are shown at the same width (the wider that trawl
 * regs would show) so old and new line up; memory values only up to 64 bytes,
 * since longer ranges would drown the list. */
static int on_change(void *ctx, const struct trawl_index_change *ch)
{
	struct walk *w = ctx;
	struct trawl_error err;
	const char *sep = w->first ? "" : ",";
	w->first = 0;
	if (!ch->is_mem) {
		if (w->cpu != ch->cpu) {
			if (trawl_index_regs_at(w->c->ix, w->ev1, ch->cpu, &w->r1, &err) ||
			    trawl_index_regs_at(w->c->ix, w->ev2, ch->cpu, &w->r2, &err)) {
				w->rc = index_cli_report(w->c, &err);
				return 1;
			}
			w->cpu = ch->cpu;
		}
		const uint8_t *v1, *k1, *v2, *k2;
		uint32_t w1 = trawl_index_regs_view(&w->r1, ch->reg, &v1, &k1);
		trawl_index_regs_view(&w->r2, ch->reg, &v2, &k2);
		/* both sides at the wider of the widths trawl regs shows them
		 * at (the storage width when neither side knows a byte) */
		/* named and sized as at the --to event, as trawl regs there
		 * does: r0 and lr at 32 bits on AArch32; x15-x30, which AArch32
		 * has no name for, keep theirs and their width */
		int a32 = w->a32 && (ch->reg < 15 || ch->reg >= TRAWL_REG_SP);
		uint32_t n = trawl_reg_shown_width(ch->reg, k1, w1, a32);
		uint32_t n2 = trawl_reg_shown_width(ch->reg, k2, w1, a32);
		if (n2 > n)
			n = n2;
		if (!n)
			n = a32 ? 4 : w1;
		const char *name = ch->reg < TRAWL_REG_SYS_BASE && trawl_reg_state_name(ch->reg, a32)
					   ? trawl_reg_state_name(ch->reg, a32)
					   : trawl_index_reg_name(w->c->ix, ch->reg);
		if (w->c->json) {
			printf("%s{\"cpu\":%u,\"reg\":\"%s\",\"old\":\"", sep, ch->cpu, name);
			print_reg_hex(stdout, v1, k1, n);
			printf("\",\"new\":\"");
			print_reg_hex(stdout, v2, k2, n);
			printf("\"}");
		} else {
			printf("cpu %u %-8s ", ch->cpu, name);
			print_reg_hex(stdout, v1, k1, n);
			printf(" -> ");
			print_reg_hex(stdout, v2, k2, n);
			putchar('\n');
		}
		return 0;
	}
	if (w->c->json)
		printf("%s{\"address\":\"0x%llx\",\"length\":%llu", sep, (unsigned long long)ch->addr,
		       (unsigned long long)ch->len);
	else
		printf("mem 0x%llx+%llu", (unsigned long long)ch->addr, (unsigned long long)ch->len);
	if (ch->len <= 64) {
		uint8_t v1[64], v2[64], k1[8], k2[8];
		if (trawl_index_mem_at(w->c->ix, w->ev1, ch->addr, ch->len, v1, k1, &err) ||
		    trawl_index_mem_at(w->c->ix, w->ev2, ch->addr, ch->len, v2, k2, &err)) {
			w->rc = index_cli_report(w->c, &err);
			return 1;
		}
		printf(w->c->json ? ",\"old\":\"" : " ");
		print_bytes(v1, k1, ch->len);
		printf(w->c->json ? "\",\"new\":\"" : " -> ");
		print_bytes(v2, k2, ch->len);
		if (w->c->json)
			putchar('"');
	}
	if (w->c->json)
		putchar('}');
	else
		putchar('\n');
	return 0;
}

/* Lines given the wrong way round are a usage error rather than silently
 * swapped, since that is most likely a typo. The changes are printed from
 * the callback as the index finds them, so nothing is collected in memory
 * however much differs. */
int cmd_changes(int argc, char **argv)
{
	struct index_cli c;
	const char *from = NULL, *to = NULL;
	memset(&c, 0, sizeof c);
	c.to.cmd = "changes";
	const struct cli_option opts[] = {
		CLI_STRING("from", 0, "LINE1", &from, "the earlier line"),
		CLI_STRING("to", 0, "LINE2", &to, "the later line"),
		INDEX_OPTIONS(&c),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "changes",
		.usage = "[options] TRACE --from LINE1 --to LINE2",
		.description =
			"Lists the registers (per core) and memory ranges whose value differs\n"
			"between the state after LINE1 and the state after LINE2, with the old and\n"
			"new values (memory values are shown for ranges up to 64 bytes).\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "no trace given",
	};
	int rc;
	if (index_cli_parse(&c, &cmd, argc, argv, &rc) < 0)
		return rc;
	if (!from || !to)
		return cli_usage("changes", "give a trace, --from LINE1 and --to LINE2");
	rc = index_cli_open(&c);
	if (rc)
		return rc;
	struct walk w;
	memset(&w, 0, sizeof w);
	w.c = &c;
	w.cpu = -1;
	w.first = 1;
	trawl_index_regs_init(&w.r1);
	trawl_index_regs_init(&w.r2);
	struct trawl_error err;
	if ((rc = index_cli_line(&c, from, &w.ev1)) || (rc = index_cli_line(&c, to, &w.ev2)))
		goto out;
	if (w.ev1 > w.ev2) { /* swapping silently would hide a typo */
		rc = cli_usage("changes", "--from %s is after --to %s: give the earlier line first",
			       from, to);
		goto out;
	}
	struct trawl_index_event to_ev;
	if (trawl_index_event(c.ix, w.ev2, &to_ev, NULL) == TRAWL_OK && to_ev.kind == TRAWL_EV_INSN)
		w.a32 = to_ev.iset == TRAWL_ISET_A32 || to_ev.iset == TRAWL_ISET_T32;
	if (c.json)
		printf("{\"from\":%llu,\"to\":%llu,\"changes\":[", (unsigned long long)w.ev1,
		       (unsigned long long)w.ev2);
	if (trawl_index_changes(c.ix, w.ev1, w.ev2, on_change, &w, &err)) {
		rc = index_cli_report(&c, &err);
		goto out;
	}
	rc = w.rc;
	if (c.json)
		puts("]}");
out:
	trawl_index_regs_release(&w.r1);
	trawl_index_regs_release(&w.r2);
	return index_cli_end(&c, rc);
}
