/* Event definitions: the .tdef block syntax (design note, extended with
 * typed fields and descriptions), its JSON form, and the generated C
 * header and CTF metadata fragment.
 *
 * Grammar (whitespace and comments `#...`, `//...`, block comments free):
 *   file    := { subsys }
 *   subsys  := "subsystem" NAME [STRING] "{" { event [","|";"] } "}" [";"]
 *   event   := "event" NAME [STRING] [ "(" field { "," field } ")" ]
 *   field   := TYPE NAME [STRING]         TYPE := u8|u16|u32|u64|s8|s16|s32|s64
 */
#include "trawl/sw-event.h"
#include "trawl/sw-defs.h"
#include "trawl/rec-ctf.h"
#include "trawl/file.h"

#include "events/defs-int.h"
#include "events/text-skip.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Words that cannot be names: they would break the generated C or the
 * CTF metadata. */
static const char *const reserved[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
	"extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
	"short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
	"volatile", "while", "bool", "class", "new", "delete", "this", "template", "typename", "namespace",
	"align", "callsite", "clock", "enum", "env", "event", "floating_point", "integer", "stream", "string",
	"trace", "typealias", "variant", "id", "name", "fields", "header", "context",
};

int defs_name_reserved(const char *s)
{
	for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
		if (strcmp(s, reserved[i]) == 0)
			return 1;
	return 0;
}

void trawl_defs_destroy(struct trawl_defs *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nsubsys; i++) {
		struct trawl_defs_subsys *s = &d->subsys[i];
		for (size_t j = 0; j < s->nevents; j++) {
			for (unsigned f = 0; f < s->events[j].nfields; f++)
				free(s->events[j].fields[f].desc);
			free(s->events[j].desc);
		}
		free(s->events);
		free(s->desc);
	}
	for (size_t i = 0; i < d->nactivities; i++)
		free(d->activities[i].desc);
	free(d->activities);
	free(d->subsys);
	free(d);
}

int trawl_defs_event_fast(const struct trawl_defs_event *e)
{
	return e->nfields == 0 ||
	       (e->nfields == 1 && (e->fields[0].type == TRAWL_SW_U8 || e->fields[0].type == TRAWL_SW_U16 ||
				    e->fields[0].type == TRAWL_SW_U32));
}

void trawl_defs_class(const struct trawl_defs_subsys *s, const struct trawl_defs_event *e, struct trawl_sw_class *c)
{
	memset(c, 0, sizeof *c);
	c->id = (uint32_t)s->id << 16 | e->id;
	snprintf(c->name, sizeof c->name, "%s:%s", s->name, e->name);
	if (e->nfields == 0) {
		c->nfields = 1;
		strcpy(c->fields[0].name, "arg");
		c->fields[0].type = TRAWL_SW_U32;
		return;
	}
	c->nfields = e->nfields;
	for (unsigned i = 0; i < e->nfields; i++) {
		memcpy(c->fields[i].name, e->fields[i].name, sizeof c->fields[i].name);
		c->fields[i].type = (uint8_t)e->fields[i].type;
	}
}

/* Names seen so far in one scope, so duplicate checks stay linear: an
 * open-addressing table of indices into the caller's array, which `name`
 * reads back. Compared without case: the header names subsystems and
 * events in upper case (macros) and lower case (functions), so "rx" and
 * "RX" would define the same names twice. */
struct name_set {
	uint32_t *slots;             /* index + 1, 0 = empty */
	size_t cap, n;
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)tolower((unsigned char)*s)) * 1099511628211ull;
	return h;
}

/* 1 if a name equal to name(ctx, idx) is already in the set, else add idx.
 * -1 when out of memory. */
