/* trawl cat: every event of a trace in a stable normalized form, one event
 * per line (docs/tarmac.md describes the format), or JSON Lines. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trace-open.h"
#include "trawl/sw-event.h"

/* Text inside double quotes, escaped as JSON strings are (trawl/json.h),
 * in the text form too, so both forms show a name the same way. */
static void put_quoted(FILE *f, struct trawl_str s)
{
	trawl_json_write_string(f, s.ptr, s.len);
}

/* bytes[0..n) printed as hex; reversed when msb_first (registers) */
static void put_bytes(FILE *f, const uint8_t *pool, uint32_t value, uint32_t known, uint32_t n,
		      int msb_first)
{
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = msb_first ? n - 1 - k : k;
		if (trawl_known_bit(pool, known, i))
			fprintf(f, "%02x", pool[value + i]);
		else
			fputs("xx", f);
	}
}

/* A software event's fields, "name=value" (text) or "name":value (JSON),
 * signed types as signed. */
static void put_sw_fields(FILE *f, const struct trawl_event_batch *b, const struct trawl_event *e, int json)
{
	const struct trawl_sw_class *c = e->u.sw.cls;
	unsigned n = c && e->u.sw.fields ? c->nfields : 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t v;
		memcpy(&v, b->pool + e->u.sw.fields + 8 * i, 8);
		if (json) {
			fputs(i ? "," : "", f);
			trawl_json_write_string(f, c->fields[i].name, strlen(c->fields[i].name));
			putc(':', f);
		} else {
			fprintf(f, " %s=", c->fields[i].name);
		}
		if (c->fields[i].type >= TRAWL_SW_S8)
			fprintf(f, "%" PRId64, (int64_t)v);
		else
			fprintf(f, "%" PRIu64, v);
	}
}

/* A register as the event's instruction names it (r0-r12, lr on AArch32) */
static const char *reg_name(const struct trawl_event_batch *b, const struct trawl_event *e,
			    uint32_t reg)
{
	int a32 = e->kind == TRAWL_EV_INSN &&
		  (e->u.insn.iset == TRAWL_ISET_A32 || e->u.insn.iset == TRAWL_ISET_T32);
	if (reg < TRAWL_REG_SYS_BASE && trawl_reg_state_name(reg, a32))
		return trawl_reg_state_name(reg, a32);
	return trawl_reg_names_get(b->sysregs, reg);
}

/* The normalized line: every field the event has and nothing it lacks
 * (encoding, PA, EL, flags only when known), so two traces of the same run
 * from different producers can be compared with diff. Register names follow
 * the instruction's state (r0 and lr on AArch32), as the trace wrote them. */
static void text_event(FILE *f, const struct trawl_event_batch *b, const struct trawl_event *e)
{
	fprintf(f, "L%" PRIu64, e->line);
	if (e->nlines > 1)
		fprintf(f, "-%" PRIu64, e->line + e->nlines - 1);
	fprintf(f, " cpu%u t=%" PRIu64 "%s %s", e->cpu, e->time,
		trawl_time_unit_name((enum trawl_time_unit)e->time_unit),
		trawl_event_kind_name((enum trawl_event_kind)e->kind));
	switch (e->kind) {
	case TRAWL_EV_INSN: {
		const struct trawl_event_insn *in = &e->u.insn;
		fprintf(f, " %s pc=%" PRIx64, trawl_iset_name((enum trawl_iset)in->iset), in->pc);
		if (e->flags & TRAWL_EVF_HAS_ENCODING)
			fprintf(f, " enc=%0*" PRIx32, in->width * 2, in->encoding);
		if (e->flags & TRAWL_EVF_HAS_PADDR)
			fprintf(f, " pa=%" PRIx64, in->paddr);
		if (in->el != 0xff)
			fprintf(f, " el=%u", in->el);
		if (in->mode.len)
			fprintf(f, " mode=%.*s", (int)in->mode.len, in->mode.ptr);
		if (e->flags & TRAWL_EVF_CCFAIL)
			fputs(" ccfail", f);
		if (e->flags & TRAWL_EVF_FETCH_FAIL)
			fputs(" fetchfail", f);
		if (e->flags & TRAWL_EVF_TRUNCATED)
			fputs(" truncated", f);
		putc(' ', f);
		put_quoted(f, in->disasm);
		break;
	}
	case TRAWL_EV_EXCEPTION:
		if (e->u.exc.number)
			fprintf(f, " num=%" PRIu32, e->u.exc.number);
		if (e->u.exc.target)
			fprintf(f, " target=%" PRIx64, e->u.exc.target);
		putc(' ', f);
		put_quoted(f, e->u.exc.name);
		break;
	case TRAWL_EV_TEXT:
		fprintf(f, " %.*s ", (int)e->u.text.type.len, e->u.text.type.ptr);
		put_quoted(f, e->u.text.text);
		break;
	case TRAWL_EV_SW:
		fprintf(f, " %.*s tid=%" PRIu32, (int)e->u.sw.name.len, e->u.sw.name.ptr, e->u.sw.tid);
		put_sw_fields(f, b, e, 0);
		break;
	default:
		break;
	}
	for (uint32_t i = 0; i < e->nregs; i++) {
		const struct trawl_reg_write *w = &b->regs[e->first_reg + i];
		fprintf(f, " ; %s", reg_name(b, e, w->reg));
		if (w->offset)
			fprintf(f, "[%u..%u]", w->offset, w->offset + w->size - 1);
		putc('=', f);
		put_bytes(f, b->pool, w->value, w->known, w->size, 1);
		if (w->zext > w->offset + w->size)
			fprintf(f, "/z%u", w->zext);
	}
	for (uint32_t i = 0; i < e->nmems; i++) {
		const struct trawl_mem_access *m = &b->mems[e->first_mem + i];
		fprintf(f, " ; %s %" PRIx64 ":%" PRIu32, (m->flags & TRAWL_MEM_READ) ? "MR" : "MW",
			m->addr, m->size);
		if (m->flags & TRAWL_MEM_ABORTED) {
			fputs(" aborted", f);
		} else {
			putc('=', f);
			put_bytes(f, b->pool, m->value, m->known, m->size, 0);
		}
		if (m->flags & TRAWL_MEM_HAS_PADDR)
			fprintf(f, " pa=%" PRIx64, m->paddr);
		if (m->flags & TRAWL_MEM_FETCH)
			fputs(" fetch", f);
	}
	putc('\n', f);
}

