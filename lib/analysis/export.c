/* Writers for call-structure views: folded stacks, an SVG flame graph, and
 * Chrome Trace Event JSON for Perfetto.
 *
 * Chrome Trace Event format (the subset written here):
 *   {"traceEvents":[ ... ], "displayTimeUnit":"ns", "otherData":{...}}
 *   metadata  {"ph":"M","pid":1,"tid":T,"name":"thread_name","args":{"name":"cpu0"}}
 *   slice     {"ph":"X","pid":1,"tid":T,"name":N,"ts":START_US,"dur":DUR_US,"args":{...}}
 * ts and dur are microseconds (fractions allowed). Slices on one tid must
 * nest: a child starts no earlier and ends no later than its parent.
 */
#include "analysis/analysis-int.h"
#include "trawl/calls.h"
#include "trawl/json.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers --------------------------------------------------------- */

enum trawl_status analysis_io_status(FILE *f, struct trawl_error *err)
{
	if (fflush(f) != 0 || ferror(f))
		return trawl_error_set(err, TRAWL_ERR_IO, "write failed");
	return TRAWL_OK;
}

static void put_xml(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
				putc(*s, f);
			else
				putc('?', f);
		}
	}
}

/* Depth-first over a CCT without recursion; calls fn(node, depth) in
 * pre-order. Children are visited in list order. */
typedef int (*cct_fn)(void *ctx, const struct trawl_cct *t, uint32_t id, unsigned depth);

static int cct_walk(const struct trawl_cct *t, cct_fn fn, void *ctx)
{
	uint32_t *stack = malloc(64 * sizeof *stack);
	size_t cap = 64, sp = 0;
	int rc = 0;
	if (!stack)
		return -1;
	uint32_t id = 0;
	for (;;) {
		if ((rc = fn(ctx, t, id, (unsigned)sp)))
			break;
		if (t->nodes[id].first_child != TRAWL_CALL_NONE) {
			if (sp == cap) {
				uint32_t *p = realloc(stack, cap * 2 * sizeof *p);
				if (!p) {
					rc = -1;
					break;
				}
				stack = p;
				cap *= 2;
			}
			stack[sp++] = id;
			id = t->nodes[id].first_child;
			continue;
		}
		while (t->nodes[id].next == TRAWL_CALL_NONE && sp)
			id = stack[--sp];
		if (!sp && t->nodes[id].next == TRAWL_CALL_NONE)
			break;
		id = t->nodes[id].next;
	}
	free(stack);
	return rc;
}

/* ---- folded stacks --------------------------------------------------- */

struct folded {
	FILE *f;
	const char **path;
	size_t cap;
};

static int folded_visit(void *ctx, const struct trawl_cct *t, uint32_t id, unsigned depth)
{
	struct folded *s = ctx;
	if (depth >= s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		const char **p = realloc(s->path, ncap * sizeof *p);
		if (!p)
			return -1;
		s->path = p;
		s->cap = ncap;
	}
	s->path[depth] = trawl_cct_name(t, &t->nodes[id]);
	if (depth == 0 || !t->nodes[id].self)
		return 0;
	for (unsigned i = 1; i <= depth; i++) {
		if (i > 1)
			putc(';', s->f);
		/* ';' and spaces separate fields in this format */
		for (const char *p = s->path[i]; *p; p++)
			putc(*p == ';' || *p == ' ' ? '_' : *p, s->f);
	}
	fprintf(s->f, " %llu\n", (unsigned long long)t->nodes[id].self);
	return 0;
}

enum trawl_status trawl_cct_write_folded(const struct trawl_cct *t, FILE *f,
					 struct trawl_error *err)
{
	struct folded s = { .f = f };
	int rc = t->count ? cct_walk(t, folded_visit, &s) : 0;
	free(s.path);
	if (rc)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	return analysis_io_status(f, err);
}

/* ---- SVG flame graph -------------------------------------------------- */

#define SVG_WIDTH 1200.0
#define SVG_ROW 16
#define SVG_TOP 40

struct svg {
	FILE *f;
	double *x;               /* left edge per depth cursor */
	size_t cap;
	unsigned maxdepth;
	double scale;
	unsigned height;
	int measuring;
};

/* Called twice per node: first to measure the depth that is wide enough to
 * draw (the height of the SVG goes in its header), then to draw. The x
 * cursor per depth is how a depth-first walk lays out siblings side by side
 * without keeping the tree's geometry. Frames too thin to see are left out,
 * which also keeps the file of a big trace small enough to open. */
