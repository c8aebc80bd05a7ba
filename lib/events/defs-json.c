/* Reading the JSON form of event definitions (what `trawl defs` writes):
 *
 *   {"format": "trawl-defs", "version": 1, "subsystems": [
 *     {"name": "net", "id": 0, "description": "...", "events": [
 *       {"name": "RX", "id": 0, "description": "...",
 *        "fields": [{"name": "len", "type": "u32", "description": ""}]}]}]}
 *
 * A small JSON parser (objects, arrays, strings, numbers, literals) with a
 * nesting limit builds a tree; the tree is then checked against the shape
 * above. Unknown keys are ignored. Ids are taken from the file (they need
 * not be dense), checked for range and duplicates.
 */
#include "trawl/sw-event.h"
#include "trawl/sw-defs.h"

#include "events/defs-int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define JSON_MAX_DEPTH 16

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	int type;
	double num;
	char *str;                   /* J_STR; also the key when inside an object */
	char *key;
	struct jval *kids;           /* J_ARR / J_OBJ */
	size_t nkids, cap;
	uint64_t line;
	uint32_t col;
};

struct jp {
	const char *s;
	size_t len, pos, line_start;
	uint64_t line;
	const char *file;
	struct trawl_error *err;
};

static void jfree(struct jval *v)
{
	for (size_t i = 0; i < v->nkids; i++)
		jfree(&v->kids[i]);
	free(v->kids);
	free(v->str);
	free(v->key);
}

static enum trawl_status jerr(struct jp *p, const char *what)
{
	trawl_error_set(p->err, TRAWL_ERR_FORMAT, "%s", what);
	trawl_error_at(p->err, p->file, p->line, (uint32_t)(p->pos - p->line_start + 1), p->pos);
	return TRAWL_ERR_FORMAT;
}

static void ws(struct jp *p)
{
	while (p->pos < p->len && isspace((unsigned char)p->s[p->pos])) {
		if (p->s[p->pos] == '\n') {
			p->line++;
			p->line_start = p->pos + 1;
		}
		p->pos++;
	}
}

static enum trawl_status jstring(struct jp *p, char **out)
{
	size_t start = ++p->pos, n = 0;
	char *d = NULL;
	while (p->pos < p->len && p->s[p->pos] != '"') {
		if ((unsigned char)p->s[p->pos] < 0x20)
			return jerr(p, "control character in string");
		p->pos += (p->s[p->pos] == '\\' && p->pos + 1 < p->len) ? 2 : 1;
	}
	if (p->pos >= p->len)
		return jerr(p, "unterminated string");
	size_t end = p->pos++;
	if (!(d = malloc(end - start + 1)))
		return trawl_error_set(p->err, TRAWL_ERR_NOMEM, "out of memory");
	for (size_t i = start; i < end; i++) {
		char c = p->s[i];
		if (c == '\\' && i + 1 < end) {
			c = p->s[++i];
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': c = '?'; i += (i + 4 < end) ? 4 : end - 1 - i; break;
			default: break;
			}
		}
		d[n++] = c;
	}
	d[n] = 0;
	*out = d;
	return TRAWL_OK;
}

/* One recursive function for every value, with the depth checked first so
 * hostile nesting ends in an error, not a stack overflow. The tree stays
 * freeable at every exit: a child is counted before it is parsed (jvalue
 * clears it first) and its key attached after (the clearing would lose it),
 * so on any failure jfree sees only initialised nodes. */
static enum trawl_status jvalue(struct jp *p, struct jval *v, int depth)
{
	enum trawl_status st;
	memset(v, 0, sizeof *v);
	ws(p);
	v->line = p->line;
	v->col = (uint32_t)(p->pos - p->line_start + 1);
	if (depth > JSON_MAX_DEPTH)
		return jerr(p, "JSON nested too deeply");
	if (p->pos >= p->len)
		return jerr(p, "unexpected end of JSON");
	char c = p->s[p->pos];
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		v->type = c == '{' ? J_OBJ : J_ARR;
		p->pos++;
		ws(p);
		if (p->pos < p->len && p->s[p->pos] == close) {
			p->pos++;
			return TRAWL_OK;
		}
		for (;;) {
			char *key = NULL;
			ws(p);
			if (v->type == J_OBJ) {
				if (p->pos >= p->len || p->s[p->pos] != '"')
					return jerr(p, "expected a key string");
				if ((st = jstring(p, &key)))
					return st;
				ws(p);
				if (p->pos >= p->len || p->s[p->pos] != ':') {
					free(key);
					return jerr(p, "expected ':'");
				}
				p->pos++;
			}
			if (v->nkids == v->cap) {
				size_t ncap = v->cap ? v->cap * 2 : 8;
				void *n = realloc(v->kids, ncap * sizeof *v->kids);
				if (!n) {
					free(key);
					return trawl_error_set(p->err, TRAWL_ERR_NOMEM, "out of memory");
				}
				v->kids = n;
				v->cap = ncap;
			}
			struct jval *k = &v->kids[v->nkids++];
			st = jvalue(p, k, depth + 1);
			k->key = key;
			if (st)
				return st;
			ws(p);
			if (p->pos < p->len && p->s[p->pos] == ',') {
				p->pos++;
				continue;
			}
			if (p->pos < p->len && p->s[p->pos] == close) {
				p->pos++;
				return TRAWL_OK;
			}
			return jerr(p, v->type == J_OBJ ? "expected ',' or '}'" : "expected ',' or ']'");
		}
	}
	if (c == '"') {
		v->type = J_STR;
		return jstring(p, &v->str);
	}
	if (c == '-' || isdigit((unsigned char)c)) {
		char buf[64];
		size_t n = 0;
		while (p->pos < p->len && n < sizeof buf - 1 && strchr("+-.eE0123456789", p->s[p->pos]))
			buf[n++] = p->s[p->pos++];
		buf[n] = 0;
		char *end;
		v->type = J_NUM;
		v->num = strtod(buf, &end);
		if (*end)
			return jerr(p, "bad number");
		return TRAWL_OK;
	}
	static const struct { const char *w; int t; } lit[] = { { "true", J_BOOL }, { "false", J_BOOL }, { "null", J_NULL } };
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(lit[i].w);
		if (p->len - p->pos >= n && memcmp(p->s + p->pos, lit[i].w, n) == 0) {
			v->type = lit[i].t;
			v->num = i == 0;
			p->pos += n;
			return TRAWL_OK;
		}
	}
	return jerr(p, "unexpected character");
}

