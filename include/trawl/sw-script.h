/* Lua 5.4 scripts over software events (docs/analysis.md, "Scripts"):
 *
 *   function keep(e) return e.len > 100 end        -- a filter
 *   function on_event(e)                            -- activity decoder
 *       if e.name == "net:RX" then activity.open("rx", e.tid) end
 *       if e.name == "net:TX" then activity.close("rx", e.tid) end
 *   end
 *   fields = { big = function(e) return e.len > 1000 end }  -- computed fields
 *
 * e has the event's fields by name, and cpu, tid, time (ns since the first
 * event), name ("net:RX"), subsys and event; it is reused from one event to
 * the next. Only the values whose names the script's text holds are
 * stored per event (when it changed, if the script never writes it); the
 * others are reached through e's metatable, or, with no '[' in the text,
 * only through the functions that see past one (see sw-script-tables.c). Scripts run sandboxed: base (without dofile, loadfile, load),
 * string, table, math, utf8 and coroutine only, unless unsafe. A call
 * still running after 20 to 40 ms (a watchdog thread, made by open,
 * signals the calling thread with SIGURG, whose handler open installs) is
 * stopped after max_instructions more; coroutines are counted from their
 * start. The memory Lua holds for the script is bounded (max_memory): past
 * the bound, and still past it after a full collection, the call is
 * stopped at the next line it runs; a single allocation that would take
 * it past 1.5 times the bound is refused. Errors name the script's line
 * and the event being processed. Lua is loaded at the first script
 * (lazy). */
#ifndef TRAWL_SW_SCRIPT_H
#define TRAWL_SW_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/status.h"
#include "trawl/sw-activity.h"

#define TRAWL_SCRIPT_DEFAULT_INSTRUCTIONS 10000000u
#define TRAWL_SCRIPT_NO_INSTRUCTION_BOUND UINT64_MAX
#define TRAWL_SCRIPT_DEFAULT_MEMORY (1024ull << 20)
#define TRAWL_SCRIPT_NO_MEMORY_BOUND UINT64_MAX

/* What the script's print() says (its arguments as tostring gives them,
 * tab-separated, no newline). */
typedef void (*trawl_script_print_fn)(void *ctx, const char *text, size_t len);

struct trawl_script_options {
	int unsafe;                  /* all of Lua's libraries (io, os, require, ...) */
	uint64_t max_instructions;   /* per call, once watched (0: the default; TRAWL_SCRIPT_NO_INSTRUCTION_BOUND: none) */
	uint64_t max_memory;         /* bytes (0: the default; TRAWL_SCRIPT_NO_MEMORY_BOUND: none) */
	/* print(): NULL leaves none (calling it is an error naming the line),
	 * so a script never writes into a command's own output */
	trawl_script_print_fn print;
	void *print_ctx;
};

struct trawl_script;

/* Load and run the script's top level. classes as in the trace's info. */
enum trawl_status trawl_script_open(struct trawl_script **out, const char *path, const char *text, size_t len,
				    const struct trawl_sw_class *classes, size_t nclasses,
				    const struct trawl_script_options *opt, struct trawl_error *err);
int trawl_script_has_keep(const struct trawl_script *s);
int trawl_script_has_on_event(const struct trawl_script *s);
/* Where activity.open/close go; act must exist before on_event is called. */
void trawl_script_set_activities(struct trawl_script *s, struct trawl_act *act);
/* The time 0 of e.time (the trace's first event). */
void trawl_script_set_origin(struct trawl_script *s, uint64_t t0);
/* keep(e): 1 keep, 0 drop, -1 error (err set). */
int trawl_script_keep(struct trawl_script *s, const struct trawl_sw_event *ev, struct trawl_error *err);
/* keep(e) for each of the n events whose keep[i] is set, in order, keep[i]
 * becoming its verdict (0 or 1): 0, or -1 with err set and *failed the
 * index of the event it failed on (those after it are left as they were).
 * One protected call for the batch. */
int trawl_script_keep_batch(struct trawl_script *s, const struct trawl_sw_event *evs, size_t n, uint8_t *keep,
			    size_t *failed, struct trawl_error *err);
/* on_event(e), with the event's filter verdict for the activities it opens. */
enum trawl_status trawl_script_on_event(struct trawl_script *s, const struct trawl_sw_event *ev, int keep,
					struct trawl_error *err);
/* Computed fields: how many, the name of one, and its value for ev as
 * text into buf ("" when nil). */
size_t trawl_script_nfields(const struct trawl_script *s);
const char *trawl_script_field_name(const struct trawl_script *s, size_t i);
enum trawl_status trawl_script_field(struct trawl_script *s, size_t i, const struct trawl_sw_event *ev, char *buf,
				     size_t size, struct trawl_error *err);
void trawl_script_close(struct trawl_script *s);

#endif
