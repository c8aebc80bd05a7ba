/* Helpers shared by the index commands. */
#include "index-cli.h"

#include "trawl/ete.h"

#include <string.h>

const char *const index_cli_kinds[] = { "full", "compact", NULL };

int index_cli_parse(struct index_cli *c, const struct cli_command *cmd, int argc, char **argv,
		    int *rc)
{
	c->kind = -1;
	int n = cli_parse(cmd, argc, argv, rc);
	if (n > 0)
		c->to.path = argv[0];
	return n;
}

void index_cli_build_options(struct index_cli *c, struct trawl_index_build_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->reader = trace_open_fitted(&c->to);
	opt->kind = c->kind >= 0 ? trawl_index_kind_parse(index_cli_kinds[c->kind]) : 0;
}

static void progress(void *ctx, uint64_t done, uint64_t total)
{
	struct index_cli *c = ctx;
	cli_progress_update(c->bar, done);
	if (c->progress)
		c->progress(c->progress_ctx, done, total);
}

static void print_warning(void *ctx, const struct trawl_error *w)
{
	const struct index_cli *c = ctx;
	char buf[1024];
	trawl_error_format(w, buf, sizeof buf);
	cli_warn(c->to.cmd, "%s", buf);
}

void index_cli_warnings(struct index_cli *c, struct trawl_reader_options *o)
{
	o->warn = print_warning;
	o->warn_ctx = c;
}

/* The index a first run found damaged (main() runs the command again). */
static char damaged_path[4096];

/* Second run: build again over the damaged index, or in the default place
 * when that one cannot be written (a read-only folder), and use it. */
static enum trawl_status rebuild_damaged(struct index_cli *c,
					 const struct trawl_index_build_options *opt,
					 struct trawl_error *err)
{
	char def[4096];
	const char *path = damaged_path;
	if (strcmp(path, "(index in memory)") == 0)
		return trawl_index_build_memory(&c->ix, c->to.path, opt, err);
	enum trawl_status st = trawl_index_build(c->to.path, path, opt, err);
	if (st == TRAWL_ERR_IO && !c->index_path) {
		if ((st = trawl_index_default_path(c->to.path, def, sizeof def, err)))
			return st;
		path = def;
		st = trawl_index_build(c->to.path, path, opt, err);
	}
	return st ? st : trawl_index_open(&c->ix, path, NULL, err);
}

int index_cli_report(struct index_cli *c, const struct trawl_error *err)
{
	if (err->status == TRAWL_ERR_CORRUPT && c->ix && !damaged_path[0]) {
		snprintf(damaged_path, sizeof damaged_path, "%s", trawl_index_path(c->ix));
		cli_warn(c->to.cmd, "the index '%s' is damaged: building it again", damaged_path);
		return INDEX_CLI_RETRY;
	}
	return cli_report(c->to.cmd, err);
}

int index_cli_end(struct index_cli *c, int rc)
{
	struct trawl_error err;
	if (c->ix && rc != INDEX_CLI_RETRY && trawl_index_damage(c->ix, &err))
		rc = index_cli_report(c, &err);
	int closed = index_cli_close(c);
	return rc ? rc : closed;
}

/* Every index command opens its index here, so the choices (--no-index's
 * prefix, --memory-index, a second run over a damaged index, the usual
 * search and build) and the warnings after it (skipped lines) are the same
 * for all of them; the trace text is mapped for printing lines unless the
 * index says it has none. */
