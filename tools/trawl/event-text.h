/* One line of text for an event of a source that has none (a decoded ETE
 * snapshot or perf.data): what `trawl browse` and `trawl serve` list
 * there, so both show the same line. */
#ifndef TRAWL_EVENT_TEXT_H
#define TRAWL_EVENT_TEXT_H

#include <stddef.h>

#include "trawl/index.h"

/* The event as the index has it, the way a Tarmac instruction line starts
 * ("TIME IT PC ENCODING ISET ELn"; other kinds: "TIME KIND"), in buf
 * (NUL-terminated, cut to size). Returns its length. */
size_t event_text_synth(const struct trawl_index_event *e, char *buf, size_t size);

#endif
