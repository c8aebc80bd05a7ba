/* The JSON API of trawl serve (docs/serve.md). Every answer is written with
 * the JSON writer (json.h); the queries are those of the CLI commands:
 * regs (index_cli_regs_each), mem (trawl_index_mem_at), last-write and
 * next-write (write_query_find), the browser's step over/out (callhop.h). */
#include "serve/serve.h"

#include <stdlib.h>
#include <string.h>

#include "trawl/number.h"

#include "trawl/callhop.h"
#include "trawl/image.h"
#include "serve/text.h"
#include "write-query.h"

struct api {
	struct serve *s;
	const struct serve_req *r;
	struct serve_trace *t;
	struct trawl_json j;
	FILE *f;
};

static int bad(struct api *a, int status, const char *msg)
{
	trawl_json_object_begin(&a->j);
	trawl_json_key(&a->j, "error");
	trawl_json_cstring(&a->j, msg);
	trawl_json_object_end(&a->j);
	return status;
}

static void key_u64(struct api *a, const char *k, uint64_t v)
{
	trawl_json_key(&a->j, k);
	trawl_json_u64(&a->j, v);
}

/* The event under a line, or -1 after writing a 400 answer. */
static int line_event(struct api *a, uint64_t line, uint64_t *ev)
{
	struct trawl_error err;
	if (trawl_index_event_at_line(a->t->ic.ix, line, ev, &err) == TRAWL_OK)
		return 0;
	bad(a, 400, err.message);
	return -1;
}

/* An event as trawl last-write --json prints it (index_cli_print_event). */
static void event_value(struct api *a, uint64_t ev)
{
	int json = a->t->ic.json;
	a->t->ic.json = 1;
	trawl_json_value_begin(&a->j);
	index_cli_print_event(&a->t->ic, a->f, ev);
	a->t->ic.json = json;
}

/* The members every trace answer has; returns the state they say. */
static enum serve_state trace_state(struct api *a, struct serve_trace *t)
{
	pthread_mutex_lock(&a->s->lock);
	enum serve_state st = t->state;
	uint64_t done = t->done, total = t->total;
	pthread_mutex_unlock(&a->s->lock);
	key_u64(a, "id", t->id);
	trawl_json_key(&a->j, "path");
	trawl_json_cstring(&a->j, t->path);
	trawl_json_key(&a->j, "kind");
	trawl_json_cstring(&a->j, t->kind == SERVE_KIND_SW ? "events" : "instructions");
	trawl_json_key(&a->j, "state");
	trawl_json_cstring(&a->j, serve_state_name(st));
	key_u64(a, "done", done);
	key_u64(a, "total", total);
	if (st == SERVE_FAILED || (st == SERVE_READY && t->message[0])) {
		trawl_json_key(&a->j, "message");
		trawl_json_cstring(&a->j, t->message);
	}
	return st;
}

static int api_traces(struct api *a)
{
	trawl_json_object_begin(&a->j);
	trawl_json_key(&a->j, "traces");
	trawl_json_array_begin(&a->j);
	for (unsigned i = 0; i < a->s->ntraces; i++) {
		trawl_json_object_begin(&a->j);
		trace_state(a, &a->s->traces[i]);
		trawl_json_object_end(&a->j);
	}
	trawl_json_array_end(&a->j);
	trawl_json_object_end(&a->j);
	return 200;
}

/* Asking for a trace starts its build; the page polls until "ready". */
static int api_trace(struct api *a)
{
	serve_trace_request(a->s, a->t);
	trawl_json_object_begin(&a->j);
	/* the state printed decides: the build may end between the two */
	enum serve_state st = trace_state(a, a->t);
	if (st == SERVE_READY && a->t->kind == SERVE_KIND_SW) {
		serve_sw_info(a->t->sw, &a->j);
	} else if (st == SERVE_READY) {
		struct trawl_index_info info;
		trawl_index_get_info(a->t->ic.ix, &info);
		key_u64(a, "lines", info.lines);
		key_u64(a, "events", info.events);
		key_u64(a, "cpus", a->t->ncpus);
		key_u64(a, "activations", a->t->tl.activations);
		trawl_json_key(&a->j, "text");
		trawl_json_bool(&a->j, a->t->text != NULL);
	}
	trawl_json_object_end(&a->j);
	return 200;
}

/* A source without text (ETE, perf.data): its events, one a line, as
 * `trawl cat` writes them (index_event_synth), read from the index. */