int index_cli_open(struct index_cli *c)
{
	struct trawl_error err;
	struct cli_progress p;
	struct trawl_index_build_options opt;
	/* a pipe can be read once and has no name to keep an index by: say
	 * so, rather than "cannot open '-'", which reads as a missing file */
	if (!strcmp(c->to.path, "-"))
		return cli_usage(c->to.cmd, "'-': %s needs a trace file (it indexes the trace and "
				 "reads its text again); standard input works for the commands "
				 "that read a trace once (stats, cat, calltree, profile...)", c->to.cmd);
	index_cli_build_options(c, &opt);
	trawl_error_clear(&err);
	/* also when the index is reused and no reader opens the trace: an
	 * option for another kind of trace is a usage error either way */
	if (trawl_reader_options_check(&opt.reader, trawl_trace_kind_probe(c->to.path, &opt.reader),
				       c->to.path, &err))
		return cli_report(c->to.cmd, &err);
	opt.reader.warn = print_warning;
	opt.reader.warn_ctx = c;
	opt.progress = progress;
	opt.progress_ctx = c;
	c->bar = &p;
	struct trawl_trace_id id;
	uint64_t total = trawl_trace_id_get(c->to.path, &id, NULL) == TRAWL_OK ? id.size : 0;
	cli_progress_start(&p, "indexing", total);
	enum trawl_status st;
	if (c->no_index && !c->until_line)
		return cli_usage(c->to.cmd, "--no-index: %s needs the index of the whole trace "
				 "(use --memory-index to keep it in memory)", c->to.cmd);
	opt.until_line = c->no_index ? c->until_line : 0;
	if (c->memory || c->no_index)
		st = trawl_index_build_memory(&c->ix, c->to.path, &opt, &err);
	else if (damaged_path[0])
		st = rebuild_damaged(c, &opt, &err);
	else
		st = trawl_index_open_trace(&c->ix, c->to.path, c->index_path, &opt, NULL, &err);
	cli_progress_finish(&p);
	if (st)
		return cli_report(c->to.cmd, &err);
	uint64_t skipped = trawl_index_skipped_lines(c->ix);
	if (skipped) {
		/* the answers come from a trace with lines left out: exit 1 */
		cli_warn(c->to.cmd, "%llu malformed line%s of the trace %s skipped (--lenient) "
			 "when this index was built", (unsigned long long)skipped,
			 skipped == 1 ? "" : "s", skipped == 1 ? "was" : "were");
		cli_mark_lossy();
	}
	uint64_t damaged = trawl_index_damaged(c->ix);
	if (damaged) {
		/* decoded trace: the build warned where; the answers lack it */
		cli_warn(c->to.cmd, "%llu place%s of the trace could not be decoded when this index "
			 "was built ('trawl ete decode' shows where)", (unsigned long long)damaged,
			 damaged == 1 ? "" : "s");
		cli_mark_lossy();
	}
	if (trawl_index_cut_lines(c->ix)) {
		/* the same rule as a reading command's: a dropped line is lost */
		cli_warn(c->to.cmd, "the trace was cut off at its end (a last line without "
			 "newline, compressed data that stops mid-stream, or bytes after it that "
			 "are not compressed data) when this index was built: a cut effect line is left "
			 "out, a cut instruction or text line is kept as far as it goes");
		cli_mark_lossy();
	}
	return 0;
}

const struct trawl_ete_image *index_cli_image(struct index_cli *c)
{
	if (!c->img_tried && c->ix) {
		struct trawl_index_info info;
		struct trawl_index_build_options opt;
		struct trawl_error err;
		c->img_tried = 1;
		trawl_index_get_info(c->ix, &info);
		if (!info.no_text) /* a text trace shows its own memory */
			return NULL;
		index_cli_build_options(c, &opt);
		opt.reader.warn = NULL; /* the build said what was wrong */
		trawl_error_clear(&err);
		if (trawl_reader_open(&c->img_reader, c->to.path, &opt.reader, &err))
			c->img_reader = NULL;
	}
	return c->img_reader ? trawl_reader_image(c->img_reader) : NULL;
}

enum trawl_status index_cli_mem_at(struct index_cli *c, uint64_t ev, uint64_t addr, size_t len,
				   uint8_t *val, uint8_t *known, size_t *from_image,
				   struct trawl_error *err)
{
	enum trawl_status st = trawl_index_mem_at(c->ix, ev, addr, len, val, known, err);
	size_t n = 0;
	if (!st)
		n = trawl_ete_image_fill(index_cli_image(c), addr, len, val, known);
	if (from_image)
		*from_image = n;
	return st;
}

int index_cli_close(struct index_cli *c)
{
	int failed = c->failed;
	trawl_reader_close(c->img_reader);
	c->img_reader = NULL;
	c->img_tried = 0;
	trawl_index_close(c->ix);
	trawl_text_close(c->text);
	c->ix = NULL;
	c->text = NULL;
	c->text_tried = 0;
	return failed ? EXIT_BAD_INPUT : 0;
}

int index_cli_line(struct index_cli *c, const char *arg, uint64_t *ev)
{
	uint64_t line;
	struct trawl_error err;
	if (!cli_parse_u64(arg, &line))
		return cli_usage(c->to.cmd, "bad line number '%s'", arg);
	/* a line the trace does not have is a wrong question, for every
	 * command taking a line (regs, mem, last-write, browse...): exit 2 */
	struct trawl_index_info info;
	trawl_index_get_info(c->ix, &info);
	if (line == 0)
		return cli_usage(c->to.cmd, "line 0: lines are counted from 1");
	if (line > info.lines && !info.events)
		return cli_usage(c->to.cmd, "line %llu: the trace has no events",
				 (unsigned long long)line);
	if (line > info.lines)
		return cli_usage(c->to.cmd, "line %llu is past the end of the trace (its events "
				 "end at line %llu)", (unsigned long long)line,
				 (unsigned long long)info.lines);
	if (trawl_index_event_at_line(c->ix, line, ev, &err))
		return index_cli_report(c, &err);
	return 0;
}