static const struct jval *get(const struct jval *o, const char *key, int type)
{
	if (o->type != J_OBJ)
		return NULL;
	for (size_t i = 0; i < o->nkids; i++)
		if (o->kids[i].key && strcmp(o->kids[i].key, key) == 0)
			return o->kids[i].type == type ? &o->kids[i] : NULL;
	return NULL;
}

static enum trawl_status shape_err(struct jp *p, const struct jval *v, const char *what)
{
	trawl_error_set(p->err, TRAWL_ERR_FORMAT, "%s", what);
	trawl_error_at(p->err, p->file, v->line, v->col, 0);
	return TRAWL_ERR_FORMAT;
}

static enum trawl_status copy_name(struct jp *p, const struct jval *o, char *dst, size_t cap, const char *what)
{
	const struct jval *n = get(o, "name", J_STR);
	if (!n || !n->str[0] || strlen(n->str) >= cap)
		return shape_err(p, o, what);
	for (const char *c = n->str; *c; c++)
		if (!(isalnum((unsigned char)*c) || *c == '_') || (c == n->str && isdigit((unsigned char)*c)))
			return shape_err(p, n, "names must be identifiers");
	if (defs_name_reserved(n->str))
		return shape_err(p, n, "a name may not be a C, C++ or CTF keyword");
	strcpy(dst, n->str);
	return TRAWL_OK;
}

static int get_id(const struct jval *o, unsigned max, unsigned *out)
{
	const struct jval *n = get(o, "id", J_NUM);
	if (!n || n->num < 0 || n->num >= max || n->num != (double)(unsigned)n->num)
		return 0;
	*out = (unsigned)n->num;
	return 1;
}

static char *get_desc(const struct jval *o)
{
	const struct jval *d = get(o, "description", J_STR);
	return d && d->str[0] ? strdup(d->str) : NULL;
}

/* Duplicate ids or names in one scope, found by sorting (a hostile file
 * may hold 65536 events): reported at the later of the two. */
struct dup_key {
	const char *name;
	unsigned id;
	size_t order;
	const struct jval *v;
};

