/* Barrelfish trace dumps (the text Bfscope sent and the kernel printed):
 *
 *   # <header text>                      kept as a comment
 *   # core <n> offset <v>                clock offset of core n (signed)
 *   <core> <timestamp> <raw word hex>    one event
 *
 * The raw word is subsys(16) << 48 | event(16) << 32 | arg(32). Blank
 * lines are allowed; anything else is an error with line and column, and
 * parsing stops there: the events before it have been handed to fn, for the
 * caller to keep (a dump is read up to its damage, as a CTF stream is). An
 * event line with no newline after it ends a cut dump, perhaps inside its
 * word: it is left out and named in the stats (cut_line).
 */
#include "trawl/bf-dump.h"
#include "trawl/sw-event.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CORES 4096

struct cursor {
	const char *s, *end;
	const char *line_start;
};

static void skip_blank(struct cursor *c)
{
	while (c->s < c->end && (*c->s == ' ' || *c->s == '\t' || *c->s == '\r'))
		c->s++;
}

/* Unsigned number: decimal, or hex with 0x (or always hex when hex=1). */
static int number(struct cursor *c, int hex, uint64_t *out)
{
	const char *p = c->s;
	uint64_t v = 0;
	int digits = 0;
	if (c->end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		hex = 1;
		p += 2;
	}
	for (; p < c->end && (hex ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)); p++) {
		unsigned d = isdigit((unsigned char)*p) ? (unsigned)(*p - '0') : (unsigned)(tolower(*p) - 'a' + 10);
		uint64_t base = hex ? 16 : 10;
		if (v > (UINT64_MAX - d) / base)
			return 0;
		v = v * base + d;
		digits++;
	}
	if (!digits)
		return 0;
	c->s = p;
	*out = v;
	return 1;
}

static enum trawl_status bad(struct trawl_error *err, const char *file, uint64_t line, const struct cursor *c,
			     const char *text, const char *what)
{
	trawl_error_set(err, TRAWL_ERR_FORMAT, "%s", what);
	trawl_error_at(err, file, line, (uint32_t)(c->s - c->line_start + 1), (uint64_t)(c->s - text));
	const char *e = c->line_start;
	while (e < c->end && *e != '\n')
		e++;
	trawl_error_excerpt(err, c->line_start, (size_t)(e - c->line_start));
	return TRAWL_ERR_FORMAT;
}

/* One pass, line by line, so every error names its line and column. Core
 * offsets take effect for the events after them and live in a table indexed
 * by core number (capped at MAX_CORES, so a hostile number cannot size it);
 * a '#' line that is not a well-formed offset is only a comment. A
 * timestamp the offset would take below 0 or past 2^64 is an error. */