int index_cli_check_cpu(struct index_cli *c, uint64_t cpu)
{
	struct trawl_index_info info;
	trawl_index_get_info(c->ix, &info);
	unsigned n = info.cpus ? info.cpus : 1;
	if (cpu < n)
		return 0;
	/* asking about a core the trace never shows is a wrong question, not
	 * lost data: a usage error, for every command taking --cpu */
	if (n == 1)
		return cli_usage(c->to.cmd, "--cpu %llu: the trace has only core 0",
				 (unsigned long long)cpu);
	return cli_usage(c->to.cmd, "--cpu %llu: the trace has cores 0-%u",
			 (unsigned long long)cpu, n - 1);
}

static void text_note(void *ctx, const char *msg)
{
	const struct index_cli *c = ctx;
	cli_warn(c->to.cmd, "%s", msg);
}

struct trawl_text *index_cli_text(struct index_cli *c)
{
	if (c->text_tried)
		return c->text;
	c->text_tried = 1;
	struct trawl_index_info info;
	trawl_index_get_info(c->ix, &info);
	/* an index of a source without text (decoded trace) has no lines to show */
	if (info.no_text)
		return NULL;
	struct cli_progress p;
	struct trawl_error err;
	trawl_error_clear(&err);
	struct trawl_text_options o = { .progress = progress, .progress_ctx = &p,
					.note = text_note, .note_ctx = c };
	struct trawl_trace_id id;
	cli_progress_start(&p, "seek points",
			   trawl_trace_id_get(c->to.path, &id, NULL) == TRAWL_OK ? id.size : 0);
	enum trawl_status st = trawl_text_open(&c->text, c->to.path, &o, &err);
	cli_progress_finish(&p);
	if (st) {
		char buf[1024];
		trawl_error_format(&err, buf, sizeof buf);
		cli_warn(c->to.cmd, "%s: the trace's text is not shown", buf);
		cli_mark_lossy();
	}
	return c->text;
}

uint64_t index_cli_seek_size(struct index_cli *c, const char **path)
{
	*path = "";
	if (!index_cli_text(c) || trawl_text_compression(c->text) == TRAWL_COMPRESSION_NONE)
		return 0;
	*path = trawl_text_seek_path(c->text) ? trawl_text_seek_path(c->text) : "(in memory)";
	return trawl_text_seek_size(c->text);
}

/* Lines longer than this are shown cut (a view, not a copy). */
#define EVENT_TEXT_MAX (1u << 20)