static int name_set_add(struct name_set *ns, uint32_t idx, const char *(*name)(const void *, uint32_t),
			const void *ctx)
{
	if (2 * (ns->n + 1) > ns->cap) {
		size_t ncap = ns->cap ? ns->cap * 2 : 64;
		uint32_t *nsl = calloc(ncap, sizeof *nsl);
		if (!nsl)
			return -1;
		for (size_t i = 0; i < ns->cap; i++)
			if (ns->slots[i]) {
				size_t h = (size_t)name_hash(name(ctx, ns->slots[i] - 1)) & (ncap - 1);
				while (nsl[h])
					h = (h + 1) & (ncap - 1);
				nsl[h] = ns->slots[i];
			}
		free(ns->slots);
		ns->slots = nsl;
		ns->cap = ncap;
	}
	const char *want = name(ctx, idx);
	size_t h = (size_t)name_hash(want) & (ns->cap - 1);
	while (ns->slots[h]) {
		if (strcasecmp(name(ctx, ns->slots[h] - 1), want) == 0)
			return 1;
		h = (h + 1) & (ns->cap - 1);
	}
	ns->slots[h] = idx + 1;
	ns->n++;
	return 0;
}

static const char *event_name(const void *ctx, uint32_t i)
{
	return ((const struct trawl_defs_subsys *)ctx)->events[i].name;
}

static const char *subsys_name(const void *ctx, uint32_t i)
{
	return ((const struct trawl_defs *)ctx)->subsys[i].name;
}

/* An event's id is its position in the subsystem, so the array grows in
 * place (power-of-two capacity, no separate cap field) and the entry is
 * counted before its name is read: on error the caller's destroy sees every
 * entry made so far. Duplicates are caught as names arrive, by a hash set for
 * events (up to 65536) and a scan for fields (up to 16). */
