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
	/* an event line that ends the text with no newline after it: the dump
	 * was cut inside it, perhaps, and a cut raw word is still valid hex,
	 * so it is not handed out; its line and byte offset, 0 if none */
	uint64_t cut_line, cut_offset;
};

/* Called per event; a non-zero return stops parsing (returned as TRAWL_ERR_LIMIT). */
typedef int (*trawl_bf_fn)(void *ctx, const struct trawl_bf_event *ev);

enum trawl_status trawl_bf_parse(const char *text, size_t len, const char *file, trawl_bf_fn fn, void *ctx,
				 struct trawl_bf_stats *stats, struct trawl_error *err);
/* qsort order of events: by time, then by dump line (a dump's own order
 * for ties). */
int trawl_bf_event_cmp(const void *a, const void *b);
/* The value of a field of type `type` (enum trawl_sw_type) for a word's
 * 32-bit argument, which is its class's first field (trawl/event.h, "the
 * first field's low 32 bits"; the dump has no value for further fields):
 * signed types take it sign-extended from 32 bits, as C widens a narrower
 * signed value. 0 when it does not fit the field (damage), 1 with *v set. */
int trawl_bf_arg_value(int type, uint32_t arg, uint64_t *v);
/* Place err at the raw word (third column) of line `line` of the dump:
 * file, line, column, byte offset, and the line as its excerpt. */
void trawl_bf_error_at_word(struct trawl_error *err, const char *text, size_t len, const char *file, uint64_t line);
/* The damage a parse's stats hold: a last line cut short (stats->cut_line
 * set), said at that line. */
void trawl_bf_error_cut(struct trawl_error *err, const char *file, const struct trawl_bf_stats *stats);

/* ---- Bfscope framing ----
 * What a Bfscope server (Barrelfish's trace service, TCP port 6666) sends
 * at each flush: an 8-byte length field (the decimal length in ASCII
 * digits, then a NUL; the bytes after the NUL are undefined) and that many
 * bytes of text dump, at most TRAWL_BFSCOPE_MAX_DUMP. The parser is fed
 * whatever bytes arrive and hands out each whole dump; it holds at most one
 * dump. */
#define TRAWL_BFSCOPE_HEADER 8
#define TRAWL_BFSCOPE_MAX_DUMP (2u << 20)

struct trawl_bfscope;

/* Called per complete dump (text borrowed for the call); non-zero stops
 * (returned as TRAWL_ERR_LIMIT). */
typedef int (*trawl_bfscope_fn)(void *ctx, const char *text, size_t len);

enum trawl_status trawl_bfscope_create(struct trawl_bfscope **out, struct trawl_error *err);
/* A bad length field is TRAWL_ERR_FORMAT with the byte offset of the field
 * in the connection; the parser then refuses further input. */
enum trawl_status trawl_bfscope_feed(struct trawl_bfscope *p, const uint8_t *data, size_t len,
				     trawl_bfscope_fn fn, void *ctx, struct trawl_error *err);
/* Where the input stands: bytes of the incomplete dump (or length field)
 * received so far, 0 between dumps; and the length that dump declared (0
 * while its length field is incomplete). */
size_t trawl_bfscope_pending(const struct trawl_bfscope *p, size_t *declared);
uint64_t trawl_bfscope_dumps(const struct trawl_bfscope *p);
void trawl_bfscope_destroy(struct trawl_bfscope *p);

#endif
