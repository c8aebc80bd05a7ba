/* Address expressions: a small recursive-descent evaluator (see expr.h).
 * Nesting is limited so that hostile text cannot exhaust the stack. */
#include "trawl/expr.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

struct parser {
	const char *s;
	size_t pos;
	trawl_expr_lookup lookup;
	void *ctx;
	struct trawl_error *err;
	int depth;
	/* conditions only */
	trawl_expr_resolve resolve;
	struct trawl_expr *prog;
};

static void skip_space(struct parser *p)
{
	while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t')
		p->pos++;
}

static enum trawl_status fail(struct parser *p, size_t at, enum trawl_status st, const char *what,
			      const char *tok, size_t toklen)
{
	if (tok)
		trawl_error_set(p->err, st, "%s '%.*s'", what, (int)(toklen > 64 ? 64 : toklen),
				tok);
	else
		trawl_error_set(p->err, st, "%s", what);
	trawl_error_at(p->err, NULL, 0, (uint32_t)at + 1, at);
	return st;
}

static int is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' ||
	       c == '$';
}

static int is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static enum trawl_status number(struct parser *p, uint64_t *out)
{
	size_t start = p->pos;
	uint64_t v = 0;
	const char *s = p->s;
	if (s[p->pos] == '0' && (s[p->pos + 1] == 'x' || s[p->pos + 1] == 'X')) {
		p->pos += 2;
		size_t digits = 0;
		int d;
		while ((d = hex_digit(s[p->pos])) >= 0) {
			if (v >> 60)
				return fail(p, start, TRAWL_ERR_USAGE, "number too large", s + start,
					    p->pos - start + 1);
			v = v << 4 | (uint64_t)d;
			p->pos++;
			digits++;
		}
		if (!digits)
			return fail(p, start, TRAWL_ERR_USAGE, "hex number needs digits", NULL, 0);
	} else {
		while (s[p->pos] >= '0' && s[p->pos] <= '9') {
			uint64_t d = (uint64_t)(s[p->pos] - '0');
			if (v > (UINT64_MAX - d) / 10)
				return fail(p, start, TRAWL_ERR_USAGE, "number too large", s + start,
					    p->pos - start + 1);
			v = v * 10 + d;
			p->pos++;
		}
	}
	if (is_name_char(s[p->pos])) {
		size_t end = p->pos;
		while (is_name_char(s[end]))
			end++;
		return fail(p, start, TRAWL_ERR_USAGE, "bad number", s + start, end - start);
	}
	*out = v;
	return TRAWL_OK;
}

/* The ')' after a parenthesised expression (both grammars). */
static enum trawl_status close_paren(struct parser *p)
{
	skip_space(p);
	if (p->s[p->pos] != ')')
		return fail(p, p->pos, TRAWL_ERR_USAGE, "missing ')'", NULL, 0);
	p->pos++;
	p->depth--;
	return TRAWL_OK;
}

/* What no primary can start with (both grammars). */
static enum trawl_status bad_primary(struct parser *p, size_t start)
{
	if (!p->s[start])
		return fail(p, start, TRAWL_ERR_USAGE, "expression ends too soon", NULL, 0);
	return fail(p, start, TRAWL_ERR_USAGE, "unexpected", p->s + start, 1);
}

static enum trawl_status expr(struct parser *p, uint64_t *out);

/* Where a demangled C++ name that starts with the plain name ending at
 * `end` ends: `Lexer::next()`, `Parser::add(unsigned int&)`,
 * `std::vector<int>::size() const`. Only ::, <...> and (...) after a
 * name extend it; none of them can follow a name in the grammar, so a
 * plain expression never reads differently. Unbalanced brackets: no
 * extension (the caller reports the plain name's neighbour). */