static void json_hex(FILE *f, const char *key, const uint8_t *pool, uint32_t value,
		     uint32_t known, uint32_t n, int msb_first)
{
	fprintf(f, ",\"%s\":\"", key);
	put_bytes(f, pool, value, known, n, msb_first);
	putc('"', f);
}

/* The same event as text_event, as one JSON object per line for scripts.
 * Keys that scripts index by are always present (mode, ccfail, regs, mems),
 * even when empty, while optional fields appear only when known; bytes keep
 * the text form so unknown bytes stay "xx". */
static void json_event(FILE *f, const struct trawl_event_batch *b, const struct trawl_event *e)
{
	fprintf(f, "{\"seq\":%" PRIu64 ",\"line\":%" PRIu64 ",\"nlines\":%u,\"offset\":%" PRIu64
		   ",\"length\":%" PRIu64 ",\"kind\":\"%s\",\"time\":%" PRIu64 ",\"unit\":\"%s\",\"cpu\":%u",
		e->seq, e->line, e->nlines, e->offset, e->length,
		trawl_event_kind_name((enum trawl_event_kind)e->kind), e->time,
		trawl_time_unit_name((enum trawl_time_unit)e->time_unit), e->cpu);
	switch (e->kind) {
	case TRAWL_EV_INSN: {
		const struct trawl_event_insn *in = &e->u.insn;
		fprintf(f, ",\"iset\":\"%s\",\"pc\":\"0x%" PRIx64 "\",\"width\":%u",
			trawl_iset_name((enum trawl_iset)in->iset), in->pc, in->width);
		if (e->flags & TRAWL_EVF_HAS_ENCODING)
			fprintf(f, ",\"encoding\":\"0x%0*" PRIx32 "\"", in->width * 2, in->encoding);
		if (e->flags & TRAWL_EVF_HAS_PADDR)
			fprintf(f, ",\"paddr\":\"0x%" PRIx64 "\"", in->paddr);
		if (in->el != 0xff)
			fprintf(f, ",\"el\":%u", in->el);
		fputs(",\"mode\":", f);
		put_quoted(f, in->mode);
		fprintf(f, ",\"ccfail\":%s,\"fetchfail\":%s,%s\"disasm\":",
			(e->flags & TRAWL_EVF_CCFAIL) ? "true" : "false",
			(e->flags & TRAWL_EVF_FETCH_FAIL) ? "true" : "false",
			(e->flags & TRAWL_EVF_TRUNCATED) ? "\"truncated\":true," : "");
		put_quoted(f, in->disasm);
		break;
	}
	case TRAWL_EV_EXCEPTION:
		fputs(",\"name\":", f);
		put_quoted(f, e->u.exc.name);
		fprintf(f, ",\"number\":%" PRIu32 ",\"target\":\"0x%" PRIx64 "\"", e->u.exc.number,
			e->u.exc.target);
		break;
	case TRAWL_EV_TEXT:
		fputs(",\"type\":", f);
		put_quoted(f, e->u.text.type);
		fputs(",\"text\":", f);
		put_quoted(f, e->u.text.text);
		break;
	case TRAWL_EV_SW:
		fputs(",\"name\":", f);
		put_quoted(f, e->u.sw.name);
		fprintf(f, ",\"subsys\":%u,\"event\":%u,\"tid\":%" PRIu32 ",\"stream\":%" PRIu32 ",\"fields\":{",
			e->u.sw.subsys, e->u.sw.event, e->u.sw.tid, e->u.sw.stream);
		put_sw_fields(f, b, e, 1);
		putc('}', f);
		break;
	default:
		break;
	}
	fputs(",\"regs\":[", f);
	for (uint32_t i = 0; i < e->nregs; i++) {
		const struct trawl_reg_write *w = &b->regs[e->first_reg + i];
		const char *name = reg_name(b, e, w->reg);
		fprintf(f, "%s{\"reg\":", i ? "," : "");
		trawl_json_write_string(f, name, strlen(name));
		fprintf(f, ",\"offset\":%u,\"size\":%u,\"zext\":%u", w->offset, w->size, w->zext);
		json_hex(f, "value", b->pool, w->value, w->known, w->size, 1);
		putc('}', f);
	}
	fputs("],\"mems\":[", f);
	for (uint32_t i = 0; i < e->nmems; i++) {
		const struct trawl_mem_access *m = &b->mems[e->first_mem + i];
		fprintf(f, "%s{\"access\":\"%s\",\"addr\":\"0x%" PRIx64 "\",\"size\":%" PRIu32,
			i ? "," : "", (m->flags & TRAWL_MEM_READ) ? "read" : "write", m->addr, m->size);
		if (m->flags & TRAWL_MEM_HAS_PADDR)
			fprintf(f, ",\"paddr\":\"0x%" PRIx64 "\"", m->paddr);
		if (m->flags & TRAWL_MEM_ABORTED)
			fputs(",\"aborted\":true", f);
		else
			json_hex(f, "bytes", b->pool, m->value, m->known, m->size, 0);
		if (m->flags & TRAWL_MEM_FETCH)
			fputs(",\"fetch\":true", f);
		putc('}', f);
	}
	fputs("]}\n", f);
}

