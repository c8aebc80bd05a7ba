/* The metadata parser of the CTF reader (ctf-read.c reads the streams):
 * the TSDL subset trawl writes: integer typealiases, trace/env/clock/stream
 * blocks and event blocks whose fields are integers. The binary layout is
 * fixed (the table at the top of ctf-read.c), and the metadata's
 * declarations of it are held to it (see "TSDL declarations" below): what
 * would lay the bytes out otherwise is an error at its line and column,
 * never read past. */
#include "trawl/sw-event.h"
#include "trawl/sw-trace.h"

#include "events/ctf-int.h"
#include "events/text-skip.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- TSDL tokens ---- */

enum tok_kind { T_END, T_IDENT, T_NUM, T_STR, T_PUNCT, T_ASSIGN_TYPE /* := */, T_BAD };

struct lexer {
	const char *s;
	size_t len, pos;
	uint64_t line;
	size_t line_start;
	/* current token */
	int kind;
	const char *tok;
	size_t tlen;
	uint64_t num;
	int neg;                     /* T_NUM written with a '-' (num: its two's complement) */
	const char *bad;             /* T_BAD: what is wrong */
	uint64_t tline;
	uint32_t tcol;
};

/* A place in the metadata text, for the messages. */
struct pos {
	uint64_t line;
	uint32_t col;
	uint64_t off;
};

static struct pos tok_pos(const struct lexer *L)
{
	struct pos p = { L->tline, L->tcol, (uint64_t)(L->tok - L->s) };
	return p;
}

/* Where a block comment that never closes starts in s[from, len) (text_skip
 * runs one to the end of the text), or SIZE_MAX. */
static size_t unclosed_comment(const char *s, size_t from, size_t len)
{
	size_t p = from;
	while (p < len) {
		if (s[p] == '/' && p + 1 < len && s[p + 1] == '/') {
			while (p < len && s[p] != '\n')
				p++;
		} else if (s[p] == '/' && p + 1 < len && s[p + 1] == '*') {
			size_t q = p + 2;
			while (q + 1 < len && !(s[q] == '*' && s[q + 1] == '/'))
				q++;
			if (q + 1 >= len)
				return p;
			p = q + 2;
		} else {
			p++;
		}
	}
	return SIZE_MAX;
}

/* A hand-written lexer for the TSDL subset: identifiers may hold '.'
 * (clock.trawl.value, packet.header) so each arrives as one token, ':=' is
 * one token, and a string may not span lines, so an unterminated one is
 * T_BAD on its own line rather than swallowing the rest of the file; so
 * are a number too big for 64 bits (it used to wrap), a number run into
 * letters (1e9 was 1) and a comment that never closes (it hid the rest).
 * Every token keeps its line and column for the error messages. */
static void lex_next(struct lexer *L)
{
	size_t from = L->pos, from_ls = L->line_start;
	uint64_t from_line = L->line;
	L->pos = text_skip(L->s, L->len, L->pos, &L->line, &L->line_start, 0);
	L->tline = L->line;
	L->tcol = (uint32_t)(L->pos - L->line_start + 1);
	L->tok = L->s + L->pos;
	L->tlen = 0;
	L->neg = 0;
	L->bad = NULL;
	if (L->pos >= L->len) {
		size_t c = unclosed_comment(L->s, from, L->len);
		L->kind = T_END;
		if (c != SIZE_MAX) {
			for (size_t i = from; i < c; i++)
				if (L->s[i] == '\n') {
					from_line++;
					from_ls = i + 1;
				}
			L->kind = T_BAD;
			L->bad = "unterminated comment";
			L->tok = L->s + c;
			L->tline = from_line;
			L->tcol = (uint32_t)(c - from_ls + 1);
		}
		return;
	}
	char c = L->s[L->pos];
	if (isalpha((unsigned char)c) || c == '_') {
		size_t p = L->pos;
		while (p < L->len && (isalnum((unsigned char)L->s[p]) || L->s[p] == '_' || L->s[p] == '.'))
			p++;
		L->kind = T_IDENT;
		L->tlen = p - L->pos;
		L->pos = p;
	} else if (isdigit((unsigned char)c) || (c == '-' && L->pos + 1 < L->len && isdigit((unsigned char)L->s[L->pos + 1]))) {
		size_t p = L->pos + (c == '-');
		int neg = c == '-', over = 0;
		uint64_t v = 0;
		unsigned base = 10;
		if (p + 1 < L->len && L->s[p] == '0' && (L->s[p + 1] == 'x' || L->s[p + 1] == 'X')) {
			base = 16;
			p += 2;
		}
		size_t digits = p;
		while (p < L->len && isxdigit((unsigned char)L->s[p]) && (base == 16 || isdigit((unsigned char)L->s[p]))) {
			char d = L->s[p];
			unsigned dv = isdigit((unsigned char)d) ? (unsigned)(d - '0') : (unsigned)(tolower(d) - 'a' + 10);
			if (v > (UINT64_MAX - dv) / base)
				over = 1;
			v = v * base + dv;
			p++;
		}
		L->tlen = p - L->pos;
		if (over || (neg && v > (uint64_t)INT64_MAX + 1)) {
			L->kind = T_BAD;
			L->bad = "number out of range";
		} else if (p == digits || (p < L->len && (isalnum((unsigned char)L->s[p]) || L->s[p] == '_' || L->s[p] == '.'))) {
			L->kind = T_BAD;
			L->bad = "malformed number";
		} else {
			L->kind = T_NUM;
			L->num = neg ? (uint64_t)0 - v : v;
			L->neg = neg && v;
		}
		L->pos = p;
	} else if (c == '"') {
		size_t p = L->pos + 1;
		while (p < L->len && L->s[p] != '"' && L->s[p] != '\n')
			p += (L->s[p] == '\\' && p + 1 < L->len) ? 2 : 1;
		if (p >= L->len || L->s[p] != '"') {
			L->kind = T_BAD;
			L->bad = "unterminated string";
			L->pos = p;
			return;
		}
		L->kind = T_STR;
		L->tok = L->s + L->pos + 1;
		L->tlen = p - L->pos - 1;
		L->pos = p + 1;
	} else if (c == ':' && L->pos + 1 < L->len && L->s[L->pos + 1] == '=') {
		L->kind = T_ASSIGN_TYPE;
		L->tlen = 2;
		L->pos += 2;
	} else {
		L->kind = T_PUNCT;
		L->tlen = 1;
		L->pos++;
	}
}