static size_t cxx_name_end(const char *s, size_t end)
{
	size_t i = end;
	for (;;) {
		if (s[i] == ':' && s[i + 1] == ':') {
			i += 2;
			if (s[i] == '~')
				i++;
			if (!is_name_start(s[i]))
				return end;
			while (is_name_char(s[i]))
				i++;
			continue;
		}
		if (s[i] == '<' || s[i] == '(') {
			char open = s[i], close = open == '<' ? '>' : ')';
			int depth = 0;
			do {
				if (!s[i])
					return end;
				depth += s[i] == open;
				depth -= s[i] == close;
				i++;
			} while (depth > 0);
			if (close == ')' && strncmp(s + i, " const", 6) == 0 &&
			    !is_name_char(s[i + 6]))
				i += 6;
			continue;
		}
		return i;
	}
}

/* Names are read as C++ names (templates, argument lists, "const") so a
 * demangled symbol can be used as it is printed; what a name means is left
 * to the caller's lookup, which tells an unknown name from one with no value
 * at this point. Brackets count towards MAX_DEPTH so hostile text cannot
 * exhaust the stack. */
static enum trawl_status primary(struct parser *p, uint64_t *out)
{
	skip_space(p);
	const char *s = p->s;
	size_t start = p->pos;
	char c = s[start];
	if (c >= '0' && c <= '9')
		return number(p, out);
	if (is_name_start(c)) {
		while (is_name_char(s[p->pos]))
			p->pos++;
		p->pos = cxx_name_end(s, p->pos);
		size_t len = p->pos - start;
		enum trawl_expr_name r = TRAWL_EXPR_NAME_UNKNOWN_NAME;
		if (p->lookup)
			r = p->lookup(p->ctx, s + start, len, out);
		if (r == TRAWL_EXPR_NAME_OK)
			return TRAWL_OK;
		if (r == TRAWL_EXPR_NAME_NO_VALUE)
			return fail(p, start, TRAWL_ERR_NOT_FOUND, "value unknown here:", s + start,
				    len);
		return fail(p, start, TRAWL_ERR_USAGE, "no register or symbol", s + start, len);
	}
	if (c == '(') {
		if (++p->depth > MAX_DEPTH)
			return fail(p, start, TRAWL_ERR_USAGE, "parentheses nested too deeply", NULL,
				    0);
		p->pos++;
		enum trawl_status st = expr(p, out);
		return st ? st : close_paren(p);
	}
	return bad_primary(p, start);
}

static enum trawl_status term(struct parser *p, uint64_t *out)
{
	skip_space(p);
	int neg = 0;
	/* one unary sign; "--x" is more likely a typo than an intent */
	if (p->s[p->pos] == '-' || p->s[p->pos] == '+') {
		neg = p->s[p->pos] == '-';
		p->pos++;
	}
	enum trawl_status st = primary(p, out);
	if (!st && neg)
		*out = (uint64_t)0 - *out;
	return st;
}

static enum trawl_status expr(struct parser *p, uint64_t *out)
{
	uint64_t v, t;
	enum trawl_status st = term(p, &v);
	if (st)
		return st;
	for (;;) {
		skip_space(p);
		char op = p->s[p->pos];
		if (op != '+' && op != '-')
			break;
		p->pos++;
		skip_space(p);
		if (p->s[p->pos] == '+' || p->s[p->pos] == '-')
			return fail(p, p->pos, TRAWL_ERR_USAGE, "two operators in a row", NULL, 0);
		if ((st = primary(p, &t)))
			return st;
		v = op == '+' ? v + t : v - t;
	}
	*out = v;
	return TRAWL_OK;
}

enum trawl_status trawl_expr_eval(const char *text, trawl_expr_lookup lookup, void *ctx,
				  uint64_t *out, struct trawl_error *err)
{
	struct parser p = { text, 0, lookup, ctx, err, 0, NULL, NULL };
	uint64_t v;
	trawl_error_clear(err);
	if (!text)
		return trawl_error_set(err, TRAWL_ERR_USAGE, "no expression");
	enum trawl_status st = expr(&p, &v);
	if (st)
		return st;
	skip_space(&p);
	if (text[p.pos]) {
		if (text[p.pos] == ')')
			return fail(&p, p.pos, TRAWL_ERR_USAGE, "unmatched ')'", NULL, 0);
		return fail(&p, p.pos, TRAWL_ERR_USAGE, "unexpected", text + p.pos, 1);
	}
	*out = v;
	return TRAWL_OK;
}

