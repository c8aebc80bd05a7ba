/* Writing Tarmac: the instruction line's fields after "IT (N)", shared by
 * every writer (the emulator, ETE to Tarmac) so they print one format. */
#include "trawl/tarmac.h"

#include <string.h>

static char *put_hex(char *p, uint64_t v, int digits)
{
	static const char hex[] = "0123456789abcdef";
	for (int i = digits - 1; i >= 0; i--)
		*p++ = hex[(v >> (4 * i)) & 15];
	return p;
}

char *trawl_tarmac_put_insn_tail(char *p, uint64_t pc, uint32_t enc, unsigned bytes,
				 enum trawl_iset iset, const char *mode, const char *text,
				 size_t text_len)
{
	*p++ = ' ';
	p = put_hex(p, pc, pc >> 32 ? 16 : 8);
	*p++ = ' ';
	p = put_hex(p, enc, bytes == 2 ? 4 : 8);
	*p++ = ' ';
	*p++ = iset == TRAWL_ISET_A64 ? 'O' : iset == TRAWL_ISET_T32 ? 'T' : 'A';
	*p++ = ' ';
	size_t ml = strlen(mode);
	memcpy(p, mode, ml);
	p += ml;
	memcpy(p, " : ", 3);
	p += 3;
	memcpy(p, text, text_len);
	p += text_len;
	*p++ = '\n';
	return p;
}

static const char *const gap_names[] = { "GAP_TRACE_OFF", "GAP_OVERFLOW", "GAP_LOST" };

const char *trawl_tarmac_gap_name(uint32_t reason)
{
	return reason < 3 ? gap_names[reason] : gap_names[TRAWL_GAP_LOST];
}

int trawl_tarmac_gap_reason(const char *s, size_t n)
{
	if (n == 8 && !memcmp(s, "NO_IMAGE", 8))
		return TRAWL_GAP_TRACE_OFF;
	for (int i = 0; i < 3; i++)
		if (n == strlen(gap_names[i]) && !memcmp(s, gap_names[i], n))
			return i;
	return -1;
}
