/* What the two definitions readers (.tdef in defs.c, JSON in defs-json.c)
 * share, so both refuse the same names. */
#ifndef TRAWL_EVENTS_DEFS_INT_H
#define TRAWL_EVENTS_DEFS_INT_H

/* A C, C++ or CTF keyword, which would break the generated header or the
 * trace's metadata as a name. */
int defs_name_reserved(const char *s);

/* ---- the .tdef lexer (defs-lex.c), shared by the event and activity
 * parsers (defs.c, defs-activity.c) ---- */

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

enum { K_END, K_NAME, K_STR, K_PUNCT, K_BAD };

struct lex {
	const char *s;
	size_t len, pos, line_start;
	uint64_t line;
	int kind;
	const char *tok;
	size_t tlen;
	uint64_t tline;
	uint32_t tcol;
	const char *file;
};

void defs_lex_next(struct lex *L);
/* Is the current token the word or punctuation w? */
int defs_lex_is(const struct lex *L, const char *w);
/* Set err (TRAWL_ERR_FORMAT) at line:col with the line as excerpt. */
enum trawl_status defs_lex_fail(struct lex *L, struct trawl_error *err, uint64_t line, uint32_t col,
				const char *fmt, ...) __attribute__((format(printf, 5, 6)));
#define DEFS_FAIL_HERE(...) defs_lex_fail(L, err, L->tline, L->tcol, __VA_ARGS__)
/* A string token's text, malloc'd (escapes kept except \" and \\). */
char *defs_str_dup(const char *s, size_t n);
/* A name token (not a reserved word) copied into dst, then the next token. */
enum trawl_status defs_take_name(struct lex *L, struct trawl_error *err, char *dst, size_t cap, const char *what);
/* An optional description string into *dst. */
enum trawl_status defs_take_desc(struct lex *L, struct trawl_error *err, char **dst);

struct trawl_defs;
/* `activity NAME [DESC] KIND { clause; ... } [;]` at the current token
 * (defs-activity.c), appended to d->activities. */
enum trawl_status defs_parse_activity(struct lex *L, struct trawl_defs *d, struct trawl_error *err);
/* After the whole file: the events and fields activities name exist. */
enum trawl_status defs_check_activities(struct lex *L, const struct trawl_defs *d, struct trawl_error *err);

#endif
