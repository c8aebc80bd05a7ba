/* The .tdef lexer and the small token helpers both definitions parsers
 * (events in defs.c, activities in defs-activity.c) use, so the two report
 * errors the same way: file, line, column and the offending line. */
#include "events/defs-int.h"
#include "events/text-skip.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void defs_lex_next(struct lex *L)
{
	L->pos = text_skip(L->s, L->len, L->pos, &L->line, &L->line_start, 1);
	L->tline = L->line;
	L->tcol = (uint32_t)(L->pos - L->line_start + 1);
	L->tok = L->s + L->pos;
	L->tlen = 0;
	if (L->pos >= L->len) {
		L->kind = K_END;
		return;
	}
	char c = L->s[L->pos];
	if (isalpha((unsigned char)c) || c == '_') {
		size_t p = L->pos;
		while (p < L->len && (isalnum((unsigned char)L->s[p]) || L->s[p] == '_'))
			p++;
		L->kind = K_NAME;
		L->tlen = p - L->pos;
		L->pos = p;
	} else if (c == '"') {
		size_t p = L->pos + 1;
		while (p < L->len && L->s[p] != '"' && L->s[p] != '\n')
			p += (L->s[p] == '\\' && p + 1 < L->len && L->s[p + 1] != '\n') ? 2 : 1;
		if (p >= L->len || L->s[p] != '"') {
			L->kind = K_BAD;
			L->pos = p;
			return;
		}
		L->kind = K_STR;
		L->tok = L->s + L->pos + 1;
		L->tlen = p - L->pos - 1;
		L->pos = p + 1;
	} else {
		L->kind = K_PUNCT;
		L->tlen = 1;
		L->pos++;
	}
}

int defs_lex_is(const struct lex *L, const char *w)
{
	size_t n = strlen(w);
	return (L->kind == K_NAME || L->kind == K_PUNCT) && L->tlen == n && memcmp(L->tok, w, n) == 0;
}

enum trawl_status defs_lex_fail(struct lex *L, struct trawl_error *err, uint64_t line, uint32_t col, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	trawl_error_set(err, TRAWL_ERR_FORMAT, "%s", msg);
	trawl_error_at(err, L->file, line, col, 0);
	/* the offending line as an excerpt */
	size_t ls = 0;
	uint64_t ln = 1;
	for (size_t i = 0; i < L->len && ln < line; i++)
		if (L->s[i] == '\n') {
			ln++;
			ls = i + 1;
		}
	size_t le = ls;
	while (le < L->len && L->s[le] != '\n')
		le++;
	trawl_error_excerpt(err, L->s + ls, le - ls);
	return TRAWL_ERR_FORMAT;
}


/* Copy a string token's text (escapes kept as written except \" and \\). */
char *defs_str_dup(const char *s, size_t n)
{
	char *d = malloc(n + 1), *q = d;
	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && (s[i + 1] == '"' || s[i + 1] == '\\'))
			i++;
		*q++ = s[i];
	}
	*q = 0;
	return d;
}

enum trawl_status defs_take_name(struct lex *L, struct trawl_error *err, char *dst, size_t cap, const char *what)
{
	if (L->kind != K_NAME)
		return DEFS_FAIL_HERE("expected %s name", what);
	if (L->tlen >= cap)
		return DEFS_FAIL_HERE("%s name longer than %zu characters", what, cap - 1);
	memcpy(dst, L->tok, L->tlen);
	dst[L->tlen] = 0;
	if (defs_name_reserved(dst))
		return DEFS_FAIL_HERE("'%s' is a reserved word and cannot name a %s", dst, what);
	defs_lex_next(L);
	return TRAWL_OK;
}

enum trawl_status defs_take_desc(struct lex *L, struct trawl_error *err, char **dst)
{
	if (L->kind == K_BAD)
		return DEFS_FAIL_HERE("unterminated string");
	if (L->kind != K_STR)
		return TRAWL_OK;
	if (!(*dst = defs_str_dup(L->tok, L->tlen)))
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	defs_lex_next(L);
	return TRAWL_OK;
}