size_t index_event_synth(const struct trawl_index *ix, const struct trawl_index_event *e, char *buf,
			 size_t size)
{
	struct trawl_index_info info;
	trawl_index_get_info(ix, &info);
	int n = snprintf(buf, size, "L%llu cpu%u t=%llu%s %s", (unsigned long long)e->line, e->cpu,
			 (unsigned long long)e->time,
			 trawl_time_unit_name((enum trawl_time_unit)info.time_unit),
			 trawl_event_kind_name((enum trawl_event_kind)e->kind));
	if (n >= 0 && (size_t)n < size && e->kind == TRAWL_EV_INSN) {
		int m = snprintf(buf + n, size - (size_t)n, " %s pc=%llx",
				 trawl_iset_name((enum trawl_iset)e->iset), (unsigned long long)e->pc);
		if (m > 0)
			n += m;
		if (n >= 0 && (size_t)n < size && (e->flags & TRAWL_EVF_HAS_ENCODING) &&
		    (m = snprintf(buf + n, size - (size_t)n, " enc=%0*x", e->width * 2, e->encoding)) > 0)
			n += m;
		if (n >= 0 && (size_t)n < size && e->el != 0xff &&
		    (m = snprintf(buf + n, size - (size_t)n, " el=%u", e->el)) > 0)
			n += m;
		static const struct {
			uint16_t flag;
			const char *word;
		} words[] = { { TRAWL_EVF_CCFAIL, " ccfail" },
			      { TRAWL_EVF_FETCH_FAIL, " fetchfail" },
			      { TRAWL_EVF_TRUNCATED, " truncated" } };
		for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
			if (n >= 0 && (size_t)n < size && (e->flags & words[i].flag) &&
			    (m = snprintf(buf + n, size - (size_t)n, "%s", words[i].word)) > 0)
				n += m;
	}
	if (n < 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

void index_cli_event_text(struct index_cli *c, uint64_t ev, const char **s, size_t *len)
{
	struct trawl_index_event e;
	struct trawl_error err;
	*s = "";
	*len = 0;
	if (trawl_index_event(c->ix, ev, &e, NULL))
		return;
	if (!index_cli_text(c))
		return;
	trawl_error_clear(&err);
	if (trawl_text_line(c->text, e.offset, EVENT_TEXT_MAX, s, len, &err)) {
		if (!c->failed)
			cli_report(c->to.cmd, &err);
		c->failed = 1;
	}
}

void index_cli_print_event(struct index_cli *c, FILE *f, uint64_t ev)
{
	struct trawl_index_event e;
	struct trawl_error err;
	const char *s;
	size_t len;
	trawl_error_clear(&err);
	if (trawl_index_event(c->ix, ev, &e, &err)) {
		/* keep the output well formed and the failure in the exit status;
		 * damage ends the command through index_cli_end (a rebuild and a
		 * second run), anything else is reported here */
		fputs(c->json ? "null" : "(event unreadable)", f);
		if (err.status != TRAWL_ERR_CORRUPT)
			cli_report(c->to.cmd, &err);
		c->failed = 1;
		return;
	}
	index_cli_event_text(c, ev, &s, &len);
	if (c->json) {
		fprintf(f, "{\"event\":%llu,\"line\":%llu,\"time\":%llu,\"cpu\":%u,\"pc\":\"0x%llx\",\"text\":",
			(unsigned long long)ev, (unsigned long long)e.line,
			(unsigned long long)e.time, e.cpu, (unsigned long long)e.pc);
		trawl_json_write_string(f, s, len);
		fputc('}', f);
		return;
	}
	fprintf(f, "line %llu (event %llu)%s%.*s", (unsigned long long)e.line,
		(unsigned long long)ev, len ? ": " : "", (int)len, s);
}

void print_reg_hex(FILE *f, const uint8_t *v, const uint8_t *k, uint32_t n)
{
	for (uint32_t i = n; i-- > 0;) {
		if (k[i])
			fprintf(f, "%02x", v[i]);
		else
			fputs("??", f);
	}
}

int index_cli_reg(struct index_cli *c, const char *name, uint64_t ev, uint32_t *reg,
		  uint32_t *off, uint32_t *size)
{
	/* names mean what they mean at that event: lr is r14 on an AArch32
	 * instruction, x30 on an AArch64 one */
	struct trawl_index_event e;
	enum trawl_reg_state state = TRAWL_REG_STATE_GUESS;
	if (trawl_index_event(c->ix, ev, &e, NULL) == TRAWL_OK && e.kind == TRAWL_EV_INSN)
		state = e.iset == TRAWL_ISET_A32 || e.iset == TRAWL_ISET_T32 ? TRAWL_REG_STATE_A32
									     : TRAWL_REG_STATE_A64;
	struct trawl_reg_ref ref;
	if (trawl_reg_parse(name, strlen(name), state, &ref)) {
		*reg = ref.reg;
		*off = ref.offset;
		*size = ref.size ? ref.size : trawl_reg_width(ref.reg) - ref.offset;
		return 1;
	}
	uint32_t id = trawl_index_reg_find(c->ix, name);
	if (id == UINT32_MAX)
		return 0;
	*reg = id;
	*off = 0;
	*size = TRAWL_REG_SYS_BYTES;
	return 1;
}

void index_cli_print_after(struct index_cli *c, FILE *f, uint64_t ev)
{
	struct trawl_index_event e;
	const char *s;
	size_t len;
	if (trawl_index_event(c->ix, ev, &e, NULL) || e.nlines < 2) {
		fputs("after ", f);
		index_cli_print_event(c, f, ev);
		return;
	}
	index_cli_event_text(c, ev, &s, &len);
	fprintf(f, "after lines %llu-%llu (event %llu)%s%.*s", (unsigned long long)e.line,
		(unsigned long long)(e.line + e.nlines - 1), (unsigned long long)ev,
		len ? ": " : "", (int)len, s);
}

/* The order and widths are trawl regs' (one fixed order: core, FP/SIMD,
 * SVE, then system registers as the trace named them), shared with the web
 * view so the two show the same registers the same way. */
void index_cli_regs_each(struct index_cli *c, const struct trawl_index_regs *regs, int a32,
			 index_cli_reg_fn fn, void *ctx)
{
	uint32_t last = TRAWL_REG_FFR + regs->nsys;
	for (uint32_t k = 0; k <= last; k++) {
		uint32_t reg = k <= TRAWL_REG_FFR ? k : TRAWL_REG_SYS_BASE + (k - TRAWL_REG_FFR - 1);
		/* AArch32 has r0-r15 only (r13 and r15 are sp and pc): what an
		 * AArch64 instruction left in x15-x30 has no AArch32 name */
		if (a32 && reg > 14 && reg < TRAWL_REG_SP)
			continue;
		const uint8_t *v, *kn;
		uint32_t w = trawl_index_regs_view(regs, reg, &v, &kn);
		uint32_t n = w ? trawl_reg_shown_width(reg, kn, w, a32) : 0;
		if (!n)
			continue;
		const char *name = reg < TRAWL_REG_SYS_BASE && trawl_reg_state_name(reg, a32)
					   ? trawl_reg_state_name(reg, a32)
					   : trawl_index_reg_name(c->ix, reg);
		fn(ctx, name, v, kn, n);
	}
}