static enum trawl_status parse_event(struct lex *L, struct trawl_defs_subsys *s, struct name_set *names,
				     struct trawl_error *err)
{
	enum trawl_status st;
	uint64_t line = L->tline;
	uint32_t col = L->tcol;
	defs_lex_next(L); /* "event" */
	if (s->nevents >= TRAWL_DEFS_MAX_EVENTS)
		return defs_lex_fail(L, err, line, col, "too many events in subsystem '%s' (at most %u)", s->name,
			    TRAWL_DEFS_MAX_EVENTS);
	/* capacity is the next power of two (at least 16): grow when full */
	if (s->nevents >= 16 && (s->nevents & (s->nevents - 1)) == 0) {
		void *n = realloc(s->events, s->nevents * 2 * sizeof *s->events);
		if (!n)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		s->events = n;
	} else if (!s->events && !(s->events = malloc(16 * sizeof *s->events))) {
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	struct trawl_defs_event *e = &s->events[s->nevents];
	memset(e, 0, sizeof *e);
	s->nevents++;
	e->id = (uint16_t)(s->nevents - 1);
	uint64_t nline = L->tline;
	uint32_t ncol = L->tcol;
	if ((st = defs_take_name(L, err, e->name, sizeof e->name, "event")))
		return st;
	int dup = name_set_add(names, (uint32_t)(s->nevents - 1), event_name, s);
	if (dup < 0)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	if (dup)
		return defs_lex_fail(L, err, nline, ncol,
			    "duplicate event '%s' in subsystem '%s' (names are compared without case)",
			    e->name, s->name);
	if ((st = defs_take_desc(L, err, &e->desc)))
		return st;
	if (!defs_lex_is(L, "("))
		return TRAWL_OK;
	defs_lex_next(L);
	for (;;) {
		if (L->kind != K_NAME)
			return DEFS_FAIL_HERE("expected a field type (u8 u16 u32 u64 s8 s16 s32 s64)");
		int t = trawl_sw_type_parse(L->tok, L->tlen);
		if (!t)
			return DEFS_FAIL_HERE("unknown type '%.*s' (types: u8 u16 u32 u64 s8 s16 s32 s64)", (int)L->tlen,
					 L->tok);
		if (e->nfields >= TRAWL_SW_MAX_FIELDS)
			return DEFS_FAIL_HERE("too many fields in event '%s' (at most %d)", e->name, TRAWL_SW_MAX_FIELDS);
		struct trawl_defs_field *f = &e->fields[e->nfields++];
		f->type = t;
		defs_lex_next(L);
		uint64_t fl = L->tline;
		uint32_t fc = L->tcol;
		if ((st = defs_take_name(L, err, f->name, sizeof f->name, "field")))
			return st;
		for (unsigned i = 0; i + 1 < e->nfields; i++)
			if (strcmp(e->fields[i].name, f->name) == 0)
				return defs_lex_fail(L, err, fl, fc, "duplicate field '%s' in event '%s'", f->name, e->name);
		if ((st = defs_take_desc(L, err, &f->desc)))
			return st;
		if (defs_lex_is(L, ")"))
			break;
		if (!defs_lex_is(L, ","))
			return DEFS_FAIL_HERE("expected ',' or ')' after field '%s'", f->name);
		defs_lex_next(L);
	}
	defs_lex_next(L);
	return TRAWL_OK;
}

/* parse_event's shape one level up: the subsystem's id is its position and
 * it is counted before it is filled, so errors leave it freeable. The set of
 * event names is this subsystem's own and is freed on every path (hence the
 * goto); a missing '}' is reported at the end of input, naming the
 * subsystem that was left open. */
static enum trawl_status parse_subsys(struct lex *L, struct trawl_defs *d, struct name_set *subsys_names,
				      struct trawl_error *err)
{
	enum trawl_status st;
	struct name_set names = { 0 };
	uint64_t line = L->tline;
	uint32_t col = L->tcol;
	defs_lex_next(L); /* "subsystem" */
	if (d->nsubsys >= TRAWL_DEFS_MAX_SUBSYS)
		return defs_lex_fail(L, err, line, col, "too many subsystems (at most %u)", TRAWL_DEFS_MAX_SUBSYS);
	if (d->nsubsys >= 16 && (d->nsubsys & (d->nsubsys - 1)) == 0) {
		void *n = realloc(d->subsys, d->nsubsys * 2 * sizeof *d->subsys);
		if (!n)
			return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		d->subsys = n;
	} else if (!d->subsys && !(d->subsys = malloc(16 * sizeof *d->subsys))) {
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	}
	struct trawl_defs_subsys *s = &d->subsys[d->nsubsys];
	memset(s, 0, sizeof *s);
	d->nsubsys++;
	s->id = (uint16_t)(d->nsubsys - 1);
	uint64_t nl = L->tline;
	uint32_t nc = L->tcol;
	if ((st = defs_take_name(L, err, s->name, sizeof s->name, "subsystem")))
		return st;
	int dup = name_set_add(subsys_names, (uint32_t)(d->nsubsys - 1), subsys_name, d);
	if (dup < 0)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	if (dup)
		return defs_lex_fail(L, err, nl, nc, "duplicate subsystem '%s' (names are compared without case)",
			    s->name);
	if ((st = defs_take_desc(L, err, &s->desc)))
		return st;
	if (!defs_lex_is(L, "{"))
		return DEFS_FAIL_HERE("expected '{' after subsystem '%s'", s->name);
	defs_lex_next(L);
	while (!defs_lex_is(L, "}")) {
		if (L->kind == K_END) {
			st = DEFS_FAIL_HERE("subsystem '%s' is not closed with '}'", s->name);
			goto out;
		}
		if (!defs_lex_is(L, "event")) {
			st = DEFS_FAIL_HERE("expected 'event' or '}'");
			goto out;
		}
		if ((st = parse_event(L, s, &names, err)))
			goto out;
		if (defs_lex_is(L, ",") || defs_lex_is(L, ";")) {
			defs_lex_next(L);
		} else if (L->kind == K_END) {
			st = DEFS_FAIL_HERE("subsystem '%s' is not closed with '}'", s->name);
			goto out;
		} else if (!defs_lex_is(L, "}")) {
			st = DEFS_FAIL_HERE("expected ',' between events");
			goto out;
		}
	}
	defs_lex_next(L);
	if (defs_lex_is(L, ";"))
		defs_lex_next(L);
out:
	free(names.slots);
	return st;
}

enum trawl_status trawl_defs_parse(struct trawl_defs **out, const char *text, size_t len, const char *file,
				   struct trawl_error *err)
{
	struct lex L0 = { .s = text, .len = len, .line = 1, .file = file ? file : "" }, *L = &L0;
	enum trawl_status st = TRAWL_OK;
	struct name_set subsys_names = { 0 };
	struct trawl_defs *d = calloc(1, sizeof *d);
	*out = NULL;
	if (!d)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	snprintf(d->file, sizeof d->file, "%s", L->file);
	defs_lex_next(L);
	while (L->kind != K_END) {
		if (defs_lex_is(L, "activity")) {
			if ((st = defs_parse_activity(L, d, err)))
				goto out;
			continue;
		}
		if (!defs_lex_is(L, "subsystem")) {
			st = DEFS_FAIL_HERE(L->kind == K_BAD ? "unterminated string" : "expected 'subsystem' or 'activity'");
			goto out;
		}
		if ((st = parse_subsys(L, d, &subsys_names, err)))
			goto out;
	}
	st = defs_check_activities(L, d, err);
out:
	free(subsys_names.slots);
	if (st) {
		trawl_defs_destroy(d);
		return st;
	}
	*out = d;
	return TRAWL_OK;
}

/* ---- generated text ---- */

struct sb {
	char *s;
	size_t len, cap;
	int failed;
};

static void sbf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sbf(struct sb *b, const char *fmt, ...)
{
	if (b->failed)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = 1;
			return;
		}
		if (b->s && b->len + (size_t)n < b->cap) {
			b->len += (size_t)n;
			return;
		}
		size_t ncap = (b->cap + (size_t)n + 1) * 2;
		char *s = realloc(b->s, ncap);
		if (!s) {
			b->failed = 1;
			return;
		}
		b->s = s;
		b->cap = ncap;
	}
}