static int lines_synth(struct api *a, const struct trawl_index_info *info)
{
	uint64_t line = a->r->from ? a->r->from : 1;
	if (line > info->lines) {
		char msg[128];
		snprintf(msg, sizeof msg, "line %llu is past the end of the trace (%llu lines)",
			 (unsigned long long)line, (unsigned long long)info->lines);
		return bad(a, 400, msg);
	}
	uint64_t count = a->r->count < info->lines - line + 1 ? a->r->count : info->lines - line + 1;
	struct trawl_error err;
	trawl_error_clear(&err);
	uint64_t ev;
	if (trawl_index_event_at_line(a->t->ic.ix, line, &ev, &err))
		return bad(a, 500, err.message);
	trawl_json_object_begin(&a->j);
	key_u64(a, "from", line);
	trawl_json_key(&a->j, "lines");
	trawl_json_array_begin(&a->j);
	struct trawl_index_event e[64];
	enum trawl_status st = TRAWL_OK;
	for (uint64_t done = 0; done < count && !st;) {
		size_t n = count - done < 64 ? (size_t)(count - done) : 64;
		if ((st = trawl_index_events(a->t->ic.ix, ev + done, n, e, &err)))
			break;
		for (size_t i = 0; i < n; i++) {
			char buf[192];
			size_t len = index_event_synth(a->t->ic.ix, &e[i], buf, sizeof buf);
			trawl_json_string(&a->j, buf, len);
		}
		done += n;
	}
	trawl_json_array_end(&a->j);
	if (st) {
		trawl_json_key(&a->j, "error");
		trawl_json_cstring(&a->j, err.message);
	}
	trawl_json_object_end(&a->j);
	return 200;
}

static int api_lines(struct api *a)
{
	char why[128];
	struct trawl_text *x = a->t->text;
	if (serve_req_need(a->r, SP_FROM | SP_COUNT, why, sizeof why))
		return bad(a, 400, why);
	struct trawl_index_info info;
	trawl_index_get_info(a->t->ic.ix, &info);
	if (!x && info.no_text)
		return lines_synth(a, &info);
	if (!x)
		return bad(a, 400, "the trace's text could not be opened (the terminal says why)");
	uint64_t off, line = a->r->from ? a->r->from : 1, size = trawl_text_size(x);
	/* the lines of the index only: a cut trace's text goes on with the
	 * fragment the build dropped, which is no line of the trace */
	if (line > info.lines) {
		char msg[128];
		snprintf(msg, sizeof msg, "line %llu is past the end of the trace (%llu lines)",
			 (unsigned long long)line, (unsigned long long)info.lines);
		return bad(a, 400, msg);
	}
	uint64_t count = a->r->count < info.lines - line + 1 ? a->r->count : info.lines - line + 1;
	trawl_json_object_begin(&a->j);
	key_u64(a, "from", line);
	trawl_json_key(&a->j, "lines");
	trawl_json_array_begin(&a->j);
	struct trawl_error err;
	trawl_error_clear(&err);
	enum trawl_status st = TRAWL_OK;
	if (serve_text_line_offset(a->t->ic.ix, x, line, &off) == 0)
		for (uint64_t k = 0; k < count && off < size && !st; k++) {
			const char *p;
			size_t shown;
			if (!(st = serve_text_line(x, off, &p, &shown, &off, &err)))
				trawl_json_string(&a->j, p, shown);
		}
	trawl_json_array_end(&a->j);
	if (st) {
		/* damaged compressed text: the lines before it, and why no more */
		trawl_json_key(&a->j, "error");
		trawl_json_cstring(&a->j, err.message);
	}
	trawl_json_object_end(&a->j);
	return 200;
}

struct reg_list {
	struct api *a;
	char *before;               /* "\nname=hex" of the event before, or NULL */
	size_t before_len;
	FILE *collect;
};

static void hex_of(char *buf, const uint8_t *v, const uint8_t *k, uint32_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (uint32_t i = n, o = 0; i-- > 0; o += 2) {
		buf[o] = k[i] ? digits[v[i] >> 4] : '?';
		buf[o + 1] = k[i] ? digits[v[i] & 15] : '?';
	}
	buf[2 * n] = 0;
}