static int svg_visit(void *ctx, const struct trawl_cct *t, uint32_t id, unsigned depth)
{
	struct svg *s = ctx;
	if (depth + 1 >= s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		while (ncap <= depth + 1)
			ncap *= 2;
		double *p = realloc(s->x, ncap * sizeof *p);
		if (!p)
			return -1;
		s->x = p;
		s->cap = ncap;
	}
	const struct trawl_cct_node *n = &t->nodes[id];
	if (s->measuring) {
		if (depth > s->maxdepth && n->total * s->scale >= 0.1)
			s->maxdepth = depth;
		return 0;
	}
	double x = depth ? s->x[depth] : 0;
	double w = (double)n->total * s->scale;
	s->x[depth] = x + w;     /* next sibling starts after this one */
	s->x[depth + 1] = x;     /* first child starts at our left edge */
	if (w < 0.1)             /* too thin to see or click: left out */
		return 0;
	double y = s->height - (double)(depth + 1) * SVG_ROW - 10;
	const char *name = trawl_cct_name(t, n);
	uint64_t h = 5381;
	for (const char *p = name; *p; p++)
		h = h * 33 + (unsigned char)*p;
	unsigned r = 205 + (unsigned)(h % 50), g = 80 + (unsigned)((h >> 8) % 130),
		 b = 40 + (unsigned)((h >> 16) % 50);
	double pct = t->nodes[0].total ? 100.0 * (double)n->total / (double)t->nodes[0].total : 0;
	fprintf(s->f, "<g class=\"f\" data-x=\"%.4f\" data-w=\"%.4f\"><title>", x, w);
	put_xml(s->f, name);
	fprintf(s->f, " (%llu instructions, %.2f%%; self %llu)</title>",
		(unsigned long long)n->total, pct, (unsigned long long)n->self);
	fprintf(s->f, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%u,%u,%u)\"/>",
		x, y, w, SVG_ROW - 1, r, g, b);
	fprintf(s->f, "<text x=\"%.2f\" y=\"%.0f\">", x + 3, y + SVG_ROW - 4);
	size_t fit = w > 20 ? (size_t)((w - 6) / 7) : 0;
	size_t len = strlen(name);
	char shown[256];
	if (fit >= len) {
		snprintf(shown, sizeof shown, "%s", name);
	} else if (fit > 2) {
		snprintf(shown, sizeof shown, "%.*s..", (int)(fit - 2 < 250 ? fit - 2 : 250), name);
	} else {
		shown[0] = 0;
	}
	put_xml(s->f, shown);
	fprintf(s->f, "</text></g>\n");
	return 0;
}

/* Small script: clicking a frame widens it to the full width and hides
 * frames outside it; clicking "all" goes back. */
static const char svg_script[] =
	"<script><![CDATA[\n"
	"var W=%.1f;\n"
	"function zoom(g){var x=+g.getAttribute('data-x'),w=+g.getAttribute('data-w');\n"
	" var y=+g.querySelector('rect').getAttribute('y');\n"
	" document.querySelectorAll('g.f').forEach(function(e){\n"
	"  var ex=+e.getAttribute('data-x'),ew=+e.getAttribute('data-w'),r=e.querySelector('rect'),t=e.querySelector('text');\n"
	"  var inside=ex>=x-1e-6&&ex+ew<=x+w+1e-6,anc=+r.getAttribute('y')>y&&ex<=x+1e-6&&ex+ew>=x+w-1e-6;\n"
	"  if(!inside&&!anc){e.style.display='none';return;}\n"
	"  e.style.display='';var nx=anc?0:(ex-x)*W/w,nw=anc?W:ew*W/w;\n"
	"  r.setAttribute('x',nx.toFixed(2));r.setAttribute('width',nw.toFixed(2));\n"
	"  t.setAttribute('x',(nx+3).toFixed(2));\n"
	"  var full=e.querySelector('title').textContent.replace(/ \\(.*$/,''),fit=Math.floor((nw-6)/7);\n"
	"  t.textContent=fit>=full.length?full:(fit>2?full.slice(0,fit-2)+'..':'');});}\n"
	"document.querySelectorAll('g.f').forEach(function(g){g.onclick=function(){zoom(g);};});\n"
	"]]></script>\n";

enum trawl_status trawl_cct_write_svg(const struct trawl_cct *t, FILE *f, const char *title,
				      struct trawl_error *err)
{
	struct svg s = { .f = f, .measuring = 1 };
	if (!t->count)
		return trawl_error_set(err, TRAWL_ERR_USAGE, "empty flame graph");
	s.scale = t->nodes[0].total ? SVG_WIDTH / (double)t->nodes[0].total : 0;
	if (cct_walk(t, svg_visit, &s))
		goto nomem;
	s.height = (s.maxdepth + 1) * SVG_ROW + SVG_TOP + 20;
	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" width=\"%.0f\" height=\"%u\" viewBox=\"0 0 %.0f %u\" "
		   "xmlns=\"http://www.w3.org/2000/svg\">\n",
		SVG_WIDTH, s.height, SVG_WIDTH, s.height);
	fprintf(f, "<style>text{font-family:monospace;font-size:12px;pointer-events:none}"
		   "g.f:hover rect{stroke:black;stroke-width:0.5}</style>\n");
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"24\" text-anchor=\"middle\" style=\"font-size:16px\">",
		SVG_WIDTH / 2);
	put_xml(f, title ? title : "Flame graph");
	fprintf(f, "</text>\n");
	s.measuring = 0;
	if (cct_walk(t, svg_visit, &s))
		goto nomem;
	fprintf(f, svg_script, SVG_WIDTH);
	fprintf(f, "</svg>\n");
	free(s.x);
	return analysis_io_status(f, err);
