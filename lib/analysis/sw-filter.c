/* Event filters (sw-filter.h). What depends only on the class (subsystem,
 * event name) is worked out once per class, so the per-event cost is a
 * table load, range checks and, with --where, one run of the compiled
 * condition. */
#include "trawl/sw-filter.h"
#include "trawl/expr.h"

#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_RANGES 256

enum { SYM_CPU, SYM_TID, SYM_TIME, SYM_FIRST_FIELD };

struct range {
	uint64_t lo, hi;
};

/* A chain condition (terms joined by all || or all &&) as it falls out
 * for one class: the terms on the class's fields and cpu/tid/time, those
 * on a field it lacks left out (unknown: under || they cannot keep the
 * event, under && they drop it, `never`). */
#define PLAN_TERMS 8

struct plan {
	unsigned n;
	int never;
	struct {
		/* the term holds when (the 8 bytes at off & mask) - lo <= span,
		 * negated by neg: one load and no choice per term; a time
		 * term's lo has the first event's time added once it is known
		 * (plans_start), as the condition's times count from it */
		uint64_t mask, lo, span;
		uint64_t lo0;        /* lo before that */
		uint32_t off;        /* where the value is in the event */
		uint8_t neg, time;
	} t[PLAN_TERMS];
};

struct trawl_swfilter {
	const struct trawl_sw_class *classes;
	size_t nclasses;
	uint8_t *class_ok;           /* NULL: every class */
	struct range cpus[MAX_RANGES], tids[MAX_RANGES];
	int ncpus, ntids;            /* -1: not given */
	int has_time, started;
	uint64_t t_lo, t_hi, t0;     /* window relative to t0 */
	struct trawl_expr *where;
	char (*names)[48];           /* field names of the condition */
	int nnames;
	int16_t *map;                /* [class * nsyms + sym]: where a name's value is (trawl_expr_run) */
	uint8_t *usym;               /* [class * nsyms + sym]: its value is a u64 field's */
	size_t nsyms;
	struct plan *plans;          /* per class, for the batches; NULL: run the condition */
	int plan_or;
	trawl_swfilter_fn fn;
	void *fn_ctx;
	trawl_swfilter_batch_fn batch_fn;
	int time_first;              /* trawl_swfilter_set_time_first */
	void *batch_ctx;
	int active;
};

static enum trawl_status bad(struct trawl_error *err, const char *opt, const char *what, const char *text)
{
	return trawl_error_set(err, TRAWL_ERR_USAGE, "%s: %s '%s'", opt, what, text);
}

/* "0,2-3" into ranges. */
static enum trawl_status parse_ranges(const char *s, struct range *r, int *n, const char *opt,
				      struct trawl_error *err)
{
	*n = 0;
	const char *p = s;
	for (;;) {
		char *end;
		if (*p < '0' || *p > '9')
			return bad(err, opt, "expected a number or range such as 0,2-3 in", s);
		errno = 0; /* strtoull clamps what is too large to 2^64-1 */
		uint64_t lo = strtoull(p, &end, 10), hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return bad(err, opt, "expected the end of a range in", s);
			hi = strtoull(p, &end, 10);
			p = end;
		}
		if (errno == ERANGE)
			return bad(err, opt, "number too large in", s);
		if (hi < lo)
			return bad(err, opt, "a range ends before it begins in", s);
		if (*n >= MAX_RANGES)
			return bad(err, opt, "too many ranges (at most 256) in", s);
		r[(*n)++] = (struct range){ lo, hi };
		if (!*p)
			return TRAWL_OK;
		if (*p++ != ',')
			return bad(err, opt, "expected ',' between values in", s);
	}
}

int trawl_swfilter_parse_duration(const char *s, size_t len, uint64_t *ns)
{
	size_t i = 0;
	uint64_t whole = 0, frac = 0, fdig = 0;
	if (!len || ((s[0] < '0' || s[0] > '9') && s[0] != '.'))
		return -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return -1;
		whole = whole * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (fdig < 9) {
				frac = frac * 10 + (uint64_t)(s[i] - '0');
				fdig++;
			}
	static const struct {
		const char *u;
		uint64_t scale;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { "", 1000000000 } };
	for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
		size_t ul = strlen(units[u].u);
		if (len - i != ul || strncmp(s + i, units[u].u, ul))
			continue;
		uint64_t sc = units[u].scale, f = frac;
		for (uint64_t d = fdig; d < 9; d++)
			f *= 10;
		/* f is the fraction in units of 1e-9; scale it to ns */
		if (sc && whole > UINT64_MAX / sc)
			return -1;
		*ns = whole * sc + f / (1000000000 / sc);
		return 0;
	}
	return -1;
}

