/* Address expressions: a small recursive-descent evaluator (see expr.h).
 * Nesting is limited so that hostile text cannot exhaust the stack. */
#include "trawl/expr.h"

#include <string.h>

#define MAX_DEPTH 64

struct parser {
	const char *s;
	size_t pos;
	trawl_expr_lookup lookup;
	void *ctx;
	struct trawl_error *err;
	int depth;
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
		if (st)
			return st;
		skip_space(p);
		if (s[p->pos] != ')')
			return fail(p, p->pos, TRAWL_ERR_USAGE, "missing ')'", NULL, 0);
		p->pos++;
		p->depth--;
		return TRAWL_OK;
	}
	if (!c)
		return fail(p, start, TRAWL_ERR_USAGE, "expression ends too soon", NULL, 0);
	return fail(p, start, TRAWL_ERR_USAGE, "unexpected", s + start, 1);
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
	struct parser p = { text, 0, lookup, ctx, err, 0 };
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
