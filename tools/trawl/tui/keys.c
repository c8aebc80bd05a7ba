/* Keys to actions. Moving keys act on the trace whatever pane has the
 * focus; arrows move the selection in the register and memory panes (and
 * step in the trace pane); w/W travel to the writes of the selection. Help
 * is h or F1, since ? is the backward search as in less and vi. */
#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "tui/keys.h"
#include "tui/browser.h"

static const struct key_help help[] = {
	{ "j Down Enter", "next event (Down steps only when the trace pane has the focus)" },
	{ "k Up", "previous event" },
	{ "PgDn Space", "a page of events down" },
	{ "PgUp b", "a page of events up" },
	{ "g Home", "first event" },
	{ "G End", "last event" },
	{ "l", "go to a line of the trace" },
	{ "t", "go to a time (the last event at or before it)" },
	{ "p / P", "next / previous visit of a PC or symbol (an expression)" },
	{ "/ ?", "search the trace text forward / backward" },
	{ "n / N", "repeat the last search (p, P, / or ?) / in the other direction" },
	{ "s / S", "step over a call: next / previous event at this depth or above" },
	{ "u", "step out: the first event after the current function returns" },
	{ "f", "fold calls deeper than the current depth (again: unfold)" },
	{ "c", "switch CPU: follow each event's CPU, cpu 0, cpu 1, ..." },
	{ "Tab", "focus the next pane: trace, registers, memory" },
	{ "arrows", "select a register or memory byte (in those panes)" },
	{ "w / W", "jump to the last / next write of the selected register or byte" },
	{ "[ / ]", "previous / next write to the memory pane's range" },
	{ "m", "show memory at an address expression (x19+0x18, main-8, 0x4000)" },
	{ "r / R", "highlight memory changed since this line / since the previous event" },
	{ "v / z", "show or hide the FP/SIMD / SVE register pane" },
	{ "< >", "scroll the FP/SIMD or SVE pane" },
	{ "Ctrl-L", "redraw the screen" },
	{ "h F1", "this help" },
	{ "q Ctrl-C", "quit" },
};

const struct key_help *keys_help(size_t *count)
{
	*count = sizeof help / sizeof help[0];
	return help;
}

static int page(void)
{
	int h = LINES - 3;
	return h > 1 ? h : 1;
}

static void ask_number(struct browser *b, const char *label, int (*go)(struct browser *, uint64_t))
{
	char buf[64];
	uint64_t v;
	if (!prompt_read(b, label, buf, sizeof buf) || !buf[0])
		return;
	if (!nav_eval(b, buf, &v))
		return;
	go(b, v);
}

static void ask_pc(struct browser *b, int dir)
{
	char buf[128];
	uint64_t pc;
	if (!prompt_read(b, dir > 0 ? "next visit of pc: " : "previous visit of pc: ", buf,
			 sizeof buf) || !buf[0])
		return;
	if (nav_eval(b, buf, &pc))
		nav_search_pc(b, pc, dir);
}

static void ask_search(struct browser *b, int dir)
{
	char buf[256];
	if (!prompt_read(b, dir > 0 ? "/" : "?", buf, sizeof buf))
		return;
	if (!buf[0]) {
		if (b->last_kind == SEARCH_TEXT) /* empty: search again for the last text */
			snprintf(buf, sizeof buf, "%s", b->last_text);
		else
			return;
	}
	nav_search_text(b, buf, dir);
}

static void ask_mem(struct browser *b)
{
	char buf[128];
	uint64_t a;
	if (!prompt_read(b, "memory at: ", buf, sizeof buf) || !buf[0])
		return;
	if (!nav_eval(b, buf, &a))
		return;
	snprintf(b->mem_expr, sizeof b->mem_expr, "%s", buf);
	b->mem_value = a;
	b->mem_addr = a & ~(uint64_t)15;
	b->sel_addr = a;
	b->mem_set = 1;
	b->focus = FOCUS_MEM;
	b->target = FOCUS_MEM;
}

/* Arrows in the register pane move through the list; in the memory pane
 * they move the byte, scrolling the pane at its edges. */