static void collect_reg(void *ctx, const char *name, const uint8_t *v, const uint8_t *k, uint32_t n)
{
	struct reg_list *l = ctx;
	char hex[2 * 256 + 1];
	hex_of(hex, v, k, n > 256 ? 256 : n);
	fprintf(l->collect, "\n%s=%s\n", name, hex);
}

static void write_reg(void *ctx, const char *name, const uint8_t *v, const uint8_t *k, uint32_t n)
{
	struct reg_list *l = ctx;
	char hex[2 * 256 + 1], entry[2 * 256 + 80];
	hex_of(hex, v, k, n > 256 ? 256 : n);
	trawl_json_array_begin(&l->a->j);
	trawl_json_cstring(&l->a->j, name);
	trawl_json_cstring(&l->a->j, hex);
	snprintf(entry, sizeof entry, "\n%s=%s\n", name, hex);
	trawl_json_bool(&l->a->j, l->before && !memmem(l->before, l->before_len, entry, strlen(entry)));
	trawl_json_array_end(&l->a->j);
}

/* The registers trawl regs prints at the event before, as "\nname=hex\n"
 * lines, to mark what this event changed. */
static void regs_before(struct api *a, uint64_t ev, uint16_t cpu, int a32, struct reg_list *l)
{
	struct trawl_index_regs prev;
	trawl_index_regs_init(&prev);
	l->collect = ev ? open_memstream(&l->before, &l->before_len) : NULL;
	if (l->collect && trawl_index_regs_at(a->t->ic.ix, ev - 1, cpu, &prev, NULL) == TRAWL_OK)
		index_cli_regs_each(&a->t->ic, &prev, a32, collect_reg, l);
	if (l->collect)
		fclose(l->collect);
	trawl_index_regs_release(&prev);
}

/* [name, hex, changed] in trawl regs' order and widths; changed: the value
 * differs from the one at the event before (or the register is new). */
static int api_regs(struct api *a)
{
	char why[128];
	uint64_t ev;
	struct trawl_error err;
	if (serve_req_need(a->r, SP_LINE, why, sizeof why))
		return bad(a, 400, why);
	if (line_event(a, a->r->line, &ev))
		return 400;
	struct trawl_index_event e;
	if (trawl_index_event(a->t->ic.ix, ev, &e, &err))
		return bad(a, 500, err.message);
	uint16_t cpu = a->r->have & SP_CPU ? a->r->cpu : e.cpu;
	if (cpu >= a->t->ncpus)
		return bad(a, 400, "no such cpu in this trace");
	struct trawl_index_regs regs;
	trawl_index_regs_init(&regs);
	if (trawl_index_regs_at(a->t->ic.ix, ev, cpu, &regs, &err)) {
		trawl_index_regs_release(&regs);
		return bad(a, 500, err.message);
	}
	int a32 = e.iset == TRAWL_ISET_A32 || e.iset == TRAWL_ISET_T32;
	struct reg_list l = { a, NULL, 0, NULL };
	regs_before(a, ev, cpu, a32, &l);
	trawl_json_object_begin(&a->j);
	key_u64(a, "event", ev);
	key_u64(a, "line", e.line);
	key_u64(a, "cpu", cpu);
	trawl_json_key(&a->j, "registers");
	trawl_json_array_begin(&a->j);
	index_cli_regs_each(&a->t->ic, &regs, a32, write_reg, &l);
	trawl_json_array_end(&a->j);
	trawl_json_object_end(&a->j);
	free(l.before);
	trawl_index_regs_release(&regs);
	return 200;
}

/* The bytes as trawl mem --json prints them: two hex digits or "??" each. */
static int api_mem(struct api *a)
{
	char why[128];
	uint64_t ev, len = a->r->have & SP_LEN ? a->r->len : 64;
	uint8_t val[SERVE_MEM_MAX], known[SERVE_MEM_MAX / 8];
	struct trawl_error err;
	if (serve_req_need(a->r, SP_LINE | SP_ADDR, why, sizeof why))
		return bad(a, 400, why);
	if (a->r->addr + len < a->r->addr)
		return bad(a, 400, "the range wraps around the address space");
	if (line_event(a, a->r->line, &ev))
		return 400;
	size_t from_image = 0;
	if (index_cli_mem_at(&a->t->ic, ev, a->r->addr, len, val, known, &from_image, &err))
		return bad(a, 500, err.message);
	trawl_json_object_begin(&a->j);
	key_u64(a, "event", ev);
	trawl_json_key(&a->j, "address");
	trawl_json_hex(&a->j, a->r->addr);
	key_u64(a, "from_image", from_image);
	trawl_json_key(&a->j, "bytes");
	trawl_json_value_begin(&a->j);
	fputc('"', a->f);
	for (uint64_t i = 0; i < len; i++) {
		if (known[i / 8] >> (i % 8) & 1)
			fprintf(a->f, "%02x", val[i]);
		else
			fputs("??", a->f);
	}
	fputc('"', a->f);
	trawl_json_object_end(&a->j);
	return 200;
}