static char *sb_done(struct sb *b)
{
	if (b->failed || !b->s) {
		free(b->s);
		return b->failed ? NULL : strdup("");
	}
	return b->s;
}

/* Quoted for C, JSON and TSDL alike: only printable ASCII survives. */
static void sb_quote(struct sb *b, const char *s)
{
	sbf(b, "\"");
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			sbf(b, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			sbf(b, "%c", c);
	}
	sbf(b, "\"");
}

/* A one-line C comment; "*" + "/" in the text is broken up. */
static void sb_comment(struct sb *b, const char *indent, const char *text)
{
	sbf(b, "%s/* ", indent);
	for (const char *p = text; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '*' && p[1] == '/')
			sbf(b, "* ");
		else if (c >= 0x20 && c < 0x7f)
			sbf(b, "%c", c);
	}
	sbf(b, " */\n");
}

static void upper(char *dst, const char *src, size_t cap)
{
	size_t i = 0;
	for (; src[i] && i + 1 < cap; i++)
		dst[i] = (char)toupper((unsigned char)src[i]);
	dst[i] = 0;
}

static void lower(char *dst, const char *src, size_t cap)
{
	size_t i = 0;
	for (; src[i] && i + 1 < cap; i++)
		dst[i] = (char)tolower((unsigned char)src[i]);
	dst[i] = 0;
}

static const char *c_type(int t)
{
	switch (t) {
	case TRAWL_SW_U8: return "uint8_t";
	case TRAWL_SW_U16: return "uint16_t";
	case TRAWL_SW_U32: return "uint32_t";
	case TRAWL_SW_U64: return "uint64_t";
	case TRAWL_SW_S8: return "int8_t";
	case TRAWL_SW_S16: return "int16_t";
	case TRAWL_SW_S32: return "int32_t";
	default: return "int64_t";
	}
}

/* A C identifier from the file's base name ("net-stack" -> "net_stack"). */
static void ident(char *dst, const char *src, size_t cap)
{
	size_t i = 0;
	if (!isalpha((unsigned char)*src) && *src != '_' && cap > 1)
		dst[i++] = '_';
	for (; *src && i + 1 < cap; src++)
		dst[i++] = isalnum((unsigned char)*src) ? (char)tolower((unsigned char)*src) : '_';
	dst[i] = 0;
}

/* Four passes because C wants this order: id macros, then one inline emitter
 * per event (at most one field of 32 bits or less takes trawl_rec_emit's
 * fast path, the rest pack uint64_t fields behind trawl_rec_on), then the
 * field and event tables a constructor registers at load. An empty table
 * gets a dummy entry (C has no zero-length arrays) but the count stays 0. */
