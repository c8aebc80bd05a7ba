/* The text of an event of a source without text (event-text.h). */
#include "event-text.h"

#include <stdio.h>

#include "trawl/event.h"

size_t event_text_synth(const struct trawl_index_event *e, char *buf, size_t size)
{
	int n;
	if (!size)
		return 0;
	if (e->kind == TRAWL_EV_INSN)
		n = snprintf(buf, size, "%llu IT %08llx %0*x %s EL%u", (unsigned long long)e->time,
			     (unsigned long long)e->pc, e->width == 2 ? 4 : 8, e->encoding,
			     trawl_iset_name((enum trawl_iset)e->iset), e->el);
	else
		n = snprintf(buf, size, "%llu %s", (unsigned long long)e->time,
			     trawl_event_kind_name((enum trawl_event_kind)e->kind));
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}