enum trawl_status trawl_bf_parse(const char *text, size_t len, const char *file, trawl_bf_fn fn, void *ctx,
				 struct trawl_bf_stats *stats, struct trawl_error *err)
{
	static const char core_kw[] = "core", off_kw[] = "offset";
	int64_t *offsets = calloc(MAX_CORES, sizeof *offsets);
	enum trawl_status st = TRAWL_OK;
	struct trawl_bf_stats local = { 0 };
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof *stats);
	if (!offsets)
		return trawl_error_set(err, TRAWL_ERR_NOMEM, "out of memory");
	const char *p = text, *end = text + len;
	uint64_t line = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct cursor c = { p, le, p };
		line++;
		p = nl ? nl + 1 : end;
		skip_blank(&c);
		if (c.s == c.end)
			continue;
		if (*c.s == '#') {
			stats->header_lines++;
			c.s++;
			skip_blank(&c);
			uint64_t core, v;
			if ((size_t)(c.end - c.s) > 4 && memcmp(c.s, core_kw, 4) == 0) {
				c.s += 4;
				skip_blank(&c);
				if (!number(&c, 0, &core))
					continue;
				skip_blank(&c);
				if ((size_t)(c.end - c.s) < 6 || memcmp(c.s, off_kw, 6) != 0)
					continue;
				c.s += 6;
				skip_blank(&c);
				int neg = c.s < c.end && *c.s == '-';
				c.s += neg;
				if (!number(&c, 0, &v) || v > INT64_MAX) {
					st = bad(err, file, line, &c, text, "bad core offset");
					goto out;
				}
				/* "2x5" or "25.7" is not the number it starts with */
				skip_blank(&c);
				if (c.s != c.end) {
					st = bad(err, file, line, &c, text,
						 "bad core offset (unexpected text after the number)");
					goto out;
				}
				if (core >= MAX_CORES) {
					st = bad(err, file, line, &c, text, "core number too large (at most 4095)");
					goto out;
				}
				offsets[core] = neg ? -(int64_t)v : (int64_t)v;
				stats->offsets++;
			}
			continue;
		}
		if (!nl) {
			stats->cut_line = line;
			stats->cut_offset = (uint64_t)(c.line_start - text);
			break;
		}
		struct trawl_bf_event ev = { .line = line };
		uint64_t core;
		if (!number(&c, 0, &core)) {
			st = bad(err, file, line, &c, text, "expected a core number");
			goto out;
		}
		if (core >= MAX_CORES) {
			st = bad(err, file, line, &c, text, "core number too large (at most 4095)");
			goto out;
		}
		skip_blank(&c);
		const char *ts = c.s;
		if (!number(&c, 0, &ev.time)) {
			st = bad(err, file, line, &c, text, "expected a timestamp");
			goto out;
		}
		skip_blank(&c);
		const char *w0 = c.s;
		if (!number(&c, 1, &ev.word) || (c.s - w0) > 18) {
			c.s = w0;
			st = bad(err, file, line, &c, text, "expected the raw event word in hex (up to 16 digits)");
			goto out;
		}
		skip_blank(&c);
		if (c.s != c.end) {
			st = bad(err, file, line, &c, text, "unexpected text after the event word");
			goto out;
		}
		ev.core = (uint32_t)core;
		int64_t off = offsets[core];
		if (off < 0 && (uint64_t)-off > ev.time) {
			/* no time to give it: 0 would move it out of its
			 * order among the other cores' events */
			c.s = ts;
			st = bad(err, file, line, &c, text,
				 "the timestamp plus the core's offset is below 0");
			goto out;
		} else if (off > 0 && ev.time > UINT64_MAX - (uint64_t)off) {
			/* wrapping would sort it before every other event */
			c.s = ts;
			st = bad(err, file, line, &c, text,
				 "the timestamp plus the core's offset does not fit in 64 bits");
			goto out;
		} else {
			ev.time += (uint64_t)off;
		}
		stats->events++;
		if (fn && fn(ctx, &ev)) {
			st = trawl_error_set(err, TRAWL_ERR_LIMIT, "stopped at line %llu", (unsigned long long)line);
			goto out;
		}
	}
out:
	free(offsets);
	return st;
}

int trawl_bf_event_cmp(const void *a, const void *b)
{
	const struct trawl_bf_event *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int trawl_bf_arg_value(int type, uint32_t arg, uint64_t *v)
{
	/* sign-extended from 32 bits, without an implementation-defined cast */
	int64_t s = arg & 0x80000000u ? (int64_t)arg - 0x100000000ll : (int64_t)arg;
	switch (type) {
	case TRAWL_SW_U8: *v = arg; return arg <= 0xffu;
	case TRAWL_SW_U16: *v = arg; return arg <= 0xffffu;
	case TRAWL_SW_S8: *v = (uint64_t)s; return s >= -128 && s <= 127;
	case TRAWL_SW_S16: *v = (uint64_t)s; return s >= -32768 && s <= 32767;
	case TRAWL_SW_S32:
	case TRAWL_SW_S64: *v = (uint64_t)s; return 1;
	default: *v = arg; return 1; /* u32, u64 */
	}
}

void trawl_bf_error_at_word(struct trawl_error *e, const char *text, size_t len, const char *file, uint64_t line)
{
	const char *s = text, *end = text + len;
	for (uint64_t l = 1; l < line && s < end; l++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		s = nl ? nl + 1 : end;
	}
	const char *ls = s, *le = memchr(s, '\n', (size_t)(end - s));
	if (!le)
		le = end;
	for (int f = 0; f < 2; f++) {
		while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		while (s < le && *s != ' ' && *s != '\t' && *s != '\r')
			s++;
	}
	while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	trawl_error_at(e, file, line, (uint32_t)(s - ls + 1), (uint64_t)(s - text));
	trawl_error_excerpt(e, ls, (size_t)(le - ls));
}

void trawl_bf_error_cut(struct trawl_error *err, const char *file, const struct trawl_bf_stats *stats)
{
	trawl_error_set(err, TRAWL_ERR_FORMAT,
			"the dump ends inside its last line (no newline after it: cut short?), which is not read");
	trawl_error_at(err, file, stats->cut_line, 1, stats->cut_offset);
}
