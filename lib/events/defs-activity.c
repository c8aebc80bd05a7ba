/* Activities in a .tdef file (sw-defs.h, docs/analysis.md):
 *
 *   activity := "activity" NAME [STRING] KIND "{" { clause (","|";") } "}" [";"]
 *   KIND     := span | state | message
 *   clause   := begin REFS | end REFS | send REFS | recv REFS | set REFS
 *             | key (thread | cpu | FIELD) | value FIELD | idle (NUMBER | REF)
 *   REFS     := REF { "," REF }          REF := NAME ":" NAME
 *
 * Which clauses a kind takes is checked as they come, so the error names
 * the clause; the events named are checked once the whole file is read
 * (defs_check_activities), since an activity may come before its events. */
#include "trawl/sw-defs.h"
#include "trawl/number.h"

#include "events/defs-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_ACTIVITIES 4096

static const char *const kind_names[] = { "", "span", "state", "message" };

static enum trawl_status take_ref(struct lex *L, struct trawl_error *err, struct trawl_defs_act_ref *r)
{
	r->line = L->tline;
	r->column = L->tcol;
	if (L->kind != K_NAME)
		return DEFS_FAIL_HERE("expected an event as SUBSYSTEM:EVENT");
	const char *start = L->tok;
	size_t sl = L->tlen;
	defs_lex_next(L);
	if (!defs_lex_is(L, ":"))
		return DEFS_FAIL_HERE("expected ':' after subsystem '%.*s' (events are named SUBSYSTEM:EVENT)",
				      (int)sl, start);
	defs_lex_next(L);
	if (L->kind != K_NAME)
		return DEFS_FAIL_HERE("expected an event name after '%.*s:'", (int)sl, start);
	if (sl + 1 + L->tlen >= sizeof r->name)
		return DEFS_FAIL_HERE("event name longer than %zu characters", sizeof r->name - 1);
	snprintf(r->name, sizeof r->name, "%.*s:%.*s", (int)sl, start, (int)L->tlen, L->tok);
	defs_lex_next(L);
	return TRAWL_OK;
}

/* REF { "," REF }: a comma followed by a clause word ends the list. An
 * event named twice in one list (this clause or an earlier one of the same
 * word) would act twice on each occurrence: two spans opened by one begin. */
static enum trawl_status take_refs(struct lex *L, struct trawl_error *err, const char *act,
				   struct trawl_defs_act_ref *refs, unsigned *n, const char *what)
{
	for (;;) {
		if (*n >= TRAWL_DEFS_ACT_MAX_REFS)
			return DEFS_FAIL_HERE("too many '%s' events (at most %d)", what, TRAWL_DEFS_ACT_MAX_REFS);
		struct trawl_defs_act_ref *r = &refs[(*n)++];
		enum trawl_status st = take_ref(L, err, r);
		if (st)
			return st;
		for (const struct trawl_defs_act_ref *o = refs; o < r; o++)
			if (!strcasecmp(o->name, r->name))
				return defs_lex_fail(L, err, r->line, r->column,
						     "activity '%s': '%s' is named twice in its '%s' events", act,
						     r->name, what);
		if (!defs_lex_is(L, ","))
			return TRAWL_OK;
		/* look past the comma: another REF, or the next clause */
		struct lex save = *L;
		defs_lex_next(L);
		struct lex peek = *L;
		defs_lex_next(&peek);
		if (L->kind != K_NAME || !defs_lex_is(&peek, ":")) {
			*L = save;
			return TRAWL_OK;
		}
	}
}

static int clause_allowed(int kind, const char *w)
{
	if (!strcmp(w, "begin") || !strcmp(w, "end"))
		return kind == TRAWL_DEFS_SPAN;
	if (!strcmp(w, "send") || !strcmp(w, "recv"))
		return kind == TRAWL_DEFS_MESSAGE;
	if (!strcmp(w, "key"))
		return kind == TRAWL_DEFS_SPAN || kind == TRAWL_DEFS_MESSAGE;
	if (!strcmp(w, "set") || !strcmp(w, "value") || !strcmp(w, "idle"))
		return kind == TRAWL_DEFS_STATE;
	return -1;
}

static enum trawl_status take_field(struct lex *L, struct trawl_error *err, char *dst, size_t cap)
{
	if (L->kind != K_NAME)
		return DEFS_FAIL_HERE("expected a field name");
	if (L->tlen >= cap)
		return DEFS_FAIL_HERE("field name longer than %zu characters", cap - 1);
	memcpy(dst, L->tok, L->tlen);
	dst[L->tlen] = 0;
	defs_lex_next(L);
	return TRAWL_OK;
}