static int tok_is(const struct lexer *L, const char *word)
{
	size_t n = strlen(word);
	return (L->kind == T_IDENT || L->kind == T_PUNCT) && L->tlen == n && memcmp(L->tok, word, n) == 0;
}

static int key_is(const char *k, size_t n, const char *w)
{
	return strlen(w) == n && memcmp(k, w, n) == 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static enum trawl_status err_at_st(struct trawl_error *err, enum trawl_status st, struct pos at, const char *fmt, ...)
{
	char msg[1000];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	trawl_error_set(err, st, "metadata: %s", msg);
	trawl_error_at(err, "metadata", at.line, at.col, at.off);
	return st;
}

#define err_at(err, at, ...) err_at_st(err, TRAWL_ERR_FORMAT, at, __VA_ARGS__)

/* The current token is not what was wanted (`what`). */
static enum trawl_status lex_error(struct lexer *L, struct trawl_error *err, const char *what)
{
	if (L->kind == T_BAD)
		return err_at(err, tok_pos(L), "%s", L->bad);
	if (L->kind == T_END)
		return err_at(err, tok_pos(L), "unexpected end of the metadata (%s)", what);
	return err_at(err, tok_pos(L), "%s", what);
}

/* Skip a balanced { ... } block; the current token is '{'. */
static enum trawl_status skip_block(struct lexer *L, struct trawl_error *err)
{
	int depth = 0;
	do {
		if (L->kind == T_END || L->kind == T_BAD)
			return lex_error(L, err, "unterminated block");
		if (tok_is(L, "{"))
			depth++;
		else if (tok_is(L, "}"))
			depth--;
		lex_next(L);
	} while (depth > 0);
	return TRAWL_OK;
}

/* A string token's text, its escapes undone (the recorder writes \" and
 * \\), into dst; -1: an escape trawl does not know, -2: too long. */
static int str_copy(char *dst, size_t size, const char *s, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\\' && i + 1 < n) {
			c = s[++i];
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
			else if (c != '\\' && c != '"' && c != '\'')
				return -1;
		}
		if (o + 1 >= size)
			return -2;
		dst[o++] = c;
	}
	dst[o] = 0;
	return 0;
}

/* ---- TSDL declarations ----
 *
 * The reader decodes one layout (the table at the top of this file), so
 * the declarations of that layout are held to it: the trace's packet.header,
 * the stream's packet.context and event.header must be the recorder's, field
 * for field (name, size, signedness, byte order, alignment, the timestamps
 * mapped to the one clock, of 1 GHz), and event fields must be integers
 * trawl decodes. What does not change decoding (comments, env entries,
 * clock descriptions, uuids, typealiases no field uses) is taken as it is;
 * anything else is an error naming its line and column. */

/* An integer type a typealias names. */
struct alias {
	char name[48];
	struct pos at;
	int type;                    /* TRAWL_SW_*; 0: not one trawl decodes (why says why) */
	unsigned size;
	int is_signed;
	char clock[48];              /* map = clock.NAME.value: NAME ("" none) */
	char why[160];
};
#define MAX_ALIASES 64

/* A field of a struct declaration. */
struct field_decl {
	char name[48];
	const struct alias *a;
	struct pos type_at, name_at;
};

/* A header field mapped to a clock: the clock is checked once the whole
 * text is read. */
struct clock_ref {
	char clock[48];
	const char *field;
	struct pos at;
};

/* Where an event said what, for the checks made at the end. */
struct ev_at {
	uint32_t id;
	struct pos id_at;
	int has_sid;
	uint64_t sid;
	struct pos sid_at;
};


void ctf_stream_ids_add(struct stream_ids *ids, uint64_t id)
{
	for (size_t i = 0; i < ids->n; i++)
		if (ids->v[i] == id)
			return;
	if (ids->n == sizeof ids->v / sizeof ids->v[0] || id > UINT32_MAX)
		ids->any = 1;
	else
		ids->v[ids->n++] = (uint32_t)id;
}

struct meta {
	struct lexer L;
	struct alias al[MAX_ALIASES];
	size_t nal;
	struct trawl_swtrace_info *info;
	int have_trace, have_env, have_clock, have_stream;
	struct pos trace_at, env_at, clock_at, stream_at;
	char clock_name[48];
	struct clock_ref refs[4];
	size_t nrefs;
	uint32_t sid;                /* the stream block's id */
};

