/* Address expressions, as people type them in views: numbers, names and
 * + / - with parentheses, e.g. `x19 + 0x18`, `main-8`, `0x40010000`,
 * `(x0 - x1) + 16`.
 *
 * Names are resolved by the caller (registers at the current event,
 * symbols of a program image), so the evaluator knows nothing about traces
 * and can be used by every view and command. Arithmetic wraps modulo 2^64,
 * like addresses do.
 */
#ifndef TRAWL_EXPR_H
#define TRAWL_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

/* Result of resolving one name. */
enum trawl_expr_name {
	TRAWL_EXPR_NAME_OK = 0,        /* *value was set */
	TRAWL_EXPR_NAME_UNKNOWN_NAME,  /* no register or symbol of that name */
	TRAWL_EXPR_NAME_NO_VALUE,      /* the name exists but its value is unknown here */
};

/* Resolve `name` (len bytes, not NUL-terminated). */
typedef enum trawl_expr_name (*trawl_expr_lookup)(void *ctx, const char *name, size_t len,
						  uint64_t *value);

/* Evaluate `text`. Grammar:
 *   expr    := term { ('+' | '-') term }
 *   term    := ['-' | '+'] primary
 *   primary := NUMBER | NAME | '(' expr ')'
 *   NUMBER  := decimal digits, or 0x/0X followed by hex digits
 *   NAME    := [A-Za-z_.$] [A-Za-z0-9_.$]* { '::' ['~'] name | <...> | (...) [' const'] }
 *              (the C++ part so that demangled names such as
 *              `Lexer::next()` or `Parser::add(unsigned int&)` are one name)
 * Spaces and tabs are ignored between tokens. lookup may be NULL (then any
 * name is unknown). On failure err->column is the 1-based column of the
 * offending token and the status is TRAWL_ERR_USAGE (bad syntax, unknown
 * name) or TRAWL_ERR_NOT_FOUND (a name whose value is unknown). */
enum trawl_status trawl_expr_eval(const char *text, trawl_expr_lookup lookup, void *ctx,
				  uint64_t *out, struct trawl_error *err);

/* ---- conditions (event filters: `--where 'len > 100 && port == 80'`) ----
 *
 * The same numbers, names and spacing, with C's operators and precedence:
 *   || && | ^ & == != < <= > >= << >> + - * / %, unary - ! ~, parentheses.
 * Values are the integers they say: signed 64-bit, or unsigned ones of
 * 2^63 and more (a name the caller marks unsigned, a number that big),
 * which compare above every signed one; arithmetic wraps modulo 2^64, and
 * the result of an unsigned operand (the left one of a shift) is unsigned
 * when it is 2^63 or more; / % >> work as C's on uint64_t then, else as
 * on int64_t (>> keeps the sign). A condition is true when not 0. Names are plain identifiers, resolved
 * once when compiling (resolve returns a symbol number >= 0, or -1 for an
 * unknown name: an error at its column); a run reads their values from
 * the caller's arrays. */
struct trawl_expr;
typedef int (*trawl_expr_resolve)(void *ctx, const char *name, size_t len);

enum trawl_status trawl_expr_compile(const char *text, trawl_expr_resolve resolve, void *ctx,
				     struct trawl_expr **out, struct trawl_error *err);
/* Run with symbol s worth a[map[s]] when map[s] >= 0, b[-2 - map[s]] when
 * map[s] <= -2, and unknown when map[s] == -1 (map NULL: all unknown);
 * usym[s] not 0: its value's bits are unsigned (usym NULL: all signed).
 * 0 and *out set; -1 when the result is unknown: an unknown name (or a
 * division by 0) makes what it takes part in unknown, except that a
 * known true side decides '||' and a known false side '&&' (a filter
 * drops an event whose condition is unknown). */
int trawl_expr_run(const struct trawl_expr *e, const int16_t *map, const int64_t *a, const int64_t *b,
		   const uint8_t *usym, int64_t *out);
/* A condition made only of NAME cmp NUMBER terms all joined by || or all
 * by && (the usual filter) can be run by a caller per case of its own
 * (sw-filter.c, per event class): the terms, up to max of them into t,
 * *is_or saying which join; the count, 0 for any other shape or more than
 * max terms. A term is true when the value of sym, less lo, is at most
 * span as unsigned numbers, xor neg (an interval of signed values, so no
 * branch on the kind of comparison); cmp, k and k_unsigned are the term
 * as written. */
struct trawl_expr_term {
	int sym;
	uint64_t lo, span;
	int neg;
	int cmp;
	int64_t k;
	int k_unsigned;
};
size_t trawl_expr_chain(const struct trawl_expr *e, int *is_or, struct trawl_expr_term *t, size_t max);
/* lo, span and neg for a symbol whose values are unsigned (0..2^64-1). */
void trawl_expr_term_unsigned(struct trawl_expr_term *t);
void trawl_expr_free(struct trawl_expr *e);

#endif