static enum trawl_status parse_time(struct trawl_swfilter *f, const char *s, struct trawl_error *err)
{
	const char *dots = strstr(s, "..");
	if (!dots)
		return bad(err, "--time", "expected FROM..TO (either may be left out) in", s);
	f->t_lo = 0;
	f->t_hi = UINT64_MAX;
	if (dots > s && trawl_swfilter_parse_duration(s, (size_t)(dots - s), &f->t_lo))
		return bad(err, "--time", "expected a time such as 1.5ms, 20us or 2s in", s);
	if (dots[2] && trawl_swfilter_parse_duration(dots + 2, strlen(dots + 2), &f->t_hi))
		return bad(err, "--time", "expected a time such as 1.5ms, 20us or 2s in", s);
	if (f->t_hi < f->t_lo)
		return bad(err, "--time", "the window ends before it begins in", s);
	f->has_time = 1;
	return TRAWL_OK;
}

/* Does one comma-separated item of `list` match name (subsystem or
 * event)? Each item that matches nothing at all is reported. */
static enum trawl_status mark_classes(struct trawl_swfilter *f, const char *list, int by_subsys, uint8_t *ok,
				      struct trawl_error *err)
{
	char item[128];
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		if (!n || n >= sizeof item)
			return bad(err, by_subsys ? "--subsys" : "--event", "expected names separated by ',' in", list);
		memcpy(item, p, n);
		item[n] = 0;
		int hit = 0;
		for (size_t c = 0; c < f->nclasses; c++) {
			const char *name = f->classes[c].name;
			char sub[96];
			size_t sl = strcspn(name, ":");
			snprintf(sub, sizeof sub, "%.*s", (int)sl, name);
			int m = by_subsys ? !strcasecmp(sub, item) : !fnmatch(item, name, FNM_CASEFOLD);
			if (m) {
				ok[c] = 1;
				hit = 1;
			}
		}
		if (!hit)
			return bad(err, by_subsys ? "--subsys" : "--event", "the trace has no", item);
		p += n + (p[n] == ',');
	}
	return TRAWL_OK;
}

static enum trawl_status class_filter(struct trawl_swfilter *f, const struct trawl_swfilter_spec *spec,
				      struct trawl_error *err)
{
	size_t n = f->nclasses ? f->nclasses : 1;
	uint8_t *s = calloc(n, 1), *e = calloc(n, 1);
	f->class_ok = calloc(n, 1);
	enum trawl_status st = TRAWL_OK;
	if (!s || !e || !f->class_ok)
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	if (!st && spec->subsys)
		st = mark_classes(f, spec->subsys, 1, s, err);
	if (!st && spec->events)
		st = mark_classes(f, spec->events, 0, e, err);
	for (size_t c = 0; !st && c < f->nclasses; c++)
		f->class_ok[c] = (!spec->subsys || s[c]) && (!spec->events || e[c]);
	free(s);
	free(e);
	return st;
}

static int resolve(void *ctx, const char *name, size_t len)
{
	struct trawl_swfilter *f = ctx;
	static const char *const builtin[] = { "cpu", "tid", "time" };
	for (int i = 0; i < 3; i++)
		if (strlen(builtin[i]) == len && !memcmp(builtin[i], name, len))
			return i;
	if (len >= 48)
		return -1;
	for (int i = 0; i < f->nnames; i++)
		if (strlen(f->names[i]) == len && !memcmp(f->names[i], name, len))
			return SYM_FIRST_FIELD + i;
	int known = 0;
	for (size_t c = 0; c < f->nclasses && !known; c++)
		for (unsigned k = 0; k < f->classes[c].nfields; k++)
			known |= strlen(f->classes[c].fields[k].name) == len &&
				 !memcmp(f->classes[c].fields[k].name, name, len);
	if (!known || f->nnames >= 256)
		return -1;
	void *nn = realloc(f->names, (size_t)(f->nnames + 1) * sizeof *f->names);
	if (!nn)
		return -1;
	f->names = nn;
	memcpy(f->names[f->nnames], name, len);
	f->names[f->nnames][len] = 0;
	return SYM_FIRST_FIELD + f->nnames++;
}