/* ---- conditions: compiled to postfix code run over a value stack ----
 *
 * Postfix keeps a run free of recursion however the text is shaped (a
 * chain of 10000 '+' is two stack slots); the deepest stack is known when
 * compiling. Parentheses and unary operators count towards MAX_DEPTH, so
 * the recursive-descent compiler itself is bounded too. */

enum {
	OP_NUM, OP_SYM, OP_NEG, OP_NOT, OP_INV, OP_OR, OP_AND, OP_BOR, OP_BXOR, OP_BAND, OP_EQ, OP_NE,
	OP_LT, OP_LE, OP_GT, OP_GE, OP_SHL, OP_SHR, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
	OP_SYM_CMP,                  /* NAME cmp NUMBER, fused (the usual filter term) */
};

struct cop {
	int op, cmp;                 /* OP_SYM_CMP: the comparison */
	int64_t v;                   /* OP_NUM: the number; OP_SYM(_CMP): the symbol */
	int64_t k;                   /* OP_SYM_CMP: the number */
	uint8_t ku;                  /* the number (v of OP_NUM, k of OP_SYM_CMP) is
	                                2^63 or more: its bits read unsigned */
};

struct trawl_expr {
	struct cop *code;
	size_t n, cap;
	int depth, max_depth;        /* stack while compiling, and its peak */
	int failed;                  /* out of memory */
	int chain;                   /* OP_OR/OP_AND: the code is terms joined by it (chain_of) */
};

static void emit(struct parser *p, int op, int64_t v)
{
	struct trawl_expr *e = p->prog;
	if (e->n == e->cap) {
		size_t ncap = e->cap ? e->cap * 2 : 16;
		struct cop *c = realloc(e->code, ncap * sizeof *c);
		if (!c) {
			e->failed = 1;
			return;
		}
		e->code = c;
		e->cap = ncap;
	}
	e->code[e->n++] = (struct cop){ op, 0, v, 0, 0 };
	e->depth += op <= OP_SYM ? 1 : op <= OP_INV ? 0 : -1;
	if (e->depth > e->max_depth)
		e->max_depth = e->depth;
}

/* Binary operators by precedence level, lowest first. */
static const struct {
	const char *text;
	int op, level;
} binops[] = {
	{ "||", OP_OR, 0 }, { "&&", OP_AND, 1 }, { "|", OP_BOR, 2 }, { "^", OP_BXOR, 3 }, { "&", OP_BAND, 4 },
	{ "==", OP_EQ, 5 }, { "!=", OP_NE, 5 }, { "<=", OP_LE, 6 }, { ">=", OP_GE, 6 }, { "<<", OP_SHL, 7 },
	{ ">>", OP_SHR, 7 }, { "<", OP_LT, 6 }, { ">", OP_GT, 6 }, { "+", OP_ADD, 8 }, { "-", OP_SUB, 8 },
	{ "*", OP_MUL, 9 }, { "/", OP_DIV, 9 }, { "%", OP_MOD, 9 },
};
#define LEVELS 10

/* The binary operator at the current position of precedence `level`, or
 * -1. Two-character operators are tried first, so '<' is not read in '<='
 * and '|' not in '||'. */
static int binop_at(struct parser *p, int level, size_t *len)
{
	const char *s = p->s + p->pos;
	for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++) {
		size_t n = strlen(binops[i].text);
		if (strncmp(s, binops[i].text, n))
			continue;
		if (binops[i].level != level)
			return -1;
		*len = n;
		return (int)i;
	}
	return -1;
}

static enum trawl_status cond_level(struct parser *p, int level);

/* Unary operators, numbers, names and parentheses; unary operators and
 * parentheses both count towards MAX_DEPTH, so `!!!!...` cannot exhaust
 * the stack either. A name is resolved here, once, so runs never look one
 * up. */