/* {"write": event | null}, as trawl last-write/next-write --json. */
static int api_write(struct api *a)
{
	char why[128];
	uint64_t ev, found;
	struct trawl_error err;
	if (serve_req_need(a->r, SP_LINE, why, sizeof why))
		return bad(a, 400, why);
	if (!(a->r->have & (SP_REG | SP_ADDR)))
		return bad(a, 400, "give reg= or addr=");
	if ((a->r->have & SP_REG) && (a->r->have & SP_ADDR))
		return bad(a, 400, "give reg= or addr=, not both: a write is of one register or of memory");
	if (line_event(a, a->r->line, &ev))
		return 400;
	struct write_target wt = { !(a->r->have & SP_REG), a->r->addr,
				   a->r->have & SP_LEN ? a->r->len : 1, a->r->reg };
	enum trawl_status st = write_query_find(&a->t->ic, ev, &wt, (a->r->have & SP_CPU) != 0,
						a->r->cpu, a->r->dir, &found, &err);
	if (st && st != TRAWL_ERR_NOT_FOUND)
		return bad(a, st == TRAWL_ERR_FORMAT ? 400 : 500, err.message);
	trawl_json_object_begin(&a->j);
	trawl_json_key(&a->j, "write");
	if (st)
		trawl_json_null(&a->j);
	else
		event_value(a, found);
	trawl_json_object_end(&a->j);
	return 200;
}

static int answer_line(struct api *a, enum trawl_status st, uint64_t ev, const char *msg)
{
	struct trawl_index_event e;
	trawl_json_object_begin(&a->j);
	trawl_json_key(&a->j, "line");
	if (st == TRAWL_OK && trawl_index_event(a->t->ic.ix, ev, &e, NULL) == TRAWL_OK) {
		trawl_json_u64(&a->j, e.line);
	} else {
		trawl_json_null(&a->j);
		trawl_json_key(&a->j, "message");
		trawl_json_cstring(&a->j, msg);
	}
	trawl_json_object_end(&a->j);
	return 200;
}

static int api_step(struct api *a)
{
	char why[128];
	uint64_t ev, out = 0;
	struct trawl_error err;
	if (serve_req_need(a->r, SP_LINE | SP_OP, why, sizeof why))
		return bad(a, 400, why);
	if (line_event(a, a->r->line, &ev))
		return 400;
	trawl_error_clear(&err);
	enum trawl_status st =
		a->r->op == SERVE_OP_OUT
			? trawl_callhop_step_out(a->t->ic.ix, ev, a->t->ncpus, NULL, NULL, &out, &err)
			: trawl_callhop_step_over(a->t->ic.ix, ev, a->r->op == SERVE_OP_OVER ? 1 : -1,
						  NULL, NULL, &out, &err);
	return answer_line(a, st, out, err.message);
}

/* Bytes of text one search request reads at most; the page asks again
 * from where it stopped. A compressed trace's text is decompressed on the
 * way, so it reads less and the one request thread stays responsive. */
#define SEARCH_SPAN ((uint64_t)256 << 20)
#define SEARCH_SPAN_COMPRESSED ((uint64_t)32 << 20)

static int search_answer(struct api *a, int found, uint64_t at, int more, uint64_t next)
{
	trawl_json_object_begin(&a->j);
	trawl_json_key(&a->j, "line");
	if (found)
		trawl_json_u64(&a->j, serve_text_offset_line(a->t->ic.ix, a->t->text, at));
	else
		trawl_json_null(&a->j);
	trawl_json_key(&a->j, "next");
	if (!found && more)
		trawl_json_u64(&a->j, next);
	else
		trawl_json_null(&a->j);
	trawl_json_object_end(&a->j);
	return 200;
}