static enum trawl_status compile_where(struct trawl_swfilter *f, const char *text, struct trawl_error *err)
{
	enum trawl_status st = trawl_expr_compile(text, resolve, f, &f->where, err);
	if (st) {
		char msg[sizeof err->message];
		memcpy(msg, err->message, sizeof msg);
		trawl_error_set(err, st, "--where, column %u: %s (names: cpu, tid, time, the events' fields)",
				err->column, msg);
		return st;
	}
	/* per class: fields read from the event's values, cpu/tid/time from
	 * the small array keep() fills, a field the class lacks unknown */
	f->nsyms = SYM_FIRST_FIELD + (size_t)f->nnames;
	if (!(f->map = malloc((f->nclasses ? f->nclasses : 1) * f->nsyms * sizeof *f->map)) ||
	    !(f->usym = calloc((f->nclasses ? f->nclasses : 1) * f->nsyms, 1)))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	for (size_t c = 0; c < f->nclasses; c++) {
		int16_t *m = f->map + c * f->nsyms;
		uint8_t *u = f->usym + c * f->nsyms;
		m[SYM_CPU] = -2;
		m[SYM_TID] = -3;
		m[SYM_TIME] = -4;
		for (int i = 0; i < f->nnames; i++) {
			int16_t idx = -1;
			for (unsigned k = 0; k < f->classes[c].nfields; k++)
				if (!strcmp(f->classes[c].fields[k].name, f->names[i]))
					idx = (int16_t)k;
			m[SYM_FIRST_FIELD + i] = idx;
			/* a u64 of 2^63 or more is that number, not a negative one */
			u[SYM_FIRST_FIELD + i] = idx >= 0 && f->classes[c].fields[idx].type == TRAWL_SW_U64;
		}
	}
	return TRAWL_OK;
}

/* Plans per class for a chain condition of at most PLAN_TERMS terms; none
 * (the condition runs as it is) for any other, or without memory. */
static void plans_build(struct trawl_swfilter *f)
{
	struct trawl_expr_term t[PLAN_TERMS];
	int is_or;
	size_t n = trawl_expr_chain(f->where, &is_or, t, PLAN_TERMS);
	if (!n || !(f->plans = calloc(f->nclasses ? f->nclasses : 1, sizeof *f->plans)))
		return;
	f->plan_or = is_or;
	for (size_t c = 0; c < f->nclasses; c++) {
		struct plan *p = &f->plans[c];
		const int16_t *m = f->map + c * f->nsyms;
		for (size_t i = 0; i < n; i++) {
			int src = m[t[i].sym];
			if (src == -1) {
				p->never |= !is_or;
				continue;
			}
			struct trawl_expr_term term = t[i];
			if (f->usym[c * f->nsyms + (size_t)t[i].sym])
				trawl_expr_term_unsigned(&term);
			p->t[p->n].lo = p->t[p->n].lo0 = term.lo;
			p->t[p->n].span = term.span;
			p->t[p->n].neg = (uint8_t)term.neg;
			p->t[p->n].time = src == -4;
			p->t[p->n].mask = src >= 0 || src == -4 ? UINT64_MAX : UINT32_MAX;
			p->t[p->n].off = (uint32_t)(src >= 0 ? offsetof(struct trawl_sw_event, vals) + 8 * (size_t)src
					 : src == -2 ? offsetof(struct trawl_sw_event, cpu)
					 : src == -3 ? offsetof(struct trawl_sw_event, tid)
						     : offsetof(struct trawl_sw_event, time));
			p->n++;
		}
		p->never |= is_or && !p->n;
	}
}

enum trawl_status trawl_swfilter_create(struct trawl_swfilter **out, const struct trawl_swfilter_spec *spec,
					const struct trawl_sw_class *classes, size_t nclasses,
					struct trawl_error *err)
{
	*out = NULL;
	struct trawl_swfilter *f = calloc(1, sizeof *f);
	if (!f)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	f->classes = classes;
	f->nclasses = nclasses;
	f->ncpus = f->ntids = -1;
	enum trawl_status st = TRAWL_OK;
	if (spec->cpus)
		st = parse_ranges(spec->cpus, f->cpus, &f->ncpus, "--cpu", err);
	if (!st && spec->threads)
		st = parse_ranges(spec->threads, f->tids, &f->ntids, "--thread", err);
	if (!st && spec->time)
		st = parse_time(f, spec->time, err);
	if (!st && (spec->subsys || spec->events))
		st = class_filter(f, spec, err);
	if (!st && spec->where && !(st = compile_where(f, spec->where, err)))
		plans_build(f);
	if (st) {
		trawl_swfilter_destroy(f);
		return st;
	}
	f->active = spec->cpus || spec->threads || spec->time || spec->subsys || spec->events || spec->where;
	*out = f;
	return TRAWL_OK;
}