static enum trawl_status cond_primary(struct parser *p)
{
	skip_space(p);
	const char *s = p->s;
	size_t start = p->pos;
	char c = s[start];
	if (c == '-' || c == '!' || c == '~' || c == '+') {
		if (++p->depth > MAX_DEPTH)
			return fail(p, start, TRAWL_ERR_USAGE, "expression nested too deeply", NULL, 0);
		p->pos++;
		enum trawl_status st = cond_primary(p);
		if (st)
			return st;
		p->depth--;
		struct cop *last = p->prog->n ? &p->prog->code[p->prog->n - 1] : NULL;
		/* -NUMBER is a number (so `x > -5` stays one fused term) when
		 * the integer fits (-2^63..2^63); the operand was that number
		 * alone when it is the last instruction */
		if (c == '-' && last && last->op == OP_NUM && (!last->ku || (uint64_t)last->v == (uint64_t)1 << 63)) {
			last->ku = !last->ku && last->v == INT64_MIN; /* -(-2^63) */
			last->v = (int64_t)(0 - (uint64_t)last->v);
		} else if (c != '+')
			emit(p, c == '-' ? OP_NEG : c == '!' ? OP_NOT : OP_INV, 0);
		return TRAWL_OK;
	}
	if (c >= '0' && c <= '9') {
		uint64_t v;
		enum trawl_status st = number(p, &v);
		if (!st) {
			emit(p, OP_NUM, (int64_t)v);
			if (!p->prog->failed)
				p->prog->code[p->prog->n - 1].ku = v > (uint64_t)INT64_MAX;
		}
		return st;
	}
	if (is_name_start(c)) {
		while (is_name_char(s[p->pos]))
			p->pos++;
		int sym = p->resolve ? p->resolve(p->ctx, s + start, p->pos - start) : -1;
		if (sym < 0)
			return fail(p, start, TRAWL_ERR_USAGE, "no field or name", s + start, p->pos - start);
		emit(p, OP_SYM, sym);
		return TRAWL_OK;
	}
	if (c == '(') {
		if (++p->depth > MAX_DEPTH)
			return fail(p, start, TRAWL_ERR_USAGE, "parentheses nested too deeply", NULL, 0);
		p->pos++;
		enum trawl_status st = cond_level(p, 0);
		return st ? st : close_paren(p);
	}
	return bad_primary(p, start);
}

static enum trawl_status cond_level(struct parser *p, int level)
{
	enum trawl_status st = level == LEVELS ? cond_primary(p) : cond_level(p, level + 1);
	if (st || level == LEVELS)
		return st;
	for (;;) {
		skip_space(p);
		size_t len;
		int i = binop_at(p, level, &len);
		if (i < 0)
			return TRAWL_OK;
		p->pos += len;
		if ((st = cond_level(p, level + 1)))
			return st;
		emit(p, binops[i].op, 0);
	}
}

/* NAME, NUMBER, comparison -> one instruction: a filter such as
 * `len > 100 && port == 80` then runs three instructions, not seven. The
 * stack depth only shrinks, so max_depth stays an upper bound. */
static void fuse(struct trawl_expr *e)
{
	size_t o = 0;
	for (size_t i = 0; i < e->n; i++) {
		const struct cop *c = &e->code[i];
		if (i + 2 < e->n && c->op == OP_SYM && c[1].op == OP_NUM && c[2].op >= OP_EQ && c[2].op <= OP_GE) {
			e->code[o++] = (struct cop){ OP_SYM_CMP, c[2].op, c->v, c[1].v, c[1].ku };
			i += 2;
			continue;
		}
		e->code[o++] = *c;
	}
	e->n = o;
}

/* The usual filter, NAME cmp NUMBER terms all joined by || or all by &&
 * (postfix: t t OP t OP ...), runs without the stack (run_chain): OP_OR
 * or OP_AND, or 0 for any other shape. One term counts as an || chain. */
static int chain_of(const struct trawl_expr *e)
{
	if (!e->n || e->code[0].op != OP_SYM_CMP || e->n % 2 == 0)
		return 0;
	int op = e->n > 1 ? e->code[2].op : OP_OR;
	if (op != OP_OR && op != OP_AND)
		return 0;
	for (size_t i = 1; i + 1 < e->n; i += 2)
		if (e->code[i].op != OP_SYM_CMP || e->code[i + 1].op != op)
			return 0;
	return op;
}