static void move_selection(struct browser *b, int key)
{
	if (b->focus == FOCUS_REGS) {
		/* move from the row shown selected; the selection is kept as
		 * a storage register so it survives an AArch64/AArch32 switch */
		const uint32_t *regs;
		int n = (int)nav_core_regs(b, &regs), i = (int)nav_sel_row(b);
		int d = key == KEY_UP ? -1 : key == KEY_DOWN ? 1 : key == KEY_LEFT ? -12 : 12;
		i = ((i + d) % n + n) % n;
		b->sel_reg = regs[i];
		return;
	}
	int64_t d = key == KEY_UP ? -16 : key == KEY_DOWN ? 16 : key == KEY_LEFT ? -1 : 1;
	uint64_t a = b->sel_addr + (uint64_t)d;
	uint64_t span = (uint64_t)b->mem_rows * 16;
	b->sel_addr = a;
	if (a < b->mem_addr)
		b->mem_addr -= 16;
	else if (a - b->mem_addr >= span)
		b->mem_addr += 16;
}

/* ---- one handler per action; the key table below binds keys to them ---- */

static void k_quit(struct browser *b, int key) { (void)key; b->quit = 1; }
static void k_help(struct browser *b, int key) { (void)key; b->help = 1; }
static void k_next(struct browser *b, int key) { (void)key; nav_step(b, 1); }
static void k_prev(struct browser *b, int key) { (void)key; nav_step(b, -1); }
static void k_page_down(struct browser *b, int key) { (void)key; nav_step(b, page()); }
static void k_page_up(struct browser *b, int key) { (void)key; nav_step(b, -page()); }
static void k_first(struct browser *b, int key) { (void)key; nav_first(b); }
static void k_last(struct browser *b, int key) { (void)key; nav_last(b); }
static void k_line(struct browser *b, int key) { (void)key; ask_number(b, "go to line: ", nav_goto_line); }
/* A time with a unit ("1500ns", "3clk") is converted to the trace's as
 * `trawl regs --time` does (never cycles to real time); anything else is
 * an expression in the trace's unit. */
static void k_time(struct browser *b, int key)
{
	(void)key;
	char buf[64];
	uint64_t v;
	struct trawl_error err;
	struct trawl_index_info info;
	if (!prompt_read(b, "go to time: ", buf, sizeof buf) || !buf[0])
		return;
	trawl_index_get_info(b->ix, &info);
	size_t d = strspn(buf, "0123456789."), sp = d ? strspn(buf + d, " ") : 0;
	const char *u = buf + d + sp;
	if (d && *u && u[strspn(u, "abcdefghijklmnopqrstuvwxyz")] == 0 &&
	    !(d == 1 && buf[0] == '0' && !sp && *u == 'x')) {
		if (trawl_time_parse(buf, (enum trawl_time_unit)info.time_unit, &v, &err))
			nav_msg(b, 1, "%s", err.message);
		else
			nav_goto_time(b, v);
		return;
	}
	if (nav_eval(b, buf, &v))
		nav_goto_time(b, v);
}
static void k_pc(struct browser *b, int key) { ask_pc(b, key == 'p' ? 1 : -1); }
static void k_search(struct browser *b, int key) { ask_search(b, key == '/' ? 1 : -1); }
static void k_repeat(struct browser *b, int key) { nav_repeat(b, key == 'n' ? 1 : -1); }
static void k_step_over(struct browser *b, int key) { nav_step_over(b, key == 's' ? 1 : -1); }
static void k_step_out(struct browser *b, int key) { (void)key; nav_step_out(b); }
static void k_fold(struct browser *b, int key) { (void)key; nav_fold_toggle(b); }
static void k_cpu(struct browser *b, int key) { (void)key; nav_switch_cpu(b); }
static void k_write(struct browser *b, int key) { nav_write(b, key == 'w' ? -1 : 1); }
static void k_mem_change(struct browser *b, int key) { nav_mem_change(b, key == '[' ? -1 : 1); }
static void k_mem(struct browser *b, int key) { (void)key; ask_mem(b); }
static void k_vec_left(struct browser *b, int key) { (void)key; b->vec_scroll -= 4; }
static void k_vec_right(struct browser *b, int key) { (void)key; b->vec_scroll += 4; }
static void k_redraw(struct browser *b, int key) { (void)key; clearok(curscr, TRUE); }
static void k_none(struct browser *b, int key) { (void)b; (void)key; }