/* Text search from `line`: the first line after it holding the text
 * (dir=next, the default) or the last one before it (dir=last). At most
 * a span of bytes is read: {"line": L} or {"line": null, "next": L},
 * where to ask again ("next" is null when the whole trace was read). */
static int api_search(struct api *a)
{
	char why[128];
	uint64_t off, at = 0, nl;
	struct trawl_text *x = a->t->text;
	struct trawl_error err;
	trawl_error_clear(&err);
	if (serve_req_need(a->r, SP_LINE | SP_TEXT, why, sizeof why))
		return bad(a, 400, why);
	if (!x)
		return bad(a, 400, "the trace has no text to search");
	uint64_t n = trawl_text_size(x), len = strlen(a->r->text);
	uint64_t span = trawl_text_compression(x) == TRAWL_COMPRESSION_NONE ? SEARCH_SPAN : SEARCH_SPAN_COMPRESSED;
	if (!len)
		return bad(a, 400, "nothing to search for");
	if (serve_text_line_offset(a->t->ic.ix, x, a->r->line, &off))
		return bad(a, 400, "no such line");
	if (a->r->dir < 0) {
		uint64_t lo = off > span ? off - span : 0;
		int found = serve_text_find(x, lo, off, a->r->text, len, -1, &at, &err);
		if (found < 0)
			return bad(a, 500, err.message);
		return search_answer(a, found, at, lo > 0, lo ? serve_text_offset_line(a->t->ic.ix, x, lo) + 1 : 0);
	}
	const char *p;
	size_t shown;
	if (serve_text_line(x, off, &p, &shown, &nl, &err))
		return bad(a, 500, err.message);
	uint64_t end = n - nl > span ? nl + span : n;
	int found = serve_text_find(x, nl, end, a->r->text, len, 1, &at, &err);
	if (found < 0)
		return bad(a, 500, err.message);
	return search_answer(a, found, at, end < n, end < n ? serve_text_offset_line(a->t->ic.ix, x, end) - 1 : 0);
}

/* The name the timeline holds for a function asked for by either of its
 * names: the call tree names functions as the image shows them (C++
 * demangled), so a raw ELF name ("_ZN5Lexer4nextEv", maybe with "+0x..")
 * becomes the shown one. Other names are returned as they are. */
static const char *shown_name(struct api *a, const char *q, char *buf, size_t n)
{
	const struct trawl_image *img = a->s->opts.image;
	const char *plus = strstr(q, "+0x");
	size_t len = plus ? (size_t)(plus - q) : strlen(q);
	if (!img || len >= n)
		return q;
	memcpy(buf, q, len);
	buf[len] = 0;
	const struct trawl_symbol *sym = trawl_image_symbol_named(img, buf);
	if (!sym || sym->name == sym->raw)
		return q;
	snprintf(buf, n, "%s%s", sym->name, plus ? plus : "");
	return buf;
}

/* q is a line number, "@T" a time, "0x..." a PC (its next visit after
 * line=, or its first), anything else a function name (its next
 * activation after line=, or its first). */
static int api_goto(struct api *a)
{
	char why[128];
	struct trawl_error err;
	uint64_t v, ev = 0, after = a->r->have & SP_LINE ? a->r->line : 0;
	enum trawl_status st = TRAWL_ERR_NOT_FOUND;
	const char *q = a->r->text;
	if (serve_req_need(a->r, SP_Q, why, sizeof why))
		return bad(a, 400, why);
	trawl_error_clear(&err);
	snprintf(err.message, sizeof err.message, "nothing named '%.60s' in the trace", q);
	if (q[0] == '@') {
		/* "@1500", "@1.5us", "@12clk" as trawl regs --time takes them */
		struct trawl_index_info info;
		trawl_index_get_info(a->t->ic.ix, &info);
		if (trawl_time_parse(q + 1, (enum trawl_time_unit)info.time_unit, &v, &err))
			return bad(a, 400, err.message);
		st = trawl_index_event_at_time(a->t->ic.ix, v, &ev, &err);
	} else if ((q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) && trawl_u64_parse(q, &v)) {
		uint64_t cur = 0;
		if (after && trawl_index_event_at_line(a->t->ic.ix, after, &cur, NULL) == TRAWL_OK)
			st = trawl_index_pc_step(a->t->ic.ix, v, cur, 1, &ev, &err);
		else if (trawl_index_pc_count(a->t->ic.ix, v))
			st = trawl_index_pc_visit(a->t->ic.ix, v, 0, &ev, &err);
	} else if (trawl_u64_parse(q, &v)) {
		st = trawl_index_event_at_line(a->t->ic.ix, v, &ev, &err);
		if (st == TRAWL_OK) {
			/* a line inside an event stays that line */
			trawl_json_object_begin(&a->j);
			key_u64(a, "line", v);
			trawl_json_object_end(&a->j);
			return 200;
		}
	} else {
		char name[SERVE_TEXT_MAX + 512];
		uint64_t line = serve_timeline_find(&a->t->tl, shown_name(a, q, name, sizeof name), after + 1);
		if (line && trawl_index_event_at_line(a->t->ic.ix, line, &ev, NULL) == TRAWL_OK)
			st = TRAWL_OK;
	}
	return answer_line(a, st, ev, err.message);
}

