/* Names for the event model's enums (used by `trawl cat` and JSON output). */
#include "trawl/event.h"

#include <string.h>
#include <strings.h>

const char *trawl_event_kind_name(enum trawl_event_kind k)
{
	switch (k) {
	case TRAWL_EV_INSN: return "insn";
	case TRAWL_EV_STATE: return "state";
	case TRAWL_EV_EXCEPTION: return "exception";
	case TRAWL_EV_EXC_RETURN: return "exc-return";
	case TRAWL_EV_CONTEXT: return "context";
	case TRAWL_EV_SW: return "sw";
	case TRAWL_EV_TEXT: return "text";
	case TRAWL_EV_GAP: return "gap";
	}
	return "?";
}

const char *trawl_iset_name(enum trawl_iset s)
{
	switch (s) {
	case TRAWL_ISET_A64: return "A64";
	case TRAWL_ISET_A32: return "A32";
	case TRAWL_ISET_T32: return "T32";
	case TRAWL_ISET_UNKNOWN: break;
	}
	return "?";
}

const char *trawl_time_unit_name(enum trawl_time_unit u)
{
	switch (u) {
	case TRAWL_TIME_NONE: return "";
	case TRAWL_TIME_CLK: return "clk";
	case TRAWL_TIME_CYC: return "cyc";
	case TRAWL_TIME_CS: return "cs";
	case TRAWL_TIME_TIC: return "tic";
	case TRAWL_TIME_NS: return "ns";
	case TRAWL_TIME_PS: return "ps";
	case TRAWL_TIME_US: return "us";
	case TRAWL_TIME_INSN: return "insn";
	}
	return "?";
}

static int has_word(const char *s, size_t len, const char *w)
{
	size_t n = strlen(w);
	for (size_t i = 0; s && i + n <= len; i++)
		if (strncasecmp(s + i, w, n) == 0)
			return 1;
	return 0;
}

uint16_t trawl_exception_flags(const char *name, size_t len)
{
	if (has_word(name, len, "reset"))
		return TRAWL_EVF_RESET;
	if (has_word(name, len, "debug"))
		return TRAWL_EVF_DEBUG_ENTRY;
	return 0;
}

/* ps per unit of a real-time unit, 0 for a counting one. */
static uint64_t unit_ps(enum trawl_time_unit u)
{
	switch (u) {
	case TRAWL_TIME_PS: return 1;
	case TRAWL_TIME_NS: return 1000;
	case TRAWL_TIME_US: return 1000000;
	default: return 0;
	}
}

/* The unit words Tarmac traces write (lib/tarmac/parse.c unit_of) and
 * what each is: a counting unit, or ps per one. */
static const struct {
	const char *word;
	enum trawl_time_unit unit;
	uint64_t ps;
} time_words[] = {
	{ "clk", TRAWL_TIME_CLK, 0 }, { "cyc", TRAWL_TIME_CYC, 0 }, { "cs", TRAWL_TIME_CS, 0 },
	{ "tic", TRAWL_TIME_TIC, 0 }, { "insn", TRAWL_TIME_INSN, 0 }, { "ps", TRAWL_TIME_PS, 1 },
	{ "ns", TRAWL_TIME_PS, 1000 }, { "us", TRAWL_TIME_PS, 1000000 },
	{ "ms", TRAWL_TIME_PS, 1000000000 }, { "s", TRAWL_TIME_PS, 1000000000000ull },
};

enum trawl_status trawl_time_parse(const char *s, enum trawl_time_unit unit, uint64_t *out,
				   struct trawl_error *err)
{
	const char *p = s;
	uint64_t v = 0, frac = 0, fscale = 1;
	if (*p < '0' || *p > '9')
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "bad time '%s'", s);
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return trawl_error_set(err, TRAWL_ERR_FORMAT, "time '%s' is too large", s);
		v = v * 10 + d;
	}
	int has_frac = *p == '.';
	if (has_frac)
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (fscale < 1000000000000ull) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				fscale *= 10;
			}
	while (*p == ' ')
		p++;
	const char *name = trawl_time_unit_name(unit);
	if (!*p) {
		if (has_frac)
			return trawl_error_set(err, TRAWL_ERR_FORMAT,
					       "time '%s': a fraction needs a unit (ps, ns, us, ms, s)", s);
		*out = v;
		return TRAWL_OK;
	}
	size_t k = 0;
	while (k < sizeof time_words / sizeof *time_words && strcmp(p, time_words[k].word))
		k++;
	if (k == sizeof time_words / sizeof *time_words)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "time '%s': unknown unit '%s' (known: clk cyc cs tic insn ps ns us ms s)",
				       s, p);
	uint64_t m = time_words[k].ps, target = unit_ps(unit);
	if (!m) {
		if (time_words[k].unit != unit)
			return trawl_error_set(err, TRAWL_ERR_FORMAT,
					       "time '%s' counts %s, but this trace's times are %s%s", s,
					       time_words[k].word, unit ? "in " : "without a unit",
					       unit ? name : "");
		if (has_frac)
			return trawl_error_set(err, TRAWL_ERR_FORMAT,
					       "time '%s': a count of %s has no fraction", s, p);
		*out = v;
		return TRAWL_OK;
	}
	if (!target)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "time '%s' is real time, but this trace's times are %s%s: "
				       "cycles and real time cannot be converted",
				       s, unit ? "counts of " : "without a unit", unit ? name : "");
	/* in ps first (m and fscale are powers of ten), then in the target */
	uint64_t fps = fscale >= m ? frac / (fscale / m) : frac * (m / fscale);
	if (v > UINT64_MAX / m || v * m > UINT64_MAX - fps)
		return trawl_error_set(err, TRAWL_ERR_FORMAT, "time '%s' is too large", s);
	uint64_t ps = v * m + fps;
	if ((fscale > m && frac % (fscale / m)) || ps % target)
		return trawl_error_set(err, TRAWL_ERR_FORMAT,
				       "time '%s' is no whole number of %s (this trace's unit)", s, name);
	*out = ps / target;
	return TRAWL_OK;
}