/* Batches are printed as they come so memory stays bounded on any trace
 * size and a pipe sees output at once. An error in the middle is reported
 * after the events before it were written; the progress bar is shown only
 * when the events go elsewhere than the terminal. */
int cmd_cat(int argc, char **argv)
{
	struct trace_open to = { .cmd = "cat" };
	int json = 0, rc;
	struct trawl_reader *r = NULL;
	const struct cli_option opts[] = {
		CLI_FLAG("json", 0, &json, "JSON Lines: one object per event"),
		TRACE_OPTIONS(&to),
		CLI_END,
	};
	const struct cli_command cmd = {
		.name = "cat",
		.usage = "[--json] [--implicit-thumb] [--big-endian] [--lenient] TRACE",
		.description =
			"Prints every event of TRACE (a file, or - for standard input; .gz and\n"
			".zst are decompressed; a CTF trace directory of software events, or a\n"
			"Barrelfish dump named by --defs) one per line in trawl's normalized form:\n"
			"\n"
			"  L<line>[-<last>] cpu<N> t=<time><unit> <kind> <details> [; <effect>]...\n"
			"\n"
			"where an effect is a register write <reg>=<hex value> or a memory access\n"
			"MR|MW <addr>:<size>=<bytes in address order>. Unknown bytes print as xx.\n",
		.options = opts,
		.min_args = 1, .max_args = 1, .missing = "missing TRACE",
	};
	if (cli_parse(&cmd, argc, argv, &rc) < 0)
		return rc;
	to.path = argv[0];
	if ((rc = trace_reader_open(&to, &r)))
		return rc;

	struct trawl_event_batch b;
	struct trawl_error err;
	enum trawl_status st;
	struct cli_progress prog;
	trawl_error_clear(&err);
	/* a progress bar only when the events go elsewhere than the terminal */
	cli_progress_start(&prog, "cat", trawl_input_raw_size(trawl_reader_input(r)));
	if (isatty(1))
		prog.active = 0;
	while ((st = trawl_reader_next(r, &b, &err)) == TRAWL_OK) {
		for (size_t i = 0; i < b.count; i++) {
			if (json)
				json_event(stdout, &b, &b.events[i]);
			else
				text_event(stdout, &b, &b.events[i]);
		}
		cli_progress_update(&prog, trace_progress(r));
	}
	cli_progress_finish(&prog);
	rc = EXIT_OK;
	if (st != TRAWL_END)
		rc = cli_report("cat", &err);
	else
		trace_report_skipped(&to, r);
	if (fflush(stdout) != 0 && rc == EXIT_OK) {
		cli_error("cat", "cannot write the output");
		rc = EXIT_BAD_INPUT;
	}
	trawl_reader_close(r);
	return rc;
}