static const struct alias *alias_find(const struct meta *M, const char *s, size_t n)
{
	for (size_t i = 0; i < M->nal; i++)
		if (key_is(s, n, M->al[i].name))
			return &M->al[i];
	return NULL;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG 1
#else
#define HOST_BIG 0
#endif

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void alias_bad(struct alias *a, struct pos at, const char *fmt, ...)
{
	if (a->why[0])
		return; /* the first reason is enough */
	char m[120];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	snprintf(a->why, sizeof a->why, "%s (at %" PRIu64 ":%u)", m, at.line, at.col);
}

/* One attribute of an integer typealias; what trawl cannot decode makes the
 * type unusable, said when a field uses it (an unused one is fine). */
static void int_attr(struct alias *a, const char *k, size_t n, const struct lexer *L, struct pos kat, unsigned *seen)
{
	static const char *const keys[] = { "size", "signed", "align", "byte_order", "base", "encoding", "map" };
	int which = -1, v = (int)L->tlen;
	for (int i = 0; i < (int)(sizeof keys / sizeof keys[0]); i++)
		if (key_is(k, n, keys[i]))
			which = i;
	if (which < 0) {
		alias_bad(a, kat, "its attribute '%.*s' is not one trawl reads", (int)n, k);
		return;
	}
	if (*seen & 1u << which) {
		alias_bad(a, kat, "it gives '%s' twice", keys[which]);
		return;
	}
	*seen |= 1u << which;
	switch (which) {
	case 0:
		if (L->kind == T_NUM && !L->neg && (L->num == 8 || L->num == 16 || L->num == 32 || L->num == 64))
			a->size = (unsigned)L->num;
		else
			alias_bad(a, kat, "size = %.*s: trawl decodes integers of 8, 16, 32 or 64 bits", v, L->tok);
		break;
	case 1:
		if (tok_is(L, "true") || (L->kind == T_NUM && L->num == 1))
			a->is_signed = 1;
		else if (!(tok_is(L, "false") || (L->kind == T_NUM && L->num == 0)))
			alias_bad(a, kat, "signed = %.*s is not true or false", v, L->tok);
		break;
	case 2:
		if (!(L->kind == T_NUM && (L->num == 8 || L->num == 1)))
			alias_bad(a, kat, "align = %.*s: trawl reads fields packed at byte boundaries (align = 8)", v,
				  L->tok);
		break;
	case 3:
		if (tok_is(L, "native"))
			break;
		if (!tok_is(L, "le") && !tok_is(L, "be") && !tok_is(L, "network"))
			alias_bad(a, kat, "byte_order = %.*s is not native, le, be or network", v, L->tok);
		else if (tok_is(L, "le") == HOST_BIG)
			alias_bad(a, kat, "byte_order = %.*s: trawl reads integers in the trace's byte order only", v,
				  L->tok);
		break;
	case 4:
		break; /* how numbers are shown */
	case 5:
		if (!tok_is(L, "none") && !tok_is(L, "UTF8") && !tok_is(L, "ASCII"))
			alias_bad(a, kat, "encoding = %.*s is not none, UTF8 or ASCII", v, L->tok);
		break;
	case 6:
		if (L->kind == T_IDENT && L->tlen > 12 && L->tlen - 12 < sizeof a->clock && memcmp(L->tok, "clock.", 6) == 0 &&
		    memcmp(L->tok + L->tlen - 6, ".value", 6) == 0 &&
		    memchr(L->tok + 6, '.', L->tlen - 12) == NULL) {
			memcpy(a->clock, L->tok + 6, L->tlen - 12);
			a->clock[L->tlen - 12] = 0;
		} else {
			alias_bad(a, kat, "map = %.*s: trawl maps integers to a clock only (clock.NAME.value)", v, L->tok);
		}
		break;
	}
}

/* typealias integer { size = N; ... } := NAME;  Any other typealias
 * (floating_point, string, struct, ...) is read over and its name kept, so
 * that a field of that type is told why it cannot be read. */
static enum trawl_status parse_typealias(struct meta *M, struct trawl_error *err)
{
	struct lexer *L = &M->L;
	struct alias a;
	memset(&a, 0, sizeof a);
	struct pos start = tok_pos(L);
	lex_next(L);
	if (tok_is(L, "integer")) {
		unsigned seen = 0;
		lex_next(L);
		if (!tok_is(L, "{"))
			return lex_error(L, err, "expected '{' after 'integer'");
		lex_next(L);
		while (!tok_is(L, "}")) {
			if (L->kind != T_IDENT)
				return lex_error(L, err, "expected an attribute name");
			const char *k = L->tok;
			size_t kn = L->tlen;
			struct pos kat = tok_pos(L);
			lex_next(L);
			if (!tok_is(L, "="))
				return lex_error(L, err, "expected '='");
			lex_next(L);
			if (L->kind != T_NUM && L->kind != T_IDENT && L->kind != T_STR)
				return lex_error(L, err, "expected a value");
			int_attr(&a, k, kn, L, kat, &seen);
			lex_next(L);
			if (!tok_is(L, ";"))
				return lex_error(L, err, "expected ';'");
			lex_next(L);
		}
		if (!a.size)
			alias_bad(&a, start, "the integer has no size");
		if (!a.why[0])
			switch (a.size) {
			case 8: a.type = a.is_signed ? TRAWL_SW_S8 : TRAWL_SW_U8; break;
			case 16: a.type = a.is_signed ? TRAWL_SW_S16 : TRAWL_SW_U16; break;
			case 32: a.type = a.is_signed ? TRAWL_SW_S32 : TRAWL_SW_U32; break;
			default: a.type = a.is_signed ? TRAWL_SW_S64 : TRAWL_SW_U64; break;
			}
		lex_next(L);
	} else {
		if (L->kind != T_IDENT)
			return lex_error(L, err, "expected a type after 'typealias'");
		alias_bad(&a, tok_pos(L), "it is a%s %.*s: trawl decodes integer fields only",
			  strchr("aeiou", L->tok[0]) ? "n" : "", (int)(L->tlen < 40 ? L->tlen : 40), L->tok);
		while (L->kind != T_ASSIGN_TYPE) {
			if (L->kind == T_END || L->kind == T_BAD)
				return lex_error(L, err, "unterminated typealias");
			if (tok_is(L, ";"))
				return lex_error(L, err, "expected ':=' in the typealias");
			if (tok_is(L, "{")) {
				enum trawl_status st = skip_block(L, err);
				if (st)
					return st;
				continue;
			}
			lex_next(L);
		}
	}
	if (L->kind != T_ASSIGN_TYPE)
		return lex_error(L, err, "expected ':='");
	lex_next(L);
	if (L->kind != T_IDENT)
		return lex_error(L, err, "expected a type name");
	struct pos nat = tok_pos(L);
	const char *nm = L->tok;
	size_t nn = L->tlen, words = 1;
	lex_next(L);
	/* a name of several words (unsigned long) is no field's type here */
	for (; L->kind == T_IDENT; words++)
		lex_next(L);
	if (!tok_is(L, ";"))
		return lex_error(L, err, "expected ';' after the type name");
	lex_next(L);
	if (words > 1)
		return TRAWL_OK;
	const struct alias *old = alias_find(M, nm, nn);
	if (old)
		return err_at(err, nat, "type '%s' declared twice (first at %" PRIu64 ":%u)", old->name, old->at.line,
			      old->at.col);
	if (nn >= sizeof a.name)
		return err_at(err, nat, "type name longer than %zu bytes", sizeof a.name - 1);
	if (M->nal == MAX_ALIASES)
		return err_at(err, nat, "more than %d typealiases", MAX_ALIASES);
	memcpy(a.name, nm, nn);
	a.name[nn] = 0;
	a.at = nat;
	M->al[M->nal++] = a;
	return TRAWL_OK;
}

/* struct { TYPE NAME; ... }: the current token is 'struct'; ends on the
 * token after the '}' (which must be ';'). hdr: what a header must be, said
 * before a field trawl cannot read (NULL: event fields). */
static enum trawl_status parse_struct(struct meta *M, const char *hdr, struct field_decl *f, size_t max, size_t *n,
				      struct pos *close, struct trawl_error *err)
{
	struct lexer *L = &M->L;
	if (!hdr)
		hdr = "";
	*n = 0;
	if (!tok_is(L, "struct"))
		return lex_error(L, err, "expected 'struct'");
	lex_next(L);
	if (!tok_is(L, "{"))
		return lex_error(L, err, "expected '{'");
	lex_next(L);
	while (!tok_is(L, "}")) {
		if (L->kind != T_IDENT)
			return lex_error(L, err, "expected a field type");
		static const char *const inl[] = { "integer", "struct", "enum", "variant", "string", "floating_point" };
		for (size_t i = 0; i < sizeof inl / sizeof inl[0]; i++)
			if (tok_is(L, inl[i]))
				return err_at(err, tok_pos(L),
					      "%sa field of an inline %s type: trawl reads fields whose type is an integer "
					      "typealias",
					      hdr, inl[i]);
		const struct alias *a = alias_find(M, L->tok, L->tlen);
		if (!a)
			return err_at(err, tok_pos(L),
				      "%stype '%.*s' is not declared: trawl reads fields of integer types a typealias "
				      "declares before them",
				      hdr, (int)(L->tlen < 48 ? L->tlen : 48), L->tok);
		struct pos type_at = tok_pos(L);
		lex_next(L);
		if (L->kind != T_IDENT)
			return lex_error(L, err, "expected a field name");
		if (L->tlen >= sizeof f[0].name)
			return err_at(err, tok_pos(L), "field name longer than %zu bytes", sizeof f[0].name - 1);
		if (*n >= max)
			return err_at(err, tok_pos(L), "more than %zu fields", max);
		memcpy(f[*n].name, L->tok, L->tlen);
		f[*n].name[L->tlen] = 0;
		f[*n].a = a;
		f[*n].type_at = type_at;
		f[*n].name_at = tok_pos(L);
		lex_next(L);
		if (tok_is(L, "[") || tok_is(L, ":"))
			return err_at(err, tok_pos(L), "%s'%s' is an array, sequence or bit field: trawl decodes integer fields only",
				      hdr, f[*n].name);
		if (!tok_is(L, ";"))
			return lex_error(L, err, "expected ';' after a field");
		lex_next(L);
		(*n)++;
	}
	*close = tok_pos(L);
	lex_next(L);
	if (!tok_is(L, ";"))
		return lex_error(L, err, "expected ';' after the struct (trawl reads no struct attributes such as align())");
	return TRAWL_OK;
}

/* The fixed headers (docs/recorder.md): field, bits, mapped to the clock. */
struct hdr_spec {
	const char *name;
	unsigned bits;
	int clock;
};
static const struct hdr_spec ph_spec[] = { { "magic", 32, 0 }, { "stream_id", 32, 0 } };
static const struct hdr_spec pc_spec[] = {
	{ "timestamp_begin", 64, 1 }, { "timestamp_end", 64, 1 },  { "content_size", 64, 0 },
	{ "packet_size", 64, 0 },     { "packet_seq_num", 64, 0 }, { "events_discarded", 64, 0 },
	{ "cpu_id", 32, 0 },          { "thread_id", 32, 0 },
};
static const struct hdr_spec eh_spec[] = { { "id", 32, 0 }, { "timestamp", 64, 1 } };
#define NSPEC(a) (sizeof a / sizeof a[0])

/* "WHAT must be struct { ... } as trawl's recorder writes it (docs/recorder.md): " */
static void spec_text(char *buf, size_t size, const char *what, const struct hdr_spec *sp, size_t n)
{
	size_t o = 0;
	buf[0] = 0;
	for (size_t i = 0; i <= n && o < size; i++) {
		int w = i == n ? snprintf(buf + o, size - o, " } as trawl's recorder writes it (docs/recorder.md): ")
			       : snprintf(buf + o, size - o, "%s%s %s %s;", i ? "" : what, i ? "" : " must be struct {",
					  sp[i].clock ? "trawl_clock_t" : sp[i].bits == 32 ? "uint32_t" : "uint64_t",
					  sp[i].name);
		if (w < 0)
			return;
		o += (size_t)w;
	}
}

/* A header struct held to its spec, field for field. */
static enum trawl_status check_header(struct meta *M, const char *what, const struct field_decl *f, size_t n,
				      struct pos close, const struct hdr_spec *sp, size_t nsp, struct trawl_error *err)
{
	char want[400];
	spec_text(want, sizeof want, what, sp, nsp);
#define HDR_BAD(at, ...)                                                                                          \
	do {                                                                                                      \
		char why_[300];                                                                                   \
		snprintf(why_, sizeof why_, __VA_ARGS__);                                                         \
		return err_at(err, at, "%s%s", want, why_);                                                       \
	} while (0)
	for (size_t i = 0; i < n || i < nsp; i++) {
		if (i >= n)
			HDR_BAD(close, "'%s' is missing", sp[i].name);
		if (i >= nsp)
			HDR_BAD(f[i].name_at, "'%s' is a field too many", f[i].name);
		if (strcmp(f[i].name, sp[i].name) != 0)
			HDR_BAD(f[i].name_at, "'%s' where '%s' belongs", f[i].name, sp[i].name);
		const struct alias *a = f[i].a;
		if (!a->type)
			HDR_BAD(f[i].type_at, "'%s' is of type '%s' (declared at %" PRIu64 ":%u), and %s", f[i].name,
				a->name, a->at.line, a->at.col, a->why);
		if (a->size != sp[i].bits || a->is_signed)
			HDR_BAD(f[i].type_at, "'%s' must be an unsigned %u-bit integer", f[i].name, sp[i].bits);
		if (sp[i].clock && !a->clock[0])
			HDR_BAD(f[i].type_at, "'%s' must be mapped to the clock (map = clock.NAME.value)", f[i].name);
		if (!sp[i].clock && a->clock[0])
			HDR_BAD(f[i].type_at, "'%s' must not be mapped to a clock", f[i].name);
		if (sp[i].clock && M->nrefs < NSPEC(M->refs)) {
			struct clock_ref *r = &M->refs[M->nrefs++];
			memcpy(r->clock, a->clock, sizeof r->clock);
			r->field = sp[i].name;
			r->at = f[i].type_at;
		}
	}
#undef HDR_BAD
	return TRAWL_OK;
}

struct key {
	const char *s;
	size_t n;
	struct pos at;
};

/* One attribute of a block. typed: NAME := ..., the current token the
 * one after ':=', and the handler reads up to the ';'; else NAME = VALUE,
 * the current token the value (left for parse_block to pass). */
typedef enum trawl_status (*attr_fn)(struct meta *M, void *ctx, const struct key *k, int typed,
				     struct trawl_error *err);

/* NAME { attr = value; attr := type; ... };  the current token is NAME;
 * an attribute given twice is an error (one would be dropped). *close: the
 * '}'. */
static enum trawl_status parse_block(struct meta *M, const char *what, attr_fn fn, void *ctx, struct pos *close,
				     struct trawl_error *err)
{
	struct lexer *L = &M->L;
	struct key *keys = NULL;
	size_t nkeys = 0, cap = 0;
	enum trawl_status st = TRAWL_OK;
	char msg[64];
	lex_next(L);
	snprintf(msg, sizeof msg, "expected '{' after '%s'", what);
	if (!tok_is(L, "{"))
		return lex_error(L, err, msg);
	lex_next(L);
	while (!tok_is(L, "}")) {
		if (L->kind != T_IDENT) {
			st = lex_error(L, err, "expected an attribute name");
			goto out;
		}
		struct key k = { L->tok, L->tlen, tok_pos(L) };
		for (size_t i = 0; i < nkeys; i++)
			if (keys[i].n == k.n && memcmp(keys[i].s, k.s, k.n) == 0) {
				st = err_at(err, k.at, "'%.*s' given twice in this %s block (first at %" PRIu64 ":%u)",
					    (int)(k.n < 48 ? k.n : 48), k.s, what, keys[i].at.line, keys[i].at.col);
				goto out;
			}
		if (nkeys == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			void *p = realloc(keys, ncap * sizeof *keys);
			if (!p) {
				st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
				goto out;
			}
			keys = p;
			cap = ncap;
		}
		keys[nkeys++] = k;
		lex_next(L);
		if (L->kind == T_ASSIGN_TYPE) {
			lex_next(L);
			st = fn(M, ctx, &k, 1, err);
		} else {
			if (!tok_is(L, "=")) {
				st = lex_error(L, err, "expected '='");
				goto out;
			}
			lex_next(L);
			if (L->kind != T_NUM && L->kind != T_IDENT && L->kind != T_STR) {
				st = lex_error(L, err, "expected a value");
				goto out;
			}
			st = fn(M, ctx, &k, 0, err);
			if (st == TRAWL_OK)
				lex_next(L);
		}
		if (st)
			goto out;
		if (!tok_is(L, ";")) {
			st = lex_error(L, err, "expected ';'");
			goto out;
		}
		lex_next(L);
	}
	*close = tok_pos(L);
	lex_next(L);
	if (!tok_is(L, ";")) {
		st = lex_error(L, err, "expected ';' after '}'");
		goto out;
	}
	lex_next(L);
out:
	free(keys);
	return st;
}

#define KEY(k) (int)((k)->n < 48 ? (k)->n : 48), (k)->s
#define VAL(L) (int)((L)->tlen < 48 ? (L)->tlen : 48), (L)->tok

static enum trawl_status typed_refused(const struct key *k, const char *block, const char *reads,
				       struct trawl_error *err)
{
	return err_at(err, k->at, "'%.*s :=' in the %s block is not read by trawl (%s)", KEY(k), block, reads);
}

struct trace_ctx {
	int major, minor, bo, ph;
};

static enum trawl_status trace_attr(struct meta *M, void *ctx, const struct key *k, int typed,
				    struct trawl_error *err)
{
	struct trace_ctx *c = ctx;
	struct lexer *L = &M->L;
	if (typed) {
		if (!key_is(k->s, k->n, "packet.header"))
			return typed_refused(k, "trace", "it reads packet.header", err);
		struct field_decl f[TRAWL_SW_MAX_FIELDS];
		size_t n;
		struct pos close;
		char want[400];
		spec_text(want, sizeof want, "packet.header", ph_spec, NSPEC(ph_spec));
		enum trawl_status st = parse_struct(M, want, f, TRAWL_SW_MAX_FIELDS, &n, &close, err);
		if (st == TRAWL_OK)
			st = check_header(M, "packet.header", f, n, close, ph_spec, NSPEC(ph_spec), err);
		c->ph = 1;
		return st;
	}
	if (key_is(k->s, k->n, "major")) {
		if (L->kind != T_NUM || L->num != 1)
			return err_at(err, tok_pos(L), "major = %.*s: trawl reads CTF 1.8 (major = 1)", VAL(L));
		c->major = 1;
	} else if (key_is(k->s, k->n, "minor")) {
		if (L->kind != T_NUM || L->num != 8)
			return err_at(err, tok_pos(L), "minor = %.*s: trawl reads CTF 1.8 (minor = 8)", VAL(L));
		c->minor = 1;
	} else if (key_is(k->s, k->n, "byte_order")) {
		if (!tok_is(L, "le") && !tok_is(L, "be") && !tok_is(L, "network"))
			return err_at(err, tok_pos(L), "byte_order = %.*s is not le, be or network", VAL(L));
		if (tok_is(L, "le") == HOST_BIG)
			return err_at_st(err, TRAWL_ERR_UNSUPPORTED, tok_pos(L),
					 "trace byte order %.*s differs from this machine's: trawl reads traces in the "
					 "byte order of the machine reading them",
					 VAL(L));
		c->bo = 1;
	} else if (!key_is(k->s, k->n, "uuid")) {
		return err_at(err, k->at,
			      "trace attribute '%.*s' is not one trawl reads (major, minor, byte_order, uuid, "
			      "packet.header)",
			      KEY(k));
	}
	return TRAWL_OK;
}

static enum trawl_status env_attr(struct meta *M, void *ctx, const struct key *k, int typed, struct trawl_error *err)
{
	struct lexer *L = &M->L;
	struct trawl_swtrace_info *info = M->info;
	if (typed)
		return typed_refused(k, "env", "env holds values", err);
	if (key_is(k->s, k->n, "procname")) {
		if (L->kind != T_STR)
			return err_at(err, tok_pos(L), "procname must be a string");
		char tmp[sizeof info->procname];
		int r = str_copy(tmp, sizeof tmp, L->tok, L->tlen);
		if (r == -1)
			return err_at(err, tok_pos(L), "procname: an escape trawl does not know (it reads \\\\ \\\" \\n \\t)");
		if (r == -2) { /* shown, not decoded: cut */
			memcpy(tmp, L->tok, sizeof tmp - 1);
			tmp[sizeof tmp - 1] = 0;
		}
		memcpy(info->procname, tmp, sizeof tmp);
	} else if (key_is(k->s, k->n, "pid")) {
		if (L->kind != T_NUM || L->neg || L->num > UINT32_MAX)
			return err_at(err, tok_pos(L), "pid = %.*s is not a process id", VAL(L));
		info->pid = (uint32_t)L->num;
	}
	return TRAWL_OK;
}

struct clock_ctx {
	int name;
	int64_t off_s;
	uint64_t off;
	int off_neg;
};

#define NS 1000000000ll
#define MAX_OFFSET_S (INT64_MAX / NS - 2)

static enum trawl_status clock_attr(struct meta *M, void *ctx, const struct key *k, int typed,
				    struct trawl_error *err)
{
	struct clock_ctx *c = ctx;
	struct lexer *L = &M->L;
	if (typed)
		return typed_refused(k, "clock", "a clock holds values", err);
	if (key_is(k->s, k->n, "name")) {
		if ((L->kind != T_IDENT && L->kind != T_STR) || L->tlen >= sizeof M->clock_name)
			return err_at(err, tok_pos(L), "expected a clock name (at most %zu bytes)",
				      sizeof M->clock_name - 1);
		memcpy(M->clock_name, L->tok, L->tlen);
		M->clock_name[L->tlen] = 0;
		c->name = 1;
	} else if (key_is(k->s, k->n, "freq")) {
		if (L->kind != T_NUM || L->num != (uint64_t)NS)
			return err_at(err, tok_pos(L),
				      "freq = %.*s: trawl reads times in nanoseconds (freq = 1000000000, as its recorder "
				      "writes them) and does not scale other clocks",
				      VAL(L));
	} else if (key_is(k->s, k->n, "offset_s")) {
		if (L->kind != T_NUM || (int64_t)L->num > MAX_OFFSET_S || (int64_t)L->num < -MAX_OFFSET_S)
			return err_at(err, tok_pos(L), "offset_s = %.*s is not a number of seconds trawl can hold",
				      VAL(L));
		c->off_s = (int64_t)L->num;
	} else if (key_is(k->s, k->n, "offset")) {
		if (L->kind != T_NUM)
			return err_at(err, tok_pos(L), "offset = %.*s is not a number of clock cycles", VAL(L));
		c->off = L->neg ? (uint64_t)0 - L->num : L->num;
		c->off_neg = L->neg;
	}
	/* description, uuid, precision, absolute, ...: no part of the times */
	return TRAWL_OK;
}

struct stream_ctx {
	int pc, eh;
};

static enum trawl_status stream_attr(struct meta *M, void *ctx, const struct key *k, int typed,
				     struct trawl_error *err)
{
	struct stream_ctx *c = ctx;
	struct lexer *L = &M->L;
	if (typed) {
		int pc = key_is(k->s, k->n, "packet.context"), eh = key_is(k->s, k->n, "event.header");
		if (!pc && !eh)
			return err_at(err, k->at,
				      "stream %.*s is not read: trawl reads the packet.context and event.header its "
				      "recorder writes (docs/recorder.md)",
				      KEY(k));
		struct field_decl f[TRAWL_SW_MAX_FIELDS];
		size_t n;
		struct pos close;
		char want[400];
		if (pc)
			spec_text(want, sizeof want, "packet.context", pc_spec, NSPEC(pc_spec));
		else
			spec_text(want, sizeof want, "event.header", eh_spec, NSPEC(eh_spec));
		enum trawl_status st = parse_struct(M, want, f, TRAWL_SW_MAX_FIELDS, &n, &close, err);
		if (st == TRAWL_OK)
			st = pc ? check_header(M, "packet.context", f, n, close, pc_spec, NSPEC(pc_spec), err)
				: check_header(M, "event.header", f, n, close, eh_spec, NSPEC(eh_spec), err);
		if (pc)
			c->pc = 1;
		else
			c->eh = 1;
		return st;
	}
	if (!key_is(k->s, k->n, "id"))
		return err_at(err, k->at,
			      "stream attribute '%.*s' is not one trawl reads (id, packet.context, event.header)",
			      KEY(k));
	if (L->kind != T_NUM || L->neg || L->num > UINT32_MAX)
		return err_at(err, tok_pos(L), "expected a stream id (0 .. 4294967295)");
	M->sid = (uint32_t)L->num;
	return TRAWL_OK;
}

struct event_ctx {
	struct trawl_sw_class *c;
	struct ev_at *at;
	int name, id, fields;
};

static enum trawl_status event_attr(struct meta *M, void *ctx, const struct key *k, int typed,
				    struct trawl_error *err)
{
	struct event_ctx *e = ctx;
	struct trawl_sw_class *c = e->c;
	struct lexer *L = &M->L;
	if (typed) {
		if (key_is(k->s, k->n, "context"))
			return err_at(err, k->at, "an event context: trawl's events have none (docs/recorder.md)");
		if (!key_is(k->s, k->n, "fields"))
			return typed_refused(k, "event", "it reads fields", err);
		struct field_decl f[TRAWL_SW_MAX_FIELDS];
		size_t n;
		struct pos close;
		enum trawl_status st = parse_struct(M, NULL, f, TRAWL_SW_MAX_FIELDS, &n, &close, err);
		if (st)
			return st;
		for (size_t i = 0; i < n; i++) {
			const struct alias *a = f[i].a;
			for (size_t j = 0; j < i; j++)
				if (strcmp(f[j].name, f[i].name) == 0)
					return err_at(err, f[i].name_at,
						      "field '%s' declared twice in this event (first at %" PRIu64 ":%u)",
						      f[i].name, f[j].name_at.line, f[j].name_at.col);
			if (!a->type)
				return err_at(err, f[i].type_at, "field '%s' is of type '%s' (declared at %" PRIu64 ":%u), and %s",
					      f[i].name, a->name, a->at.line, a->at.col, a->why);
			if (a->clock[0])
				return err_at(err, f[i].type_at,
					      "field '%s' is mapped to clock '%s': trawl takes event times from the event "
					      "header only",
					      f[i].name, a->clock);
			memcpy(c->fields[i].name, f[i].name, sizeof c->fields[i].name);
			c->fields[i].type = (uint8_t)a->type;
		}
		c->nfields = (unsigned)n;
		e->fields = 1;
		return TRAWL_OK;
	}
	if (key_is(k->s, k->n, "name")) {
		if (L->kind != T_STR && L->kind != T_IDENT)
			return err_at(err, tok_pos(L), "expected an event name");
		int r = L->kind == T_STR ? str_copy(c->name, sizeof c->name, L->tok, L->tlen) : L->tlen < sizeof c->name ? 0 : -2;
		if (r == -1)
			return err_at(err, tok_pos(L), "event name: an escape trawl does not know (it reads \\\\ \\\" \\n \\t)");
		if (r == -2)
			return err_at(err, tok_pos(L), "event name longer than %zu bytes", sizeof c->name - 1);
		if (L->kind == T_IDENT) {
			memcpy(c->name, L->tok, L->tlen);
			c->name[L->tlen] = 0;
		}
		e->name = 1;
	} else if (key_is(k->s, k->n, "id")) {
		if (L->kind != T_NUM || L->neg || L->num > UINT32_MAX)
			return err_at(err, tok_pos(L), "expected an event id (0 .. 4294967295)");
		c->id = (uint32_t)L->num;
		e->at->id = c->id;
		e->at->id_at = tok_pos(L);
		e->id = 1;
	} else if (key_is(k->s, k->n, "stream_id")) {
		if (L->kind != T_NUM || L->neg)
			return err_at(err, tok_pos(L), "expected a stream id");
		e->at->has_sid = 1;
		e->at->sid = L->num;
		e->at->sid_at = tok_pos(L);
	} else if (key_is(k->s, k->n, "loglevel")) {
		if (L->kind != T_NUM)
			return err_at(err, tok_pos(L), "expected a log level");
	} else if (!key_is(k->s, k->n, "model.emf.uri")) {
		return err_at(err, k->at,
			      "event attribute '%.*s' is not one trawl reads (name, id, stream_id, loglevel, "
			      "model.emf.uri, fields)",
			      KEY(k));
	}
	return TRAWL_OK;
}

static int class_cmp(const void *a, const void *b)
{
	const struct trawl_sw_class *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int ev_at_cmp(const void *a, const void *b)
{
	const struct ev_at *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->id_at.off < y->id_at.off ? -1 : x->id_at.off > y->id_at.off;
}

/* A second block of a kind the trace has one of. */
static enum trawl_status block_twice(struct meta *M, const char *what, struct pos first, struct trawl_error *err)
{
	return err_at(err, tok_pos(&M->L), "a second %s block (the first at %" PRIu64 ":%u): trawl reads one, as its recorder writes it",
		      what, first.line, first.col);
}

/* A flat dispatch on the block keyword; an unknown block is an error, not
 * skipped, since trawl reads only the subset it writes. What can only be
 * checked once the whole text is read comes at the end: that the trace and
 * stream blocks were there, the clock the timestamps map to, each event's
 * stream_id, and that no two events share an id. Classes are sorted by id,
 * so lookups can bisect. */
enum trawl_status ctf_metadata_parse(const char *text, size_t len, struct trawl_sw_class **classes,
				       size_t *nclasses, struct trawl_swtrace_info *info, struct stream_ids *ids,
				       struct trawl_error *err)
{
	struct meta *M = calloc(1, sizeof *M);
	size_t n = 0, cap = 0;
	struct trawl_sw_class *cls = NULL;
	struct ev_at *evs = NULL;
	enum trawl_status st = TRAWL_OK;
	*classes = NULL;
	*nclasses = 0;
	if (!M)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	struct lexer *L = &M->L;
	L->s = text;
	L->len = len;
	L->line = 1;
	M->info = info;
	if (len < 11 || memcmp(text, "/* CTF 1.8", 10) != 0) {
		trawl_error_set(err, TRAWL_ERR_FORMAT, "metadata does not start with '/* CTF 1.8' (packetized metadata is not supported)");
		trawl_error_at(err, "metadata", 1, 1, 0);
		free(M);
		return TRAWL_ERR_FORMAT;
	}
	lex_next(L);
	while (L->kind != T_END) {
		struct pos at = tok_pos(L), close;
		if (L->kind == T_BAD) {
			st = lex_error(L, err, "bad token");
		} else if (tok_is(L, "typealias")) {
			st = parse_typealias(M, err);
		} else if (tok_is(L, "clock")) {
			struct clock_ctx c = { 0 };
			if (M->have_clock)
				st = block_twice(M, "clock", M->clock_at, err);
			else if ((st = parse_block(M, "clock", clock_attr, &c, &close, err)) == TRAWL_OK && !c.name)
				st = err_at(err, close, "clock without a name");
			if (st == TRAWL_OK) {
				/* offset is in cycles of 1 ns: whole seconds in it are seconds */
				int64_t s = c.off_s + (int64_t)(c.off / (uint64_t)NS) * (c.off_neg ? -1 : 1);
				int64_t ns = (int64_t)(c.off % (uint64_t)NS) * (c.off_neg ? -1 : 1);
				if (ns < 0) {
					s--;
					ns += NS;
				}
				if (s > MAX_OFFSET_S || s < -MAX_OFFSET_S)
					st = err_at(err, close, "clock offset out of range");
				info->clock_offset_s = s;
				info->clock_offset_ns = (uint32_t)ns;
				M->have_clock = 1;
				M->clock_at = at;
			}
		} else if (tok_is(L, "env")) {
			if (M->have_env)
				st = block_twice(M, "env", M->env_at, err);
			else
				st = parse_block(M, "env", env_attr, NULL, &close, err);
			M->have_env = 1;
			M->env_at = at;
		} else if (tok_is(L, "trace")) {
			struct trace_ctx c = { 0 };
			if (M->have_trace)
				st = block_twice(M, "trace", M->trace_at, err);
			else if ((st = parse_block(M, "trace", trace_attr, &c, &close, err)) == TRAWL_OK) {
				if (!c.major || !c.minor)
					st = err_at(err, close, "trace without major and minor: trawl reads CTF 1.8");
				else if (!c.bo)
					st = err_at(err, close, "trace without a byte_order");
				else if (!c.ph)
					st = check_header(M, "packet.header", NULL, 0, close, ph_spec, NSPEC(ph_spec), err);
			}
			M->have_trace = 1;
			M->trace_at = at;
		} else if (tok_is(L, "stream")) {
			struct stream_ctx c = { 0 };
			if (M->have_stream) {
				st = block_twice(M, "stream", M->stream_at, err);
			} else if ((st = parse_block(M, "stream", stream_attr, &c, &close, err)) == TRAWL_OK) {
				if (!c.pc)
					st = check_header(M, "packet.context", NULL, 0, close, pc_spec, NSPEC(pc_spec), err);
				else if (!c.eh)
					st = check_header(M, "event.header", NULL, 0, close, eh_spec, NSPEC(eh_spec), err);
			}
			if (st == TRAWL_OK)
				ctf_stream_ids_add(ids, M->sid);
			M->have_stream = 1;
			M->stream_at = at;
		} else if (tok_is(L, "event")) {
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 32;
				void *p = realloc(cls, ncap * sizeof *cls), *q = p ? realloc(evs, ncap * sizeof *evs) : NULL;
				if (p)
					cls = p;
				if (q)
					evs = q;
				if (!p || !q) {
					st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
					goto out;
				}
				cap = ncap;
			}
			memset(&cls[n], 0, sizeof cls[n]);
			memset(&evs[n], 0, sizeof evs[n]);
			struct event_ctx e = { &cls[n], &evs[n], 0, 0, 0 };
			st = parse_block(M, "event", event_attr, &e, &close, err);
			if (st == TRAWL_OK && !e.name)
				st = err_at(err, close, "event without a name");
			else if (st == TRAWL_OK && !e.id)
				st = err_at(err, close, "event without an id");
			if (st == TRAWL_OK)
				n++;
		} else {
			st = err_at(err, at,
				    "unexpected '%.*s' at top level: trawl reads typealias, trace, env, clock, stream "
				    "and event blocks",
				    VAL(L));
		}
		if (st)
			goto out;
	}
	struct pos end = tok_pos(L);
	if (!M->have_trace || !M->have_stream) {
		st = err_at(err, end,
			    "no %s block: trawl reads the trace, clock and stream blocks its recorder writes "
			    "(docs/recorder.md)",
			    M->have_trace ? "stream" : "trace");
		goto out;
	}
	for (size_t i = 0; i < M->nrefs; i++) {
		const struct clock_ref *r = &M->refs[i];
		if (!M->have_clock || strcmp(r->clock, M->clock_name) != 0) {
			if (M->have_clock)
				st = err_at(err, r->at, "'%s' is mapped to clock '%s', but the metadata's clock is '%s'",
					    r->field, r->clock, M->clock_name);
			else
				st = err_at(err, r->at, "'%s' is mapped to clock '%s', but the metadata declares no clock",
					    r->field, r->clock);
			goto out;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (evs[i].has_sid && evs[i].sid != M->sid) {
			st = err_at(err, evs[i].sid_at,
				    "stream_id = %" PRIu64 ", but the stream block is stream %u (trawl reads traces of one "
				    "stream class, as its recorder writes them)",
				    evs[i].sid, M->sid);
			goto out;
		}
	if (n) {
		qsort(evs, n, sizeof *evs, ev_at_cmp);
		for (size_t i = 1; i < n; i++)
			if (evs[i].id == evs[i - 1].id) {
				st = err_at(err, evs[i].id_at, "two events with id %u (the other at %" PRIu64 ":%u)", evs[i].id,
					    evs[i - 1].id_at.line, evs[i - 1].id_at.col);
				goto out;
			}
		qsort(cls, n, sizeof *cls, class_cmp);
	}
	*classes = cls;
	*nclasses = n;
	cls = NULL;
out:
	free(cls);
	free(evs);
	free(M);
	return st;
}

enum trawl_status trawl_swtrace_parse_metadata(const char *text, size_t len, struct trawl_sw_class **classes,
					   size_t *nclasses, struct trawl_swtrace_info *info, struct trawl_error *err)
{
	struct stream_ids ids = { .n = 0 };
	return ctf_metadata_parse(text, len, classes, nclasses, info, &ids, err);
}