void trawl_swfilter_set_fn(struct trawl_swfilter *f, trawl_swfilter_fn fn, void *ctx)
{
	f->fn = fn;
	f->fn_ctx = ctx;
	f->active |= fn != NULL;
}

void trawl_swfilter_set_time_first(struct trawl_swfilter *f)
{
	f->time_first = 1;
}

void trawl_swfilter_set_batch_fn(struct trawl_swfilter *f, trawl_swfilter_batch_fn fn, void *ctx)
{
	f->batch_fn = fn;
	f->batch_ctx = ctx;
	f->active |= fn != NULL;
}

static int in_ranges(const struct range *r, int n, uint64_t v)
{
	for (int i = 0; i < n; i++)
		if (v >= r[i].lo && v <= r[i].hi)
			return 1;
	return 0;
}

/* The class's plan for the event: what trawl_expr_run would say, kept
 * or not (unknown is not kept), a known term equal to the join's deciding
 * value (1 for ||, 0 for &&) deciding. Each term reads its value at its
 * offset in the event (a field, cpu, tid or time), so there is no choice
 * between sources per term. */
static inline int plan_keep(const struct trawl_swfilter *f, const struct plan *p, const struct trawl_sw_event *ev)
{
	if (p->never)
		return 0;
	for (unsigned i = 0; i < p->n; i++) {
		uint64_t v;
		memcpy(&v, (const uint8_t *)ev + p->t[i].off, 8); /* a 32-bit value's next 4 bytes are in the event too */
		int r = ((v & p->t[i].mask) - p->t[i].lo <= p->t[i].span) ^ p->t[i].neg;
		if (r == f->plan_or)
			return r;
	}
	return !f->plan_or;
}

/* The first event's time is known: the time terms count from it. */
static void plans_start(struct trawl_swfilter *f)
{
	for (size_t c = 0; f->plans && c < f->nclasses; c++)
		for (unsigned i = 0; i < f->plans[c].n; i++)
			if (f->plans[c].t[i].time)
				f->plans[c].t[i].lo = f->plans[c].t[i].lo0 + f->t0;
}

/* Everything but the time window, which activities apply by overlap;
 * with use_plan (the batches) a chain condition runs as its class's plan. */
__attribute__((always_inline)) static inline int keep_but_time(struct trawl_swfilter *f, const struct trawl_sw_event *ev,
							       int use_plan, int use_fn)
{
	size_t c = (size_t)(ev->cls - f->classes);
	if (f->class_ok && (c >= f->nclasses || !f->class_ok[c]))
		return 0;
	if (f->ncpus >= 0 && !in_ranges(f->cpus, f->ncpus, ev->cpu))
		return 0;
	if (f->ntids >= 0 && !in_ranges(f->tids, f->ntids, ev->tid))
		return 0;
	if (f->where) {
		if (c >= f->nclasses)
			return 0;
		if (use_plan && f->plans) {
			if (!plan_keep(f, &f->plans[c], ev))
				return 0;
			return !use_fn || !f->fn || f->fn(f->fn_ctx, ev);
		}
		int64_t b[3] = { ev->cpu, ev->tid, (int64_t)(ev->time - f->t0) }, v;
		if (trawl_expr_run(f->where, f->map + c * f->nsyms, (const int64_t *)ev->vals, b,
				   f->usym + c * f->nsyms, &v) ||
		    !v)
			return 0;
	}
	return !use_fn || !f->fn || f->fn(f->fn_ctx, ev);
}

/* --time: ev falls in the window (times relative to the first event). */
static inline int in_time(const struct trawl_swfilter *f, const struct trawl_sw_event *ev)
{
	uint64_t t = ev->time - f->t0;
	return !f->has_time || (t >= f->t_lo && t <= f->t_hi);
}