char *trawl_defs_to_header(const struct trawl_defs *d, const char *base, const char *source)
{
	struct sb b = { 0 };
	char id[64], ID[64], S[64], s_[64], E[64], e_[64];
	ident(id, base, sizeof id);
	upper(ID, id, sizeof ID);
	sbf(&b, "/* Generated by `trawl defs` from %s. Do not edit. */\n", source);
	sbf(&b, "#ifndef TRAWL_DEFS_%s_H\n#define TRAWL_DEFS_%s_H\n\n#include <trawl/rec.h>\n\n", ID, ID);
	for (size_t i = 0; i < d->nsubsys; i++) {
		const struct trawl_defs_subsys *s = &d->subsys[i];
		upper(S, s->name, sizeof S);
		if (s->desc)
			sb_comment(&b, "", s->desc);
		sbf(&b, "#define TRAWL_SUBSYS_%s %u\n", S, s->id);
		for (size_t j = 0; j < s->nevents; j++) {
			upper(E, s->events[j].name, sizeof E);
			sbf(&b, "#define TRAWL_EVENT_%s_%s %u\n", S, E, s->events[j].id);
		}
	}
	sbf(&b, "\n");
	for (size_t i = 0; i < d->nsubsys; i++) {
		const struct trawl_defs_subsys *s = &d->subsys[i];
		upper(S, s->name, sizeof S);
		lower(s_, s->name, sizeof s_);
		for (size_t j = 0; j < s->nevents; j++) {
			const struct trawl_defs_event *e = &s->events[j];
			upper(E, e->name, sizeof E);
			lower(e_, e->name, sizeof e_);
			if (e->desc)
				sb_comment(&b, "", e->desc);
			sbf(&b, "static inline void trawl_%s_%s(", s_, e_);
			if (e->nfields == 0)
				sbf(&b, "uint32_t arg");
			for (unsigned f = 0; f < e->nfields; f++)
				sbf(&b, "%s%s %s", f ? ", " : "", c_type(e->fields[f].type), e->fields[f].name);
			sbf(&b, ")\n{\n");
			if (trawl_defs_event_fast(e)) {
				sbf(&b, "\ttrawl_rec_emit(TRAWL_SUBSYS_%s, TRAWL_EVENT_%s_%s, %s);\n", S, S, E,
				    e->nfields ? e->fields[0].name : "arg");
			} else {
				/* the local array must not be named like a field (a
				 * field "f_" would read the array's own address) */
				char arr[64] = "f_";
				for (unsigned f = 0; f < e->nfields; f++)
					if (!strcmp(e->fields[f].name, arr) && strlen(arr) + 2 < sizeof arr) {
						strcat(arr, "_");
						f = (unsigned)-1; /* check every field again */
					}
				sbf(&b, "\tif (trawl_rec_on(TRAWL_SUBSYS_%s)) {\n\t\tuint64_t %s[%u] = { ", S, arr,
				    e->nfields);
				for (unsigned f = 0; f < e->nfields; f++)
					sbf(&b, "%s(uint64_t)%s", f ? ", " : "", e->fields[f].name);
				sbf(&b, " };\n\t\ttrawl_rec_emit_fields(TRAWL_SUBSYS_%s, TRAWL_EVENT_%s_%s, %s, %u);\n\t}\n",
				    S, S, E, arr, e->nfields);
			}
			sbf(&b, "}\n\n");
		}
	}
	/* names and field types for the recorder, registered at start-up */
	for (size_t i = 0; i < d->nsubsys; i++) {
		const struct trawl_defs_subsys *s = &d->subsys[i];
		for (size_t j = 0; j < s->nevents; j++) {
			const struct trawl_defs_event *e = &s->events[j];
			if (!e->nfields)
				continue;
			sbf(&b, "static const struct trawl_rec_field trawl_%s_f%zu_%zu_[] = {", id, i, j);
			for (unsigned f = 0; f < e->nfields; f++) {
				char T[8];
				upper(T, trawl_sw_type_name(e->fields[f].type), sizeof T);
				sbf(&b, "%s { \"%s\", TRAWL_REC_%s }", f ? "," : "", e->fields[f].name, T);
			}
			sbf(&b, " };\n");
		}
	}
	sbf(&b, "static const struct trawl_rec_event_def trawl_%s_defs_[] = {\n", id);
	size_t total = 0;
	for (size_t i = 0; i < d->nsubsys; i++) {
		const struct trawl_defs_subsys *s = &d->subsys[i];
		for (size_t j = 0; j < s->nevents; j++) {
			const struct trawl_defs_event *e = &s->events[j];
			sbf(&b, "\t{ %u, %u, \"%s\", \"%s\", %u, ", s->id, e->id, s->name, e->name, e->nfields);
			if (e->nfields)
				sbf(&b, "trawl_%s_f%zu_%zu_ },\n", id, i, j);
			else
				sbf(&b, "0 },\n");
			total++;
		}
	}
	if (!total)
		sbf(&b, "\t{ 0, 0, \"\", \"\", 0, 0 },\n");
	sbf(&b, "};\n\n__attribute__((constructor)) static void trawl_%s_register_(void)\n{\n"
		"\ttrawl_rec_define(trawl_%s_defs_, %zu);\n}\n\n#endif\n", id, id, total);
	return sb_done(&b);
}

