/* trawl browse: the terminal browser over the index.
 *
 * The browser is split by job: nav.c moves through the trace (no curses; whole calls are hopped over with lib/analysis/callhop.c),
 * layout.c places the panes, pane-*.c draw one pane each, keys.c maps keys
 * to actions, prompt.c reads a line of input and shows help, term.c owns
 * the terminal (curses start/stop, signals, the main loop, --bench-keys).
 * Everything reads the trace through the index, and the trace text only by
 * the byte offsets the index gives.
 */
#ifndef TRAWL_TUI_BROWSER_H
#define TRAWL_TUI_BROWSER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "trawl/callhop.h"
#include "trawl/expr.h"
#include "trawl/image.h"
#include "trawl/index.h"
#include "trawl/text.h"

#define NO_EVENT UINT64_MAX

enum focus {
	FOCUS_TRACE = 0,
	FOCUS_REGS,
	FOCUS_MEM,
	FOCUS_COUNT,
};

enum search_kind {
	SEARCH_NONE = 0,
	SEARCH_TEXT,
	SEARCH_PC,
};

/* A rectangle of the screen, in cells. */
struct rect {
	int y, x, h, w;
};

struct layout {
	struct rect trace, regs, mem, vec, status;
	int reg_cols;           /* columns of the core register pane */
};

struct browser {
	/* what we browse (borrowed from cmd-browse.c) */
	struct trawl_index *ix;
	const struct trawl_image *img;      /* may be NULL */
	/* a decoded source's program image: memory the trace shows none of
	 * (index_cli_image); may be NULL */
	const struct trawl_ete_image *mem_img;
	struct trawl_text *text;            /* the trace text; NULL: not readable */
	uint64_t nev;
	uint32_t ncpus;

	/* where we are */
	uint64_t ev;
	struct trawl_index_event cur;
	int cpu_pinned;                     /* registers/steps follow `cpu` */
	uint16_t cpu;                       /* the CPU shown */

	/* folding: events deeper than fold_depth are hidden */
	int fold;
	int32_t fold_depth;

	/* register state after ev and before it, for the shown CPU */
	struct trawl_index_regs regs, before;
	uint64_t regs_ev;                   /* event regs belong to, NO_EVENT = stale */
	uint16_t regs_cpu;

	/* the memory pane */
	char mem_expr[128];
	uint64_t mem_addr;                  /* first byte shown (16-aligned) */
	uint64_t mem_value;                 /* what mem_expr evaluated to */
	int mem_set;
	uint64_t mem_ref;                   /* reference event, NO_EVENT = the one before */
	uint32_t mem_rows;                  /* rows the pane showed last (set by layout) */

	/* selection for time travel */
	enum focus focus;
	enum focus target;                  /* FOCUS_REGS or FOCUS_MEM: what w/W act on */
	uint32_t sel_reg;                   /* selected storage register (core pane) */
	uint64_t sel_addr;                  /* selected memory byte */

	/* optional panes */
	int show_fp, show_sve;
	int vec_scroll;

	/* repeating searches */
	enum search_kind last_kind;
	int last_dir;
	char last_text[256];
	uint64_t last_pc;

	char msg[256];                      /* message for the status line */
	int msg_error;
	int help;                           /* help screen shown */
	int quit;
};

/* Signals (SIGINT/SIGTERM) set this; long scans stop when it is set. */
extern volatile sig_atomic_t browser_interrupted;

/* ---- nav.c: moving (no curses) ---- */
void nav_init(struct browser *b);
void nav_release(struct browser *b);
/* Go to event ev (clamped); refreshes cur. */
void nav_goto(struct browser *b, uint64_t ev);
/* Is ev shown (its CPU when pinned, its depth when folded)? */
int nav_visible(struct browser *b, const struct trawl_index_event *e);
/* Next/previous shown event from ev, NO_EVENT when none. */
uint64_t nav_next(struct browser *b, uint64_t ev);
uint64_t nav_prev(struct browser *b, uint64_t ev);
/* Move by n shown events (negative = back). */
void nav_step(struct browser *b, int64_t n);
void nav_first(struct browser *b);
void nav_last(struct browser *b);
int nav_goto_line(struct browser *b, uint64_t line);
int nav_goto_time(struct browser *b, uint64_t t);
/* Step over the call at the current event (next event on this CPU at the
 * same depth or shallower), step back over one, step out of the current
 * function. */
