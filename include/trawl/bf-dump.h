/* Barrelfish trace dumps (the text its tracing framework writes), parsed
 * into timestamped 64-bit event words for `trawl events import-bf`. */
#ifndef TRAWL_BF_DUMP_H
#define TRAWL_BF_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"

/* ---- Barrelfish trace dumps ----
 * Text: header lines start with '#' (a line "# core N offset V" gives the
 * clock offset of core N to add to its timestamps; other header lines are
 * kept as comments), then one event per line: "CORE TIMESTAMP RAWHEX",
 * CORE decimal, TIMESTAMP decimal (or 0x hex), RAWHEX the 64-bit word
 * subsys << 48 | event << 32 | arg in hex (0x optional). */
struct trawl_bf_event {
	uint32_t core;
	uint64_t time;               /* timestamp plus the core's offset */
	uint64_t word;
	uint64_t line;
};

struct trawl_bf_stats {
	uint64_t events, header_lines, offsets;
};

/* Called per event; a non-zero return stops parsing (returned as TRAWL_ERR_LIMIT). */
typedef int (*trawl_bf_fn)(void *ctx, const struct trawl_bf_event *ev);

enum trawl_status trawl_bf_parse(const char *text, size_t len, const char *file, trawl_bf_fn fn, void *ctx,
				 struct trawl_bf_stats *stats, struct trawl_error *err);

#endif