enum trawl_status trawl_expr_compile(const char *text, trawl_expr_resolve resolve, void *ctx,
				     struct trawl_expr **out, struct trawl_error *err)
{
	trawl_error_clear(err);
	*out = NULL;
	if (!text)
		return trawl_error_set(err, TRAWL_ERR_USAGE, "no expression");
	struct trawl_expr *e = calloc(1, sizeof *e);
	if (!e)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	struct parser p = { text, 0, NULL, ctx, err, 0, resolve, e };
	enum trawl_status st = cond_level(&p, 0);
	if (!st) {
		skip_space(&p);
		if (text[p.pos] == ')')
			st = fail(&p, p.pos, TRAWL_ERR_USAGE, "unmatched ')'", NULL, 0);
		else if (text[p.pos])
			st = fail(&p, p.pos, TRAWL_ERR_USAGE, "unexpected", text + p.pos, 1);
	}
	if (!st && e->failed)
		st = trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	if (!st) {
		fuse(e);
		e->chain = chain_of(e);
	}
	if (st) {
		trawl_expr_free(e);
		return st;
	}
	*out = e;
	return TRAWL_OK;
}

/* Values are the integers they say: a signed 64-bit one, or (u) an
 * unsigned one of 2^63 or more (a u64 field, a big number), which is
 * greater than every signed one; two of a kind compare as their bits do
 * signed (for two u values that is their unsigned order too). */
static inline __attribute__((always_inline)) int64_t compare(int op, int64_t a, int au, int64_t b, int bu)
{
	int d = au != bu ? (au ? 1 : -1) : (a > b) - (a < b);
	switch (op) {
	case OP_EQ: return d == 0;
	case OP_NE: return d != 0;
	case OP_LT: return d < 0;
	case OP_LE: return d <= 0;
	case OP_GT: return d > 0;
	default: return d >= 0;
	}
}

/* Arithmetic wraps modulo 2^64, as C's does; the result is unsigned (u)
 * when an operand was (the left one for shifts) and it is 2^63 or more.
 * Division and >> work on an unsigned operand as C on uint64_t, on signed
 * ones as on int64_t (>> keeps the sign). */
static int64_t binary(int op, int64_t a, int au, int64_t b, int bu, int *bad, uint8_t *u)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b, r;
	int uns = au || bu;
	*u = 0;
	switch (op) {
	case OP_OR: return a || b;
	case OP_AND: return a && b;
	case OP_EQ:
	case OP_NE:
	case OP_LT:
	case OP_LE:
	case OP_GT:
	case OP_GE: return compare(op, a, au, b, bu);
	case OP_BOR: r = ua | ub; break;
	case OP_BXOR: r = ua ^ ub; break;
	case OP_BAND: r = ua & ub; break;
	case OP_SHL:
		r = ub >= 64 || bu ? 0 : ua << ub;
		uns = au;
		break;
	case OP_SHR:
		if (au || a >= 0)
			r = ub >= 64 || bu ? 0 : ua >> ub;
		else
			r = ub >= 64 || bu ? UINT64_MAX : ~(~ua >> ub);
		uns = au;
		break;
	case OP_ADD: r = ua + ub; break;
	case OP_SUB: r = ua - ub; break;
	case OP_MUL: r = ua * ub; break;
	default:
		/* division: by 0, and INT64_MIN / -1, have no answer */
		if (b == 0 || (!uns && a == INT64_MIN && b == -1)) {
			*bad = 1;
			return 0;
		}
		if (uns && (au ? 1 : a >= 0) && (bu ? 1 : b >= 0))
			r = op == OP_DIV ? ua / ub : ua % ub;
		else if (uns) {
			/* an unsigned value with a negative one: as the integers
			 * they are, which int64_t cannot hold: no answer */
			*bad = 1;
			return 0;
		} else
			return op == OP_DIV ? a / b : a % b;
	}
	*u = (uint8_t)(uns && (int64_t)r < 0);
	return (int64_t)r;
}