/* Arrows step the trace when it has the focus (or the memory pane has no
 * address yet), else move the selection in the focused pane. */
static void k_arrow(struct browser *b, int key)
{
	if (b->focus == FOCUS_TRACE || (b->focus == FOCUS_MEM && !b->mem_set)) {
		if (key == KEY_UP || key == KEY_DOWN)
			nav_step(b, key == KEY_UP ? -1 : 1);
	} else {
		move_selection(b, key);
	}
}

static void k_focus(struct browser *b, int key)
{
	(void)key;
	b->focus = (enum focus)((b->focus + 1) % FOCUS_COUNT);
	if (b->focus == FOCUS_MEM && !b->mem_set)
		b->focus = FOCUS_TRACE;
	if (b->focus != FOCUS_TRACE)
		b->target = b->focus;
}

static void k_mem_ref(struct browser *b, int key)
{
	if (key == 'r') {
		b->mem_ref = b->ev;
		nav_msg(b, 0, "memory changes are now shown since line %llu",
			(unsigned long long)b->cur.line);
	} else {
		b->mem_ref = NO_EVENT;
		nav_msg(b, 0, "memory changes are shown since the previous event");
	}
}

static void k_vectors(struct browser *b, int key)
{
	/* v: FP/SIMD pane, z: SVE pane; at most one is shown */
	if (key == 'v') {
		b->show_fp = !b->show_fp;
		b->show_sve = 0;
	} else {
		b->show_sve = !b->show_sve;
		b->show_fp = 0;
	}
	b->vec_scroll = 0;
}

static const struct {
	int key;
	void (*fn)(struct browser *b, int key);
} bindings[] = {
	{ 'q', k_quit }, { 'h', k_help }, { KEY_F(1), k_help },
	{ KEY_UP, k_arrow }, { KEY_DOWN, k_arrow }, { KEY_LEFT, k_arrow }, { KEY_RIGHT, k_arrow },
	{ 'j', k_next }, { '\n', k_next }, { '\r', k_next }, { KEY_ENTER, k_next }, { 'k', k_prev },
	{ KEY_NPAGE, k_page_down }, { ' ', k_page_down }, { 6 /* Ctrl-F */, k_page_down },
	{ KEY_PPAGE, k_page_up }, { 'b', k_page_up }, { 2 /* Ctrl-B */, k_page_up },
	{ 'g', k_first }, { KEY_HOME, k_first }, { 'G', k_last }, { KEY_END, k_last },
	{ 'l', k_line }, { 't', k_time }, { 'p', k_pc }, { 'P', k_pc },
	{ '/', k_search }, { '?', k_search }, { 'n', k_repeat }, { 'N', k_repeat },
	{ 's', k_step_over }, { 'S', k_step_over }, { 'u', k_step_out }, { 'f', k_fold },
	{ 'c', k_cpu }, { '\t', k_focus }, { 'w', k_write }, { 'W', k_write },
	{ '[', k_mem_change }, { ']', k_mem_change }, { 'm', k_mem },
	{ 'r', k_mem_ref }, { 'R', k_mem_ref }, { 'v', k_vectors }, { 'z', k_vectors },
	{ '<', k_vec_left }, { '>', k_vec_right }, { 12 /* Ctrl-L */, k_redraw },
	{ KEY_RESIZE, k_none },
};

void keys_handle(struct browser *b, int key)
{
	b->msg[0] = 0;
	b->msg_error = 0;
	if (b->help) {
		b->help = 0;
		if (key != 'q')
			return;
	}
	for (size_t i = 0; i < sizeof bindings / sizeof bindings[0]; i++) {
		if (bindings[i].key == key) {
			bindings[i].fn(b, key);
			return;
		}
	}
	nav_msg(b, 1, "unknown key (h for help)");
}
