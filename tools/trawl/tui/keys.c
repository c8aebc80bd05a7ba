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

void keys_handle(struct browser *b, int key)
{
	b->msg[0] = 0;
	b->msg_error = 0;
	if (b->help) {
		b->help = 0;
		if (key != 'q')
			return;
	}
	switch (key) {
	case 'q':
		b->quit = 1;
		break;
	case 'h':
	case KEY_F(1):
		b->help = 1;
		break;
	case KEY_UP:
	case KEY_DOWN:
	case KEY_LEFT:
	case KEY_RIGHT:
		if (b->focus == FOCUS_TRACE || (b->focus == FOCUS_MEM && !b->mem_set)) {
			if (key == KEY_UP || key == KEY_DOWN)
				nav_step(b, key == KEY_UP ? -1 : 1);
		} else {
			move_selection(b, key);
		}
		break;
	case 'j':
	case '\n':
	case '\r':
	case KEY_ENTER:
		nav_step(b, 1);
		break;
	case 'k':
		nav_step(b, -1);
		break;
	case KEY_NPAGE:
	case ' ':
	case 6: /* Ctrl-F */
		nav_step(b, page());
		break;
	case KEY_PPAGE:
	case 'b':
	case 2: /* Ctrl-B */
		nav_step(b, -page());
		break;
	case 'g':
	case KEY_HOME:
		nav_first(b);
		break;
	case 'G':
	case KEY_END:
		nav_last(b);
		break;
	case 'l':
		ask_number(b, "go to line: ", nav_goto_line);
		break;
	case 't':
		ask_number(b, "go to time: ", nav_goto_time);
		break;
	case 'p':
	case 'P':
		ask_pc(b, key == 'p' ? 1 : -1);
		break;
	case '/':
	case '?':
		ask_search(b, key == '/' ? 1 : -1);
		break;
	case 'n':
	case 'N':
		nav_repeat(b, key == 'n' ? 1 : -1);
		break;
	case 's':
	case 'S':
		nav_step_over(b, key == 's' ? 1 : -1);
		break;
	case 'u':
		nav_step_out(b);
		break;
	case 'f':
		nav_fold_toggle(b);
		break;
	case 'c':
		nav_switch_cpu(b);
		break;
	case '\t':
		b->focus = (enum focus)((b->focus + 1) % FOCUS_COUNT);
		if (b->focus == FOCUS_MEM && !b->mem_set)
			b->focus = FOCUS_TRACE;
		if (b->focus != FOCUS_TRACE)
			b->target = b->focus;
		break;
	case 'w':
	case 'W':
		nav_write(b, key == 'w' ? -1 : 1);
		break;
	case '[':
	case ']':
		nav_mem_change(b, key == '[' ? -1 : 1);
		break;
	case 'm':
		ask_mem(b);
		break;
	case 'r':
		b->mem_ref = b->ev;
		nav_msg(b, 0, "memory changes are now shown since line %llu",
			(unsigned long long)b->cur.line);
		break;
	case 'R':
		b->mem_ref = NO_EVENT;
		nav_msg(b, 0, "memory changes are shown since the previous event");
		break;
	case 'v':
		b->show_fp = !b->show_fp;
		b->show_sve = 0;
		b->vec_scroll = 0;
		break;
	case 'z':
		b->show_sve = !b->show_sve;
		b->show_fp = 0;
		b->vec_scroll = 0;
		break;
	case '<':
		b->vec_scroll -= 4;
		break;
	case '>':
		b->vec_scroll += 4;
		break;
	case 12: /* Ctrl-L */
		clearok(curscr, TRUE);
		break;
	case KEY_RESIZE:
		break;
	default:
		nav_msg(b, 1, "unknown key (h for help)");
		break;
	}
}