/* A name without a value (an event lacking the field) is "unknown", as in
 * SQL: it makes whatever it takes part in unknown, except that a known
 * true side decides '||' and a known false side decides '&&', so
 * `num == 7 || seq > 3` keeps an event that has only one of the two. */
static inline __attribute__((always_inline)) int64_t logic(int op, int64_t a, int ma, int64_t b, int mb, uint8_t *miss)
{
	int t = op == OP_OR;
	if ((!ma && !!a == t) || (!mb && !!b == t)) {
		*miss = 0;
		return t;
	}
	*miss = (uint8_t)(ma || mb);
	return !t;
}

/* A chain of terms folded as the stack machine would (logic): a known term
 * equal to t (1 for ||, 0 for &&) decides; else an unknown term makes the
 * whole unknown; else the result is !t. */
static int run_chain(const struct trawl_expr *e, const int16_t *map, const int64_t *a, const int64_t *b,
		     const uint8_t *usym, int64_t *out)
{
	int t = e->chain == OP_OR, miss = 0;
	for (size_t i = 0; i < e->n; i += i ? 2 : 1) { /* the terms: 0, 1, 3, 5... */
		const struct cop *c = &e->code[i];
		int m = map ? map[c->v] : -1;
		int64_t x = m >= 0 ? a[m] : m <= -2 ? b[-2 - m] : 0;
		int xu = usym && usym[c->v] && x < 0;
		if (m == -1)
			miss = 1;
		else if ((compare(c->cmp, x, xu, c->k, c->ku) != 0) == t) {
			*out = t;
			return 0;
		}
	}
	if (miss)
		return -1;
	*out = !t;
	return 0;
}

/* The loop keeps value and unknown-flag side by side on one stack; names
 * read the caller's arrays directly (no call per name), which is what a
 * filter run once per event of a large trace needs. */
__attribute__((noinline)) static int run_stack(const struct trawl_expr *e, const int16_t *map, const int64_t *a,
						const int64_t *b, const uint8_t *usym, int64_t *out)
{
	struct slot {
		int64_t v;
		uint8_t miss, u;
	} small[32], *st = small;
	if (e->max_depth > 32 && !(st = malloc((size_t)e->max_depth * sizeof *st)))
		return -1;
	int sp = 0;
	st[0].miss = 1;
	for (const struct cop *c = e->code, *end = c + e->n; c < end; c++) {
		struct slot *t = &st[sp - 1];
		switch (c->op) {
		case OP_NUM:
			st[sp++] = (struct slot){ c->v, 0, c->ku };
			break;
		case OP_SYM: {
			int m = map ? map[c->v] : -1;
			int64_t x = m >= 0 ? a[m] : m <= -2 ? b[-2 - m] : 0;
			st[sp++] = (struct slot){ x, m == -1, (uint8_t)(usym && usym[c->v] && x < 0) };
			break;
		}
		case OP_SYM_CMP: {
			int m = map ? map[c->v] : -1;
			int64_t x = m >= 0 ? a[m] : m <= -2 ? b[-2 - m] : 0;
			st[sp++] = (struct slot){ compare(c->cmp, x, usym && usym[c->v] && x < 0, c->k, c->ku), m == -1, 0 };
			break;
		}
		case OP_NEG: t->v = (int64_t)(0 - (uint64_t)t->v); t->u = 0; break;
		case OP_NOT: t->v = !t->v; t->u = 0; break;
		case OP_INV: t->v = (int64_t)~(uint64_t)t->v; t->u = 0; break;
		case OP_OR:
		case OP_AND: {
			uint8_t miss;
			t[-1].v = logic(c->op, t[-1].v, (int)t[-1].miss, t->v, (int)t->miss, &miss);
			t[-1].miss = miss;
			t[-1].u = 0;
			sp--;
			break;
		}
		default: {
			int bad = 0;
			uint8_t u;
			t[-1].v = binary(c->op, t[-1].v, t[-1].u, t->v, t->u, &bad, &u);
			t[-1].miss |= t->miss | (uint8_t)bad;
			t[-1].u = u;
			sp--;
		}
		}
	}
	int unknown = st[0].miss;
	if (!unknown)
		*out = st[0].v;
	if (st != small)
		free(st);
	return unknown ? -1 : 0;
}