void trawl_sw_class_to_ctf(const struct trawl_sw_class *s, struct trawl_ctf_class *c)
{
	memset(c, 0, sizeof *c);
	c->id = s->id;
	snprintf(c->name, sizeof c->name, "%s", s->name);
	c->nfields = s->nfields;
	for (unsigned i = 0; i < s->nfields; i++) {
		memcpy(c->fields[i].name, s->fields[i].name, sizeof c->fields[i].name);
		c->fields[i].type = s->fields[i].type;
	}
}

char *trawl_defs_to_ctf(const struct trawl_defs *d)
{
	struct sb b = { 0 };
	struct trawl_sw_class c;
	struct trawl_ctf_class cc;
	sbf(&b, "/* CTF 1.8 event declarations (fragment: pair with trawl's trace, stream and clock blocks) */\n");
	for (size_t i = 0; i < d->nsubsys; i++)
		for (size_t j = 0; j < d->subsys[i].nevents; j++) {
			trawl_defs_class(&d->subsys[i], &d->subsys[i].events[j], &c);
			trawl_sw_class_to_ctf(&c, &cc);
			/* the recorder's own writer: the blocks are the metadata's */
			char *ev = trawl_ctf_event_text(&cc);
			if (!ev)
				b.failed = 1;
			else
				sbf(&b, "%s", ev);
			free(ev);
		}
	return sb_done(&b);
}

char *trawl_defs_to_json(const struct trawl_defs *d)
{
	struct sb b = { 0 };
	sbf(&b, "{\n  \"format\": \"trawl-defs\",\n  \"version\": 1,\n  \"subsystems\": [");
	for (size_t i = 0; i < d->nsubsys; i++) {
		const struct trawl_defs_subsys *s = &d->subsys[i];
		sbf(&b, "%s\n    {\"name\": \"%s\", \"id\": %u, \"description\": ", i ? "," : "", s->name, s->id);
		sb_quote(&b, s->desc ? s->desc : "");
		sbf(&b, ", \"events\": [");
		for (size_t j = 0; j < s->nevents; j++) {
			const struct trawl_defs_event *e = &s->events[j];
			sbf(&b, "%s\n      {\"name\": \"%s\", \"id\": %u, \"description\": ", j ? "," : "", e->name, e->id);
			sb_quote(&b, e->desc ? e->desc : "");
			sbf(&b, ", \"fields\": [");
			for (unsigned f = 0; f < e->nfields; f++) {
				sbf(&b, "%s{\"name\": \"%s\", \"type\": \"%s\", \"description\": ", f ? ", " : "",
				    e->fields[f].name, trawl_sw_type_name(e->fields[f].type));
				sb_quote(&b, e->fields[f].desc ? e->fields[f].desc : "");
				sbf(&b, "}");
			}
			sbf(&b, "]}");
		}
		sbf(&b, "\n    ]}");
	}
	sbf(&b, "\n  ]\n}\n");
	return sb_done(&b);
}

/* The one place that decides a definitions file's form: .tdef by its name,
 * anything else the JSON that `trawl defs` writes. */
enum trawl_status trawl_defs_load(struct trawl_defs **out, const char *path, struct trawl_error *err)
{
	uint8_t *text = NULL;
	size_t len = 0, pl = strlen(path);
	*out = NULL;
	enum trawl_status st = trawl_file_read(path, &text, &len, err);
	if (st == TRAWL_OK) {
		if (pl > 5 && !strcmp(path + pl - 5, ".tdef"))
			st = trawl_defs_parse(out, (const char *)text, len, path, err);
		else
			st = trawl_defs_parse_json(out, (const char *)text, len, path, err);
	}
	free(text);
	return st;
}