static enum trawl_status take_idle(struct lex *L, struct trawl_defs_activity *a, struct trawl_error *err)
{
	if (L->kind == K_PUNCT && L->tok[0] >= '0' && L->tok[0] <= '9') {
		/* numbers lex as punctuation then names: gather the digits */
		uint64_t line = L->tline;
		uint32_t col = L->tcol;
		const char *s = L->tok;
		size_t n = 0;
		while (s + n < L->s + L->len && ((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f') ||
						 (s[n] >= 'A' && s[n] <= 'F') || s[n] == 'x' || s[n] == 'X'))
			n++;
		char buf[40];
		if (n < sizeof buf) {
			memcpy(buf, s, n);
			buf[n] = 0;
		}
		if (n >= sizeof buf || !trawl_u64_parse(buf, &a->idle))
			return defs_lex_fail(L, err, line, col, "expected a number or SUBSYSTEM:EVENT after 'idle'");
		while (L->kind != K_END && L->tok < s + n)
			defs_lex_next(L);
		a->has_idle = 1;
		return TRAWL_OK;
	}
	a->has_idle = 2;
	return take_ref(L, err, &a->idle_ref);
}

static enum trawl_status take_clause(struct lex *L, struct trawl_defs_activity *a, struct trawl_error *err)
{
	char w[16] = "";
	if (L->kind == K_NAME && L->tlen < sizeof w)
		memcpy(w, L->tok, L->tlen);
	int ok = L->kind == K_NAME ? clause_allowed(a->kind, w) : -1;
	if (ok < 0)
		return DEFS_FAIL_HERE("expected a clause of a %s (%s) or '}'", kind_names[a->kind],
				      a->kind == TRAWL_DEFS_SPAN ? "begin, end, key" :
				      a->kind == TRAWL_DEFS_STATE ? "set, value, idle" : "send, recv, key");
	if (!ok)
		return DEFS_FAIL_HERE("a %s takes no '%s'", kind_names[a->kind], w);
	defs_lex_next(L);
	if (!strcmp(w, "begin") || !strcmp(w, "send") || !strcmp(w, "set"))
		return take_refs(L, err, a->name, a->begin, &a->nbegin, w);
	if (!strcmp(w, "end") || !strcmp(w, "recv"))
		return take_refs(L, err, a->name, a->end, &a->nend, w);
	if (!strcmp(w, "value"))
		return take_field(L, err, a->field, sizeof a->field);
	if (!strcmp(w, "idle"))
		return take_idle(L, a, err);
	/* key */
	if (defs_lex_is(L, "thread") || defs_lex_is(L, "cpu")) {
		a->key = defs_lex_is(L, "thread") ? TRAWL_DEFS_KEY_THREAD : TRAWL_DEFS_KEY_CPU;
		defs_lex_next(L);
		return TRAWL_OK;
	}
	a->key = TRAWL_DEFS_KEY_FIELD;
	return take_field(L, err, a->field, sizeof a->field);
}

/* What each kind needs once its clauses are read. */
static enum trawl_status check_complete(struct lex *L, const struct trawl_defs_activity *a, struct trawl_error *err)
{
	const char *miss = NULL;
	if (a->kind == TRAWL_DEFS_SPAN && (!a->nbegin || !a->nend))
		miss = "a span needs 'begin' and 'end' events";
	if (a->kind == TRAWL_DEFS_MESSAGE && (!a->nbegin || !a->nend))
		miss = "a message needs 'send' and 'recv' events";
	if (a->kind == TRAWL_DEFS_MESSAGE && a->key != TRAWL_DEFS_KEY_FIELD)
		miss = "a message needs 'key FIELD' (the field send and receive share)";
	if (a->kind == TRAWL_DEFS_STATE && !a->nbegin)
		miss = "a state needs 'set' events";
	if (a->kind == TRAWL_DEFS_STATE && a->has_idle == 1 && !a->field[0])
		miss = "'idle NUMBER' needs 'value FIELD' (else name the idle event: 'idle SUBSYSTEM:EVENT')";
	if (a->kind == TRAWL_DEFS_STATE && a->has_idle == 2 && a->field[0])
		miss = "with 'value FIELD' the idle state is a number: 'idle N'";
	return miss ? defs_lex_fail(L, err, a->line, a->column, "activity '%s': %s", a->name, miss) : TRAWL_OK;
}

/* The activity is counted before it is filled, so destroy frees its
 * description on any error, like the subsystems' parser does. */
enum trawl_status defs_parse_activity(struct lex *L, struct trawl_defs *d, struct trawl_error *err)
{
	enum trawl_status st;
	uint64_t line = L->tline;
	uint32_t col = L->tcol;
	defs_lex_next(L); /* "activity" */
	if (d->nactivities >= MAX_ACTIVITIES)
		return defs_lex_fail(L, err, line, col, "too many activities (at most %d)", MAX_ACTIVITIES);
	void *n = realloc(d->activities, (d->nactivities + 1) * sizeof *d->activities);
	if (!n)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	d->activities = n;
	struct trawl_defs_activity *a = &d->activities[d->nactivities++];
	memset(a, 0, sizeof *a);
	a->line = line;
	a->column = col;
	uint64_t nl = L->tline;
	uint32_t nc = L->tcol;
	if ((st = defs_take_name(L, err, a->name, sizeof a->name, "activity")))
		return st;
	for (size_t i = 0; i + 1 < d->nactivities; i++)
		if (!strcasecmp(d->activities[i].name, a->name))
			return defs_lex_fail(L, err, nl, nc, "duplicate activity '%s'", a->name);
	if ((st = defs_take_desc(L, err, &a->desc)))
		return st;
	for (int k = 1; k <= 3; k++)
		if (defs_lex_is(L, kind_names[k]))
			a->kind = k;
	if (!a->kind)
		return DEFS_FAIL_HERE("expected the kind of activity '%s': span, state or message", a->name);
	a->key = a->kind == TRAWL_DEFS_SPAN ? TRAWL_DEFS_KEY_THREAD : 0;
	defs_lex_next(L);
	if (!defs_lex_is(L, "{"))
		return DEFS_FAIL_HERE("expected '{' after 'activity %s %s'", a->name, kind_names[a->kind]);
	defs_lex_next(L);
	while (!defs_lex_is(L, "}")) {
		if (L->kind == K_END)
			return DEFS_FAIL_HERE("activity '%s' is not closed with '}'", a->name);
		if ((st = take_clause(L, a, err)))
			return st;
		if (defs_lex_is(L, ",") || defs_lex_is(L, ";"))
			defs_lex_next(L);
		else if (!defs_lex_is(L, "}"))
			return DEFS_FAIL_HERE("expected ';' or '}' after a clause of activity '%s'", a->name);
	}
	defs_lex_next(L);
	if (defs_lex_is(L, ";"))
		defs_lex_next(L);
	return check_complete(L, a, err);
}

static const struct trawl_defs_event *find_event(const struct trawl_defs *d, const char *ref)
{
	const char *colon = strchr(ref, ':');
	size_t sl = (size_t)(colon - ref);
	for (size_t i = 0; i < d->nsubsys; i++) {
		const struct trawl_defs_subsys *s = &d->subsys[i];
		if (strlen(s->name) != sl || strncasecmp(s->name, ref, sl))
			continue;
		for (size_t j = 0; j < s->nevents; j++)
			if (!strcasecmp(s->events[j].name, colon + 1))
				return &s->events[j];
	}
	return NULL;
}

static int has_field(const struct trawl_defs_event *e, const char *f)
{
	for (unsigned i = 0; i < e->nfields; i++)
		if (!strcmp(e->fields[i].name, f))
			return 1;
	/* an event declared without fields is recorded with one named arg */
	return e->nfields == 0 && !strcmp(f, "arg");
}

static enum trawl_status check_refs(struct lex *L, const struct trawl_defs *d, const struct trawl_defs_activity *a,
				    const struct trawl_defs_act_ref *refs, unsigned n, const char *field,
				    struct trawl_error *err)
{
	for (unsigned i = 0; i < n; i++) {
		const struct trawl_defs_event *e = find_event(d, refs[i].name);
		if (!e)
			return defs_lex_fail(L, err, refs[i].line, refs[i].column,
					     "activity '%s': no event '%s' is defined", a->name, refs[i].name);
		if (field && !has_field(e, field))
			return defs_lex_fail(L, err, refs[i].line, refs[i].column,
					     "activity '%s': event '%s' has no field '%s'", a->name, refs[i].name,
					     field);
	}
	return TRAWL_OK;
}

enum trawl_status defs_check_activities(struct lex *L, const struct trawl_defs *d, struct trawl_error *err)
{
	if (!d->nsubsys)
		return TRAWL_OK; /* activities over events defined elsewhere: checked against the trace */
	for (size_t i = 0; i < d->nactivities; i++) {
		const struct trawl_defs_activity *a = &d->activities[i];
		const char *f = a->field[0] ? a->field : NULL;
		enum trawl_status st = check_refs(L, d, a, a->begin, a->nbegin, f, err);
		if (!st)
			st = check_refs(L, d, a, a->end, a->nend, f, err);
		if (!st && a->has_idle == 2) {
			int found = 0;
			for (unsigned j = 0; j < a->nbegin; j++)
				found |= !strcasecmp(a->begin[j].name, a->idle_ref.name);
			if (!found)
				return defs_lex_fail(L, err, a->idle_ref.line, a->idle_ref.column,
						     "activity '%s': the idle event '%s' is not one of its 'set' events",
						     a->name, a->idle_ref.name);
		}
		if (st)
			return st;
	}
	return TRAWL_OK;
}