/* The chain runs without the stack machine's frame (its 32-slot array
 * made every call of a one-comparison filter pay for it). */
int trawl_expr_run(const struct trawl_expr *e, const int16_t *map, const int64_t *a, const int64_t *b,
		   const uint8_t *usym, int64_t *out)
{
	return e->chain ? run_chain(e, map, a, b, usym, out) : run_stack(e, map, a, b, usym, out);
}

/* x cmp k as an interval [lo, lo + span] of x, or the complement of one
 * (neg): == [k, k], != not that, < [MIN, k - 1] (empty when k is MIN: not
 * [MIN, MAX]), <= [MIN, k], > [k + 1, MAX] (empty when k is MAX), >= [k,
 * MAX]. Worked on x + 2^63, where signed order is unsigned order; lo is
 * then shifted back so the caller subtracts it from x itself. */
static void interval(int cmp, int64_t kk, struct trawl_expr_term *t)
{
	const uint64_t bias = (uint64_t)1 << 63;
	uint64_t k = (uint64_t)kk + bias, lo = 0, hi = UINT64_MAX;
	t->neg = 0;
	if (t->k_unsigned) {
		/* k is above every signed value: x < k always */
		t->lo = 0;
		t->span = UINT64_MAX;
		t->neg = cmp == OP_EQ || cmp == OP_GT || cmp == OP_GE;
		return;
	}
	switch (cmp) {
	case OP_EQ: lo = hi = k; break;
	case OP_NE: lo = hi = k; t->neg = 1; break;
	case OP_LT: if (k) hi = k - 1; else t->neg = 1; break;
	case OP_LE: hi = k; break;
	case OP_GT: if (k != UINT64_MAX) lo = k + 1; else t->neg = 1; break;
	default: lo = k; break;
	}
	t->lo = lo - bias;
	t->span = hi - lo;
}

size_t trawl_expr_chain(const struct trawl_expr *e, int *is_or, struct trawl_expr_term *t, size_t max)
{
	size_t n = 0;
	if (!e->chain)
		return 0;
	for (size_t i = 0; i < e->n; i += i ? 2 : 1, n++) { /* the terms: 0, 1, 3, 5... */
		if (n == max)
			return 0;
		t[n].sym = (int)e->code[i].v;
		t[n].cmp = e->code[i].cmp;
		t[n].k = e->code[i].k;
		t[n].k_unsigned = e->code[i].ku;
		interval(e->code[i].cmp, e->code[i].k, &t[n]);
	}
	*is_or = e->chain == OP_OR;
	return n;
}

void trawl_expr_term_unsigned(struct trawl_expr_term *t)
{
	/* x is 0..2^64-1 and k the integer it says (negative, or 0..2^64-1) */
	int neg_k = !t->k_unsigned && t->k < 0;
	uint64_t k = (uint64_t)t->k, lo = 0, hi = UINT64_MAX;
	t->neg = 0;
	switch (t->cmp) {
	case OP_EQ: if (neg_k) t->neg = 1; else lo = hi = k; break;
	case OP_NE: if (!neg_k) lo = hi = k, t->neg = 1; break;
	case OP_LT: if (neg_k || !k) t->neg = 1; else hi = k - 1; break;
	case OP_LE: if (neg_k) t->neg = 1; else hi = k; break;
	case OP_GT: if (neg_k) break; if (k == UINT64_MAX) t->neg = 1; else lo = k + 1; break;
	default: if (!neg_k) lo = k; break;
	}
	t->lo = lo;
	t->span = hi - lo;
}

void trawl_expr_free(struct trawl_expr *e)
{
	if (!e)
		return;
	free(e->code);
	free(e);
}