int trawl_swfilter_keep_ex(struct trawl_swfilter *f, const struct trawl_sw_event *ev, int *but_time)
{
	if (!f->started) {
		f->started = 1;
		f->t0 = ev->time;
		plans_start(f);
	}
	if (!f->active)
		return *but_time = 1;
	if (f->time_first && !in_time(f, ev))
		return *but_time = 0;
	*but_time = keep_but_time(f, ev, 0, 1);
	return *but_time && in_time(f, ev);
}

/* One call for a batch; no filter given (the common case) costs two
 * memsets, a condition runs in the loop with no call per event; the kept
 * events are counted in the same loop. */
size_t trawl_swfilter_keep_batch(struct trawl_swfilter *f, const struct trawl_sw_event *evs, size_t n, uint8_t *keep,
				 uint8_t *but_time)
{
	size_t kept = 0;
	if (!n)
		return 0;
	if (!f->started) {
		f->started = 1;
		f->t0 = evs[0].time;
		plans_start(f);
	}
	if (!f->active) {
		memset(keep, 1, n);
		memset(but_time, 1, n);
		return n;
	}
	if (!f->class_ok && f->ncpus < 0 && f->ntids < 0 && f->plans && !f->fn && !f->batch_fn) {
		/* a --where alone (and maybe --time): the plans with no other test */
		for (size_t i = 0; i < n; i++) {
			size_t c = (size_t)(evs[i].cls - f->classes);
			int bt = c < f->nclasses && plan_keep(f, &f->plans[c], &evs[i]);
			int k = bt && in_time(f, &evs[i]);
			but_time[i] = (uint8_t)bt;
			keep[i] = (uint8_t)k;
			kept += (size_t)k;
		}
		return kept;
	}
	if (f->batch_fn && !f->class_ok && f->ncpus < 0 && f->ntids < 0 && !f->where && !f->has_time) {
		/* the caller's test (a script) alone: no loop of tests before it,
		 * which cost a tenth of a Lua filter's run */
		memset(but_time, 1, n);
		f->batch_fn(f->batch_ctx, evs, n, but_time);
		for (size_t i = 0; i < n; i++)
			kept += but_time[i];
		memcpy(keep, but_time, n);
		return kept;
	}
	if (f->batch_fn) {
		/* the caller's test last, over the events every other test kept */
		for (size_t i = 0; i < n; i++)
			but_time[i] = (uint8_t)((!f->time_first || in_time(f, &evs[i])) && keep_but_time(f, &evs[i], 1, 0));
		f->batch_fn(f->batch_ctx, evs, n, but_time);
		for (size_t i = 0; i < n; i++) {
			int k = but_time[i] && in_time(f, &evs[i]);
			keep[i] = (uint8_t)k;
			kept += (size_t)k;
		}
		return kept;
	}
	for (size_t i = 0; i < n; i++) {
		int bt = keep_but_time(f, &evs[i], 1, 1);
		int k = bt && in_time(f, &evs[i]);
		but_time[i] = (uint8_t)bt;
		keep[i] = (uint8_t)k;
		kept += (size_t)k;
	}
	return kept;
}

int trawl_swfilter_keep(struct trawl_swfilter *f, const struct trawl_sw_event *ev)
{
	int but_time;
	return trawl_swfilter_keep_ex(f, ev, &but_time);
}

int trawl_swfilter_time_window(const struct trawl_swfilter *f, uint64_t *lo, uint64_t *hi)
{
	if (!f->has_time || !f->started)
		return 0;
	*lo = f->t0 + f->t_lo;
	*hi = f->t_hi > UINT64_MAX - f->t0 ? UINT64_MAX : f->t0 + f->t_hi;
	return 1;
}

int trawl_swfilter_time_overlaps(const struct trawl_swfilter *f, uint64_t begin, uint64_t end)
{
	if (!f->has_time)
		return 1;
	return end - f->t0 >= f->t_lo && begin - f->t0 <= f->t_hi;
}

int trawl_swfilter_active(const struct trawl_swfilter *f)
{
	return f->active;
}

void trawl_swfilter_destroy(struct trawl_swfilter *f)
{
	if (!f)
		return;
	trawl_expr_free(f->where);
	free(f->names);
	free(f->map);
	free(f->usym);
	free(f->plans);
	free(f->class_ok);
	free(f);
}