static int by_id(const void *a, const void *b)
{
	const struct dup_key *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int by_name(const void *a, const void *b)
{
	const struct dup_key *x = a, *y = b;
	/* without case, as the .tdef reader: the header upper- and lower-cases */
	int c = strcasecmp(x->name, y->name);
	return c ? c : (x->order < y->order ? -1 : x->order > y->order);
}

static const struct jval *find_dup(struct dup_key *k, size_t n)
{
	const struct jval *at = NULL;
	size_t best = SIZE_MAX;
	qsort(k, n, sizeof *k, by_id);
	for (size_t i = 1; i < n; i++)
		if (k[i].id == k[i - 1].id && k[i].order < best) {
			best = k[i].order;
			at = k[i].v;
		}
	qsort(k, n, sizeof *k, by_name);
	for (size_t i = 1; i < n; i++)
		if (!strcasecmp(k[i].name, k[i - 1].name) && k[i].order < best) {
			best = k[i].order;
			at = k[i].v;
		}
	return at;
}

/* Checks the tree against the shape in the header comment while copying it.
 * Counts (nsubsys, nevents, nfields) go up before each entry is filled, so
 * on any error trawl_defs_destroy frees exactly what was made. Limits are
 * checked before allocating, and duplicates are found per scope by sorting
 * (find_dup), not pairwise, since a file may hold 65536 events. */
static enum trawl_status build(struct jp *p, const struct jval *root, struct trawl_defs *d)
{
	enum trawl_status st;
	const struct jval *subs = get(root, "subsystems", J_ARR);
	if (!subs)
		return shape_err(p, root, "expected an object with a \"subsystems\" array");
	if (subs->nkids > TRAWL_DEFS_MAX_SUBSYS)
		return shape_err(p, subs, "too many subsystems");
	if (subs->nkids && !(d->subsys = calloc(subs->nkids, sizeof *d->subsys)))
		return trawl_error_set(p->err, TRAWL_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < subs->nkids; i++) {
		const struct jval *so = &subs->kids[i];
		struct trawl_defs_subsys *s = &d->subsys[d->nsubsys++];
		unsigned id;
		if ((st = copy_name(p, so, s->name, sizeof s->name, "subsystem without a valid \"name\"")))
			return st;
		if (!get_id(so, TRAWL_DEFS_MAX_SUBSYS, &id))
			return shape_err(p, so, "subsystem without a valid \"id\" (0-32767)");
		s->id = (uint16_t)id;
		s->desc = get_desc(so);
		const struct jval *evs = get(so, "events", J_ARR);
		if (!evs)
			continue;
		if (evs->nkids > TRAWL_DEFS_MAX_EVENTS)
			return shape_err(p, evs, "too many events");
		if (evs->nkids && !(s->events = calloc(evs->nkids, sizeof *s->events)))
			return trawl_error_set(p->err, TRAWL_ERR_NOMEM, "out of memory");
		for (size_t j = 0; j < evs->nkids; j++) {
			const struct jval *eo = &evs->kids[j];
			struct trawl_defs_event *e = &s->events[s->nevents++];
			if ((st = copy_name(p, eo, e->name, sizeof e->name, "event without a valid \"name\"")))
				return st;
			if (!get_id(eo, TRAWL_DEFS_MAX_EVENTS, &id))
				return shape_err(p, eo, "event without a valid \"id\" (0-65535)");
			e->id = (uint16_t)id;
			e->desc = get_desc(eo);
			const struct jval *fs = get(eo, "fields", J_ARR);
			if (!fs)
				continue;
			if (fs->nkids > TRAWL_SW_MAX_FIELDS)
				return shape_err(p, fs, "too many fields (at most 16)");
			for (size_t f = 0; f < fs->nkids; f++) {
				struct trawl_defs_field *fd = &e->fields[e->nfields++];
				if ((st = copy_name(p, &fs->kids[f], fd->name, sizeof fd->name, "field without a valid \"name\"")))
					return st;
				const struct jval *t = get(&fs->kids[f], "type", J_STR);
				if (!t || !(fd->type = trawl_sw_type_parse(t->str, strlen(t->str))))
					return shape_err(p, &fs->kids[f], "field with an unknown \"type\"");
				fd->desc = get_desc(&fs->kids[f]);
				for (unsigned g = 0; g + 1 < e->nfields; g++)
					if (!strcmp(e->fields[g].name, fd->name))
						return shape_err(p, &fs->kids[f], "duplicate field name");
			}
		}
		if (s->nevents > 1) {
			struct dup_key *k = malloc(s->nevents * sizeof *k);
			if (!k)
				return trawl_error_set(p->err, TRAWL_ERR_NOMEM, "out of memory");
			for (size_t j = 0; j < s->nevents; j++)
				k[j] = (struct dup_key){ s->events[j].name, s->events[j].id, j, &evs->kids[j] };
			const struct jval *dup = find_dup(k, s->nevents);
			free(k);
			if (dup)
				return shape_err(p, dup, "duplicate event name or id");
		}
	}
	if (d->nsubsys > 1) {
		struct dup_key *k = malloc(d->nsubsys * sizeof *k);
		if (!k)
			return trawl_error_set(p->err, TRAWL_ERR_NOMEM, "out of memory");
		for (size_t i = 0; i < d->nsubsys; i++)
			k[i] = (struct dup_key){ d->subsys[i].name, d->subsys[i].id, i, &subs->kids[i] };
		const struct jval *dup = find_dup(k, d->nsubsys);
		free(k);
		if (dup)
			return shape_err(p, dup, "duplicate subsystem name or id");
	}
	return TRAWL_OK;
}

enum trawl_status trawl_defs_parse_json(struct trawl_defs **out, const char *text, size_t len, const char *file,
					struct trawl_error *err)
{
	struct jp p = { .s = text, .len = len, .line = 1, .file = file ? file : "", .err = err };
	struct jval root;
	*out = NULL;
	enum trawl_status st = jvalue(&p, &root, 0);
	if (st == TRAWL_OK) {
		ws(&p);
		if (p.pos != p.len)
			st = jerr(&p, "text after the JSON value");
	}
	struct trawl_defs *d = NULL;
	if (st == TRAWL_OK) {
		if (!(d = calloc(1, sizeof *d)))
			st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
		else
			st = build(&p, &root, d);
	}
	jfree(&root);
	if (st) {
		trawl_defs_destroy(d);
		return st;
	}
	*out = d;
	return TRAWL_OK;
}
