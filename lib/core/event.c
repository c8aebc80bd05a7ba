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