static int api_timeline(struct api *a)
{
	char why[128];
	if (serve_req_need(a->r, SP_FROM | SP_TO | SP_COLS, why, sizeof why))
		return bad(a, 400, why);
	if (a->r->to <= a->r->from)
		return bad(a, 400, "'to' must be above 'from'");
	char name[SERVE_TEXT_MAX + 512];
	const char *mark = a->r->have & SP_MARK ? shown_name(a, a->r->mark, name, sizeof name) : NULL;
	if (mark && serve_timeline_mark(&a->t->tl, mark))
		return bad(a, 500, "out of memory");
	trawl_json_object_begin(&a->j);
	key_u64(a, "from", a->r->from);
	key_u64(a, "to", a->r->to);
	key_u64(a, "cols", a->r->cols);
	serve_timeline_write(&a->t->tl, a->r->from, a->r->to, a->r->cols,
			     a->r->have & SP_MAX ? a->r->max : 4000, mark != NULL, &a->j);
	trawl_json_object_end(&a->j);
	return 200;
}

int serve_api(struct serve *s, const char *path, const struct serve_req *r, FILE *f)
{
	static const struct {
		const char *path;
		int (*fn)(struct api *a);
		int needs_ready;
	} routes[] = {
		{ "/api/traces", api_traces, 0 }, { "/api/trace", api_trace, 0 },
		{ "/api/lines", api_lines, 1 },   { "/api/regs", api_regs, 1 },
		{ "/api/mem", api_mem, 1 },       { "/api/write", api_write, 1 },
		{ "/api/step", api_step, 1 },     { "/api/search", api_search, 1 },
		{ "/api/goto", api_goto, 1 },     { "/api/timeline", api_timeline, 1 },
	};
	struct api a = { .s = s, .r = r, .f = f };
	trawl_json_init(&a.j, f);
	for (size_t i = 0; i < sizeof routes / sizeof *routes; i++) {
		if (strcmp(path, routes[i].path))
			continue;
		if (routes[i].fn != api_traces) {
			if (!(r->have & SP_TRACE))
				return bad(&a, 400, "parameter 'trace' is missing: give trace=N, "
					   "N the trace's place on the command line (from 0)");
			if (r->trace >= s->ntraces)
				return bad(&a, 404, "no such trace: the view opens only the traces "
					   "named on the command line");
			a.t = &s->traces[r->trace];
		}
		if (routes[i].needs_ready && serve_trace_request(s, a.t) != SERVE_READY) {
			trawl_json_object_begin(&a.j);
			trace_state(&a, a.t);
			trawl_json_object_end(&a.j);
			return 503;
		}
		if (a.t && a.t->kind == SERVE_KIND_SW && routes[i].fn != api_trace)
			return serve_sw_api(s, a.t, path, r, &a.j);
		return routes[i].fn(&a);
	}
	if (!strcmp(path, "/api/events") || !strcmp(path, "/api/stats")) {
		if (!(r->have & SP_TRACE))
			return bad(&a, 400, "parameter 'trace' is missing: give trace=N");
		if (r->trace >= s->ntraces || s->traces[r->trace].kind != SERVE_KIND_SW)
			return bad(&a, 404, "no such software-event trace");
		a.t = &s->traces[r->trace];
		if (serve_trace_request(s, a.t) != SERVE_READY) {
			trawl_json_object_begin(&a.j);
			trace_state(&a, a.t);
			trawl_json_object_end(&a.j);
			return 503;
		}
		return serve_sw_api(s, a.t, path, r, &a.j);
	}
	return bad(&a, 404, "no such API path");
}