int nav_step_over(struct browser *b, int dir);
int nav_step_out(struct browser *b);
void nav_fold_toggle(struct browser *b);
/* Cycle the shown CPU: follow-the-event -> cpu 0 -> cpu 1 ... -> follow. */
void nav_switch_cpu(struct browser *b);
/* Text search in the trace from the current event; dir +1/-1. */
int nav_search_text(struct browser *b, const char *text, int dir);
/* Next/previous visit of pc. */
int nav_search_pc(struct browser *b, uint64_t pc, int dir);
/* Repeat the last search; dir +1 same direction, -1 opposite. */
int nav_repeat(struct browser *b, int dir);
/* Time travel on the selection (register or memory byte): last (dir -1) or
 * next (dir +1) write. */
int nav_write(struct browser *b, int dir);
/* [ and ]: previous/next write of the memory pane's range. */
int nav_mem_change(struct browser *b, int dir);
/* Evaluate an address expression at the current event. */
int nav_eval(struct browser *b, const char *text, uint64_t *out);
/* Make sure regs/before hold the state for the current event and CPU. */
void nav_load_regs(struct browser *b);
/* Status message (printf-style); error=1 shows it as an error. */
void nav_msg(struct browser *b, int error, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* The rows of the core register pane for the current event's state, in
 * order: returns the count and points regs at the storage registers.
 * core_reg_max is the longest list (AArch64), which the layout sizes for
 * so the panes do not move when the state changes. */
unsigned nav_core_regs(const struct browser *b, const uint32_t **regs);
extern const unsigned core_reg_max;
/* The row the selection (sel_reg, a storage register) is on in the
 * current list: its own row, or when the state has no such register (x20
 * in AArch32) the row of the nearest register below it. */
unsigned nav_sel_row(const struct browser *b);
/* Is the current event AArch32 (A32 or T32)? */
int nav_is_a32(const struct browser *b);
/* The pc the register pane and expressions show: the address of the
 * current instruction when it is the shown CPU's; 0 when there is none. */
int nav_pc(const struct browser *b, uint64_t *pc);
/* The name of reg in the pane for the current event: in AArch32 r0-r12,
 * lr and sp/pc (written into buf when not the index's name), the index's
 * name otherwise. */
const char *nav_reg_name(const struct browser *b, uint32_t reg, char *buf, size_t size);

/* ---- layout.c ---- */
void layout_compute(struct browser *b, int rows, int cols, struct layout *l);

/* ---- panes (curses) ---- */
void pane_trace_draw(struct browser *b, const struct rect *r);
void pane_regs_draw(struct browser *b, const struct rect *r, int cols);
void pane_mem_draw(struct browser *b, const struct rect *r);
void pane_vec_draw(struct browser *b, const struct rect *r);
void pane_status_draw(struct browser *b, const struct rect *r);
void pane_help_draw(struct browser *b, int rows, int cols);
/* Draw everything for the current state. */
void browser_draw(struct browser *b);

/* ---- prompt.c ---- */
/* Read a line on the status row; returns 1 with buf filled, 0 on cancel. */
int prompt_read(struct browser *b, const char *label, char *buf, size_t size);

/* ---- keys.c ---- */
void keys_handle(struct browser *b, int key);

/* ---- term.c ---- */
struct browse_options {
	const char *bench_keys;     /* run these keys, time each redraw, then quit */
	const char *bench_out;      /* where to write the timings ("-" = stderr) */
	double start_ms;            /* when the command started (CLOCK_MONOTONIC) */
};
/* The next key: from the terminal, or from the --bench-keys script.
 * ERR when none came (a timeout, a signal). */
int term_key(struct browser *b);
/* Milliseconds on the monotonic clock. */
double term_now_ms(void);
/* Run the browser on the terminal; returns an exit code, or -1 when the
 * terminal cannot be used (not a terminal, unknown TERM). */
int browser_run(struct browser *b, const struct browse_options *o);

/* Colour pairs. */
enum {
	COL_NORMAL = 0,
	COL_CURRENT = 1,
	COL_CHANGED,
	COL_UNKNOWN,
	COL_TITLE,
	COL_STATUS,
	COL_ERROR,
	COL_SELECT,
	COL_FOLD,
};

#endif
