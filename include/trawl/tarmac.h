/* The Tarmac parser, below the reader API.
 *
 * Most callers use trawl_reader_open (reader.h), which recognises Tarmac by
 * content and drives this parser chunk by chunk. This header exposes the
 * line-level parser for tests and tools that want to see what each line of
 * a trace means: feed lines one at a time with trawl_tarmac_parse_line and
 * look at the batch being built with trawl_tarmac_peek.
 *
 * Grouping (see docs/tarmac.md): an instruction line starts an INSN event
 * and the register/memory lines that follow it, on the same CPU and at the
 * same time, are its effects. Register/memory lines with no instruction
 * before them form a STATE event (consecutive ones of the same CPU and time
 * share one). Every other line is an event of its own.
 */
#ifndef TRAWL_TARMAC_H
#define TRAWL_TARMAC_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/event.h"
#include "trawl/reader.h"
#include "trawl/status.h"

struct trawl_tarmac;

/* opt may be NULL; `file` names the input in errors (copied). */
enum trawl_status trawl_tarmac_create(struct trawl_tarmac **out, const char *file,
				      const struct trawl_reader_options *opt,
				      struct trawl_error *err);
void trawl_tarmac_destroy(struct trawl_tarmac *t);

/* Parse one line (without its '\n'), which starts at byte `offset` of the
 * input. The text must stay valid until the batch holding its event has
 * been consumed (the reader relocates what it must between chunks). On bad
 * input returns TRAWL_ERR_FORMAT with err holding file, line, column and
 * the line; the parser state is as if the line had not been seen. In
 * lenient mode bad lines are counted and skipped instead (TRAWL_OK). */
enum trawl_status trawl_tarmac_parse_line(struct trawl_tarmac *t, const char *line,
					  size_t len, uint64_t offset,
					  struct trawl_error *err);

/* End of input: close the event in progress. */
void trawl_tarmac_finish(struct trawl_tarmac *t);

/* The batch built so far, including the event still in progress (it may
 * gain effects from following lines). Borrowed until the next call. */
void trawl_tarmac_peek(const struct trawl_tarmac *t, struct trawl_event_batch *batch);

/* Number of completed events in the batch (the in-progress one excluded). */
size_t trawl_tarmac_completed(const struct trawl_tarmac *t);

/* Hand the completed events out and start a new batch that holds only the
 * event in progress. batch is filled with the completed events; it stays
 * valid until the next call on t. */
void trawl_tarmac_take(struct trawl_tarmac *t, struct trawl_event_batch *batch);

/* Copy the text the in-progress event borrows from the input into memory
 * the parser owns (called before the input buffer is reused). */
enum trawl_status trawl_tarmac_detach_text(struct trawl_tarmac *t, struct trawl_error *err);

/* Counters: lines, bytes, events, bad and unknown lines. */
const struct trawl_reader_stats *trawl_tarmac_stats(const struct trawl_tarmac *t);

/* The parser recognises the common Fast Models line shapes on a fast path
 * and everything else with the general grammar; both must agree. Tests turn
 * the fast path off (on = 0) to compare them. */
void trawl_tarmac_set_fast_path(struct trawl_tarmac *t, int on);

/* A trace keeps one time unit: a line whose timestamp is in another is an
 * error (real-time units are all picoseconds, so ns and us lines agree).
 * Lines of many producers fed to one parser (the conformance test) may
 * each have their own: on = 1. */
void trawl_tarmac_set_mixed_units(struct trawl_tarmac *t, int on);

/* How much the start of a text looks like Tarmac: 0 (not at all: binary
 * data), 1 (text, but no Tarmac line recognised), 2 (Tarmac lines seen). */
int trawl_tarmac_probe(const char *data, size_t len);

/* Writing Tarmac: what follows "TIME clk IT (N)" on a Fast Models
 * instruction line, " PC ENC S MODE : TEXT\n", at p; returns its end. The
 * PC has 8 hex digits when it fits in 32 bits (as Fast Models prints it),
 * else 16; ENC 4 digits for a 16-bit T32 instruction (bytes == 2), else 8,
 * a 32-bit T32 one with its first halfword high. S is O, A or T by iset;
 * MODE is such as "EL0t_n". p must have room for 40 + strlen(mode) +
 * text_len bytes. */
char *trawl_tarmac_put_insn_tail(char *p, uint64_t pc, uint32_t enc, unsigned bytes,
				 enum trawl_iset iset, const char *mode, const char *text,
				 size_t text_len);

/* Gaps in Tarmac (trawl's own lines; docs/tarmac.md): "TIME clk E ADDR
 * 00000000 NAME" with NAME one of GAP_TRACE_OFF, GAP_OVERFLOW, GAP_LOST
 * (enum trawl_gap_reason) or NO_IMAGE (trace not decodable at ADDR, read
 * as a trace-off gap). The name of a reason's line: */
const char *trawl_tarmac_gap_name(uint32_t reason);
/* The reason of a gap name (n bytes at s), or -1 when it is none. */
int trawl_tarmac_gap_reason(const char *s, size_t n);

#endif