nomem:
	free(s.x);
	return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
}

/* ---- Perfetto / Chrome Trace Event JSON -------------------------------- */

struct perfetto {
	FILE *f;
	const struct trawl_calls *c;
	int ts_mode;
	double unit_us;
	double *lo, *hi;         /* parent's interval per depth, for clamping */
	size_t cap;
	int first;
};

static double unit_to_us(enum trawl_time_unit u)
{
	switch (u) {
	case TRAWL_TIME_PS: return 1e-6;
	case TRAWL_TIME_NS: return 1e-3;
	default: return 1.0;
	}
}

/* Perfetto requires slices on one thread to nest, so each slice is clamped
 * into its parent's interval: timestamps that go backwards or a frame that
 * outlives its caller would otherwise make the whole file refuse to load.
 * Without timestamps the instruction count is the time axis. */
static int perfetto_enter(void *ctx, uint32_t id, const struct trawl_call *n, unsigned depth)
{
	struct perfetto *p = ctx;
	char name[256];
	if (depth >= p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 64;
		double *a = realloc(p->lo, ncap * sizeof *a);
		if (!a)
			return -1;
		p->lo = a;
		double *b = realloc(p->hi, ncap * sizeof *b);
		if (!b)
			return -1;
		p->hi = b;
		p->cap = ncap;
	}
	double start, end;
	if (p->ts_mode) {
		start = (double)n->first_time * p->unit_us;
		end = start + (double)trawl_call_duration(n) * p->unit_us;
	} else {
		start = (double)n->first_insn;
		end = start + (double)n->insns;
	}
	if (depth) { /* keep inside the parent even if timestamps misbehave */
		if (start < p->lo[depth - 1])
			start = p->lo[depth - 1];
		if (end > p->hi[depth - 1])
			end = p->hi[depth - 1];
		if (end < start)
			end = start;
	}
	p->lo[depth] = start;
	p->hi[depth] = end;
	fprintf(p->f, "%s\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"name\":", p->first ? "" : ",",
		(unsigned)n->cpu);
	p->first = 0;
	const char *fn = trawl_calls_name(p->c, n, name, sizeof name);
	trawl_json_write_string(p->f, fn, strlen(fn));
	fprintf(p->f, ",\"ts\":%.6f,\"dur\":%.6f,\"args\":{\"entry\":\"0x%llx\",\"first_line\":%llu,"
		      "\"last_line\":%llu,\"insns\":%llu,\"self\":%llu",
		start, end - start, (unsigned long long)n->entry_pc,
		(unsigned long long)n->first_line, (unsigned long long)n->last_line,
		(unsigned long long)n->insns, (unsigned long long)n->self);
	if (n->call_pc)
		fprintf(p->f, ",\"call_pc\":\"0x%llx\"", (unsigned long long)n->call_pc);
	if (n->flags & TRAWL_FRAMEF_UNFINISHED)
		fputs(",\"unfinished\":true", p->f);
	if (n->kind == TRAWL_FRAME_TAIL)
		fputs(",\"tail_call\":true", p->f);
	fputs("}}", p->f);
	(void)id;
	return 0;
}

enum trawl_status trawl_calls_write_perfetto(const struct trawl_calls *c, FILE *f,
					     const struct trawl_perfetto_options *opt,
					     struct trawl_error *err)
{
	struct perfetto p = { .f = f, .c = c, .first = 1 };
	p.ts_mode = opt && opt->use_timestamps;
	p.unit_us = unit_to_us(trawl_calls_time_unit(c));
	const char *pname = opt && opt->process_name ? opt->process_name : "trace";
	fputs("{\"traceEvents\":[", f);
	fprintf(f, "\n{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":");
	trawl_json_write_string(f, pname, strlen(pname));
	fputs("}}", f);
	p.first = 0;
	int rc = 0;
	for (unsigned cpu = 0; cpu < trawl_calls_cpus(c) && !rc; cpu++) {
		if (trawl_calls_first_root(c, cpu) == TRAWL_CALL_NONE)
			continue;
		fprintf(f, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\","
			   "\"args\":{\"name\":\"cpu%u\"}}",
			cpu, cpu);
		rc = trawl_calls_walk(c, cpu, perfetto_enter, NULL, &p);
	}
	fprintf(f, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"time_base\":\"%s\"}}\n",
		p.ts_mode ? trawl_time_unit_name(trawl_calls_time_unit(c)) : "instructions");
	free(p.lo);
	free(p.hi);
	if (rc)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	return analysis_io_status(f, err);
}
